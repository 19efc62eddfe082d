"""The one exception the client raises for a failed call: the server's status, readably."""

from __future__ import annotations

import grpc
from google.rpc import error_details_pb2
from grpc_status import rpc_status


class BeloteError(Exception):
    """A call the server refused (or that could not reach it after every retry).

    ``code`` is the gRPC status code, ``message`` the server's sentence for people (e.g.
    "you must follow hearts"), ``reason`` the stable word of its ``ErrorInfo`` detail
    (e.g. ``MUST_FOLLOW_SUIT``; None when the status carries none, as for a transport
    failure) and ``field`` the request field at fault for INVALID_ARGUMENT (or None).
    ``str(err)`` is ``"FAILED_PRECONDITION: you must follow hearts"``.
    """

    def __init__(self, code: grpc.StatusCode, message: str, reason: str | None = None,
                 field: str | None = None, attempts: int = 1):
        super().__init__(f"{code.name}: {message}")
        self.code = code
        self.message = message
        self.reason = reason
        self.field = field
        #: How many times the call was sent before giving up (retries included).
        self.attempts = attempts

    @classmethod
    def from_rpc_error(cls, err: grpc.aio.AioRpcError, attempts: int = 1) -> BeloteError:
        reason = field = None
        try:
            status = rpc_status.from_call(err)
        except Exception:  # noqa: BLE001 - malformed details: keep code and message
            status = None
        for detail in status.details if status is not None else ():
            if detail.Is(error_details_pb2.ErrorInfo.DESCRIPTOR):
                info = error_details_pb2.ErrorInfo()
                detail.Unpack(info)
                reason = info.reason or None
            elif detail.Is(error_details_pb2.BadRequest.DESCRIPTOR):
                bad = error_details_pb2.BadRequest()
                detail.Unpack(bad)
                if bad.field_violations:
                    field = bad.field_violations[0].field or None
        return cls(err.code(), err.details() or "", reason, field, attempts)
