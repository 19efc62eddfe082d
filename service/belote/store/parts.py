"""The store's interface, in parts: a backend object (`Store`) gives the event log, the lobby
index and the leases, each an interface of its own with its own contract suite in tests/store.

The store knows nothing about the game: it keeps ordering (gapless sequences from 1),
idempotency (one result per request id) and integrity (a sha256 hash chain) of opaque events.
"""

from __future__ import annotations

import abc
from collections.abc import Sequence
from typing import Self

from .base import AppendResult, NewEvent, StoredEvent, TableIndexEntry


def check_append(events: Sequence[NewEvent], expected_version: int, request_id: str) -> None:
    """The ValueError every backend raises for an append it cannot even try."""
    if not events:
        raise ValueError("append needs at least one event")
    if expected_version < 0:
        raise ValueError("expected_version must be >= 0")
    if not request_id:
        raise ValueError("request_id must not be empty")


def same_request(recorded_rpc: str | None, recorded_fingerprint: bytes | None, rpc: str,
                 fingerprint: bytes) -> bool:
    """Whether a request id's recorded request is this one (a row from before fingerprints,
    with NULL ones, matches any): else the id is RequestReused."""
    return recorded_fingerprint is None or (recorded_rpc, bytes(recorded_fingerprint)) == (
        rpc, bytes(fingerprint))


def check_limit(limit: int | None) -> None:
    if limit is not None and limit < 0:
        raise ValueError("limit must be >= 0")


class EventLog(abc.ABC):
    """Append-only per-table event logs, and waiting for their appends."""

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
        and upsert the lobby's entry `index` if given (written with the events,
        so the lobby never lists a table its log does not hold). Empty `events`
        raises ValueError (see check_append). A refused append writes nothing,
        and leaves no request row behind: its request id can be appended later.
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
    async def version(self, table_id: str) -> int:
        """The table's last sequence, 0 if it has no events."""

    @abc.abstractmethod
    async def wait_for_append(
        self, table_id: str, after_sequence: int, timeout: float | None
    ) -> int:
        """Return the table's version as soon as it is > after_sequence
        (immediately if it already is) or when `timeout` seconds pass
        (None: no timeout)."""

    @abc.abstractmethod
    def stop_waits(self) -> None:
        """Make every wait_for_append return now with the version it knows, and later ones at
        once: a server shutting down ends its watch streams so, and their clients move on."""


class Lobby(abc.ABC):
    """Which tables exist: the names creating requests gave them, and the index of their
    status the app writes with each append (EventLog.append's `index`) and lists from."""

    @abc.abstractmethod
    async def claim_table(self, request_id: str, table_id: str) -> str:
        """The table a creating request names, on every replica: the first claim of
        `request_id` gives it `table_id` (a new random one), later claims get that one back."""

    @abc.abstractmethod
    async def list_tables(
        self, status: str | None = None, listed: bool | None = None, limit: int = 100
    ) -> list[tuple[str, TableIndexEntry, int]]:
        """(table_id, entry, current version), newest table first (by the
        recorded_at_us of the append that first wrote its entry)."""

    @abc.abstractmethod
    async def count_tables(self, status: str | None = None) -> int:
        """Number of index entries with this status (all entries if None)."""


class Leases(abc.ABC):
    """Counted places that expire (not events: presence, not history). What a table limits
    but does not log, such as its open spectator streams or the wrong passwords tried on it,
    is counted here, so every replica on the store counts the same."""

    @abc.abstractmethod
    async def take(self, scope: str, holder: str, limit: int, now_us: int,
                   until_us: int) -> bool:
        """Atomically, across every process on the store: forget ``scope``'s leases that ended
        by ``now_us``; then, if fewer than ``limit`` others remain, give (or extend) ``holder``
        a lease until ``until_us`` and return True, else change nothing and return False."""

    @abc.abstractmethod
    async def extend(self, leases: Sequence[tuple[str, str]], until_us: int) -> None:
        """Extend these (scope, holder) leases until ``until_us`` (a holder still alive)."""

    @abc.abstractmethod
    async def drop(self, scope: str, holder: str) -> None:
        """End a lease now (nothing if there is none)."""

    @abc.abstractmethod
    async def count(self, scope: str, now_us: int) -> int:
        """How many of ``scope``'s leases run past ``now_us``."""

    @abc.abstractmethod
    async def holders(self, scope: str, now_us: int) -> list[str]:
        """The holders of ``scope``'s leases that run past ``now_us``, in holder order."""

    @abc.abstractmethod
    async def drop_ended(self, now_us: int) -> None:
        """Forget every scope's leases that ended by ``now_us`` (take forgets only its own
        scope's: per-caller scopes may never come back)."""


class Store(abc.ABC):
    """One database: its parts, and the connections they share. All methods are coroutines.

    The schema keeps a `settings` table from when the server's secret lived in the store;
    the server key now comes from outside the store, so no part reads or writes settings.
    """

    events: EventLog
    lobby: Lobby
    leases: Leases

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
