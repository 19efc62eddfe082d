"""TableService for browsers: the Connect protocol (JSON and binary) and gRPC-Web, as an ASGI app
of connectrpc, in front of the very servicer the gRPC port serves.

Every RPC is the gRPC servicer's own method, called with a context that speaks grpc's servicer
API (metadata from the HTTP headers, ``abort_with_status``, ``write``): the same app calls, the
same status table (api/errors.py), the same ErrorInfo reasons (as Connect error details) and the
same redaction. Only the framing differs. The web path's metrics carry a ``protocol`` label
(``connect`` or ``grpc_web``) and each call logs the same ``rpc`` line as the gRPC port.
"""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections.abc import AsyncIterator

import grpc
import structlog
from connectrpc.code import Code
from connectrpc.compat import google_protobuf_codecs
from connectrpc.errors import ConnectError, ErrorDetail
from connectrpc.method import IdempotencyLevel, MethodInfo, StreamType
from connectrpc.request import RequestContext
from connectrpc.server import ConnectASGIApplication, Endpoint
from google.protobuf import message_factory
from google.rpc import status_pb2
from protobuf.wkt import Any as ConnectAny

from belote import observability as metrics
from belote.v1 import table_service_pb2

from .measured import _begin as begin_rpc_log

SERVICE = table_service_pb2.DESCRIPTOR.services_by_name["TableService"]
# A request larger than this is refused before it is parsed (the gRPC port's default is 4 MiB
# too; a real request is a few hundred bytes).
READ_MAX_BYTES = 64 * 1024

log = structlog.get_logger("belote.rpc")

# grpc spells one code differently from Connect: CANCELLED / canceled.
_CONNECT_CODES = {c: Code.CANCELED if c is grpc.StatusCode.CANCELLED else Code[c.name]
                  for c in grpc.StatusCode if c is not grpc.StatusCode.OK}
_GRPC_NAMES = {code: grpc_code.name for grpc_code, code in _CONNECT_CODES.items()}
_DETAILS_KEY = "grpc-status-details-bin"


def connect_error(status: grpc.Status) -> ConnectError:
    """The Connect error of a gRPC status the servicer aborted with: code, message and every
    detail (the ErrorInfo with its reason, a BadRequest) carried over unchanged."""
    details = []
    for key, value in status.trailing_metadata or ():
        if key == _DETAILS_KEY:
            rich = status_pb2.Status.FromString(value)
            details = [ErrorDetail(ConnectAny(type_url=d.type_url, value=d.value))
                       for d in rich.details]
    return ConnectError(_CONNECT_CODES.get(status.code, Code.UNKNOWN), status.details, details)


def protocol_of(ctx: RequestContext) -> str:
    content_type = ctx.request_headers.get("content-type", "")
    return "grpc_web" if content_type.startswith("application/grpc-web") else "connect"


class _ServicerContext:
    """What the servicer uses of grpc.aio.ServicerContext, over one web request."""

    def __init__(self, ctx: RequestContext, stream: asyncio.Queue | None = None) -> None:
        self._ctx = ctx
        self._stream = stream

    def invocation_metadata(self) -> tuple[tuple[str, str], ...]:
        return tuple(self._ctx.request_headers.allitems())

    def peer(self) -> str:
        """The direct peer (the socket's: uvicorn reads no proxy header) in grpc's form
        ("ipv4:10.0.0.5:53211"), so peer_host() reads it, with the HTTP headers as metadata, by
        the gRPC port's very rule for trusted proxies (api/callers.py)."""
        address = self._ctx.client_address or ""
        host, _, port = address.rpartition(":")
        if ":" in host:
            return f"ipv6:[{host}]:{port}"
        return f"ipv4:{address}" if address else ""

    def time_remaining(self) -> float | None:
        remaining_ms = self._ctx.timeout_ms
        return None if remaining_ms is None else remaining_ms / 1000

    async def abort_with_status(self, status: grpc.Status) -> None:
        raise connect_error(status)

    async def write(self, message) -> None:
        await self._stream.put(message)


_END = object()


def _unary_endpoint(method: MethodInfo, behavior, log_key: bytes) -> Endpoint:
    async def call(request, ctx: RequestContext):
        begin_rpc_log(request, log_key)
        return await behavior(request, _ServicerContext(ctx))
    return Endpoint.unary(method, call)


def _stream_endpoint(method: MethodInfo, behavior, log_key: bytes) -> Endpoint:
    """The servicer writes its stream with context.write(); the ASGI side reads an iterator. A
    one-message queue between them keeps grpc's back-pressure: the servicer waits while the
    browser reads slowly, and a closed connection cancels it (its finally releases the watcher)."""
    async def call(request, ctx: RequestContext) -> AsyncIterator:
        begin_rpc_log(request, log_key)
        queue: asyncio.Queue = asyncio.Queue(maxsize=1)
        sent = metrics.WEB_MSG_SENT.labels(protocol_of(ctx), method.name)

        async def run() -> None:
            try:
                await behavior(request, _ServicerContext(ctx, queue))
            finally:
                await queue.put(_END)

        task = asyncio.create_task(run())
        try:
            while (message := await queue.get()) is not _END:
                yield message
                sent.inc()
            await task  # the servicer's error (a ConnectError) ends the stream with its status
        finally:
            task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await task
    return Endpoint.server_stream(method, call)


def method_infos() -> dict[str, MethodInfo]:
    """connectrpc's description of each TableService RPC, read from the proto's descriptor (what
    the connectrpc code generator would write out)."""
    return {rpc.name: MethodInfo(
        name=rpc.name, service_name=SERVICE.full_name,
        input=message_factory.GetMessageClass(rpc.input_type),
        output=message_factory.GetMessageClass(rpc.output_type),
        idempotency_level=IdempotencyLevel.UNKNOWN,
        stream_type=StreamType.SERVER_STREAM if rpc.server_streaming else StreamType.UNARY)
        for rpc in SERVICE.methods}


def table_service_endpoints(servicer, log_key: bytes) -> dict[str, Endpoint]:
    """Each TableService RPC (the proto's list, so a new RPC is served here once the servicer
    has it) mapped to the servicer's method of that name; `log_key` hashes request ids in the
    log lines as the gRPC port's do."""
    endpoints = {}
    for name, info in method_infos().items():
        streams = info.stream_type is StreamType.SERVER_STREAM
        make = _stream_endpoint if streams else _unary_endpoint
        endpoints[f"/{SERVICE.full_name}/{name}"] = make(info, getattr(servicer, name), log_key)
    return endpoints


def code_name(error: Exception | None) -> str:
    """The gRPC code name of how a call ended, as grpc_server_handled_total spells it."""
    if error is None:
        return "OK"
    if isinstance(error, ConnectError):
        return _GRPC_NAMES.get(error.code, "UNKNOWN")
    if isinstance(error, TimeoutError):
        return "DEADLINE_EXCEEDED"
    return "UNKNOWN"


class _Measured:
    """A metadata interceptor: it sees every call that names a known RPC, from before its request
    is parsed to its status (a request that does not parse counts as INVALID_ARGUMENT)."""

    async def on_start(self, ctx: RequestContext) -> float:
        method = ctx.method
        kind = "server_stream" if method.stream_type is StreamType.SERVER_STREAM else "unary"
        metrics.WEB_STARTED.labels(protocol_of(ctx), kind, method.name).inc()
        return time.perf_counter()

    async def on_end(self, started: float, ctx: RequestContext, error: Exception | None) -> None:
        elapsed = time.perf_counter() - started
        protocol, method, code = protocol_of(ctx), ctx.method.name, code_name(error)
        kind = "server_stream" if ctx.method.stream_type is StreamType.SERVER_STREAM else "unary"
        metrics.WEB_HANDLED.labels(protocol, kind, method, code).inc()
        metrics.WEB_HANDLING.labels(protocol, kind, method).observe(elapsed)
        log.info("rpc", method=method, code=code, protocol=protocol,
                 duration_ms=round(elapsed * 1000, 3))


def table_service_app(servicer, log_key: bytes) -> ConnectASGIApplication:
    """The ASGI app serving TableService over Connect (JSON, binary) and gRPC-Web."""

    class TableServiceASGI(ConnectASGIApplication):
        @property
        def path(self) -> str:
            return f"/{SERVICE.full_name}"

    return TableServiceASGI(service=servicer,
                            endpoints=lambda s: table_service_endpoints(s, log_key),
                            interceptors=(_Measured(),), read_max_bytes=READ_MAX_BYTES,
                            codecs=google_protobuf_codecs())
