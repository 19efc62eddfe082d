"""The event store interface, its values and its errors.

A table is an append-only log of opaque events. The store knows nothing about
the game: it keeps ordering (gapless sequences from 1), idempotency (one result
per request id) and integrity (a sha256 hash chain). Every backend implements
`EventStore` and passes the same contract tests (tests/store).
"""

from __future__ import annotations

import abc
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Self


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

    def __reduce__(self):  # keep it picklable despite the custom __init__
        return (type(self), (self.expected, self.actual))


class RequestReused(StoreError):
    """A request id already recorded for another RPC or another request: nothing was written."""

    def __init__(self, table_id: str, request_id: str, rpc: str):
        super().__init__(f"request {request_id!r} of table {table_id!r} was a {rpc or 'other'} request")
        self.table_id = table_id
        self.request_id = request_id
        self.rpc = rpc  # the RPC the id was first recorded for

    def __reduce__(self):
        return (type(self), (self.table_id, self.request_id, self.rpc))


class StoreUnavailable(StoreError):
    """The database cannot be reached (or the store is closed)."""


class StoreConfigError(StoreError):
    """The store URL or the database schema is not usable by this code."""


class EventStore(abc.ABC):
    """Append-only per-table event logs. All methods are coroutines."""

    @abc.abstractmethod
    async def append(
        self,
        table_id: str,
        expected_version: int,
        events: Sequence[NewEvent],
        *,
        request_id: str,
        recorded_at_us: int,
        index: TableIndexEntry | None = None,
        rpc: str = "",
        fingerprint: bytes = b"",
    ) -> AppendResult:
        """Append `events` atomically as sequences expected_version+1, ...

        In one transaction: if (table_id, request_id) was already appended,
        return that first result with duplicate=True (checked before the
        version, so a retry with a now-stale version still gets its result)
        when it was recorded with the same `rpc` and `fingerprint` (or before
        requests had them), else raise RequestReused; else raise
        VersionConflict unless the table is at `expected_version`; else write
        the events (hash-chained), the request with its rpc and fingerprint,
        and upsert `index` if given. Empty `events` raises ValueError.
        """

    @abc.abstractmethod
    async def read(
        self, table_id: str, after_sequence: int = 0, limit: int | None = None
    ) -> list[StoredEvent]:
        """Events with sequence > after_sequence, in sequence order."""

    @abc.abstractmethod
    async def request_events(self, table_id: str, request_id: str, *, rpc: str = "",
                             fingerprint: bytes = b"") -> tuple[StoredEvent, ...] | None:
        """The events a request appended to this table, or None if it never did. Lets a
        retried command return its first result even when it would now be refused. Raises
        RequestReused when the id was recorded with another rpc or fingerprint (as append)."""

    @abc.abstractmethod
    async def claim_table(self, request_id: str, table_id: str) -> str:
        """The table a creating request names, on every replica: the first claim of
        `request_id` gives it `table_id` (a new random one), later claims get that one back."""

    @abc.abstractmethod
    async def version(self, table_id: str) -> int:
        """The table's last sequence, 0 if it has no events."""

    @abc.abstractmethod
    async def list_index(
        self, status: str | None = None, listed: bool | None = None, limit: int = 100
    ) -> list[tuple[str, TableIndexEntry, int]]:
        """(table_id, entry, current version), newest table first (by the
        recorded_at_us of the append that first wrote its entry)."""

    @abc.abstractmethod
    async def count_index(self, status: str | None = None) -> int:
        """Number of index entries with this status (all entries if None)."""

    @abc.abstractmethod
    async def wait_for_append(
        self, table_id: str, after_sequence: int, timeout: float | None
    ) -> int:
        """Return the table's version as soon as it is > after_sequence
        (immediately if it already is) or when `timeout` seconds pass
        (None: no timeout)."""

    # --- leases: counted places that expire (not events: presence, not history) ---------
    # What a table limits but does not log, such as its open spectator streams or the wrong
    # passwords tried on it, is counted here, so every replica on the store counts the same.

    @abc.abstractmethod
    async def take_lease(self, scope: str, holder: str, limit: int, now_us: int,
                         until_us: int) -> bool:
        """Atomically, across every process on the store: forget ``scope``'s leases that ended
        by ``now_us``; then, if fewer than ``limit`` others remain, give (or extend) ``holder``
        a lease until ``until_us`` and return True, else change nothing and return False."""

    @abc.abstractmethod
    async def extend_leases(self, leases: Sequence[tuple[str, str]], until_us: int) -> None:
        """Extend these (scope, holder) leases until ``until_us`` (a holder still alive)."""

    @abc.abstractmethod
    async def drop_lease(self, scope: str, holder: str) -> None:
        """End a lease now (nothing if there is none)."""

    @abc.abstractmethod
    async def count_leases(self, scope: str, now_us: int) -> int:
        """How many of ``scope``'s leases run past ``now_us``."""

    @abc.abstractmethod
    async def drop_ended_leases(self, now_us: int) -> None:
        """Forget every scope's leases that ended by ``now_us`` (take_lease forgets only its own
        scope's: per-caller scopes may never come back)."""

    @abc.abstractmethod
    def stop_waits(self) -> None:
        """Make every wait_for_append return now with the version it knows, and later ones at
        once: a server shutting down ends its watch streams so, and their clients move on."""

    @abc.abstractmethod
    async def ping(self) -> None:
        """Raise StoreUnavailable if the store is unusable."""

    @abc.abstractmethod
    async def close(self) -> None:
        """Release connections; idempotent. Later calls raise StoreUnavailable."""

    async def __aenter__(self) -> Self:
        return self

    async def __aexit__(self, *exc_info: object) -> None:
        await self.close()
