"""AppError -> gRPC status: the one table of the status codes a client receives on purpose.

Every error carries rich details (``grpc-status-details-bin``, a ``google.rpc.Status``):
an ``ErrorInfo`` whose ``reason`` is the app's stable word (``MUST_FOLLOW_SUIT``...) in the
``belote.v1`` domain, plus a ``BadRequest`` naming the field at fault for INVALID_ARGUMENT.
Anything that is not an AppError is a bug: it is logged here and the client gets a bare
INTERNAL, never a traceback.
"""

from __future__ import annotations

import grpc
import structlog
from google.rpc import error_details_pb2, status_pb2
from grpc_status import rpc_status

from belote.app import errors as app_errors
from belote.app.errors import AppError
from belote.store import StoreUnavailable

DOMAIN = "belote.v1"

# AppError.code -> status code. A code missing here is an app bug and becomes INTERNAL.
STATUS_CODES: dict[str, grpc.StatusCode] = {
    app_errors.INVALID_ARGUMENT: grpc.StatusCode.INVALID_ARGUMENT,
    app_errors.NOT_FOUND: grpc.StatusCode.NOT_FOUND,
    app_errors.FAILED_PRECONDITION: grpc.StatusCode.FAILED_PRECONDITION,
    app_errors.PERMISSION_DENIED: grpc.StatusCode.PERMISSION_DENIED,
    app_errors.UNAUTHENTICATED: grpc.StatusCode.UNAUTHENTICATED,
    app_errors.ABORTED: grpc.StatusCode.ABORTED,
    app_errors.UNAVAILABLE: grpc.StatusCode.UNAVAILABLE,
    app_errors.RESOURCE_EXHAUSTED: grpc.StatusCode.RESOURCE_EXHAUSTED,
    app_errors.OUT_OF_RANGE: grpc.StatusCode.OUT_OF_RANGE,
    app_errors.ALREADY_EXISTS: grpc.StatusCode.ALREADY_EXISTS,
}

INTERNAL_MESSAGE = "internal error"
INTERNAL_REASON = "INTERNAL"

log = structlog.get_logger("belote.api")


def _status(code: grpc.StatusCode, reason: str, message: str, field: str | None = None) -> grpc.Status:
    status = status_pb2.Status(code=code.value[0], message=message)
    status.details.add().Pack(error_details_pb2.ErrorInfo(reason=reason, domain=DOMAIN))
    if code is grpc.StatusCode.INVALID_ARGUMENT and field:
        violation = error_details_pb2.BadRequest.FieldViolation(field=field, description=message)
        status.details.add().Pack(error_details_pb2.BadRequest(field_violations=[violation]))
    return rpc_status.to_status(status)


def app_error_status(err: AppError) -> grpc.Status:
    """The status a client receives for an AppError."""
    code = STATUS_CODES.get(err.code)
    if code is None:
        log.error("app error with an unmapped code", code=err.code, reason=err.reason)
        return internal_status()
    return _status(code, err.reason, err.message, err.field)


def internal_status() -> grpc.Status:
    """What a client receives for a server bug: no detail of the bug itself."""
    return _status(grpc.StatusCode.INTERNAL, INTERNAL_REASON, INTERNAL_MESSAGE)


def status_for(exc: Exception, rpc: str) -> grpc.Status:
    """The status for anything an RPC raised; unexpected exceptions are logged with their traceback."""
    if isinstance(exc, AppError):
        return app_error_status(exc)
    if isinstance(exc, StoreUnavailable):
        return _status(grpc.StatusCode.UNAVAILABLE, "STORE_UNAVAILABLE",
                       "the store cannot be reached: retry later with the same request_id")
    log.error("unexpected error", rpc=rpc, exc_info=exc)
    return internal_status()
