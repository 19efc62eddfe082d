"""A TCP proxy in front of PostgreSQL, in the test's own event loop: `cut()` closes every
connection through it and refuses new ones until `restore()`, which is what a database restart
looks like to the servers behind it, without restarting the PostgreSQL server other tests use."""

from __future__ import annotations

import asyncio
import contextlib


class TcpProxy:
    def __init__(self, upstream_host: str, upstream_port: int):
        self.upstream = (upstream_host, upstream_port)
        self.port = 0
        self.refused = 0            # connections refused while cut
        self._server: asyncio.Server | None = None
        self._open: set[asyncio.StreamWriter] = set()
        self._serving: set[asyncio.Task] = set()
        self._cut = False

    async def start(self) -> int:
        self._server = await asyncio.start_server(self._serve, "127.0.0.1", 0)
        self.port = self._server.sockets[0].getsockname()[1]
        return self.port

    def cut(self) -> None:
        self._cut = True
        for writer in list(self._open):
            writer.transport.abort()
        self._open.clear()

    def restore(self) -> None:
        self._cut = False

    async def close(self) -> None:
        self.cut()
        if self._server is not None:
            self._server.close()
        if self._serving:      # each ends once its connections are aborted
            await asyncio.wait(self._serving, timeout=5)

    async def _serve(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        task = asyncio.current_task()
        self._serving.add(task)
        task.add_done_callback(self._serving.discard)
        if self._cut:
            self.refused += 1
            writer.transport.abort()
            return
        try:
            up_reader, up_writer = await asyncio.open_connection(*self.upstream)
        except OSError:
            writer.transport.abort()
            return
        self._open.update((writer, up_writer))
        try:
            await asyncio.gather(self._pump(reader, up_writer), self._pump(up_reader, writer))
        finally:
            for w in (writer, up_writer):
                self._open.discard(w)
                w.transport.abort()

    @staticmethod
    async def _pump(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        with contextlib.suppress(OSError, asyncio.IncompleteReadError):
            while data := await reader.read(65536):
                writer.write(data)
                await writer.drain()
        writer.transport.abort()
