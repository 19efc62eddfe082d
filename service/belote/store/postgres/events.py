"""The PostgreSQL event log: an append is one statement, so one round trip and one transaction.

``SELECT * FROM belote_append(...)`` (schema.py) locks the table's head row, looks the request
id up (a duplicate returns the first result; the same id for another RPC or fingerprint is
RequestReused), checks the expected version, then inserts the events (hashed here with
belote.store.chain, checked again by the database's trigger), the request and the index
entry. To hash, the log must know the hash of event `expected_version`: it remembers the last
(sequence, hash) it saw per table; when it does not, the function answers with the head's hash
instead of writing, and the log hashes again (a second round trip).
"""

from __future__ import annotations

import functools
from collections.abc import Sequence
from typing import Any

import psycopg

from ..base import (
    EVENT_COLUMNS,
    AppendResult,
    NewEvent,
    RequestReused,
    StoredEvent,
    TableIndexEntry,
    VersionConflict,
)
from ..chain import GENESIS_HASH, chain_events
from ..parts import EventLog, check_append, check_limit, same_request
from ..waiters import Waiters
from .database import PostgresDatabase

_SELECT_EVENTS = (f"SELECT {EVENT_COLUMNS} FROM events WHERE table_id = %s AND sequence > %s"
                  " ORDER BY sequence LIMIT %s")
_SELECT_REQUEST_EVENTS = (
    f"SELECT {', '.join('e.' + c.strip() for c in EVENT_COLUMNS.split(','))}, r.rpc, r.fingerprint"
    " FROM requests r JOIN events e ON e.table_id = r.table_id"
    " AND e.sequence BETWEEN r.first_sequence AND r.last_sequence"
    " WHERE r.table_id = %s AND r.request_id = %s ORDER BY e.sequence")
_SELECT_CLIENT_REQUEST = "SELECT rpc FROM requests WHERE request_id = %s AND rpc <> ''"
_SELECT_VERSION = "SELECT version FROM table_heads WHERE table_id = %s"
_SELECT_VERSIONS = "SELECT table_id, version FROM table_heads WHERE table_id = ANY(%s)"
# The name is looked up at each call (tests swap in a function that skips the checks).
_APPEND_FUNCTION = "belote_append"
_APPEND_ARGS = ("%s::text, %s::bigint, %s::text, %s::bigint, %s::bytea, %s::text[],"
                " %s::bigint[], %s::bytea[], %s::bytea[], %s::text, %s::boolean, %s::bytea,"
                " %s::text, %s::bytea")
HEADS_REMEMBERED = 100_000  # (sequence, hash) of the last event seen, per table


def has_nul(*texts: str) -> bool:
    # PostgreSQL text cannot hold NUL: no table or request with one can exist.
    return any("\x00" in t for t in texts)


async def _call_append(conn: psycopg.AsyncConnection, args: tuple[Any, ...]) -> tuple[Any, ...]:
    cur = await conn.execute(f"SELECT * FROM {_APPEND_FUNCTION}({_APPEND_ARGS})", args)
    row = await cur.fetchone()
    assert row is not None  # the function returns one row, whatever the outcome
    return row


def _same_events(earlier: Sequence[StoredEvent], ours: Sequence[StoredEvent]) -> bool:
    """Whether a duplicate's events are exactly the ones this call tried to append."""
    def key(e: StoredEvent) -> tuple[int, str, int, bytes, int]:
        return (e.sequence, e.type, e.schema_version, e.payload, e.recorded_at_us)
    return [key(e) for e in earlier] == [key(e) for e in ours]


class PostgresEventLog(EventLog):
    def __init__(self, db: PostgresDatabase, poll_interval: float) -> None:
        """`poll_interval`: how often the versions of the tables someone waits on are re-read,
        should a notification be lost."""
        self._db = db
        self.waiters = Waiters(lambda table_id: self.version(table_id),
                               lambda tables: self.versions(tables), poll_interval)
        self._heads: dict[str, tuple[int, bytes]] = {}  # table -> last (sequence, hash) seen

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
        check_append(events, expected_version, request_id)
        if has_nul(table_id, request_id, rpc, *(e.type for e in events)):
            raise ValueError("table ids, request ids and event types cannot contain NUL")
        prev = self._known_hash(table_id, expected_version)
        retried: list[bool] = []
        for _ in range(3):  # a "rehash" answer at most once, unless the log moves meanwhile
            stored = chain_events(table_id, expected_version, prev or GENESIS_HASH, events,
                                  request_id, recorded_at_us)
            args = (table_id, expected_version, request_id, recorded_at_us, stored[0].prev_hash,
                    [s.type for s in stored], [s.schema_version for s in stored],
                    [s.payload for s in stored], [s.hash for s in stored],
                    index.status if index else None, bool(index.listed) if index else None,
                    bytes(index.summary) if index else None, rpc, bytes(fingerprint))
            try:
                outcome, version, head_hash, first, last, was_rpc = await self._db.run(
                    functools.partial(_call_append, args=args), retried=retried)
            except psycopg.IntegrityError:
                # The database refused the events: another writer got there first (the
                # function's own checks make anything else a bug, and the database wins).
                self._heads.pop(table_id, None)
                raise VersionConflict(expected_version, await self.version(table_id)) from None
            if outcome == "appended":
                self._remember_head(table_id, last, stored[-1].hash)
                self._db.appended(table_id, last)
                return AppendResult(tuple(stored), False)
            if outcome == "conflict":
                self._remember_head(table_id, version, bytes(head_hash))
                raise VersionConflict(expected_version, version)
            if outcome == "reused":
                raise RequestReused(table_id, request_id, was_rpc or "")
            if outcome == "rehash":
                prev = bytes(head_hash)
                self._remember_head(table_id, version, prev)
                continue
            # duplicate
            earlier = tuple(await self.read(table_id, first - 1, last - first + 1))
            if retried and _same_events(earlier, stored):
                # Our own first try committed, and only its answer was lost.
                self._db.appended(table_id, last)
                return AppendResult(earlier, False)
            return AppendResult(earlier, True)
        raise VersionConflict(expected_version, await self.version(table_id))

    def _known_hash(self, table_id: str, sequence: int) -> bytes | None:
        if sequence == 0:
            return GENESIS_HASH
        known = self._heads.get(table_id)
        return known[1] if known is not None and known[0] == sequence else None

    def _remember_head(self, table_id: str, sequence: int, hash: bytes) -> None:
        """An event's hash never changes: any (sequence, hash) seen stays true forever."""
        if sequence <= 0:
            return
        if len(self._heads) >= HEADS_REMEMBERED and table_id not in self._heads:
            self._heads.clear()
        known = self._heads.get(table_id)
        if known is None or known[0] < sequence:
            self._heads[table_id] = (sequence, hash)

    async def read(self, table_id: str, after_sequence: int = 0,
                   limit: int | None = None) -> list[StoredEvent]:
        check_limit(limit)
        if has_nul(table_id):
            return []

        async def query(conn: psycopg.AsyncConnection) -> list[StoredEvent]:
            cur = await conn.execute(_SELECT_EVENTS, (table_id, after_sequence, limit))
            return [StoredEvent(*r) for r in await cur.fetchall()]

        events = await self._db.run(query)
        if events:
            self._remember_head(table_id, events[-1].sequence, events[-1].hash)
        return events

    async def request_events(self, table_id: str, request_id: str, *, rpc: str = "",
                             fingerprint: bytes = b"") -> tuple[StoredEvent, ...] | None:
        if has_nul(table_id, request_id):
            return None

        async def query(conn: psycopg.AsyncConnection) -> tuple[StoredEvent, ...] | None:
            cur = await conn.execute(_SELECT_REQUEST_EVENTS, (table_id, request_id))
            rows = await cur.fetchall()
            if not rows:
                if rpc:  # a client's id names one request of one table: used elsewhere?
                    cur = await conn.execute(_SELECT_CLIENT_REQUEST, (request_id,))
                    elsewhere = await cur.fetchone()
                    if elsewhere:
                        raise RequestReused(table_id, request_id, elsewhere[0])
                return None
            was_rpc, was_fingerprint = rows[0][-2:]
            if not same_request(was_rpc, was_fingerprint, rpc, fingerprint):  # as belote_append
                raise RequestReused(table_id, request_id, was_rpc or "")
            return tuple(StoredEvent(*r[:-2]) for r in rows)

        return await self._db.run(query)

    async def version(self, table_id: str) -> int:
        if has_nul(table_id):
            return 0

        async def query(conn: psycopg.AsyncConnection) -> int:
            row = await (await conn.execute(_SELECT_VERSION, (table_id,))).fetchone()
            return row[0] if row else 0

        return await self._db.run(query)

    async def versions(self, table_ids: list[str]) -> dict[str, int]:
        async def query(conn: psycopg.AsyncConnection) -> dict[str, int]:
            cur = await conn.execute(_SELECT_VERSIONS, ([t for t in table_ids if not has_nul(t)],))
            return dict(await cur.fetchall())

        return await self._db.run(query)

    async def wait_for_append(self, table_id: str, after_sequence: int,
                              timeout: float | None) -> int:
        # The first read also starts the pool and the listener.
        return await self.waiters.wait(table_id, after_sequence, timeout)

    def stop_waits(self) -> None:
        self.waiters.stop()
