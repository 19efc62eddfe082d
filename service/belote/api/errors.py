"""AppError -> gRPC status: the one table of the status code each error reason comes with.

Every error carries rich details (``grpc-status-details-bin``, a ``google.rpc.Status``):
an ``ErrorInfo`` whose ``reason`` is a ``belote.v1.ErrorReason`` without its prefix
(``MUST_FOLLOW_SUIT``...) in the ``belote.v1`` domain, plus a ``BadRequest`` naming the field at fault for
INVALID_ARGUMENT.
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

# The refusals of the rules engine (IllegalAction.reason): an action the rules forbid now.
RULES_REASONS = (
    "NOT_YOUR_TURN", "NO_DEAL", "DEAL_IN_PROGRESS", "BAD_DECK", "NOT_BIDDING", "BIDDING",
    "AUCTION_OVER", "BAD_CALL", "MUST_TAKE", "FIRST_ROUND_TURNED_SUIT", "SECOND_ROUND_OTHER_SUIT",
    "NO_SA_TA", "MUST_OVERBID", "NO_DECLARATIONS", "ANNOUNCE_TOO_LATE", "ALREADY_ANNOUNCED",
    "CAPOT_ALREADY_ANNOUNCED", "UNKNOWN_ANNOUNCEMENT", "ANNOUNCEMENT_NOT_HELD", "BAD_CARD",
    "BAD_ACTION", "CARD_NOT_IN_HAND", "MUST_FOLLOW_SUIT", "MUST_GO_HIGHER", "MUST_UNDERTRUMP",
    "MUST_OVERTRUMP", "MUST_TRUMP",
)

# ErrorReason (errors.proto, without its prefix) -> the status code it always comes with: the one
# place a code is chosen. A reason missing here is an app bug and becomes INTERNAL
# (tests/api/test_error_reasons.py checks that every reason raised is here and in the proto).
_CODE_OF = {
    grpc.StatusCode.INVALID_ARGUMENT: (
        "INVALID_FIELD", "NAME_OF_A_SEAT", "INVALID_PAGE_TOKEN",
    ),
    grpc.StatusCode.NOT_FOUND: (
        "TABLE_NOT_FOUND",
    ),
    grpc.StatusCode.UNAUTHENTICATED: (
        "UNAUTHENTICATED",
    ),
    grpc.StatusCode.PERMISSION_DENIED: (
        "WRONG_PASSWORD", "NOT_YOUR_SEAT", "SEAT_LEFT", "NOT_REVIEWER",
    ),
    grpc.StatusCode.RESOURCE_EXHAUSTED: (
        "TOO_MANY_WRONG_PASSWORDS", "TOO_MANY_TABLES", "TOO_MANY_SPECTATORS",
        "TOO_MANY_SPECTATOR_STREAMS", "TOO_MANY_SEATS", "CHAT_TOO_FAST", "READS_TOO_SLOWLY",
    ),
    grpc.StatusCode.ABORTED: (
        "VERSION_CONFLICT", "TABLE_CHANGED", "TURN_MOVED_ON",
    ),
    grpc.StatusCode.OUT_OF_RANGE: (
        "SEQUENCE_AHEAD",
    ),
    grpc.StatusCode.ALREADY_EXISTS: (
        "REQUEST_ID_REUSED",
    ),
    grpc.StatusCode.UNAVAILABLE: (
        "STORE_UNAVAILABLE", "SHUTTING_DOWN", "BOT_WORKER_LOST",
    ),
    grpc.StatusCode.INTERNAL: (
        "INTERNAL",
    ),
    # The table's refusals (table/decide.py), then the rules' (rules/: IllegalAction).
    grpc.StatusCode.FAILED_PRECONDITION: (
        "TABLE_EXISTS", "TABLE_CLOSED", "ALREADY_SEATED", "TABLE_FULL", "SEAT_TAKEN",
        "STAKE_NEEDS_PLAYER", "NOT_ENOUGH_CHIPS", "NOT_SEATED", "SEAT_NOT_LEFT", "NOT_CONNECTED",
        "NOT_DISCONNECTED", "TIMER_NOT_DUE", "GAME_NOT_OVER", "REMATCH_VOTE_OPEN",
        "REMATCH_VOTE_OVER", "ALREADY_VOTED", "GAME_NOT_STARTED", "GAME_OVER",
    ) + RULES_REASONS,
}
STATUS_OF_REASON: dict[str, grpc.StatusCode] = {
    reason: code for code, reasons in _CODE_OF.items() for reason in reasons}

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
    code = STATUS_OF_REASON.get(err.reason)
    if code is None:
        log.error("app error with an undeclared reason", reason=err.reason, error=err.message)
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
        return app_error_status(AppError(app_errors.STORE_UNAVAILABLE,
                                         "the store cannot be reached: retry later with the same request_id"))
    log.error("unexpected error", rpc=rpc, exc_info=exc)
    return internal_status()
