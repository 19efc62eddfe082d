"""The store: per-table append-only event logs, the lobby index and leases (parts.py), on
SQLite or PostgreSQL; `open_store` opens the one a URL names."""

from __future__ import annotations

from .base import (
    AppendResult,
    NewEvent,
    RequestReused,
    StoreConfigError,
    StoredEvent,
    StoreError,
    StoreUnavailable,
    TableIndexEntry,
    VersionConflict,
)
from .chain import GENESIS_HASH, event_hash, verify_chain
from .parts import EventLog, Leases, Lobby, Store
from .sqlite import SqliteStore

__all__ = [
    "GENESIS_HASH",
    "AppendResult",
    "EventLog",
    "Leases",
    "Lobby",
    "NewEvent",
    "RequestReused",
    "SqliteStore",
    "Store",
    "StoreConfigError",
    "StoreError",
    "StoreUnavailable",
    "StoredEvent",
    "TableIndexEntry",
    "VersionConflict",
    "event_hash",
    "open_store",
    "verify_chain",
]

_ACCEPTED = ("sqlite:///relative/path.db, sqlite:////absolute/path.db or "
             "postgresql://user[:password]@host[:port]/database[?param=value...]")


def open_store(url: str) -> Store:
    """Open the store named by `url` (blocking: meant for startup).

    sqlite:///data/belote.db   -> ./data/belote.db (relative to the working directory)
    sqlite:////var/lib/b.db    -> /var/lib/b.db (absolute: four slashes, as in SQLAlchemy)
    postgresql://user@host:5432/belote -> PostgreSQL (libpq URL; postgres:// too), shared by
                                          any number of replicas

    Both check the database and migrate its schema here; PostgreSQL's connection pool then
    opens with the first awaited call.
    """
    if url.startswith(("postgresql://", "postgres://")):
        from .postgres import PostgresStore  # psycopg is only imported when used

        return PostgresStore(url)
    if url.startswith("sqlite:///"):
        path = url.removeprefix("sqlite:///")
        # ":memory:" would give each of the store's connections its own database;
        # a query string would silently become part of the file name.
        if path and path != ":memory:" and "?" not in path:
            return SqliteStore(path)
    raise StoreConfigError(f"unsupported store URL {url!r}; use {_ACCEPTED}")
