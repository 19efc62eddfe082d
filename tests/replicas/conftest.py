"""Several real `belote serve` processes ("replicas") on one PostgreSQL database.

Every test here is marked `replicas` and `postgres` (select with `-m replicas`). Each test gets
a fresh database (CREATE DATABASE belote_test_<random>, dropped at teardown) on the server of
BELOTE_TEST_POSTGRES (default postgresql://postgres@127.0.0.1:5432/postgres). When that server
cannot be reached the tests skip, except under CI (env CI set), where they fail.
"""

from __future__ import annotations

import os
import subprocess
import sys
import time
import uuid
from pathlib import Path

import psycopg
import pytest

ADMIN_URL = os.environ.get("BELOTE_TEST_POSTGRES",
                           "postgresql://postgres@127.0.0.1:5432/postgres")
AUTH_SECRET = "test-auth-secret-0123456789abcdef"      # as tests/api/embedded.py's
_BIN = Path(sys.executable).parent / "belote"
BELOTE = [str(_BIN)] if _BIN.exists() else [sys.executable, "-m", "belote.cli"]


def pytest_configure(config):
    config.addinivalue_line("markers", "replicas: several server processes on one PostgreSQL "
                                       "database (needs PostgreSQL)")


def pytest_collection_modifyitems(items):
    here = Path(__file__).parent
    for item in items:
        if here in Path(item.fspath).parents:
            item.add_marker(pytest.mark.replicas)
            item.add_marker(pytest.mark.postgres)
            item.add_marker(pytest.mark.slow)


def require_postgres() -> None:
    try:
        with psycopg.connect(ADMIN_URL, connect_timeout=3) as c:
            c.execute("SELECT 1")
    except psycopg.Error as e:
        message = (f"PostgreSQL is not reachable at {ADMIN_URL} ({str(e).strip()}); set "
                   "BELOTE_TEST_POSTGRES to a server where this user may CREATE DATABASE")
        if os.environ.get("CI"):
            pytest.fail(f"CI must run the replica tests: {message}", pytrace=False)
        pytest.skip(message)


@pytest.fixture
def database():
    """A fresh database's URL, dropped afterwards."""
    require_postgres()
    name = f"belote_test_{uuid.uuid4().hex[:16]}"
    with psycopg.connect(ADMIN_URL, autocommit=True) as c:
        c.execute(f'CREATE DATABASE "{name}"')
    info = psycopg.conninfo.conninfo_to_dict(ADMIN_URL)
    password = f":{info['password']}" if info.get("password") else ""
    yield (f"postgresql://{info.get('user', 'postgres')}{password}@"
           f"{info.get('host', '127.0.0.1')}:{info.get('port', 5432)}/{name}")
    deadline = time.monotonic() + 20  # the server may be restarting (a restart test)
    while True:
        try:
            with psycopg.connect(ADMIN_URL, autocommit=True, connect_timeout=5) as c:
                c.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
            return
        except psycopg.OperationalError:
            if time.monotonic() > deadline:
                raise
            time.sleep(0.5)


class Replica:
    """One `belote serve` process; stdout/stderr go to files (a pipe could fill and block)."""

    def __init__(self, workdir: Path, store_url: str, name: str, extra_args: tuple[str, ...] = ()):
        self.workdir = workdir
        self.extra_args = extra_args
        self.store_url = store_url
        self.name = name
        self.proc: subprocess.Popen | None = None
        self.address = ""

    def start(self, timeout: float = 30.0) -> str:
        out = self.workdir / f"{self.name}.stdout.txt"
        err = self.workdir / f"{self.name}.stderr.txt"
        # Replicas share the session's key file (tests/conftest.py), as replicas must.
        env = {k: v for k, v in os.environ.items()
               if not k.startswith("BELOTE_") or k == "BELOTE_KEY_FILE"}
        env["BELOTE_METRICS_LISTEN"] = ""  # no metrics port: a fixed one would clash
        env["BELOTE_KEY_FILE"] = os.environ["BELOTE_KEY_FILE"]  # one key for every replica
        env["BELOTE_WEB_LISTEN"] = ""  # nor a web port
        # Registered players' tokens (tests/api/embedded.py): callers apart, all from 127.0.0.1.
        env["BELOTE_AUTH_SECRET"] = AUTH_SECRET
        with open(out, "wb") as o, open(err, "wb") as e:
            self.proc = subprocess.Popen(
                [*BELOTE, "--log-level", "info", "serve", "--listen", "127.0.0.1:0",
                 "--store", self.store_url, "--grace", "2", "--tables-per-minute", "0",
                 *self.extra_args],
                stdout=o, stderr=e, stdin=subprocess.DEVNULL, cwd=self.workdir, env=env)
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            for line in out.read_text().splitlines():
                if line.startswith("listening on "):
                    self.address = line.removeprefix("listening on ").strip()
                    return self.address
            if self.proc.poll() is not None:
                break
            time.sleep(0.02)
        self.kill()
        raise RuntimeError(f"replica {self.name} did not start:\n{self.output()}")

    @property
    def alive(self) -> bool:
        return self.proc is not None and self.proc.poll() is None

    def kill(self) -> None:
        """SIGKILL, as in a crash."""
        if self.proc is not None:
            self.proc.kill()
            self.proc.wait(10)

    def output(self) -> str:
        return "".join(p.read_text(errors="replace")
                       for p in sorted(self.workdir.glob(f"{self.name}.std*.txt")))


@pytest.fixture
def replicas(tmp_path, database):
    """start(n) -> n replicas on the test's database (started in parallel); all killed after.
    ``store_url``: another way to it (e.g. through a proxy)."""
    made: list[Replica] = []

    def start(n: int, store_url: str | None = None, extra_args: tuple[str, ...] = ()) -> list[Replica]:
        new = [Replica(tmp_path, store_url or database, f"replica{len(made) + i}", extra_args)
               for i in range(n)]
        made.extend(new)
        from concurrent.futures import ThreadPoolExecutor
        with ThreadPoolExecutor(n) as pool:
            list(pool.map(Replica.start, new))
        return new

    yield start
    for r in made:
        r.kill()
    for r in made:
        out = r.output()
        # A crash of ours would show as a traceback in a replica's log.
        assert "Traceback" not in out, f"{r.name} logged a traceback:\n{out[-4000:]}"
