"""Errors of the use cases. The API maps ``code`` to a gRPC status in one table (api/errors.py).

``code`` is one of the gRPC status names a front-end can receive on purpose; ``reason`` is a
stable machine-readable word (``MUST_FOLLOW_SUIT``, ``TABLE_NOT_FOUND``...); ``field`` names the
request field at fault for INVALID_ARGUMENT.
"""

from __future__ import annotations

INVALID_ARGUMENT = "INVALID_ARGUMENT"
NOT_FOUND = "NOT_FOUND"
FAILED_PRECONDITION = "FAILED_PRECONDITION"
PERMISSION_DENIED = "PERMISSION_DENIED"
UNAUTHENTICATED = "UNAUTHENTICATED"
ABORTED = "ABORTED"
UNAVAILABLE = "UNAVAILABLE"
RESOURCE_EXHAUSTED = "RESOURCE_EXHAUSTED"
OUT_OF_RANGE = "OUT_OF_RANGE"
ALREADY_EXISTS = "ALREADY_EXISTS"


class AppError(Exception):
    def __init__(self, code: str, reason: str, message: str, field: str | None = None):
        super().__init__(message)
        self.code = code
        self.reason = reason
        self.message = message
        self.field = field

    def __repr__(self) -> str:
        return f"AppError({self.code}, {self.reason}: {self.message})"


def invalid(field: str, message: str, reason: str = "INVALID_FIELD") -> AppError:
    return AppError(INVALID_ARGUMENT, reason, message, field)


def not_found(message: str, reason: str = "TABLE_NOT_FOUND") -> AppError:
    return AppError(NOT_FOUND, reason, message)


def refused(reason: str, message: str) -> AppError:
    return AppError(FAILED_PRECONDITION, reason, message)


def denied(reason: str, message: str) -> AppError:
    return AppError(PERMISSION_DENIED, reason, message)


def unauthenticated(message: str) -> AppError:
    return AppError(UNAUTHENTICATED, "UNAUTHENTICATED", message)


def aborted(message: str, reason: str = "VERSION_CONFLICT") -> AppError:
    return AppError(ABORTED, reason, message)
