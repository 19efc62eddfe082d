"""Backends for the store contract suite.

Every test in test_contract.py runs once per backend. A backend object opens
stores on one fresh database (so tests can open it twice, or reopen it) and
offers the few raw database operations the contract tests need to go below
the store's interface. To add PostgreSQL: write a PostgresBackend with the
same attributes and add it to BACKENDS.
"""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest
from belote.store import EventStore, open_store
from belote.store.chain import GENESIS_HASH


class SqliteBackend:
    name = "sqlite"
    integrity_error = sqlite3.IntegrityError  # what the raw database raises on a constraint

    def __init__(self, tmp_path: Path):
        self.path = tmp_path / "store.db"
        self.url = f"sqlite:///{self.path}"  # tmp_path is absolute: four slashes

    def open(self) -> EventStore:
        return open_store(self.url)

    def _raw(self) -> sqlite3.Connection:
        return sqlite3.connect(self.path, isolation_level=None)

    def schema_version(self) -> list[int]:
        """All rows of the schema version table (exactly one is expected)."""
        with self._raw() as c:
            return [v for (v,) in c.execute("SELECT version FROM schema_version")]

    def force_schema_version(self, version: int) -> None:
        with self._raw() as c:
            c.execute("UPDATE schema_version SET version = ?", (version,))

    def raw_insert_event(self, table_id: str, sequence: int) -> None:
        """Insert an event row directly, bypassing the store's own checks."""
        with self._raw() as c:
            c.execute(
                "INSERT INTO events (table_id, sequence, type, schema_version, payload,"
                " request_id, recorded_at_us, prev_hash, hash) VALUES (?,?,?,?,?,?,?,?,?)",
                (table_id, sequence, "raw", 1, b"", f"raw-{sequence}", 0,
                 GENESIS_HASH, GENESIS_HASH))

    def raw_modify_event(self, table_id: str, sequence: int) -> None:
        with self._raw() as c:
            c.execute("UPDATE events SET payload = x'00' WHERE table_id = ? AND sequence = ?",
                      (table_id, sequence))

    def raw_delete_event(self, table_id: str, sequence: int) -> None:
        with self._raw() as c:
            c.execute("DELETE FROM events WHERE table_id = ? AND sequence = ?",
                      (table_id, sequence))

    def make_head_stale(self, monkeypatch: pytest.MonkeyPatch, version: int) -> None:
        """Make the store's next append read `version` as the table's head, as a
        racing writer that read just before another commit would."""
        import belote.store.sqlite as impl

        real = impl._select_head
        calls = []

        def stale(c, table_id):
            calls.append(table_id)
            return (version, GENESIS_HASH) if len(calls) == 1 else real(c, table_id)

        monkeypatch.setattr(impl, "_select_head", stale)


BACKENDS = {"sqlite": SqliteBackend}


@pytest.fixture(params=sorted(BACKENDS))
def backend(request, tmp_path):
    return BACKENDS[request.param](tmp_path)


@pytest.fixture
async def store(backend):
    s = backend.open()
    yield s
    await s.close()
