"""The SQLite event log: appends queued while the writer is busy share its next commit (group
commit), reads run on the event loop's thread, waiters wake through the shared registry."""

from __future__ import annotations

import asyncio
import contextlib
import sqlite3
import threading
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

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
from .database import SqliteDatabase



def _select_events(
    c: sqlite3.Connection, table_id: str, after: int, limit: int
) -> list[StoredEvent]:
    rows = c.execute(
        f"SELECT {EVENT_COLUMNS} FROM events WHERE table_id = ? AND sequence > ?"
        " ORDER BY sequence LIMIT ?", (table_id, after, limit)).fetchall()
    return [StoredEvent(*r) for r in rows]


def _select_version(c: sqlite3.Connection, table_id: str) -> int:
    version: int = c.execute("SELECT coalesce(max(sequence), 0) FROM events WHERE table_id = ?",
                             (table_id,)).fetchone()[0]
    return version


def _select_versions(c: sqlite3.Connection, table_ids: list[str]) -> dict[str, int]:
    versions: dict[str, int] = {}
    for i in range(0, len(table_ids), 500):       # SQLite's bound-parameter limit
        chunk = table_ids[i:i + 500]
        marks = ",".join("?" * len(chunk))
        versions.update(c.execute(f"SELECT table_id, max(sequence) FROM events WHERE table_id IN ({marks})"
                                  " GROUP BY table_id", chunk).fetchall())
    return versions


# What an append reads first, in one statement: the table's head (what the next event chains
# onto), the request's row if this table has one, else a client's request of this id elsewhere.
_HEAD_AND_REQUEST = (
    "SELECT h.sequence, h.hash, r.first_sequence, r.last_sequence, r.rpc, r.fingerprint,"
    " CASE WHEN ?3 <> '' AND r.request_id IS NULL THEN"
    " (SELECT o.rpc FROM requests o WHERE o.request_id = ?2 AND o.rpc <> '') END"
    " FROM (SELECT 1)"
    " LEFT JOIN (SELECT sequence, hash FROM events WHERE table_id = ?1"
    " ORDER BY sequence DESC LIMIT 1) h ON 1"
    " LEFT JOIN requests r ON r.table_id = ?1 AND r.request_id = ?2")


def _select_head_and_request(c: sqlite3.Connection, table_id: str, request_id: str,
                             rpc: str) -> tuple[int, bytes, tuple[Any, ...], str | None]:
    """(version, hash of the last event, the request's (first, last, rpc, fingerprint) or
    NULLs, the rpc of a client's request of this id on another table)."""
    row = c.execute(_HEAD_AND_REQUEST, (table_id, request_id, rpc)).fetchone()
    version, head_hash = (row[0], row[1]) if row[0] is not None else (0, GENESIS_HASH)
    return version, head_hash, row[2:6], row[6]


@dataclass(frozen=True)
class _PendingAppend:
    """One caller's append, queued for the writer's next commit."""
    table_id: str
    expected: int
    events: tuple[NewEvent, ...]
    request_id: str
    recorded_at_us: int
    index: TableIndexEntry | None
    done: asyncio.Future[AppendResult]
    rpc: str = ""
    fingerprint: bytes = b""


def _recorded_request(c: sqlite3.Connection, table_id: str, request_id: str, rpc: str,
                      fingerprint: bytes) -> tuple[int, int] | None:
    """(first, last sequence) of a recorded request, None if there is none (see _found)."""
    row = c.execute("SELECT first_sequence, last_sequence, rpc, fingerprint FROM requests"
                    " WHERE table_id = ? AND request_id = ?", (table_id, request_id)).fetchone()
    elsewhere = None
    if row is None and rpc:
        other = c.execute("SELECT rpc FROM requests WHERE request_id = ? AND rpc <> ''",
                          (request_id,)).fetchone()
        elsewhere = other[0] if other else None
    return _found(table_id, request_id, rpc, fingerprint, row, elsewhere)


def _found(table_id: str, request_id: str, rpc: str, fingerprint: bytes,
           recorded: Sequence[Any] | None, elsewhere: str | None) -> tuple[int, int] | None:
    """(first, last sequence) of the request's row `recorded` (None or NULLs: there is none);
    RequestReused if it was recorded for another RPC or request, or (a client's, `elsewhere`:
    the RPC it was for) on another table."""
    if recorded is None or recorded[0] is None:
        if elsewhere:
            raise RequestReused(table_id, request_id, elsewhere)
        return None
    first, last, was_rpc, was_fingerprint = recorded
    if not same_request(was_rpc, was_fingerprint, rpc, fingerprint):
        raise RequestReused(table_id, request_id, was_rpc)
    return first, last


def _append_one(c: sqlite3.Connection, p: _PendingAppend) -> AppendResult:
    """One append inside the writer's open transaction (see EventLog.append). A refusal
    (VersionConflict, RequestReused, ValueError) writes nothing; any other error concerns the database
    itself, and fails the whole transaction (see _commit_queued)."""
    version, prev_hash, row, elsewhere = _select_head_and_request(c, p.table_id, p.request_id,
                                                                  p.rpc)
    # The request first: a retry is known by it (whatever the table's version now).
    recorded = _found(p.table_id, p.request_id, p.rpc, p.fingerprint, row, elsewhere)
    if recorded is not None:
        first, last = recorded
        return AppendResult(tuple(_select_events(c, p.table_id, first - 1, last - first + 1)), True)
    if version != p.expected:
        raise VersionConflict(p.expected, version)
    stored = chain_events(p.table_id, p.expected, prev_hash, p.events, p.request_id,
                          p.recorded_at_us)
    try:
        c.executemany(f"INSERT INTO events ({EVENT_COLUMNS}) VALUES (?,?,?,?,?,?,?,?,?)",
                      [(s.table_id, s.sequence, s.type, s.schema_version, s.payload,
                        s.request_id, s.recorded_at_us, s.prev_hash, s.hash) for s in stored])
    except sqlite3.IntegrityError:
        # A constraint caught a writer that slipped past the version check (the write lock
        # should make it impossible): same meaning as a stale expected_version. The first
        # event is the one refused (the others follow it), so nothing was written.
        raise VersionConflict(p.expected, _select_version(c, p.table_id)) from None
    c.execute("INSERT INTO requests (table_id, request_id, first_sequence, last_sequence,"
              " rpc, fingerprint) VALUES (?, ?, ?, ?, ?, ?)",
              (p.table_id, p.request_id, p.expected + 1, stored[-1].sequence,
               p.rpc, p.fingerprint))
    if p.index is not None:
        c.execute(
            "INSERT INTO table_index (table_id, status, listed, summary, created_at_us,"
            " updated_at_us) VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT (table_id) DO UPDATE SET"
            " status = excluded.status, listed = excluded.listed,"
            " summary = excluded.summary, updated_at_us = excluded.updated_at_us",
            (p.table_id, p.index.status, bool(p.index.listed), bytes(p.index.summary),
             p.recorded_at_us, p.recorded_at_us))
    return AppendResult(tuple(stored), False)


class SqliteEventLog(EventLog):
    def __init__(self, db: SqliteDatabase, poll_interval: float) -> None:
        """`poll_interval`: how often the versions of the tables someone waits on are re-read,
        to see other processes' appends."""
        self._db = db
        self.waiters = Waiters(lambda table_id: self.version(table_id),
                               lambda tables: db.read(_select_versions, tables), poll_interval)
        self._queue_lock = threading.Lock()     # appends waiting for the writer's next commit
        self._queued: list[_PendingAppend] = []

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
        loop = asyncio.get_running_loop()
        pending = _PendingAppend(table_id, expected_version, tuple(events), request_id,
                                 recorded_at_us, index, loop.create_future(), rpc, bytes(fingerprint))
        with self._db.errors():
            with self._queue_lock:
                self._queued.append(pending)
                first_in = len(self._queued) == 1
            if first_in:                # else the commit already on its way takes this one too
                self._db.writer.submit(self._commit_queued, loop)
            result = await pending.done      # cancelled: the commit goes on (see _settle)
        # Woken from here, as the caller resumes: it is the same task step, so the caller's
        # bookkeeping (the app's tail of recent events) is done before any waiter runs.
        self._woken_by(table_id, result)
        return result

    def _woken_by(self, table_id: str, result: AppendResult) -> None:
        if not result.duplicate:
            self.waiters.wake(table_id, result.events[-1].sequence)

    def _settle(self, outcomes: list[tuple[_PendingAppend, AppendResult | BaseException]]) -> None:
        """On the event loop: each caller gets its append's result or error. A caller that was
        cancelled meanwhile is not there to wake its table's waiters: done here for it."""
        for pending, outcome in outcomes:
            if pending.done.cancelled():
                if isinstance(outcome, AppendResult):
                    self._woken_by(pending.table_id, outcome)
            elif isinstance(outcome, BaseException):
                pending.done.set_exception(outcome)
            else:
                pending.done.set_result(outcome)

    def _commit_queued(self, loop: asyncio.AbstractEventLoop) -> None:
        """Group commit, on the writer's thread: every append queued by now in one transaction.
        A refused append (a conflict) writes nothing and concerns its caller alone; a database
        error fails them all, and writes none. A commit is most of an append's cost, and busy
        tables queue many at once; no append needs a savepoint."""
        with self._queue_lock:
            batch, self._queued = self._queued, []
        c = self._db.writer_conn
        outcomes: list[tuple[_PendingAppend, AppendResult | BaseException]] = []
        try:
            # IMMEDIATE takes the write lock now, so the reads below cannot go stale.
            c.execute("BEGIN IMMEDIATE")
            for pending in batch:
                outcome: AppendResult | BaseException
                try:
                    outcome = _append_one(c, pending)
                except (VersionConflict, RequestReused, ValueError) as e:   # refused: unwritten
                    outcome = e
                outcomes.append((pending, outcome))
            c.execute("COMMIT")
        except BaseException as e:           # noqa: BLE001 - nothing was written
            with contextlib.suppress(sqlite3.Error):   # the callers must hear of it all the same
                if c.in_transaction:
                    c.execute("ROLLBACK")
            outcomes = [(pending, e) for pending in batch]
        loop.call_soon_threadsafe(self._settle, outcomes)

    async def read(self, table_id: str, after_sequence: int = 0,
                   limit: int | None = None) -> list[StoredEvent]:
        check_limit(limit)
        return await self._db.read(_select_events, table_id, after_sequence,
                                   -1 if limit is None else limit)

    async def request_events(self, table_id: str, request_id: str, *, rpc: str = "",
                             fingerprint: bytes = b"") -> tuple[StoredEvent, ...] | None:
        def query(c: sqlite3.Connection) -> tuple[StoredEvent, ...] | None:
            found = _recorded_request(c, table_id, request_id, rpc, bytes(fingerprint))
            if found is None:
                return None
            first, last = found
            return tuple(_select_events(c, table_id, first - 1, last - first + 1))
        return await self._db.read(query)

    async def version(self, table_id: str) -> int:
        return await self._db.read(_select_version, table_id)

    async def wait_for_append(self, table_id: str, after_sequence: int,
                              timeout: float | None) -> int:
        return await self.waiters.wait(table_id, after_sequence, timeout)

    def stop_waits(self) -> None:
        self.waiters.stop()
