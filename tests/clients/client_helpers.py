"""Helpers of the client tests: a TCP proxy that can cut connections, a seat that plays
random legal actions, failure-injecting interceptors, the tools (node, npm, tmux, grpcurl) the
tests drive. A missing tool skips its tests, except under CI (env CI set), where it fails them."""

from __future__ import annotations

import asyncio
import contextlib
import os
import random
import shutil
import sys
from pathlib import Path

import urllib.request

import grpc
import pytest
from belote_client import BeloteError, Seat
from prometheus_client.parser import text_string_to_metric_families

ROOT = Path(__file__).resolve().parents[2]


class CuttableProxy:
    """A TCP proxy on 127.0.0.1:<any port> in front of a server (gRPC goes through it as is).

    ``cut()`` aborts every open connection, as a network failure would; ``upstream`` may be
    changed at any time (a restarted server on another port): new connections go there. While
    the upstream refuses connections, a client's connection is closed at once.
    """

    def __init__(self, upstream: str) -> None:
        self.upstream = upstream
        self.address = ""
        self.cuts = 0
        self._server: asyncio.base_events.Server | None = None
        self._transports: set[asyncio.Transport] = set()

    async def start(self) -> str:
        self._server = await asyncio.start_server(self._handle, "127.0.0.1", 0)
        port = self._server.sockets[0].getsockname()[1]
        self.address = f"127.0.0.1:{port}"
        return self.address

    async def _handle(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        host, _, port = self.upstream.rpartition(":")
        try:
            up_reader, up_writer = await asyncio.open_connection(host, int(port))
        except OSError:
            writer.transport.abort()
            return
        pair = (writer.transport, up_writer.transport)
        self._transports.update(pair)

        async def pipe(src: asyncio.StreamReader, dst: asyncio.StreamWriter) -> None:
            with contextlib.suppress(OSError, asyncio.CancelledError):
                while data := await src.read(65536):
                    dst.write(data)
                    await dst.drain()
            dst.transport.abort()

        try:
            await asyncio.gather(pipe(reader, up_writer), pipe(up_reader, writer))
        finally:
            self._transports.difference_update(pair)

    def cut(self) -> None:
        """Abort every open connection (both sides)."""
        self.cuts += 1
        for transport in list(self._transports):
            transport.abort()
        self._transports.clear()

    async def close(self) -> None:
        self.cut()
        if self._server is not None:
            self._server.close()
            with contextlib.suppress(Exception):
                await asyncio.wait_for(self._server.wait_closed(), 2)


async def play_turn(seat: Seat, rng: random.Random) -> bool:
    """If it is `seat`'s turn, take a random legal action; True if one was taken."""
    legal = await seat.legal_actions()
    if not legal.your_turn:
        return False
    try:
        await seat.act(rng.choice(legal.actions), expected_version=legal.version)
    except BeloteError as err:  # the table moved on between the two calls: try again later
        if err.code != grpc.StatusCode.ABORTED:
            raise
        return False
    return True


def rpcs_handled(metrics_url: str) -> dict[str, float]:
    """The RPCs a server has answered so far, per method (every status code), from its
    Prometheus metrics (grpc_server_handled_total)."""
    with urllib.request.urlopen(metrics_url, timeout=5) as reply:
        text = reply.read().decode()
    handled: dict[str, float] = {}
    for family in text_string_to_metric_families(text):
        for sample in family.samples:
            if sample.name == "grpc_server_handled_total":
                method = sample.labels["grpc_method"]
                handled[method] = handled.get(method, 0.0) + sample.value
    return handled


def rpcs_since(before: dict[str, float], metrics_url: str) -> dict[str, float]:
    """The unary RPCs answered since ``before`` (rpcs_handled), per method; the watch streams
    left out (one ends when its client is gone, which the server may count a little later)."""
    after = rpcs_handled(metrics_url)
    return {m: n - before.get(m, 0.0) for m, n in after.items()
            if n != before.get(m, 0.0) and m != "WatchTable"}


class FailAfterSending(grpc.aio.UnaryUnaryClientInterceptor):
    """For the first `times` calls of `method` (e.g. "Act"): send the call for real, then
    answer the client with `code` as if the reply had been lost. Records every request."""

    def __init__(self, method: str, code: grpc.StatusCode, times: int = 1) -> None:
        self.method = method
        self.code = code
        self.left = times
        self.requests: list = []
        self.replies: list = []

    async def intercept_unary_unary(self, continuation, client_call_details, request):
        method = client_call_details.method
        if isinstance(method, bytes):
            method = method.decode()
        if not method.endswith("/" + self.method):
            return await continuation(client_call_details, request)
        copy = type(request)()
        copy.CopyFrom(request)
        self.requests.append(copy)
        call = await continuation(client_call_details, request)
        if self.left > 0:
            self.left -= 1
            self.replies.append(await call)  # the server did the work...
            raise grpc.aio.AioRpcError(self.code, grpc.aio.Metadata(), grpc.aio.Metadata(),
                                       details="injected: the reply was lost")  # ...we lost it
        return call


def need_tool(name: str, why: str) -> str:
    """The path of `name`, or skip (fail under CI) when it is not installed."""
    venv = Path(sys.executable).parent / name  # the project's own (grpcurl) first
    found = str(venv) if venv.exists() else shutil.which(name)
    if found:
        return found
    message = f"{name} is not installed ({why})"
    if os.environ.get("CI"):
        pytest.fail(message)
    pytest.skip(message)
