"""The SQLite store (stdlib sqlite3, WAL mode): one process per database file is assumed.

Another process writing the same file is still safe (BEGIN IMMEDIATE + busy_timeout + the
schema's triggers) and its appends reach `wait_for_append` through a periodic re-check.
"""

from __future__ import annotations

import asyncio
from pathlib import Path

from ..parts import Store
from .database import SqliteDatabase
from .events import SqliteEventLog
from .lobby import SqliteLeases, SqliteLobby
from .schema import MIGRATIONS

__all__ = ["MIGRATIONS", "SqliteStore"]


class SqliteStore(Store):
    events: SqliteEventLog

    def __init__(self, path: str | Path, *, poll_interval: float = 0.5) -> None:
        """Open (creating the file and its directory if needed) and migrate: blocking, meant
        for startup. `poll_interval`: how often the versions of the tables someone waits on
        are re-read, to see other processes' appends."""
        self.database = SqliteDatabase(path)
        self.path = self.database.path
        self.events = SqliteEventLog(self.database, poll_interval)
        self.lobby = SqliteLobby(self.database)
        self.leases = SqliteLeases(self.database)

    async def ping(self) -> None:
        await self.database.read(lambda c: c.execute("SELECT 1").fetchone())

    async def close(self) -> None:
        if self.database.closed:
            return
        self.database.closed = True
        await self.events.waiters.close()  # waiters get StoreUnavailable
        # Jobs already queued run first: the writer's executor is FIFO.
        await asyncio.to_thread(self.database.shutdown)
