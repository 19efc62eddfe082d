"""The SQLite schema: its migrations, and the runner that applies them as the store opens."""

from __future__ import annotations

import sqlite3
from collections.abc import Callable

from ..migrations import run_migrations

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


def _m5_chained_append_only(c: sqlite3.Connection) -> None:
    # As in PostgreSQL: an event must chain onto the last one (SQLite has no sha256 to check
    # the hash itself: verify_chain does), and request rows are append-only too.
    c.execute("DROP TRIGGER events_gapless")
    c.execute("""
        CREATE TRIGGER events_follow BEFORE INSERT ON events
        WHEN NEW.sequence != 1 + coalesce(
                 (SELECT max(sequence) FROM events WHERE table_id = NEW.table_id), 0)
             OR NEW.prev_hash IS NOT coalesce(
                 (SELECT hash FROM events WHERE table_id = NEW.table_id
                     AND sequence = NEW.sequence - 1), zeroblob(32))
        BEGIN SELECT RAISE(ABORT, 'an event must follow and chain onto the last one'); END""")
    c.execute("""
        CREATE TRIGGER requests_no_update BEFORE UPDATE ON requests
        BEGIN SELECT RAISE(ABORT, 'requests are append-only'); END""")
    c.execute("""
        CREATE TRIGGER requests_no_delete BEFORE DELETE ON requests
        BEGIN SELECT RAISE(ABORT, 'requests are append-only'); END""")


MIGRATIONS: tuple[Callable[[sqlite3.Connection], None], ...] = (
    _m1_initial, _m2_settings, _m3_leases, _m4_scoped_requests, _m5_chained_append_only)


def migrate(c: sqlite3.Connection) -> None:
    c.execute("BEGIN IMMEDIATE")  # one process migrates at a time
    try:
        current = run_migrations(c, MIGRATIONS)
        c.execute("COMMIT")
    except BaseException:
        if c.in_transaction:
            c.execute("ROLLBACK")
        raise
    if current < 4 <= len(MIGRATIONS):
        # The pages migration 4 overwrote (the server secret's) leave the main file now.
        c.execute("PRAGMA wal_checkpoint(TRUNCATE)")
