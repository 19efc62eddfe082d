"""Errors of the use cases: a reason, a message for people, and the request field at fault.

``reason`` is one of ``belote.v1.ErrorReason`` (proto/belote/v1/errors.proto), spelled without
its ``ERROR_REASON_`` prefix (``MUST_FOLLOW_SUIT``, ``TABLE_NOT_FOUND``...). The status code a
client receives is decided by the API from the reason alone, in one table (api/errors.py): a
raise site says what went wrong, never which code it is.
"""

from __future__ import annotations

INVALID_FIELD = "INVALID_FIELD"
STORE_UNAVAILABLE = "STORE_UNAVAILABLE"

# The reasons (all ABORTED) that say the table moved on while the request was judged: the caller
# looks at the table again and retries.
RACES = frozenset({"VERSION_CONFLICT", "TABLE_CHANGED", "TURN_MOVED_ON"})
# The refusals of a join or a bot seating at a table that filled, started or closed meanwhile
# (quick play then tries the next table).
JOIN_MISSED = frozenset({"TABLE_FULL", "SEAT_TAKEN", "GAME_OVER", "TABLE_CLOSED", "ALREADY_SEATED",
                         "STAKE_NEEDS_PLAYER", "NOT_ENOUGH_CHIPS", "NOT_SEATED", "SEAT_NOT_LEFT"})


class AppError(Exception):
    def __init__(self, reason: str, message: str, field: str | None = None):
        super().__init__(message)
        self.reason = reason
        self.message = message
        self.field = field

    def __repr__(self) -> str:
        return f"AppError({self.reason}: {self.message})"


def invalid(field: str, message: str, reason: str = INVALID_FIELD) -> AppError:
    return AppError(reason, message, field)


def not_found(message: str, reason: str = "TABLE_NOT_FOUND") -> AppError:
    return AppError(reason, message)


def unauthenticated(message: str) -> AppError:
    return AppError("UNAUTHENTICATED", message)


def aborted(message: str, reason: str = "VERSION_CONFLICT") -> AppError:
    return AppError(reason, message)
