"""The SQLite lobby (which tables exist: claimed names, the index of their status) and leases."""

from __future__ import annotations

import sqlite3
from collections.abc import Sequence

from ..base import TableIndexEntry
from ..parts import Leases, Lobby
from .database import SqliteDatabase, write_transaction


def _count(c: sqlite3.Connection, sql: str, *params: object) -> int:
    n: int = c.execute(sql, params).fetchone()[0]
    return n


class SqliteLobby(Lobby):
    def __init__(self, db: SqliteDatabase) -> None:
        self._db = db

    async def claim_table(self, request_id: str, table_id: str) -> str:
        def claim(c: sqlite3.Connection) -> str:
            # INSERT OR IGNORE: the first process to get here decides, the others read it.
            c.execute("INSERT OR IGNORE INTO created_tables (request_id, table_id)"
                      " VALUES (?, ?)", (request_id, table_id))
            claimed: str = c.execute("SELECT table_id FROM created_tables WHERE request_id = ?",
                                     (request_id,)).fetchone()[0]
            return claimed
        return await self._db.write(claim)

    async def list_tables(self, status: str | None = None, listed: bool | None = None,
                          limit: int = 100) -> list[tuple[str, TableIndexEntry, int]]:
        def query(c: sqlite3.Connection) -> list[tuple[str, TableIndexEntry, int]]:
            rows = c.execute(
                "SELECT table_id, status, listed, summary,"
                " (SELECT max(sequence) FROM events e WHERE e.table_id = i.table_id)"
                " FROM table_index i"
                " WHERE (?1 IS NULL OR status = ?1) AND (?2 IS NULL OR listed = ?2)"
                " ORDER BY created_at_us DESC, table_id LIMIT ?3",
                (status, listed, limit)).fetchall()
            return [(t, TableIndexEntry(s, bool(li), su), v) for t, s, li, su, v in rows]

        return await self._db.read(query)

    async def count_tables(self, status: str | None = None) -> int:
        return await self._db.read(_count, "SELECT count(*) FROM table_index"
                                   " WHERE ?1 IS NULL OR status = ?1", status)


class SqliteLeases(Leases):
    def __init__(self, db: SqliteDatabase) -> None:
        self._db = db

    async def take(self, scope: str, holder: str, limit: int, now_us: int,
                   until_us: int) -> bool:
        def take(c: sqlite3.Connection) -> bool:
            c.execute("DELETE FROM leases WHERE scope = ? AND until_us <= ?", (scope, now_us))
            others = _count(c, "SELECT count(*) FROM leases WHERE scope = ? AND holder <> ?",
                            scope, holder)
            if others < limit:
                c.execute("INSERT INTO leases (scope, holder, until_us) VALUES (?, ?, ?)"
                          " ON CONFLICT (scope, holder) DO UPDATE SET until_us = excluded.until_us",
                          (scope, holder, until_us))
            return others < limit
        return await self._db.write(lambda c: write_transaction(c, take))

    async def extend(self, leases: Sequence[tuple[str, str]], until_us: int) -> None:
        if leases:
            await self._db.write(lambda c: c.executemany(
                "UPDATE leases SET until_us = ? WHERE scope = ? AND holder = ?",
                [(until_us, scope, holder) for scope, holder in leases]))

    async def drop(self, scope: str, holder: str) -> None:
        await self._db.write(lambda c: c.execute(
            "DELETE FROM leases WHERE scope = ? AND holder = ?", (scope, holder)))

    async def drop_ended(self, now_us: int) -> None:
        await self._db.write(lambda c: c.execute(
            "DELETE FROM leases WHERE until_us <= ?", (now_us,)))

    async def count(self, scope: str, now_us: int) -> int:
        return await self._db.read(_count, "SELECT count(*) FROM leases WHERE scope = ?"
                                   " AND until_us > ?", scope, now_us)

    async def holders(self, scope: str, now_us: int) -> list[str]:
        def query(c: sqlite3.Connection) -> list[str]:
            return [h for (h,) in c.execute("SELECT holder FROM leases WHERE scope = ? AND until_us > ?"
                                            " ORDER BY holder", (scope, now_us))]
        return await self._db.read(query)
