"""The schema migration runner both backends share: a `schema_version` row, and migration n
(MIGRATIONS[n - 1] of a backend) applied once, in order, inside the caller's transaction."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any, Protocol

from .base import StoreConfigError


class Connection(Protocol):
    """What sqlite3's and psycopg's (blocking) connections both offer."""

    def execute(self, sql: str, /) -> Any: ...


def run_migrations(c: Connection, migrations: Sequence[Callable[[Any], object]]) -> int:
    """Bring the schema to len(migrations); returns the version it was at. The caller holds
    the lock that makes one process migrate at a time, and commits."""
    c.execute("CREATE TABLE IF NOT EXISTS schema_version ("
              " id integer PRIMARY KEY CHECK (id = 1), version integer NOT NULL)")
    row = c.execute("SELECT version FROM schema_version").fetchone()
    current: int = row[0] if row else 0
    latest = len(migrations)
    if current > latest:
        raise StoreConfigError(
            f"the database schema is at version {current}, newer than this code "
            f"supports ({latest})")
    for migration in migrations[current:]:
        migration(c)
    if current != latest:
        c.execute(f"INSERT INTO schema_version (id, version) VALUES (1, {latest:d})"
                  " ON CONFLICT (id) DO UPDATE SET version = excluded.version")
    return current
