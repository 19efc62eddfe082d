"""The values the store keeps and hands back, and the errors it raises (its parts: parts.py)."""

from __future__ import annotations

from dataclasses import dataclass, fields


@dataclass(frozen=True, slots=True)
class NewEvent:
    type: str  # event type name, e.g. "card_played"
    payload: bytes  # serialized protobuf body
    schema_version: int = 1


@dataclass(frozen=True, slots=True)
class StoredEvent:
    table_id: str
    sequence: int
    type: str
    schema_version: int
    payload: bytes
    request_id: str
    recorded_at_us: int  # unix microseconds, given by the caller
    prev_hash: bytes  # 32-byte sha256 chain, see belote.store.chain
    hash: bytes


# The events table's columns, in StoredEvent's order: both schemas name them so.
EVENT_COLUMNS = ", ".join(f.name for f in fields(StoredEvent))


@dataclass(frozen=True, slots=True)
class TableIndexEntry:
    """Small per-table projection the app keeps for listings and metrics."""

    status: str  # "waiting" | "playing" | "finished" (opaque to the store)
    listed: bool  # shown in public listings
    summary: bytes  # opaque (a serialized protobuf summary)


@dataclass(frozen=True, slots=True)
class AppendResult:
    events: tuple[StoredEvent, ...]  # this request's events (the first time's, if duplicate)
    duplicate: bool  # True when request_id had already been appended: nothing was written


class StoreError(Exception):
    pass


class VersionConflict(StoreError):
    """The table is not at the version the writer expected: re-read and retry."""

    def __init__(self, expected: int, actual: int):
        super().__init__(f"expected table version {expected}, but it is at {actual}")
        self.expected = expected
        self.actual = actual

    def __reduce__(self) -> tuple[type, tuple[int, int]]:  # keep it picklable despite the custom __init__
        return (type(self), (self.expected, self.actual))


class RequestReused(StoreError):
    """A request id already recorded for another RPC or another request: nothing was written."""

    def __init__(self, table_id: str, request_id: str, rpc: str):
        super().__init__(f"request {request_id!r} of table {table_id!r} was a {rpc or 'other'} request")
        self.table_id = table_id
        self.request_id = request_id
        self.rpc = rpc  # the RPC the id was first recorded for

    def __reduce__(self) -> tuple[type, tuple[str, str, str]]:
        return (type(self), (self.table_id, self.request_id, self.rpc))


class StoreUnavailable(StoreError):
    """The database cannot be reached (or the store is closed)."""


class StoreConfigError(StoreError):
    """The store URL or the database schema is not usable by this code."""
