"""The PostgreSQL store (psycopg 3, async, with a psycopg-pool), for any number of replicas.

Several server processes share one database, and what keeps them honest is the database
itself: a trigger accepts an event only if it follows and chains onto the table's last one
with a correct hash, and events and request rows can be neither updated nor deleted (schema.py).
The schema is migrated as a store opens (blocking); the pool and the LISTEN connection start
with the first awaited call.
"""

from __future__ import annotations

from ..parts import Store
from .database import (
    CHANNEL,
    POOL_MAX_SIZE,
    POOL_MIN_SIZE,
    POOL_TIMEOUT_S,
    PostgresDatabase,
)
from .events import PostgresEventLog
from .lobby import PostgresLeases, PostgresLobby
from .schema import MIGRATIONS

__all__ = ["CHANNEL", "MIGRATIONS", "PostgresStore"]


class PostgresStore(Store):
    events: PostgresEventLog

    def __init__(self, url: str, *, poll_interval: float = 2.0,
                 pool_min_size: int = POOL_MIN_SIZE, pool_max_size: int = POOL_MAX_SIZE,
                 pool_timeout: float = POOL_TIMEOUT_S) -> None:
        """Check the URL, connect once and migrate the schema (blocking, meant for startup).
        `poll_interval`: how often the versions of the tables someone waits on are re-read,
        should a notification be lost."""
        self.database = PostgresDatabase(url, pool_min_size=pool_min_size,
                                         pool_max_size=pool_max_size, pool_timeout=pool_timeout)
        self.url = url
        self.events = PostgresEventLog(self.database, poll_interval)
        self.database.waiters = self.events.waiters
        self.lobby = PostgresLobby(self.database)
        self.leases = PostgresLeases(self.database)

    @property
    def healthy(self) -> bool:
        """False while an outage is known (calls fail fast until the server answers)."""
        return self.database.healthy

    async def ping(self) -> None:
        await self.database.run(lambda conn: conn.execute("SELECT 1"))

    async def close(self) -> None:
        await self.database.close()
