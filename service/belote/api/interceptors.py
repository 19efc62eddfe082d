"""The standard gRPC server metrics (grpc_server_*, as go-grpc-prometheus names them) for every
RPC of every service on the server, health and reflection included.

Labels are the RPC's type, service and method and the status code: nothing per table or player.
"""

from __future__ import annotations

import asyncio
import inspect
import time

import grpc

from belote import observability as metrics


def _code_name(context: grpc.aio.ServicerContext, failed: BaseException | None) -> str:
    if isinstance(failed, (asyncio.CancelledError, GeneratorExit)):
        return "CANCELLED"  # the client went away (or the server stopped the call)
    code = context.code()  # set by abort() and set_code(); None when the handler just returned
    if code is None:
        return "OK" if failed is None else "UNKNOWN"
    return code.name if isinstance(code, grpc.StatusCode) else _BY_NUMBER.get(code, "UNKNOWN")


_BY_NUMBER = {c.value[0]: c.name for c in grpc.StatusCode}


class MetricsInterceptor(grpc.aio.ServerInterceptor):
    async def intercept_service(self, continuation, details: grpc.HandlerCallDetails):
        handler = await continuation(details)
        if handler is None:  # unknown method: grpc answers UNIMPLEMENTED itself
            return handler
        service, _, method = details.method.lstrip("/").rpartition("/")
        if handler.unary_unary:
            labels = ("unary", service, method)
            return grpc.unary_unary_rpc_method_handler(
                _unary(handler.unary_unary, labels),
                request_deserializer=handler.request_deserializer,
                response_serializer=handler.response_serializer)
        # Streams written with context.write() (health's Watch) are left as they are: a wrapper
        # of another kind would change how grpc drives them.
        if handler.unary_stream and inspect.isasyncgenfunction(handler.unary_stream):
            labels = ("server_stream", service, method)
            return grpc.unary_stream_rpc_method_handler(
                _server_stream(handler.unary_stream, labels),
                request_deserializer=handler.request_deserializer,
                response_serializer=handler.response_serializer)
        return handler  # streaming requests (reflection): served, not measured


def _unary(behavior, labels):
    async def call(request, context):
        metrics.GRPC_STARTED.labels(*labels).inc()
        metrics.GRPC_MSG_RECEIVED.labels(*labels).inc()
        started, failed = time.perf_counter(), None
        try:
            return await behavior(request, context)
        except BaseException as exc:
            failed = exc
            raise
        finally:
            metrics.GRPC_HANDLED.labels(*labels, _code_name(context, failed)).inc()
            metrics.GRPC_HANDLING.labels(*labels).observe(time.perf_counter() - started)
    return call


def _server_stream(behavior, labels):
    async def call(request, context):
        metrics.GRPC_STARTED.labels(*labels).inc()
        metrics.GRPC_MSG_RECEIVED.labels(*labels).inc()
        sent = metrics.GRPC_MSG_SENT.labels(*labels)
        started, failed = time.perf_counter(), None
        try:
            async for message in behavior(request, context):
                sent.inc()
                yield message
        except BaseException as exc:
            failed = exc
            raise
        finally:
            metrics.GRPC_HANDLED.labels(*labels, _code_name(context, failed)).inc()
            metrics.GRPC_HANDLING.labels(*labels).observe(time.perf_counter() - started)
    return call
