"""SQLite event store: stdlib sqlite3 in WAL mode.

Threading: one writer connection owned by a single-thread executor (it runs
jobs one at a time in submission order, so it serializes appends exactly like
a lock would, and commits stay off the event loop; the appends queued while it
is busy share its next commit), and one reader connection used right on the
event loop's thread (an indexed read of a WAL file takes microseconds and never
waits for the writer).

One process per database file is assumed. Another process writing the same
file is still safe (BEGIN IMMEDIATE + busy_timeout + the constraints below)
and its appends reach `wait_for_append` through a periodic re-check.
"""

from __future__ import annotations

import asyncio
import contextlib
import sqlite3
import threading
import time
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TypeVar

from .base import (
    AppendResult,
    EventStore,
    NewEvent,
    RequestReused,
    StoreConfigError,
    StoredEvent,
    StoreUnavailable,
    TableIndexEntry,
    VersionConflict,
)
from .chain import GENESIS_HASH, event_hash

T = TypeVar("T")

BUSY_TIMEOUT_MS = 5000
READER_CACHE_KB = 256


# --- schema ---------------------------------------------------------------
# Migration n is MIGRATIONS[n - 1]. Append new ones; never edit a released one.

def _m1_initial(c: sqlite3.Connection) -> None:
    c.execute("""
        CREATE TABLE events (
            table_id       TEXT    NOT NULL,
            sequence       INTEGER NOT NULL CHECK (sequence >= 1),
            type           TEXT    NOT NULL,
            schema_version INTEGER NOT NULL,
            payload        BLOB    NOT NULL,
            request_id     TEXT    NOT NULL,
            recorded_at_us INTEGER NOT NULL,
            prev_hash      BLOB    NOT NULL CHECK (length(prev_hash) = 32),
            hash           BLOB    NOT NULL CHECK (length(hash) = 32),
            PRIMARY KEY (table_id, sequence)
        ) WITHOUT ROWID""")
    # The database itself keeps each log gapless and append-only, whatever
    # the code above it does.
    c.execute("""
        CREATE TRIGGER events_gapless BEFORE INSERT ON events
        WHEN NEW.sequence != 1 + coalesce(
            (SELECT max(sequence) FROM events WHERE table_id = NEW.table_id), 0)
        BEGIN SELECT RAISE(ABORT, 'event sequence must follow the last one'); END""")
    c.execute("""
        CREATE TRIGGER events_no_update BEFORE UPDATE ON events
        BEGIN SELECT RAISE(ABORT, 'events are append-only'); END""")
    c.execute("""
        CREATE TRIGGER events_no_delete BEFORE DELETE ON events
        BEGIN SELECT RAISE(ABORT, 'events are append-only'); END""")
    c.execute("""
        CREATE TABLE requests (
            table_id       TEXT    NOT NULL,
            request_id     TEXT    NOT NULL,
            first_sequence INTEGER NOT NULL,
            last_sequence  INTEGER NOT NULL,
            PRIMARY KEY (table_id, request_id)
        ) WITHOUT ROWID""")
    c.execute("""
        CREATE TABLE table_index (
            table_id       TEXT    PRIMARY KEY,
            status         TEXT    NOT NULL,
            listed         INTEGER NOT NULL,
            summary        BLOB    NOT NULL,
            created_at_us  INTEGER NOT NULL,
            updated_at_us  INTEGER NOT NULL
        )""")
    c.execute("CREATE INDEX table_index_newest ON table_index (created_at_us DESC)")
    c.execute("CREATE INDEX table_index_status ON table_index (status, created_at_us DESC)")


def _m2_settings(c: sqlite3.Connection) -> None:
    c.execute("CREATE TABLE settings (name TEXT PRIMARY KEY, value BLOB NOT NULL) WITHOUT ROWID")


def _m3_leases(c: sqlite3.Connection) -> None:
    c.execute("CREATE TABLE leases (scope TEXT NOT NULL, holder TEXT NOT NULL,"
              " until_us INTEGER NOT NULL, PRIMARY KEY (scope, holder)) WITHOUT ROWID")


def _m4_scoped_requests(c: sqlite3.Connection) -> None:
    # A request row says what it was (the RPC and a keyed fingerprint of its fields), so the
    # same id for another request is told from a retry; rows from before hold NULL.
    c.execute("ALTER TABLE requests ADD COLUMN rpc TEXT")
    c.execute("ALTER TABLE requests ADD COLUMN fingerprint BLOB")
    # A client's request id (one with an rpc) names one request on one table only.
    c.execute("CREATE UNIQUE INDEX requests_of_clients ON requests (request_id) WHERE rpc <> ''")
    c.execute("CREATE TABLE created_tables (request_id TEXT PRIMARY KEY, table_id TEXT NOT NULL)"
              " WITHOUT ROWID")
    # The key that derived every token lived here: keys now come from outside the store.
    # secure_delete: its bytes are overwritten, not left in a free page of the file.
    c.execute("PRAGMA secure_delete = ON")
    c.execute("DELETE FROM settings WHERE name = 'server_secret'")


MIGRATIONS: tuple[Callable[[sqlite3.Connection], None], ...] = (_m1_initial, _m2_settings,
                                                                _m3_leases, _m4_scoped_requests)


def _connect(path: str, *, writer: bool) -> sqlite3.Connection:
    # isolation_level=None: no implicit transactions, we BEGIN/COMMIT ourselves.
    # The reader is used on the event loop's thread (see _run), the writer on its own thread.
    c = sqlite3.connect(path, isolation_level=None, timeout=BUSY_TIMEOUT_MS / 1000,
                        check_same_thread=writer)
    try:
        c.execute(f"PRAGMA busy_timeout = {BUSY_TIMEOUT_MS}")
        if writer:
            c.execute("PRAGMA journal_mode = WAL")  # persistent in the file
        # No fsync per commit. With WAL this cannot corrupt the file; a power
        # loss (not a process crash) may lose the last commits.
        c.execute("PRAGMA synchronous = NORMAL")
        if not writer:
            c.execute("PRAGMA query_only = ON")
            # Every commit of the writer empties the reader's page cache: a large one buys
            # nothing (the default is 2 MB).
            c.execute(f"PRAGMA cache_size = -{READER_CACHE_KB}")
    except BaseException:
        c.close()
        raise
    return c


def _migrate(c: sqlite3.Connection) -> None:
    c.execute("BEGIN IMMEDIATE")  # one process migrates at a time
    try:
        c.execute("CREATE TABLE IF NOT EXISTS schema_version ("
                  " id INTEGER PRIMARY KEY CHECK (id = 1), version INTEGER NOT NULL)")
        row = c.execute("SELECT version FROM schema_version").fetchone()
        current = row[0] if row else 0
        if current > len(MIGRATIONS):
            raise StoreConfigError(
                f"the database schema is at version {current}, newer than this code "
                f"supports ({len(MIGRATIONS)})")
        for n in range(current + 1, len(MIGRATIONS) + 1):
            MIGRATIONS[n - 1](c)
        c.execute("INSERT INTO schema_version (id, version) VALUES (1, ?)"
                  " ON CONFLICT (id) DO UPDATE SET version = excluded.version",
                  (len(MIGRATIONS),))
        c.execute("COMMIT")
    except BaseException:
        if c.in_transaction:
            c.execute("ROLLBACK")
        raise
    if current < 4 <= len(MIGRATIONS):
        # The pages migration 4 overwrote (the server secret's) leave the main file now.
        c.execute("PRAGMA wal_checkpoint(TRUNCATE)")


# --- queries shared by the writer and the reader --------------------------

_EVENT_COLUMNS = ("table_id, sequence, type, schema_version, payload, request_id,"
                  " recorded_at_us, prev_hash, hash")


def _select_events(
    c: sqlite3.Connection, table_id: str, after: int, limit: int
) -> list[StoredEvent]:
    rows = c.execute(
        f"SELECT {_EVENT_COLUMNS} FROM events WHERE table_id = ? AND sequence > ?"
        " ORDER BY sequence LIMIT ?", (table_id, after, limit)).fetchall()
    return [StoredEvent(*r) for r in rows]


def _select_version(c: sqlite3.Connection, table_id: str) -> int:
    return c.execute("SELECT coalesce(max(sequence), 0) FROM events WHERE table_id = ?",
                     (table_id,)).fetchone()[0]


def _select_versions(c: sqlite3.Connection, table_ids: list[str]) -> dict[str, int]:
    versions: dict[str, int] = {}
    for i in range(0, len(table_ids), 500):       # SQLite's bound-parameter limit
        chunk = table_ids[i:i + 500]
        marks = ",".join("?" * len(chunk))
        versions.update(c.execute(f"SELECT table_id, max(sequence) FROM events WHERE table_id IN ({marks})"
                                  " GROUP BY table_id", chunk).fetchall())
    return versions


def _select_head(c: sqlite3.Connection, table_id: str) -> tuple[int, bytes]:
    """(version, hash of the last event) -- what the next event chains onto."""
    row = c.execute("SELECT sequence, hash FROM events WHERE table_id = ?"
                    " ORDER BY sequence DESC LIMIT 1", (table_id,)).fetchone()
    return (row[0], row[1]) if row else (0, GENESIS_HASH)


@dataclass(frozen=True)
class _PendingAppend:
    """One caller's append, queued for the writer's next commit."""
    table_id: str
    expected: int
    events: tuple[NewEvent, ...]
    request_id: str
    recorded_at_us: int
    index: TableIndexEntry | None
    done: asyncio.Future
    rpc: str = ""
    fingerprint: bytes = b""


def _recorded_request(c: sqlite3.Connection, table_id: str, request_id: str, rpc: str,
                      fingerprint: bytes) -> tuple[int, int] | None:
    """(first, last sequence) of a recorded request, None if there is none; RequestReused if
    it was recorded for another RPC or request, or (a client's) on another table (a row from
    before fingerprints matches any)."""
    row = c.execute("SELECT first_sequence, last_sequence, rpc, fingerprint FROM requests"
                    " WHERE table_id = ? AND request_id = ?", (table_id, request_id)).fetchone()
    if row is None:
        elsewhere = rpc and c.execute("SELECT rpc FROM requests WHERE request_id = ? AND rpc <> ''",
                                      (request_id,)).fetchone()
        if elsewhere:
            raise RequestReused(table_id, request_id, elsewhere[0])
        return None
    first, last, was_rpc, was_fingerprint = row
    if was_fingerprint is not None and (was_rpc, bytes(was_fingerprint)) != (rpc, fingerprint):
        raise RequestReused(table_id, request_id, was_rpc)
    return first, last


def _append_one(c: sqlite3.Connection, p: _PendingAppend) -> AppendResult:
    """One append inside the writer's open transaction (see EventStore.append). A refusal
    (VersionConflict, ValueError) leaves nothing of it written; any other error concerns the
    database itself, and fails the whole transaction (see _commit_queued)."""
    version, prev_hash = _select_head(c, p.table_id)
    stored = []
    for seq, e in enumerate(p.events, start=p.expected + 1):
        payload = bytes(e.payload)
        h = event_hash(prev_hash, p.table_id, seq, e.type, e.schema_version,
                       p.request_id, p.recorded_at_us, payload)
        stored.append(StoredEvent(p.table_id, seq, e.type, e.schema_version, payload,
                                  p.request_id, p.recorded_at_us, prev_hash, h))
        prev_hash = h
    # The request's row first: a retry is known by it (whatever the table's version now).
    if not c.execute("INSERT INTO requests (table_id, request_id, first_sequence, last_sequence,"
                     " rpc, fingerprint) VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT DO NOTHING",
                     (p.table_id, p.request_id, p.expected + 1, stored[-1].sequence,
                      p.rpc, p.fingerprint)).rowcount:
        first, last = _recorded_request(c, p.table_id, p.request_id, p.rpc, p.fingerprint)
        return AppendResult(tuple(_select_events(c, p.table_id, first - 1, last - first + 1)), True)
    try:
        if version != p.expected:
            raise VersionConflict(p.expected, version)
        try:
            c.executemany(f"INSERT INTO events ({_EVENT_COLUMNS}) VALUES (?,?,?,?,?,?,?,?,?)",
                          [(s.table_id, s.sequence, s.type, s.schema_version, s.payload,
                            s.request_id, s.recorded_at_us, s.prev_hash, s.hash) for s in stored])
        except sqlite3.IntegrityError:
            # A constraint caught a writer that slipped past the version check (the write lock
            # should make it impossible): same meaning as a stale expected_version.
            c.execute("DELETE FROM events WHERE table_id = ? AND request_id = ? AND sequence"
                      " BETWEEN ? AND ?", (p.table_id, p.request_id, p.expected + 1,
                                           stored[-1].sequence))
            raise VersionConflict(p.expected, _select_version(c, p.table_id)) from None
    except VersionConflict:
        c.execute("DELETE FROM requests WHERE table_id = ? AND request_id = ?",
                  (p.table_id, p.request_id))
        raise
    if p.index is not None:
        c.execute(
            "INSERT INTO table_index (table_id, status, listed, summary, created_at_us,"
            " updated_at_us) VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT (table_id) DO UPDATE SET"
            " status = excluded.status, listed = excluded.listed,"
            " summary = excluded.summary, updated_at_us = excluded.updated_at_us",
            (p.table_id, p.index.status, bool(p.index.listed), bytes(p.index.summary),
             p.recorded_at_us, p.recorded_at_us))
    return AppendResult(tuple(stored), False)


class SqliteEventStore(EventStore):
    def __init__(self, path: str | Path, *, poll_interval: float = 0.5):
        """Open (creating the file and its directory if needed) and migrate.

        Blocking, meant for startup. `poll_interval`: how often the versions of the
        tables someone waits on are re-read, to see other processes' appends.
        """
        self.path = str(path)
        self.poll_interval = poll_interval
        self._closed = False
        # Per-table wake-up: append pops and sets the table's Event, so every
        # waiter registered before the append is woken and the next one gets a
        # fresh Event. An entry lives only while someone waits (the last waiter out drops it).
        self._signals: dict[str, asyncio.Event] = {}
        self._waiting: dict[str, int] = {}      # table -> waiters, for the shared poller
        self._known: dict[str, int] = {}        # table -> version the waiters last read
        self._stopping = False                  # stop_waits was called
        self._poller: asyncio.Task | None = None
        self._writer = ThreadPoolExecutor(1, thread_name_prefix="store-sqlite-writer")
        self._queue_lock = threading.Lock()     # appends waiting for the writer's next commit
        self._queued: list[_PendingAppend] = []
        self._wconn: sqlite3.Connection | None = None
        self._rconn: sqlite3.Connection | None = None
        try:
            Path(self.path).parent.mkdir(parents=True, exist_ok=True)
            self._wconn = self._writer.submit(_connect, self.path, writer=True).result()
            self._writer.submit(_migrate, self._wconn).result()
            self._rconn = _connect(self.path, writer=False)
        except BaseException as e:
            self._shutdown_sync()
            if isinstance(e, (OSError, sqlite3.DatabaseError)):
                raise StoreUnavailable(f"cannot open sqlite database {self.path!r}: {e}") from e
            raise

    # --- plumbing ---------------------------------------------------------

    @contextlib.contextmanager
    def _database_errors(self):
        """StoreUnavailable for the database's state (locked, I/O error, disk full, corrupt...);
        our own bugs (ProgrammingError, InterfaceError) go through as they are."""
        if self._closed:
            raise StoreUnavailable("the store is closed")
        try:
            yield
        except (sqlite3.ProgrammingError, sqlite3.InterfaceError):
            raise
        except sqlite3.DatabaseError as e:
            raise StoreUnavailable(f"sqlite: {e}") from e

    async def _run(self, executor: ThreadPoolExecutor, fn: Callable[..., T], *args: Any) -> T:
        with self._database_errors():
            return await asyncio.get_running_loop().run_in_executor(executor, fn, *args)

    async def _read(self, fn: Callable[..., T], *args: Any) -> T:
        """Reads run right here, on the event loop's thread: an indexed read of a WAL file takes
        microseconds and never waits for the writer, far less than a hop to a thread and back."""
        with self._database_errors():
            return fn(*args)

    def _wake(self, table_id: str, version: int = 0) -> None:
        if table_id in self._waiting or table_id in self._known:
            self._known[table_id] = max(self._known.get(table_id, 0), version)
        signal = self._signals.pop(table_id, None)
        if signal is not None:
            signal.set()

    def _shutdown_sync(self) -> None:
        if self._wconn is not None:
            self._writer.submit(self._wconn.close).result()
        self._writer.shutdown(wait=True)
        if self._rconn is not None:
            self._rconn.close()

    # --- EventStore -------------------------------------------------------

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
        if not events:
            raise ValueError("append needs at least one event")
        if expected_version < 0:
            raise ValueError("expected_version must be >= 0")
        if not request_id:
            raise ValueError("request_id must not be empty")
        loop = asyncio.get_running_loop()
        pending = _PendingAppend(table_id, expected_version, tuple(events), request_id,
                                 recorded_at_us, index, loop.create_future(), rpc, bytes(fingerprint))
        with self._database_errors():
            with self._queue_lock:
                self._queued.append(pending)
                first_in = len(self._queued) == 1
            if first_in:                # else the commit already on its way takes this one too
                self._writer.submit(self._commit_queued, loop)
            result = await pending.done      # cancelled: the commit goes on (see _settle)
        # Woken from here, as the caller resumes: it is the same task step, so the caller's
        # bookkeeping (the app's tail of recent events) is done before any waiter runs.
        self._woken_by(table_id, result)
        return result

    def _woken_by(self, table_id: str, result: AppendResult) -> None:
        if not result.duplicate:
            self._wake(table_id, result.events[-1].sequence)

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
        tables queue many at once; each append is three statements, with no savepoint."""
        with self._queue_lock:
            batch, self._queued = self._queued, []
        c = self._wconn
        outcomes: list[tuple[_PendingAppend, AppendResult | BaseException]] = []
        try:
            # IMMEDIATE takes the write lock now, so the reads below cannot go stale.
            c.execute("BEGIN IMMEDIATE")
            for pending in batch:
                try:
                    outcome = _append_one(c, pending)
                except (VersionConflict, RequestReused, ValueError) as e:   # refused, nothing written
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
        if limit is not None and limit < 0:
            raise ValueError("limit must be >= 0")
        return await self._read(_select_events, self._rconn, table_id,
                               after_sequence, -1 if limit is None else limit)

    async def request_events(self, table_id: str, request_id: str, *, rpc: str = "",
                             fingerprint: bytes = b"") -> tuple[StoredEvent, ...] | None:
        def query() -> tuple[StoredEvent, ...] | None:
            found = _recorded_request(self._rconn, table_id, request_id, rpc, bytes(fingerprint))
            if found is None:
                return None
            first, last = found
            return tuple(_select_events(self._rconn, table_id, first - 1, last - first + 1))
        return await self._read(query)

    async def claim_table(self, request_id: str, table_id: str) -> str:
        def claim() -> str:
            # INSERT OR IGNORE: the first process to get here decides, the others read it.
            self._wconn.execute("INSERT OR IGNORE INTO created_tables (request_id, table_id)"
                                " VALUES (?, ?)", (request_id, table_id))
            return self._wconn.execute("SELECT table_id FROM created_tables WHERE request_id = ?",
                                       (request_id,)).fetchone()[0]
        return await self._run(self._writer, claim)

    async def take_lease(self, scope: str, holder: str, limit: int, now_us: int,
                         until_us: int) -> bool:
        def take() -> bool:
            c = self._wconn
            c.execute("BEGIN IMMEDIATE")        # other processes on the file wait their turn
            try:
                c.execute("DELETE FROM leases WHERE scope = ? AND until_us <= ?", (scope, now_us))
                others = c.execute("SELECT count(*) FROM leases WHERE scope = ? AND holder <> ?",
                                   (scope, holder)).fetchone()[0]
                if others < limit:
                    c.execute("INSERT INTO leases (scope, holder, until_us) VALUES (?, ?, ?)"
                              " ON CONFLICT (scope, holder) DO UPDATE SET until_us = excluded.until_us",
                              (scope, holder, until_us))
                c.execute("COMMIT")
                return others < limit
            except BaseException:
                if c.in_transaction:
                    c.execute("ROLLBACK")
                raise
        return await self._run(self._writer, take)

    async def extend_leases(self, leases: Sequence[tuple[str, str]], until_us: int) -> None:
        if leases:
            await self._run(self._writer, self._wconn.executemany,
                            "UPDATE leases SET until_us = ? WHERE scope = ? AND holder = ?",
                            [(until_us, scope, holder) for scope, holder in leases])

    async def drop_lease(self, scope: str, holder: str) -> None:
        await self._run(self._writer, self._wconn.execute,
                        "DELETE FROM leases WHERE scope = ? AND holder = ?", (scope, holder))

    async def drop_ended_leases(self, now_us: int) -> None:
        await self._run(self._writer, self._wconn.execute,
                        "DELETE FROM leases WHERE until_us <= ?", (now_us,))

    async def count_leases(self, scope: str, now_us: int) -> int:
        return await self._read(lambda: self._rconn.execute(
            "SELECT count(*) FROM leases WHERE scope = ? AND until_us > ?",
            (scope, now_us)).fetchone()[0])

    async def version(self, table_id: str) -> int:
        return await self._read(_select_version, self._rconn, table_id)

    async def list_index(self, status: str | None = None, listed: bool | None = None,
                         limit: int = 100) -> list[tuple[str, TableIndexEntry, int]]:
        def query() -> list[tuple[str, TableIndexEntry, int]]:
            rows = self._rconn.execute(
                "SELECT table_id, status, listed, summary,"
                " (SELECT max(sequence) FROM events e WHERE e.table_id = i.table_id)"
                " FROM table_index i"
                " WHERE (?1 IS NULL OR status = ?1) AND (?2 IS NULL OR listed = ?2)"
                " ORDER BY created_at_us DESC, table_id LIMIT ?3",
                (status, listed, limit)).fetchall()
            return [(t, TableIndexEntry(s, bool(li), su), v) for t, s, li, su, v in rows]

        return await self._read(query)

    async def count_index(self, status: str | None = None) -> int:
        def query() -> int:
            return self._rconn.execute(
                "SELECT count(*) FROM table_index WHERE ?1 IS NULL OR status = ?1",
                (status,)).fetchone()[0]

        return await self._read(query)

    async def wait_for_append(self, table_id: str, after_sequence: int,
                              timeout: float | None) -> int:
        deadline = None if timeout is None else time.monotonic() + timeout
        self._waiting[table_id] = self._waiting.get(table_id, 0) + 1
        self._start_poller()
        try:
            read = False
            while True:
                # Take the signal BEFORE reading the version: an append committed
                # after the read sets this very Event, so it cannot be missed.
                signal = self._signals.get(table_id)
                if signal is None:
                    signal = self._signals[table_id] = asyncio.Event()
                if self._closed:
                    raise StoreUnavailable("the store is closed")
                # Once, unless other waiters keep the table's version known already: after
                # that, whoever wakes us says the new version.
                if not read and table_id not in self._known:
                    version = await self.version(table_id)
                    # max: an append may have woken us with a newer version meanwhile.
                    self._known[table_id] = max(self._known.get(table_id, 0), version)
                read = True
                version = self._known[table_id]
                if version > after_sequence or self._stopping:
                    return version
                remaining = None if deadline is None else deadline - time.monotonic()
                if remaining is not None and remaining <= 0:
                    return version
                # Woken by our own appends at once, by other processes' via the poller.
                if remaining is None:
                    await signal.wait()
                else:
                    with contextlib.suppress(TimeoutError):
                        async with asyncio.timeout(remaining):
                            await signal.wait()
        finally:
            self._waiting[table_id] -= 1
            if not self._waiting[table_id]:
                # The known version stays until the poller's next round: a table's watchers
                # leave and come back between any two events, and need not read it again.
                del self._waiting[table_id]
                self._signals.pop(table_id, None)

    def stop_waits(self) -> None:
        self._stopping = True
        for table_id in list(self._signals.keys()):
            self._wake(table_id)

    def _start_poller(self) -> None:
        if self._poller is None or self._poller.done():
            self._poller = asyncio.get_running_loop().create_task(self._poll_other_writers())

    async def _poll_other_writers(self) -> None:
        """One query per interval for every waited-on table (not one per waiter): wakes the
        tables another process appended to. Ends when nobody waits."""
        while self._waiting and not self._closed:
            await asyncio.sleep(self.poll_interval)
            self._forget_unwaited()
            tables = list(self._waiting)
            try:
                versions = await self._read(_select_versions, self._rconn, tables)
            except StoreUnavailable:
                versions = {}
            for table_id in tables:
                if versions.get(table_id, 0) > self._known.get(table_id, 0):
                    self._wake(table_id, versions[table_id])

        self._forget_unwaited()

    def _forget_unwaited(self) -> None:
        """Versions are known only while waited on: the poller follows waited tables alone."""
        for table_id in [t for t in self._known if t not in self._waiting]:
            del self._known[table_id]

    async def ping(self) -> None:
        await self._read(lambda: self._rconn.execute("SELECT 1").fetchone())

    async def close(self) -> None:
        if self._closed:
            return
        self._closed = True
        for table_id in list(self._signals.keys()):
            self._wake(table_id)  # waiters re-check and get StoreUnavailable
        if self._poller is not None:    # not left to notice it at its next round
            self._poller.cancel()
            await asyncio.gather(self._poller, return_exceptions=True)
        # Jobs already queued run first: each executor is FIFO.
        await asyncio.to_thread(self._shutdown_sync)
