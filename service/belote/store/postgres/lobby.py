"""The PostgreSQL lobby (which tables exist: claimed names, the index of their status) and
leases, whose takers queue on an advisory lock per scope across every replica."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import psycopg

from ..base import TableIndexEntry
from ..parts import Leases, Lobby
from .database import PostgresDatabase
from .events import has_nul


async def _count(conn: psycopg.AsyncConnection, sql: str, params: Any) -> int:
    row = await (await conn.execute(sql, params)).fetchone()
    assert row is not None  # count(*) is one row
    n: int = row[0]
    return n


class PostgresLobby(Lobby):
    def __init__(self, db: PostgresDatabase) -> None:
        self._db = db

    async def claim_table(self, request_id: str, table_id: str) -> str:
        async def claim(conn: psycopg.AsyncConnection) -> str:
            # The first replica to get here decides, the others read it (autocommit: the
            # SELECT sees a row another replica committed while our INSERT waited on it).
            await conn.execute("INSERT INTO created_tables (request_id, table_id) VALUES (%s, %s)"
                               " ON CONFLICT (request_id) DO NOTHING", (request_id, table_id))
            cur = await conn.execute("SELECT table_id FROM created_tables WHERE request_id = %s",
                                     (request_id,))
            row = await cur.fetchone()
            assert row is not None  # inserted just above, or by whoever came first
            claimed: str = row[0]
            return claimed

        if has_nul(request_id, table_id):
            raise ValueError("request and table ids cannot contain NUL")
        return await self._db.run(claim)

    async def list_tables(self, status: str | None = None, listed: bool | None = None,
                          limit: int = 100) -> list[tuple[str, TableIndexEntry, int]]:
        if status is not None and has_nul(status):
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

        return await self._db.run(query)

    async def count_tables(self, status: str | None = None) -> int:
        if status is not None and has_nul(status):
            return 0
        return await self._db.run(lambda conn: _count(
            conn, "SELECT count(*) FROM table_index"
            " WHERE %(status)s::text IS NULL OR status = %(status)s::text", {"status": status}))


class PostgresLeases(Leases):
    def __init__(self, db: PostgresDatabase) -> None:
        self._db = db

    async def take(self, scope: str, holder: str, limit: int, now_us: int,
                   until_us: int) -> bool:
        async def take(conn: psycopg.AsyncConnection) -> bool:
            async with conn.transaction():
                # One taker per scope at a time, on every replica: count and insert agree.
                await conn.execute("SELECT pg_advisory_xact_lock(hashtextextended(%s, 0))", (scope,))
                await conn.execute("DELETE FROM leases WHERE scope = %s AND until_us <= %s",
                                   (scope, now_us))
                others = await _count(conn, "SELECT count(*) FROM leases WHERE scope = %s"
                                      " AND holder <> %s", (scope, holder))
                if others >= limit:
                    return False
                await conn.execute("INSERT INTO leases (scope, holder, until_us) VALUES (%s, %s, %s)"
                                   " ON CONFLICT (scope, holder) DO UPDATE SET until_us = excluded.until_us",
                                   (scope, holder, until_us))
                return True

        return await self._db.run(take)

    async def extend(self, leases: Sequence[tuple[str, str]], until_us: int) -> None:
        async def extend(conn: psycopg.AsyncConnection) -> None:
            async with conn.cursor() as cur:
                await cur.executemany("UPDATE leases SET until_us = %s WHERE scope = %s AND holder = %s",
                                      [(until_us, scope, holder) for scope, holder in leases])

        if leases:
            await self._db.run(extend)

    async def drop(self, scope: str, holder: str) -> None:
        async def drop(conn: psycopg.AsyncConnection) -> None:
            await conn.execute("DELETE FROM leases WHERE scope = %s AND holder = %s", (scope, holder))

        await self._db.run(drop)

    async def drop_ended(self, now_us: int) -> None:
        async def drop(conn: psycopg.AsyncConnection) -> None:
            await conn.execute("DELETE FROM leases WHERE until_us <= %s", (now_us,))

        await self._db.run(drop)

    async def count(self, scope: str, now_us: int) -> int:
        return await self._db.run(lambda conn: _count(
            conn, "SELECT count(*) FROM leases WHERE scope = %s AND until_us > %s",
            (scope, now_us)))

    async def holders(self, scope: str, now_us: int) -> list[str]:
        async def query(conn: psycopg.AsyncConnection) -> list[str]:
            rows = await (await conn.execute(
                "SELECT holder FROM leases WHERE scope = %s AND until_us > %s ORDER BY holder",
                (scope, now_us))).fetchall()
            return [h for (h,) in rows]

        return await self._db.run(query)
