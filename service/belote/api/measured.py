"""The standard gRPC server metrics (grpc_server_*, as go-grpc-prometheus names them) for every
RPC of every service on the server, health and reflection included, and one log line per RPC
(method, code, duration, table id, seat, request id hash).

Labels are the RPC's type, service and method and the status code: nothing per table or player.
"""

from __future__ import annotations

import asyncio
import hashlib
import hmac
import inspect
import time

import grpc
import structlog

from belote import observability as metrics

log = structlog.get_logger("belote.rpc")


# The server's deadline runs from when the call reached it, the client's from when it was sent:
# a client cancelling at its own deadline reaches the server slightly before the server's.
DEADLINE_SLACK_S = 0.05


def _code_name(context: grpc.aio.ServicerContext, failed: BaseException | None) -> str:
    if isinstance(failed, (asyncio.CancelledError, GeneratorExit)):
        remaining = context.time_remaining()
        if remaining is not None and remaining <= DEADLINE_SLACK_S:
            return "DEADLINE_EXCEEDED"
        return "CANCELLED"  # the client went away (or the server stopped the call)
    code = context.code()  # set by abort() and set_code(); None when the handler just returned
    if code is None:
        return "OK" if failed is None else "UNKNOWN"
    return code.name if isinstance(code, grpc.StatusCode) else _BY_NUMBER.get(code, "UNKNOWN")


_BY_NUMBER = {c.value[0]: c.name for c in grpc.StatusCode}


class MeasuredServer(grpc.aio.Server):
    """The server as the ``add_*_to_server`` functions see it: each handler they register is
    measured before grpc gets it. (A grpc.aio.ServerInterceptor does the same at a cost: a
    coroutine per call before the handler runs, and no registered-method fast path, about 8 %
    of a card's CPU in the load bench.)

    ``log_key``: the key of the request ids' hashes in log lines (derive(server key,
    "log-hash")), so a line's hash cannot be matched to an id without it."""

    def __init__(self, server: grpc.aio.Server, log_key: bytes) -> None:
        self.server = server
        self.log_key = log_key

    def add_generic_rpc_handlers(self, generic_rpc_handlers) -> None:
        self.server.add_generic_rpc_handlers(tuple(_Measured(h, self.log_key)
                                                   for h in generic_rpc_handlers))

    def add_registered_method_handlers(self, service_name: str, method_handlers: dict) -> None:
        self.server.add_registered_method_handlers(
            service_name, {method: _wrap(handler, f"/{service_name}/{method}", self.log_key)
                           for method, handler in method_handlers.items()})

    # The rest of grpc.aio.Server, as the server does it.
    def add_insecure_port(self, address: str) -> int:
        return self.server.add_insecure_port(address)

    def add_secure_port(self, address: str, server_credentials) -> int:
        return self.server.add_secure_port(address, server_credentials)

    async def start(self) -> None:
        await self.server.start()

    async def stop(self, grace: float | None) -> None:
        await self.server.stop(grace)

    async def wait_for_termination(self, timeout: float | None = None) -> bool:
        return await self.server.wait_for_termination(timeout)


class _Measured(grpc.GenericRpcHandler):
    """A generic handler whose method handlers are measured (each wrapped once per method)."""

    def __init__(self, handler: grpc.GenericRpcHandler, log_key: bytes) -> None:
        self._handler = handler
        self._log_key = log_key
        self._wrapped: dict[str, grpc.RpcMethodHandler | None] = {}

    def service(self, handler_call_details: grpc.HandlerCallDetails):
        method = handler_call_details.method
        wrapped = self._wrapped.get(method)
        if wrapped is None:
            wrapped = self._wrapped[method] = _wrap(self._handler.service(handler_call_details),
                                                    method, self._log_key)
        return wrapped


def _wrap(handler, full_method: str, log_key: bytes):
    if handler is None:  # unknown method: grpc answers UNIMPLEMENTED itself
        return handler
    service, _, method = full_method.lstrip("/").rpartition("/")
    if handler.unary_unary:
        labels = ("unary", service, method)
        return grpc.unary_unary_rpc_method_handler(
            _unary(handler.unary_unary, labels, log_key),
            request_deserializer=handler.request_deserializer,
            response_serializer=handler.response_serializer)
    if handler.unary_stream:
        labels = ("server_stream", service, method)
        # A stream handler is an async generator or a coroutine writing with context.write()
        # (ours, health's Watch): each keeps its kind, for grpc drives the two differently.
        if inspect.isasyncgenfunction(handler.unary_stream):
            measured = _server_stream(handler.unary_stream, labels, log_key)
        else:
            measured = _unary(handler.unary_stream, labels, log_key, writes=True)
        return grpc.unary_stream_rpc_method_handler(
            measured,
            request_deserializer=handler.request_deserializer,
            response_serializer=handler.response_serializer)
    return handler  # streaming requests (reflection): served, not measured


def _begin(request, log_key: bytes) -> None:
    """Start the RPC's log context; the app adds the caller's seat to it. (grpc runs each RPC
    in a task of its own, with a copy of the server's context: nothing to clear before or
    after.)"""
    request_id = getattr(request, "request_id", "")
    structlog.contextvars.bind_contextvars(
        table_id=getattr(request, "table_id", "") or None,
        # A keyed hash: the same id's lines go together, and nothing else links them to it.
        request_id=hmac.new(log_key, request_id.encode(), hashlib.sha256).hexdigest()[:16]
        if request_id else None)


class _MethodMetrics:
    """One method's children of the grpc_server_* metrics, looked up once rather than per call."""

    def __init__(self, labels: tuple[str, str, str], log_key: bytes) -> None:
        self.labels, self.method, self.log_key = labels, labels[2], log_key
        self.started = metrics.GRPC_STARTED.labels(*labels)
        self.received = metrics.GRPC_MSG_RECEIVED.labels(*labels)
        self.sent = metrics.GRPC_MSG_SENT.labels(*labels)
        self.handling = metrics.GRPC_HANDLING.labels(*labels)
        self._handled: dict[str, object] = {}

    def begin(self, request) -> float:
        _begin(request, self.log_key)
        self.started.inc()
        self.received.inc()
        return time.perf_counter()

    def end(self, code: str, started: float) -> None:
        elapsed = time.perf_counter() - started
        handled = self._handled.get(code)
        if handled is None:
            handled = self._handled[code] = metrics.GRPC_HANDLED.labels(*self.labels, code)
        handled.inc()
        self.handling.observe(elapsed)
        log.info("rpc", method=self.method, code=code, duration_ms=round(elapsed * 1000, 3))


def _unary(behavior, labels, log_key: bytes, *, writes: bool = False):
    """A handler that returns (a unary call's answer, or None once a stream is written with
    ``context.write()``: ``writes`` counts those messages)."""
    measured = _MethodMetrics(labels, log_key)

    async def call(request, context):
        started, failed = measured.begin(request), None
        try:
            return await behavior(request, _CountingWrites(context, measured.sent) if writes else context)
        except BaseException as exc:
            failed = exc
            raise
        finally:
            measured.end(_code_name(context, failed), started)
    return call


def _server_stream(behavior, labels, log_key: bytes):
    measured = _MethodMetrics(labels, log_key)

    async def call(request, context):
        started, failed = measured.begin(request), None
        sent = measured.sent
        try:
            async for message in behavior(request, context):
                sent.inc()
                yield message
        except BaseException as exc:
            failed = exc
            raise
        finally:
            measured.end(_code_name(context, failed), started)
    return call


class _CountingWrites:
    """A servicer context that counts the messages written through it."""

    def __init__(self, context: grpc.aio.ServicerContext, sent) -> None:
        self._context, self._sent = context, sent

    async def write(self, message) -> None:
        # Counted as it is handed to grpc: a client that has read it then never scrapes a count
        # without it (grpc's write returns only after the message went out).
        self._sent.inc()
        await self._context.write(message)

    def __getattr__(self, name: str):
        return getattr(self._context, name)
