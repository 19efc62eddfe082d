"""PostgreSQL event store: psycopg 3 (async) with a psycopg-pool, for any number of replicas.

Several server processes ("replicas") share one database. What keeps them honest is the
database itself, not the code above it:

- ``events`` has PRIMARY KEY (table_id, sequence); a BEFORE INSERT trigger locks the table's
  row in ``table_heads`` and accepts an event only if its sequence is the head's + 1, its
  prev_hash is the head's hash and its hash is right (the layout of belote.store.chain, in
  SQL); then it moves the head. Events can be neither updated nor deleted.
- ``requests`` has PRIMARY KEY (table_id, request_id): a request is applied at most once.

An append is one statement, so one round trip and one transaction:
``SELECT * FROM belote_append(...)`` locks the table's head row, looks the request id up
(a duplicate returns the first result; the same id recorded for another RPC or request
fingerprint is refused as RequestReused), checks the expected version, then inserts the events
(hashed here with belote.store.chain), the request and the index entry. Writers of one table queue on its head row; a writer whose expected version is
stale gets a VersionConflict, and nothing is ever written half. To hash, the store must know
the hash of event `expected_version`: it remembers the last (sequence, hash) it read or wrote
per table; when it does not know it, the function answers with the head's hash instead of
writing, and the store hashes again (a second round trip).

Other replicas learn of an append by ``NOTIFY belote_events, '<table_id>:<sequence>'``, sent
right after the commit by a background task, in batches (one statement for all the tables
appended to meanwhile, with synchronous_commit off: a notification needs no fsync). Not
inside the append's transaction: PostgreSQL serializes the commits of notifying transactions
*including their WAL flush* (a database-wide lock from pre-commit to the end of commit), which
cost 2.5x in appends/s with 16 writers here (~400/s instead of ~1100/s). The price: a replica
that dies between its commit and its NOTIFY sends none -- the other replicas' waiters then see
the event at their next re-check (the app's watch loop re-reads every 0.5 s anyway). A
notification never announces an event that is not committed. Each store keeps one LISTEN
connection that wakes its local ``wait_for_append`` waiters; when that connection comes back
after a loss every waiter is woken (they re-read the log), and waiters also re-check every
``poll_interval`` seconds as a safety net.

Outages: a lost connection or an unreachable server is StoreUnavailable. Once one is seen,
calls fail fast (StoreUnavailable at once, instead of each waiting for the pool) while a
background task tries to reconnect every <= 1 s; when it succeeds the pool is replaced by a
fresh one (so no call meets a dead connection) and waiters are woken. A call that fails on a
dead connection is sent again on another one; for an append whose first try may have
committed, the retry finds its request id and recognises its own events (same payloads, same
recorded_at_us), so it reports a normal append: applied once, never twice.

The schema is migrated at construction (blocking, like SqliteEventStore), inside a
transaction holding ``pg_advisory_xact_lock``, so replicas starting together are safe.
The connection pool and the LISTEN task start lazily with the first awaited call.
"""

from __future__ import annotations

import asyncio
import contextlib
import time
import weakref
from collections.abc import Awaitable, Callable, Sequence
from typing import Any, TypeVar

import psycopg
import psycopg.conninfo
import psycopg.errors
import psycopg_pool
import structlog

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

log = structlog.get_logger("belote.store.postgres")

CHANNEL = "belote_events"
# pg_advisory_xact_lock key taken while migrating: "belote" in ASCII.
MIGRATION_LOCK = 0x62656C6F7465
CONNECT_TIMEOUT_S = 3
POOL_MIN_SIZE = 2
POOL_MAX_SIZE = 10
POOL_TIMEOUT_S = 5.0  # how long a call waits for a free pooled connection
RECONNECT_DELAYS = (0.05, 0.1, 0.2, 0.5, 1.0)  # then every 1 s
_GENESIS_SQL = "'\\x" + "00" * 32 + "'::bytea"


# --- schema -------------------------------------------------------------------------------
# Migration n is MIGRATIONS[n - 1]. Append new ones; never edit a released one.

_M1_INITIAL = f"""
CREATE TABLE table_heads (
    table_id   text   PRIMARY KEY,
    version    bigint NOT NULL CHECK (version >= 0),
    last_hash  bytea  NOT NULL CHECK (length(last_hash) = 32)
);

CREATE TABLE events (
    table_id       text   NOT NULL,
    sequence       bigint NOT NULL CHECK (sequence >= 1),
    type           text   NOT NULL,
    schema_version bigint NOT NULL CHECK (schema_version BETWEEN 0 AND 4294967295),
    payload        bytea  NOT NULL,
    request_id     text   NOT NULL,
    recorded_at_us bigint NOT NULL,
    prev_hash      bytea  NOT NULL CHECK (length(prev_hash) = 32),
    hash           bytea  NOT NULL CHECK (length(hash) = 32),
    PRIMARY KEY (table_id, sequence)
);

CREATE TABLE requests (
    table_id       text   NOT NULL,
    request_id     text   NOT NULL,
    first_sequence bigint NOT NULL,
    last_sequence  bigint NOT NULL,
    PRIMARY KEY (table_id, request_id)
);

CREATE TABLE table_index (
    table_id       text    PRIMARY KEY,
    status         text    NOT NULL,
    listed         boolean NOT NULL,
    summary        bytea   NOT NULL,
    created_at_us  bigint  NOT NULL,
    updated_at_us  bigint  NOT NULL
);
CREATE INDEX table_index_newest ON table_index (created_at_us DESC, table_id);
CREATE INDEX table_index_status ON table_index (status, created_at_us DESC, table_id);

CREATE TABLE settings (
    name  text  PRIMARY KEY,
    value bytea NOT NULL
);

-- belote.store.chain's layout: STR(s) = U32(byte length) || UTF-8 bytes; U32/U64/I64 big-endian.
CREATE FUNCTION belote_event_hash(prev bytea, tid text, seq bigint, typ text, sv bigint,
                                  rid text, at bigint, body bytea) RETURNS bytea
LANGUAGE sql IMMUTABLE STRICT AS $$
    SELECT sha256(
        prev
        || int4send(octet_length(convert_to(tid, 'UTF8'))) || convert_to(tid, 'UTF8')
        || int8send(seq)
        || int4send(octet_length(convert_to(typ, 'UTF8'))) || convert_to(typ, 'UTF8')
        || substring(int8send(sv) FROM 5 FOR 4)
        || int4send(octet_length(convert_to(rid, 'UTF8'))) || convert_to(rid, 'UTF8')
        || int8send(at)
        || int4send(length(body)) || body)
$$;

-- Whatever writes an event (this code or anything else), it must extend the table's chain by
-- exactly one: the next sequence, chained onto the last hash, with a correct hash.
CREATE FUNCTION belote_event_follows() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
    head_version bigint;
    head_hash    bytea;
BEGIN
    SELECT version, last_hash INTO head_version, head_hash
      FROM table_heads WHERE table_id = NEW.table_id FOR UPDATE;
    IF NOT FOUND THEN
        INSERT INTO table_heads (table_id, version, last_hash)
             VALUES (NEW.table_id, 0, {_GENESIS_SQL}) ON CONFLICT (table_id) DO NOTHING;
        SELECT version, last_hash INTO head_version, head_hash
          FROM table_heads WHERE table_id = NEW.table_id FOR UPDATE;
    END IF;
    IF NEW.sequence <> head_version + 1 THEN
        RAISE EXCEPTION 'table %: event % does not follow the last event %',
              NEW.table_id, NEW.sequence, head_version
              USING ERRCODE = 'integrity_constraint_violation';
    END IF;
    IF NEW.prev_hash <> head_hash THEN
        RAISE EXCEPTION 'table %: event % does not chain onto event %',
              NEW.table_id, NEW.sequence, head_version
              USING ERRCODE = 'integrity_constraint_violation';
    END IF;
    IF NEW.hash IS DISTINCT FROM belote_event_hash(NEW.prev_hash, NEW.table_id, NEW.sequence,
            NEW.type, NEW.schema_version, NEW.request_id, NEW.recorded_at_us, NEW.payload) THEN
        RAISE EXCEPTION 'table %: event % has a wrong hash', NEW.table_id, NEW.sequence
              USING ERRCODE = 'integrity_constraint_violation';
    END IF;
    UPDATE table_heads SET version = NEW.sequence, last_hash = NEW.hash
     WHERE table_id = NEW.table_id;
    RETURN NEW;
END $$;
CREATE TRIGGER events_follow BEFORE INSERT ON events
    FOR EACH ROW EXECUTE FUNCTION belote_event_follows();

-- One append, atomically (the statement is its transaction). outcome:
--   appended:  written; out_version = its last sequence
--   duplicate: the request id was appended before: out_first..out_last are its events
--   conflict:  the table is at out_version, not p_expected
--   rehash:    p_prev is not the hash of event p_expected (out_hash is): hash again
CREATE FUNCTION belote_append(
    p_table text, p_expected bigint, p_request text, p_at bigint, p_prev bytea,
    p_types text[], p_schema_versions bigint[], p_payloads bytea[], p_hashes bytea[],
    p_status text, p_listed boolean, p_summary bytea)
RETURNS TABLE (outcome text, out_version bigint, out_hash bytea, out_first bigint,
               out_last bigint)
LANGUAGE plpgsql AS $$
DECLARE
    head_version bigint;
    head_hash    bytea;
    req          record;
    n            integer := cardinality(p_hashes);
    last_seq     bigint := p_expected + n;
BEGIN
    IF p_expected = 0 THEN  -- a new table: make the head row to lock
        INSERT INTO table_heads AS h (table_id, version, last_hash)
             VALUES (p_table, 0, {_GENESIS_SQL}) ON CONFLICT (table_id) DO NOTHING;
    END IF;
    SELECT h.version, h.last_hash INTO head_version, head_hash
      FROM table_heads h WHERE h.table_id = p_table FOR UPDATE;
    IF NOT FOUND THEN
        head_version := 0;
        head_hash := {_GENESIS_SQL};
    END IF;
    -- After the lock: a request the previous holder committed is seen (new snapshot).
    SELECT r.first_sequence, r.last_sequence INTO req
      FROM requests r WHERE r.table_id = p_table AND r.request_id = p_request;
    IF FOUND THEN
        RETURN QUERY SELECT 'duplicate'::text, head_version, head_hash,
                            req.first_sequence, req.last_sequence;
        RETURN;
    END IF;
    IF head_version <> p_expected THEN
        RETURN QUERY SELECT 'conflict'::text, head_version, head_hash, NULL::bigint, NULL::bigint;
        RETURN;
    END IF;
    IF head_hash <> p_prev THEN
        RETURN QUERY SELECT 'rehash'::text, head_version, head_hash, NULL::bigint, NULL::bigint;
        RETURN;
    END IF;
    INSERT INTO events (table_id, sequence, type, schema_version, payload, request_id,
                        recorded_at_us, prev_hash, hash)
         SELECT p_table, p_expected + i, p_types[i], p_schema_versions[i], p_payloads[i],
                p_request, p_at, CASE WHEN i = 1 THEN p_prev ELSE p_hashes[i - 1] END,
                p_hashes[i]
           FROM generate_series(1, n) AS i ORDER BY i;
    INSERT INTO requests (table_id, request_id, first_sequence, last_sequence)
         VALUES (p_table, p_request, p_expected + 1, last_seq);
    IF p_status IS NOT NULL THEN
        INSERT INTO table_index AS t (table_id, status, listed, summary, created_at_us,
                                      updated_at_us)
             VALUES (p_table, p_status, p_listed, p_summary, p_at, p_at)
        ON CONFLICT (table_id) DO UPDATE SET status = excluded.status,
             listed = excluded.listed, summary = excluded.summary,
             updated_at_us = excluded.updated_at_us;
    END IF;
    RETURN QUERY SELECT 'appended'::text, last_seq, p_hashes[n], p_expected + 1, last_seq;
END $$;

CREATE FUNCTION belote_append_only() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    RAISE EXCEPTION '% is append-only', TG_TABLE_NAME
          USING ERRCODE = 'integrity_constraint_violation';
END $$;
CREATE TRIGGER events_append_only BEFORE UPDATE OR DELETE ON events
    FOR EACH ROW EXECUTE FUNCTION belote_append_only();
CREATE TRIGGER events_no_truncate BEFORE TRUNCATE ON events
    FOR EACH STATEMENT EXECUTE FUNCTION belote_append_only();
CREATE TRIGGER requests_append_only BEFORE UPDATE OR DELETE ON requests
    FOR EACH ROW EXECUTE FUNCTION belote_append_only();
CREATE TRIGGER requests_no_truncate BEFORE TRUNCATE ON requests
    FOR EACH STATEMENT EXECUTE FUNCTION belote_append_only();
"""

_M2_LEASES = """
CREATE TABLE leases (
    scope     text   NOT NULL,
    holder    text   NOT NULL,
    until_us  bigint NOT NULL,
    PRIMARY KEY (scope, holder)
);
"""


# Requests say what they were (the RPC and a keyed fingerprint of the request), so the same id
# for another request is refused ('reused') instead of answered with another request's events;
# rows from before hold NULL. The key that derived every token leaves the store.
_M3_SCOPED_REQUESTS = f"""
ALTER TABLE requests ADD COLUMN rpc text, ADD COLUMN fingerprint bytea;
-- A client's request id (one with an rpc) names one request on one table only.
CREATE UNIQUE INDEX requests_of_clients ON requests (request_id) WHERE rpc <> '';

CREATE TABLE created_tables (
    request_id text PRIMARY KEY,
    table_id   text NOT NULL
);

DELETE FROM settings WHERE name = 'server_secret';

DROP FUNCTION belote_append(text, bigint, text, bigint, bytea, text[], bigint[], bytea[],
                            bytea[], text, boolean, bytea);
-- As in migration 1, with the request's rpc and fingerprint, and one more outcome:
--   reused: the request id was appended for another rpc or fingerprint, or (a client's, with
--           an rpc) on another table (out_rpc: its rpc)
CREATE FUNCTION belote_append(
    p_table text, p_expected bigint, p_request text, p_at bigint, p_prev bytea,
    p_types text[], p_schema_versions bigint[], p_payloads bytea[], p_hashes bytea[],
    p_status text, p_listed boolean, p_summary bytea, p_rpc text, p_fingerprint bytea)
RETURNS TABLE (outcome text, out_version bigint, out_hash bytea, out_first bigint,
               out_last bigint, out_rpc text)
LANGUAGE plpgsql AS $$
DECLARE
    head_version bigint;
    head_hash    bytea;
    req          record;
    n            integer := cardinality(p_hashes);
    last_seq     bigint := p_expected + n;
BEGIN
    IF p_expected = 0 THEN  -- a new table: make the head row to lock
        INSERT INTO table_heads AS h (table_id, version, last_hash)
             VALUES (p_table, 0, {_GENESIS_SQL}) ON CONFLICT (table_id) DO NOTHING;
    END IF;
    SELECT h.version, h.last_hash INTO head_version, head_hash
      FROM table_heads h WHERE h.table_id = p_table FOR UPDATE;
    IF NOT FOUND THEN
        head_version := 0;
        head_hash := {_GENESIS_SQL};
    END IF;
    -- After the lock: a request the previous holder committed is seen (new snapshot).
    SELECT r.first_sequence, r.last_sequence, r.rpc, r.fingerprint INTO req
      FROM requests r WHERE r.table_id = p_table AND r.request_id = p_request;
    IF FOUND THEN
        -- Another RPC or request under this id (rows from before fingerprints match any).
        IF req.fingerprint IS NOT NULL AND (req.rpc IS DISTINCT FROM p_rpc
                                            OR req.fingerprint <> p_fingerprint) THEN
            RETURN QUERY SELECT 'reused'::text, head_version, head_hash, NULL::bigint,
                                NULL::bigint, req.rpc;
            RETURN;
        END IF;
        RETURN QUERY SELECT 'duplicate'::text, head_version, head_hash,
                            req.first_sequence, req.last_sequence, NULL::text;
        RETURN;
    END IF;
    IF p_rpc <> '' THEN
        SELECT r.rpc INTO req FROM requests r WHERE r.request_id = p_request AND r.rpc <> '';
        IF FOUND THEN  -- a client's id, already used on another table
            RETURN QUERY SELECT 'reused'::text, head_version, head_hash, NULL::bigint,
                                NULL::bigint, req.rpc;
            RETURN;
        END IF;
    END IF;
    IF head_version <> p_expected THEN
        RETURN QUERY SELECT 'conflict'::text, head_version, head_hash, NULL::bigint, NULL::bigint,
                            NULL::text;
        RETURN;
    END IF;
    IF head_hash <> p_prev THEN
        RETURN QUERY SELECT 'rehash'::text, head_version, head_hash, NULL::bigint, NULL::bigint,
                            NULL::text;
        RETURN;
    END IF;
    INSERT INTO events (table_id, sequence, type, schema_version, payload, request_id,
                        recorded_at_us, prev_hash, hash)
         SELECT p_table, p_expected + i, p_types[i], p_schema_versions[i], p_payloads[i],
                p_request, p_at, CASE WHEN i = 1 THEN p_prev ELSE p_hashes[i - 1] END,
                p_hashes[i]
           FROM generate_series(1, n) AS i ORDER BY i;
    INSERT INTO requests (table_id, request_id, first_sequence, last_sequence, rpc, fingerprint)
         VALUES (p_table, p_request, p_expected + 1, last_seq, p_rpc, p_fingerprint);
    IF p_status IS NOT NULL THEN
        INSERT INTO table_index AS t (table_id, status, listed, summary, created_at_us,
                                      updated_at_us)
             VALUES (p_table, p_status, p_listed, p_summary, p_at, p_at)
        ON CONFLICT (table_id) DO UPDATE SET status = excluded.status,
             listed = excluded.listed, summary = excluded.summary,
             updated_at_us = excluded.updated_at_us;
    END IF;
    RETURN QUERY SELECT 'appended'::text, last_seq, p_hashes[n], p_expected + 1, last_seq,
                        NULL::text;
END $$;
"""

MIGRATIONS: tuple[str, ...] = (_M1_INITIAL, _M2_LEASES, _M3_SCOPED_REQUESTS)


def _migrate(conninfo: str) -> None:
    """Bring the schema to len(MIGRATIONS), one process at a time (blocking)."""
    with psycopg.connect(conninfo, autocommit=True) as c, c.transaction():
        # Every migrator queues here, even for the very first CREATE TABLE.
        c.execute("SELECT pg_advisory_xact_lock(%s)", (MIGRATION_LOCK,))
        c.execute("CREATE TABLE IF NOT EXISTS schema_version ("
                  " id integer PRIMARY KEY CHECK (id = 1), version integer NOT NULL)")
        row = c.execute("SELECT version FROM schema_version").fetchone()
        current = row[0] if row else 0
        if current > len(MIGRATIONS):
            raise StoreConfigError(
                f"the database schema is at version {current}, newer than this code "
                f"supports ({len(MIGRATIONS)})")
        for n in range(current + 1, len(MIGRATIONS) + 1):
            c.execute(MIGRATIONS[n - 1])
        if current != len(MIGRATIONS):
            c.execute("INSERT INTO schema_version (id, version) VALUES (1, %s)"
                      " ON CONFLICT (id) DO UPDATE SET version = excluded.version",
                      (len(MIGRATIONS),))


# --- queries ------------------------------------------------------------------------------

_EVENT_COLUMNS = ("table_id, sequence, type, schema_version, payload, request_id,"
                  " recorded_at_us, prev_hash, hash")
_SELECT_EVENTS = (f"SELECT {_EVENT_COLUMNS} FROM events WHERE table_id = %s AND sequence > %s"
                  " ORDER BY sequence LIMIT %s")
_SELECT_REQUEST_EVENTS = (
    f"SELECT {', '.join('e.' + c.strip() for c in _EVENT_COLUMNS.split(','))}, r.rpc, r.fingerprint"
    " FROM requests r JOIN events e ON e.table_id = r.table_id"
    " AND e.sequence BETWEEN r.first_sequence AND r.last_sequence"
    " WHERE r.table_id = %s AND r.request_id = %s ORDER BY e.sequence")
_SELECT_CLIENT_REQUEST = "SELECT rpc FROM requests WHERE request_id = %s AND rpc <> ''"
_SELECT_VERSION = "SELECT version FROM table_heads WHERE table_id = %s"
# The name is looked up at each call (tests swap in a function that skips the checks).
_APPEND_FUNCTION = "belote_append"
_APPEND_ARGS = ("%s::text, %s::bigint, %s::text, %s::bigint, %s::bytea, %s::text[],"
                " %s::bigint[], %s::bytea[], %s::bytea[], %s::text, %s::boolean, %s::bytea,"
                " %s::text, %s::bytea")
# One statement notifies a batch; synchronous_commit off: nothing to flush to disk for it.
_NOTIFY_MANY = ("SELECT pg_notify(%s, p) FROM"
                " (SELECT set_config('synchronous_commit', 'off', true)) AS c,"
                " unnest(%s::text[]) AS p")
HEADS_REMEMBERED = 100_000  # (sequence, hash) of the last event seen, per table


def _conninfo(url: str) -> str:
    """The URL with our defaults for what it does not set itself."""
    try:
        params = psycopg.conninfo.conninfo_to_dict(url)
    except psycopg.ProgrammingError as e:
        raise StoreConfigError(f"bad PostgreSQL URL: {e}") from None
    params.setdefault("connect_timeout", CONNECT_TIMEOUT_S)
    params.setdefault("application_name", "belote")
    # Notice a peer that vanished without closing the socket within ~20 s.
    params.setdefault("keepalives", 1)
    params.setdefault("keepalives_idle", 10)
    params.setdefault("keepalives_interval", 5)
    params.setdefault("keepalives_count", 2)
    return psycopg.conninfo.make_conninfo("", **params)


def _has_nul(*texts: str) -> bool:
    # PostgreSQL text cannot hold NUL: no table or request with one can exist.
    return any("\x00" in t for t in texts)


def _chain(table_id: str, expected: int, prev_hash: bytes, new: list[tuple[str, int, bytes]],
           request_id: str, recorded_at_us: int) -> list[StoredEvent]:
    stored = []
    for seq, (type_, schema_version, payload) in enumerate(new, start=expected + 1):
        h = event_hash(prev_hash, table_id, seq, type_, schema_version, request_id,
                       recorded_at_us, payload)
        stored.append(StoredEvent(table_id, seq, type_, schema_version, payload, request_id,
                                  recorded_at_us, prev_hash, h))
        prev_hash = h
    return stored


async def _call_append(conn: psycopg.AsyncConnection, args: tuple) -> tuple:
    cur = await conn.execute(f"SELECT * FROM {_APPEND_FUNCTION}({_APPEND_ARGS})", args)
    return await cur.fetchone()


def _same_events(earlier: Sequence[StoredEvent], ours: Sequence[StoredEvent]) -> bool:
    """Whether a duplicate's events are exactly the ones this call tried to append."""
    def key(e: StoredEvent) -> tuple:
        return (e.sequence, e.type, e.schema_version, e.payload, e.recorded_at_us)
    return [key(e) for e in earlier] == [key(e) for e in ours]


class _Signal(asyncio.Event):
    """A table's wake-up. `version`: the table version that set it, if the waker knew it."""

    def __init__(self) -> None:
        super().__init__()
        self.version: int | None = None


async def _configure(conn: psycopg.AsyncConnection) -> None:
    # A replica frozen inside a transaction must not hold a table's head lock forever.
    await conn.execute("SET idle_in_transaction_session_timeout = '15s'")


class PostgresEventStore(EventStore):
    def __init__(self, url: str, *, poll_interval: float = 2.0,
                 pool_min_size: int = POOL_MIN_SIZE, pool_max_size: int = POOL_MAX_SIZE,
                 pool_timeout: float = POOL_TIMEOUT_S):
        """Check the URL, connect once and migrate the schema (blocking, meant for startup).

        `poll_interval`: how often a waiting `wait_for_append` re-reads the version, should
        a notification be lost. The pool and the LISTEN connection open on first use.
        """
        self.url = url
        self.poll_interval = poll_interval
        self._conninfo = _conninfo(url)
        self._pool_args = {"min_size": pool_min_size, "max_size": pool_max_size,
                           "timeout": pool_timeout}
        self._closed = False
        self._stopping = False          # stop_waits was called
        self._down = False  # an outage was seen: fail fast until _recover reconnects
        self._down_reason = ""
        self._pool: psycopg_pool.AsyncConnectionPool | None = None
        self._started = False
        self._start_lock = asyncio.Lock()
        self._tasks: set[asyncio.Task] = set()  # background: listener, recovery, old pools
        self._listener: asyncio.Task | None = None
        self._notifier: asyncio.Task | None = None
        self._to_notify: dict[str, int] = {}  # table -> last sequence appended, not yet sent
        self._notify_signal = asyncio.Event()
        self._recovery: asyncio.Task | None = None
        # Per-table wake-up, as in SqliteEventStore: weak values, an entry lives while waited on.
        self._signals: weakref.WeakValueDictionary[str, _Signal] = weakref.WeakValueDictionary()
        # table -> last sequence this store appended and woke locally: its own notification,
        # when it comes back, need not wake anyone again.
        self._own: dict[str, int] = {}
        self._heads: dict[str, tuple[int, bytes]] = {}  # table -> last (sequence, hash) seen
        try:
            _migrate(self._conninfo)
        except psycopg.OperationalError as e:
            raise StoreUnavailable(f"cannot reach PostgreSQL: {_oneline(e)}") from e
        except psycopg.Error as e:
            raise StoreConfigError(f"cannot migrate the PostgreSQL schema: {_oneline(e)}") from e

    # --- plumbing -----------------------------------------------------------------------

    async def _get_pool(self) -> psycopg_pool.AsyncConnectionPool:
        if self._closed:
            raise StoreUnavailable("the store is closed")
        if not self._started:
            async with self._start_lock:
                if self._closed:
                    raise StoreUnavailable("the store is closed")
                if not self._started:
                    self._pool = await self._new_pool()
                    self._listener = self._spawn(self._listen())
                    self._notifier = self._spawn(self._notify_loop())
                    self._started = True
        if self._pool is None:  # dropped in an outage: _recover opens the next one
            raise StoreUnavailable(f"PostgreSQL is unreachable: {self._down_reason}")
        return self._pool

    async def _new_pool(self) -> psycopg_pool.AsyncConnectionPool:
        pool = psycopg_pool.AsyncConnectionPool(
            self._conninfo, open=False, kwargs={"autocommit": True}, configure=_configure,
            name="belote", **self._pool_args)
        await pool.open(wait=False)
        return pool

    def _spawn(self, coro: Awaitable[Any]) -> asyncio.Task:
        task = asyncio.get_running_loop().create_task(coro)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)
        return task

    async def _run(self, fn: Callable[[psycopg.AsyncConnection], Awaitable[T]], *,
                   retried: list[bool] | None = None) -> T:
        """fn(conn) on a pooled connection, with psycopg's errors mapped to the store's.

        A connection found dead (or a transaction the server rolled back) is tried again on
        another connection; `retried`, if given, is set to [True] when that happened.
        """
        # Dead pooled connections fail at once: after a server restart the pool may hold
        # several, so a call may try (and discard) up to one per pooled connection.
        attempts = self._pool_args["max_size"] + 1
        for attempt in range(attempts):
            if self._down:
                raise StoreUnavailable(f"PostgreSQL is unreachable: {self._down_reason}")
            pool = await self._get_pool()
            try:
                conn = await pool.getconn()
            except psycopg_pool.PoolClosed as e:
                if self._closed:
                    raise StoreUnavailable("the store is closed") from e
                continue  # replaced by _recover meanwhile
            except psycopg_pool.PoolTimeout as e:
                # Down, or only overloaded: _recover tells (and fails calls fast if down).
                self._mark_down("no connection available", fail_fast=False)
                raise StoreUnavailable(f"PostgreSQL is unreachable: {_oneline(e)}") from e
            try:
                if attempt and retried is not None:
                    retried[:] = [True]
                return await fn(conn)
            except (psycopg.OperationalError, psycopg.InterfaceError) as e:
                dead = conn.closed
                again = dead or isinstance(e, psycopg.errors.TransactionRollback)
                if again and attempt + 1 < attempts:
                    continue  # e.g. a connection the server closed while it sat in the pool
                if dead:
                    self._mark_down(_oneline(e))
                raise StoreUnavailable(f"PostgreSQL: {_oneline(e)}") from e
            except psycopg.DataError as e:  # e.g. a NUL character in a text value
                raise ValueError(str(e)) from e
            except psycopg.DatabaseError as e:
                if isinstance(e, (psycopg.ProgrammingError, psycopg.IntegrityError)):
                    raise  # our bug / handled by the caller
                raise StoreUnavailable(f"PostgreSQL: {_oneline(e)}") from e  # read-only, ...
            finally:
                await pool.putconn(conn)
        raise StoreUnavailable("PostgreSQL: no working connection")

    def _mark_down(self, reason: str, *, fail_fast: bool = True) -> None:
        """An outage was seen: start _recover. `fail_fast`: calls fail at once meanwhile
        (else only once _recover's first attempt fails too)."""
        if self._closed:
            return
        if fail_fast:
            self._set_down(reason)
        if self._recovery is None or self._recovery.done():
            self._recovery = self._spawn(self._recover())

    def _set_down(self, reason: str) -> None:
        self._down_reason = reason
        if self._down:
            return
        log.warning("postgresql unreachable", reason=reason)
        self._down = True
        # Drop the pool now: its connections are dead, and its own reconnection attempts
        # would only fill the log. _recover opens a fresh one when the server answers.
        old, self._pool = self._pool, None
        if old is not None:  # in-flight calls end; their connections close on return
            self._spawn(old.close(timeout=5))

    async def _recover(self) -> None:
        """Reconnect until the server answers; then a fresh pool, and wake every waiter."""
        attempt = 0
        while not self._closed:
            try:
                async with await psycopg.AsyncConnection.connect(
                        self._conninfo, autocommit=True) as conn:
                    await conn.execute("SELECT 1")
            except (psycopg.Error, OSError) as e:
                self._set_down(_oneline(e))
                await asyncio.sleep(RECONNECT_DELAYS[min(attempt, len(RECONNECT_DELAYS) - 1)])
                attempt += 1
                continue
            # The old pool's connections may all be dead (a restarted server): replace them
            # at once rather than meeting them one failed call at a time.
            new = await self._new_pool()
            if self._closed:
                await new.close(timeout=5)
                return
            old, self._pool = self._pool, new
            if old is not None:  # in-flight calls finish; their connections close on return
                self._spawn(old.close(timeout=5))
            if self._down:
                log.info("postgresql reachable again")
            self._down = False
            self._wake_all()
            return

    async def _listen(self) -> None:
        """Keep one LISTEN connection; turn notifications into local wake-ups."""
        attempt = 0
        while not self._closed:
            try:
                async with await psycopg.AsyncConnection.connect(
                        self._conninfo, autocommit=True) as conn:
                    await conn.execute(f"LISTEN {CHANNEL}")
                    self._own.clear()  # notifications sent while not listening are gone
                    attempt = 0
                    # Anything appended while not listening: waiters re-read the log.
                    self._wake_all()
                    async for note in conn.notifies():
                        self._notified(note.payload)
            except (psycopg.Error, OSError) as e:
                if self._closed:
                    return
                # Maybe the server went away (or restarted): check, and fail fast if so;
                # when it answers, the pool is replaced.
                self._mark_down(f"lost the LISTEN connection: {_oneline(e)}", fail_fast=False)
            except Exception:  # a bug: log it, and keep listening
                log.exception("postgresql listener failed")
            await asyncio.sleep(RECONNECT_DELAYS[min(attempt, len(RECONNECT_DELAYS) - 1)])
            attempt += 1

    def _announce(self, table_id: str, sequence: int) -> None:
        if sequence > self._to_notify.get(table_id, 0):
            self._to_notify[table_id] = sequence
        self._notify_signal.set()

    async def _notify_loop(self) -> None:
        """NOTIFY the other replicas of our appends, a batch per round trip."""
        while not self._closed:
            await self._notify_signal.wait()
            self._notify_signal.clear()
            await self._send_notifications()

    async def _send_notifications(self) -> None:
        batch, self._to_notify = self._to_notify, {}
        if not batch:
            return
        payloads = [f"{table_id}:{sequence}" for table_id, sequence in batch.items()]
        try:
            await self._run(lambda conn: conn.execute(_NOTIFY_MANY, (CHANNEL, payloads)))
        except StoreUnavailable:
            pass  # lost: the waiters elsewhere re-check by themselves, and on reconnecting
        except Exception:  # a bug: log it, and keep notifying
            log.exception("postgresql notify failed")

    def _notified(self, payload: str) -> None:
        table_id, _, seq = payload.rpartition(":")
        try:
            sequence = int(seq)
        except ValueError:
            return
        own = self._own.get(table_id)
        if own is not None and sequence <= own:
            if sequence == own:
                del self._own[table_id]
            return  # our own append: its waiters were woken at commit
        self._wake(table_id, sequence)

    def _wake(self, table_id: str, version: int | None) -> None:
        signal = self._signals.pop(table_id, None)
        if signal is not None:
            signal.version = version
            signal.set()

    def stop_waits(self) -> None:
        self._stopping = True
        self._wake_all()

    def _wake_all(self) -> None:
        for table_id in list(self._signals.keys()):
            self._wake(table_id, None)

    # --- EventStore ---------------------------------------------------------------------

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
        if _has_nul(table_id, request_id, rpc, *(e.type for e in events)):
            raise ValueError("table ids, request ids and event types cannot contain NUL")
        new = [(e.type, e.schema_version, bytes(e.payload)) for e in events]
        prev = self._known_hash(table_id, expected_version)
        retried: list[bool] = []
        for _ in range(3):  # a "rehash" answer at most once, unless the log moves meanwhile
            stored = _chain(table_id, expected_version, prev or GENESIS_HASH, new, request_id,
                            recorded_at_us)
            args = (table_id, expected_version, request_id, recorded_at_us, stored[0].prev_hash,
                    [s.type for s in stored], [s.schema_version for s in stored],
                    [s.payload for s in stored], [s.hash for s in stored],
                    index.status if index else None, bool(index.listed) if index else None,
                    bytes(index.summary) if index else None, rpc, bytes(fingerprint))
            try:
                outcome, version, head_hash, first, last, was_rpc = await self._run(
                    lambda conn, args=args: _call_append(conn, args), retried=retried)
            except psycopg.IntegrityError:
                # The database refused the events: another writer got there first (the
                # function's own checks make anything else a bug, and the database wins).
                self._heads.pop(table_id, None)
                raise VersionConflict(expected_version, await self.version(table_id)) from None
            if outcome == "appended":
                self._remember_head(table_id, last, stored[-1].hash)
                if len(self._own) >= HEADS_REMEMBERED:
                    self._own.clear()
                self._own[table_id] = last  # its notification need not wake anyone again
                self._wake(table_id, last)
                self._announce(table_id, last)
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
                self._wake(table_id, last)
                self._announce(table_id, last)
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
        if limit is not None and limit < 0:
            raise ValueError("limit must be >= 0")
        if _has_nul(table_id):
            return []

        async def query(conn: psycopg.AsyncConnection) -> list[StoredEvent]:
            cur = await conn.execute(_SELECT_EVENTS, (table_id, after_sequence, limit))
            return [StoredEvent(*r) for r in await cur.fetchall()]

        events = await self._run(query)
        if events:
            self._remember_head(table_id, events[-1].sequence, events[-1].hash)
        return events

    async def request_events(self, table_id: str, request_id: str, *, rpc: str = "",
                             fingerprint: bytes = b"") -> tuple[StoredEvent, ...] | None:
        if _has_nul(table_id, request_id):
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
            # As belote_append: a row from before fingerprints matches any request.
            if was_fingerprint is not None and (was_rpc, bytes(was_fingerprint)) != (rpc, bytes(fingerprint)):
                raise RequestReused(table_id, request_id, was_rpc or "")
            return tuple(StoredEvent(*r[:-2]) for r in rows)

        return await self._run(query)

    async def claim_table(self, request_id: str, table_id: str) -> str:
        async def claim(conn: psycopg.AsyncConnection) -> str:
            # The first replica to get here decides, the others read it (autocommit: the
            # SELECT sees a row another replica committed while our INSERT waited on it).
            await conn.execute("INSERT INTO created_tables (request_id, table_id) VALUES (%s, %s)"
                               " ON CONFLICT (request_id) DO NOTHING", (request_id, table_id))
            cur = await conn.execute("SELECT table_id FROM created_tables WHERE request_id = %s",
                                     (request_id,))
            return (await cur.fetchone())[0]

        if _has_nul(request_id, table_id):
            raise ValueError("request and table ids cannot contain NUL")
        return await self._run(claim)

    async def take_lease(self, scope: str, holder: str, limit: int, now_us: int,
                         until_us: int) -> bool:
        async def take(conn: psycopg.AsyncConnection) -> bool:
            async with conn.transaction():
                # One taker per scope at a time, on every replica: count and insert agree.
                await conn.execute("SELECT pg_advisory_xact_lock(hashtextextended(%s, 0))", (scope,))
                await conn.execute("DELETE FROM leases WHERE scope = %s AND until_us <= %s",
                                   (scope, now_us))
                cur = await conn.execute("SELECT count(*) FROM leases WHERE scope = %s"
                                         " AND holder <> %s", (scope, holder))
                if (await cur.fetchone())[0] >= limit:
                    return False
                await conn.execute("INSERT INTO leases (scope, holder, until_us) VALUES (%s, %s, %s)"
                                   " ON CONFLICT (scope, holder) DO UPDATE SET until_us = excluded.until_us",
                                   (scope, holder, until_us))
                return True

        return await self._run(take)

    async def extend_leases(self, leases: Sequence[tuple[str, str]], until_us: int) -> None:
        async def extend(conn: psycopg.AsyncConnection) -> None:
            async with conn.cursor() as cur:
                await cur.executemany("UPDATE leases SET until_us = %s WHERE scope = %s AND holder = %s",
                                      [(until_us, scope, holder) for scope, holder in leases])

        if leases:
            await self._run(extend)

    async def drop_lease(self, scope: str, holder: str) -> None:
        async def drop(conn: psycopg.AsyncConnection) -> None:
            await conn.execute("DELETE FROM leases WHERE scope = %s AND holder = %s", (scope, holder))

        await self._run(drop)

    async def drop_ended_leases(self, now_us: int) -> None:
        async def drop(conn: psycopg.AsyncConnection) -> None:
            await conn.execute("DELETE FROM leases WHERE until_us <= %s", (now_us,))

        await self._run(drop)

    async def count_leases(self, scope: str, now_us: int) -> int:
        async def count(conn: psycopg.AsyncConnection) -> int:
            cur = await conn.execute("SELECT count(*) FROM leases WHERE scope = %s AND until_us > %s",
                                     (scope, now_us))
            return (await cur.fetchone())[0]

        return await self._run(count)

    async def version(self, table_id: str) -> int:
        if _has_nul(table_id):
            return 0

        async def query(conn: psycopg.AsyncConnection) -> int:
            row = await (await conn.execute(_SELECT_VERSION, (table_id,))).fetchone()
            return row[0] if row else 0

        return await self._run(query)

    async def list_index(self, status: str | None = None, listed: bool | None = None,
                         limit: int = 100) -> list[tuple[str, TableIndexEntry, int]]:
        if status is not None and _has_nul(status):
            return []

        async def query(conn: psycopg.AsyncConnection) -> list[tuple[str, TableIndexEntry, int]]:
            cur = await conn.execute(
                "SELECT i.table_id, i.status, i.listed, i.summary, coalesce(h.version, 0)"
                " FROM table_index i LEFT JOIN table_heads h ON h.table_id = i.table_id"
                " WHERE (%(status)s::text IS NULL OR i.status = %(status)s::text)"
                " AND (%(listed)s::boolean IS NULL OR i.listed = %(listed)s::boolean)"
                " ORDER BY i.created_at_us DESC, i.table_id LIMIT %(limit)s",
                {"status": status, "listed": listed, "limit": limit})
            return [(t, TableIndexEntry(s, li, bytes(su)), v)
                    for t, s, li, su, v in await cur.fetchall()]

        return await self._run(query)

    async def count_index(self, status: str | None = None) -> int:
        if status is not None and _has_nul(status):
            return 0

        async def query(conn: psycopg.AsyncConnection) -> int:
            cur = await conn.execute(
                "SELECT count(*) FROM table_index"
                " WHERE %(status)s::text IS NULL OR status = %(status)s::text", {"status": status})
            return (await cur.fetchone())[0]

        return await self._run(query)

    async def wait_for_append(self, table_id: str, after_sequence: int,
                              timeout: float | None) -> int:
        deadline = None if timeout is None else time.monotonic() + timeout
        while True:
            # Take the signal BEFORE reading the version: an append committed after the
            # read sets this very signal (locally, or through the listener), so it is not
            # missed.
            signal = self._signals.get(table_id)
            if signal is None:
                signal = self._signals[table_id] = _Signal()
            version = await self.version(table_id)  # also starts the pool and the listener
            if version > after_sequence or self._stopping:
                return version
            wait = self.poll_interval  # the safety net, should a notification be lost
            if deadline is not None:
                remaining = deadline - time.monotonic()
                if remaining <= 0:
                    return version
                wait = min(wait, remaining)
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(signal.wait(), wait)
                if signal.version is not None and signal.version > after_sequence:
                    return signal.version

    async def ping(self) -> None:
        async def query(conn: psycopg.AsyncConnection) -> None:
            await conn.execute("SELECT 1")

        await self._run(query)

    @property
    def healthy(self) -> bool:
        """False while an outage is known (calls fail fast until the server answers)."""
        return not self._down and not self._closed

    async def close(self) -> None:
        if self._closed:
            return
        if self._to_notify and self._pool is not None and not self._down:
            with contextlib.suppress(TimeoutError):  # best effort: the last appends' news
                await asyncio.wait_for(self._send_notifications(), 1.0)
        self._closed = True
        self._wake_all()  # waiters re-check and get StoreUnavailable
        for task in (self._listener, self._recovery, self._notifier):
            if task is not None:
                task.cancel()
        pool, self._pool = self._pool, None
        if pool is not None:
            await pool.close(timeout=5)
        # The listener, the recovery and any old pool still closing.
        await asyncio.gather(*self._tasks, return_exceptions=True)


def _oneline(e: BaseException) -> str:
    text = str(e).strip().splitlines()
    return text[0] if text else type(e).__name__
