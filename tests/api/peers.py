"""Another caller on the same machine: a loopback relay whose connections reach the server from
another address (127.0.0.N), so that its peer host (what per-caller limits count) is not the
test's own 127.0.0.1."""

from __future__ import annotations

import asyncio
import contextlib

import grpc
from belote.v1 import table_service_pb2_grpc


async def _pipe(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
    try:
        while data := await reader.read(65536):
            writer.write(data)
            await writer.drain()
    except (ConnectionError, asyncio.CancelledError):
        pass
    finally:
        writer.close()


@contextlib.asynccontextmanager
async def caller_from(host: str, address: str):
    """A TableService stub whose calls reach the server at ``address`` from ``host``."""
    target_host, _, port = address.rpartition(":")
    relays: set[asyncio.Task] = set()

    async def relay(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        up_reader, up_writer = await asyncio.open_connection(target_host, int(port),
                                                             local_addr=(host, 0))
        pipes = [asyncio.create_task(_pipe(reader, up_writer)),
                 asyncio.create_task(_pipe(up_reader, writer))]
        relays.update(pipes)
        await asyncio.gather(*pipes)

    listener = await asyncio.start_server(relay, "127.0.0.1", 0)
    local = f"127.0.0.1:{listener.sockets[0].getsockname()[1]}"
    try:
        async with grpc.aio.insecure_channel(local) as channel:
            yield table_service_pb2_grpc.TableServiceStub(channel)
    finally:
        listener.close()
        for task in relays:
            task.cancel()
        await asyncio.gather(*relays, return_exceptions=True)
