"""Backends for the store contract suites.

Every test of the contract suites (test_event_log.py, test_event_chain.py, test_lobby.py,
test_leases.py, test_store.py) that takes `store` or `backend` runs once per backend. A backend object opens
stores on one fresh database (so tests can open it twice, or reopen it) and
offers the few raw database operations the contract tests need to go below
the store's interface. A new backend: a class with the same attributes, added to
BACKENDS.

PostgreSQL: each test gets a database of its own (CREATE DATABASE belote_test_<random>, dropped
at teardown) on the server named by BELOTE_TEST_POSTGRES (default
postgresql://postgres@127.0.0.1:5432/postgres). When that server cannot be reached the
PostgreSQL tests skip, saying why -- except under CI (env CI set), where they fail: CI must
never pass without having run them. Select them with `-m postgres`, leave them out with
`-m "not postgres"`.
"""

from __future__ import annotations

import os
import sqlite3
import time
import uuid
from pathlib import Path

import psycopg
import pytest
from belote.store import Store, open_store
from belote.store.chain import GENESIS_HASH


class SqliteBackend:
    name = "sqlite"
    integrity_error = sqlite3.IntegrityError  # what the raw database raises on a constraint
    checks_hashes = False  # SQLite has no sha256 in SQL: its trigger checks the chain's links

    def __init__(self, tmp_path: Path):
        self.path = tmp_path / "store.db"
        self.url = f"sqlite:///{self.path}"  # tmp_path is absolute: four slashes

    def open(self) -> Store:
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

    def raw_insert_event(self, table_id: str, sequence: int, prev_hash: bytes = GENESIS_HASH,
                         hash: bytes = GENESIS_HASH) -> None:
        """Insert an event row directly, bypassing the store's own checks."""
        with self._raw() as c:
            c.execute(
                "INSERT INTO events (table_id, sequence, type, schema_version, payload,"
                " request_id, recorded_at_us, prev_hash, hash) VALUES (?,?,?,?,?,?,?,?,?)",
                (table_id, sequence, "raw", 1, b"", f"raw-{sequence}", 0, prev_hash, hash))

    def raw_modify_request(self, table_id: str, request_id: str) -> None:
        with self._raw() as c:
            c.execute("UPDATE requests SET last_sequence = last_sequence + 1"
                      " WHERE table_id = ? AND request_id = ?", (table_id, request_id))

    def raw_delete_request(self, table_id: str, request_id: str) -> None:
        with self._raw() as c:
            c.execute("DELETE FROM requests WHERE table_id = ? AND request_id = ?",
                      (table_id, request_id))

    def raw_modify_event(self, table_id: str, sequence: int) -> None:
        with self._raw() as c:
            c.execute("UPDATE events SET payload = x'00' WHERE table_id = ? AND sequence = ?",
                      (table_id, sequence))

    def raw_delete_event(self, table_id: str, sequence: int) -> None:
        with self._raw() as c:
            c.execute("DELETE FROM events WHERE table_id = ? AND sequence = ?",
                      (table_id, sequence))

    def settings(self) -> dict[str, bytes]:
        with self._raw() as c:
            return {n: bytes(v) for n, v in c.execute("SELECT name, value FROM settings")}

    def make_old_store(self, secret: bytes, request: tuple[str, str]) -> None:
        """A database of the schema before request fingerprints: its server secret in the
        settings, and one request (table, request id) of one event."""
        from belote.store.sqlite import MIGRATIONS

        with self._raw() as c:
            for migration in MIGRATIONS[:3]:
                migration(c)
            c.execute("CREATE TABLE schema_version (id INTEGER PRIMARY KEY, version INTEGER)")
            c.execute("INSERT INTO schema_version VALUES (1, 3)")
            c.execute("INSERT INTO settings VALUES ('server_secret', ?)", (secret,))
            c.execute("INSERT INTO events VALUES (?, 1, 'e', 1, x'01', ?, 0, ?, ?)",
                      (*request, GENESIS_HASH, GENESIS_HASH))
            c.execute("INSERT INTO requests VALUES (?, ?, 1, 1)", request)

    def raw_bytes(self) -> bytes:
        """Every byte of the database's files (the main file and its WAL)."""
        return b"".join(p.read_bytes() for p in (self.path, Path(f"{self.path}-wal"))
                        if p.exists())

    def make_head_stale(self, monkeypatch: pytest.MonkeyPatch, version: int) -> None:
        """Make the store's next append read `version` as the table's head, as a
        racing writer that read just before another commit would."""
        import belote.store.sqlite.events as impl

        real = impl._select_head_and_request
        calls = []

        def stale(c, table_id, request_id, rpc):
            calls.append(table_id)
            head = real(c, table_id, request_id, rpc)
            return (version, GENESIS_HASH, *head[2:]) if len(calls) == 1 else head

        monkeypatch.setattr(impl, "_select_head_and_request", stale)


ADMIN_URL = os.environ.get("BELOTE_TEST_POSTGRES",
                           "postgresql://postgres@127.0.0.1:5432/postgres")
_reachable: str | None = None  # "" once the server answered, else why it did not


def require_postgres() -> None:
    """Skip (or, under CI, fail) the test when the PostgreSQL server cannot be reached."""
    global _reachable
    if _reachable is None:
        try:
            with psycopg.connect(ADMIN_URL, connect_timeout=3) as c:
                c.execute("SELECT 1")
            _reachable = ""
        except psycopg.Error as e:
            _reachable = str(e).strip() or type(e).__name__
    if _reachable:
        message = (f"PostgreSQL is not reachable at {ADMIN_URL} ({_reachable}); "
                   "set BELOTE_TEST_POSTGRES to a server where this user may CREATE DATABASE")
        if os.environ.get("CI"):
            pytest.fail(f"CI must run the PostgreSQL tests: {message}", pytrace=False)
        pytest.skip(message)


class PostgresBackend:
    name = "postgres"
    integrity_error = psycopg.IntegrityError
    checks_hashes = True  # its trigger recomputes every event's hash

    def __init__(self, tmp_path: Path):
        require_postgres()
        self.database = f"belote_test_{uuid.uuid4().hex[:16]}"
        with psycopg.connect(ADMIN_URL, autocommit=True) as c:
            c.execute(f'CREATE DATABASE "{self.database}"')
        info = psycopg.conninfo.conninfo_to_dict(ADMIN_URL)
        info["dbname"] = self.database
        # A URL, as `belote serve --store` gets it.
        user = info.get("user", "postgres")
        password = f":{info['password']}" if info.get("password") else ""
        self.url = (f"postgresql://{user}{password}@{info.get('host', '127.0.0.1')}:"
                    f"{info.get('port', 5432)}/{self.database}")

    def drop(self) -> None:
        # Retried a while: another run's restart test may have the server restarting.
        deadline = time.monotonic() + 20
        while True:
            try:
                with psycopg.connect(ADMIN_URL, autocommit=True, connect_timeout=5) as c:
                    c.execute(f'DROP DATABASE IF EXISTS "{self.database}" WITH (FORCE)')
                return
            except psycopg.OperationalError:
                if time.monotonic() > deadline:
                    raise
                time.sleep(0.5)

    def open(self) -> Store:
        return open_store(self.url)

    def _raw(self) -> psycopg.Connection:
        return psycopg.connect(self.url, autocommit=True)

    def schema_version(self) -> list[int]:
        with self._raw() as c:
            return [v for (v,) in c.execute("SELECT version FROM schema_version")]

    def force_schema_version(self, version: int) -> None:
        with self._raw() as c:
            c.execute("UPDATE schema_version SET version = %s", (version,))

    def raw_insert_event(self, table_id: str, sequence: int, prev_hash: bytes = GENESIS_HASH,
                         hash: bytes = GENESIS_HASH) -> None:
        with self._raw() as c:
            c.execute(
                "INSERT INTO events (table_id, sequence, type, schema_version, payload,"
                " request_id, recorded_at_us, prev_hash, hash)"
                " VALUES (%s,%s,%s,%s,%s,%s,%s,%s,%s)",
                (table_id, sequence, "raw", 1, b"", f"raw-{sequence}", 0, prev_hash, hash))

    def raw_modify_request(self, table_id: str, request_id: str) -> None:
        with self._raw() as c:
            c.execute("UPDATE requests SET last_sequence = last_sequence + 1"
                      " WHERE table_id = %s AND request_id = %s", (table_id, request_id))

    def raw_delete_request(self, table_id: str, request_id: str) -> None:
        with self._raw() as c:
            c.execute("DELETE FROM requests WHERE table_id = %s AND request_id = %s",
                      (table_id, request_id))

    def raw_modify_event(self, table_id: str, sequence: int) -> None:
        with self._raw() as c:
            c.execute("UPDATE events SET payload = '\\x00' WHERE table_id = %s AND sequence = %s",
                      (table_id, sequence))

    def raw_delete_event(self, table_id: str, sequence: int) -> None:
        with self._raw() as c:
            c.execute("DELETE FROM events WHERE table_id = %s AND sequence = %s",
                      (table_id, sequence))

    def settings(self) -> dict[str, bytes]:
        with self._raw() as c:
            return {n: bytes(v) for n, v in c.execute("SELECT name, value FROM settings")}

    def make_old_store(self, secret: bytes, request: tuple[str, str]) -> None:
        from belote.store.chain import event_hash
        from belote.store.postgres import MIGRATIONS

        with self._raw() as c:
            for migration in MIGRATIONS[:2]:
                c.execute(migration)
            c.execute("CREATE TABLE schema_version (id integer PRIMARY KEY, version integer)")
            c.execute("INSERT INTO schema_version VALUES (1, 2)")
            c.execute("INSERT INTO settings VALUES ('server_secret', %s)", (secret,))
            h = event_hash(GENESIS_HASH, request[0], 1, "e", 1, request[1], 0, b"\x01")
            c.execute("INSERT INTO events VALUES (%s, 1, 'e', 1, '\\x01', %s, 0, %s, %s)",
                      (*request, GENESIS_HASH, h))
            c.execute("INSERT INTO requests VALUES (%s, %s, 1, 1)", request)

    def raw_bytes(self) -> bytes:
        return b""  # the server's files are not ours to read: settings() tells

    def make_head_stale(self, monkeypatch: pytest.MonkeyPatch, version: int) -> None:
        """The store's append function, minus its head checks: it writes as if the table
        were at the expected version, like a writer whose read went stale."""
        import belote.store.postgres.events as impl

        with self._raw() as c:
            (source,) = c.execute(
                "SELECT pg_get_functiondef('belote_append'::regproc)").fetchone()
            checks = ("IF head_version <> p_expected THEN", "IF head_hash <> p_prev THEN")
            assert all(check in source for check in checks)
            for check in checks:
                source = source.replace(check, "IF false THEN")
            c.execute(source.replace("FUNCTION public.belote_append(",
                                     "FUNCTION public.belote_append_stale("))
        monkeypatch.setattr(impl, "_APPEND_FUNCTION", "belote_append_stale")


BACKENDS = {"sqlite": SqliteBackend, "postgres": PostgresBackend}


@pytest.fixture(params=[pytest.param("sqlite"),
                        pytest.param("postgres", marks=pytest.mark.postgres)])
def backend(request, tmp_path):
    made = BACKENDS[request.param](tmp_path)
    yield made
    if isinstance(made, PostgresBackend):
        made.drop()


@pytest.fixture
def pg(tmp_path):
    """A PostgresBackend alone (for the PostgreSQL-only tests)."""
    made = PostgresBackend(tmp_path)
    yield made
    made.drop()


@pytest.fixture
async def store(backend):
    s = backend.open()
    yield s
    await s.close()
