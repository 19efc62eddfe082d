"""Fixtures of the client tests: a real `belote serve` process (tests/api/servers.py's
ServerProcess) and the Python client library from clients/python/ on the path."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
# belote_client is installed with the project; a checkout installed without it still works.
sys.path.insert(0, str(ROOT / "clients" / "python"))
# ServerProcess, reused from the API tests.
sys.path.append(str(ROOT / "tests" / "api"))


@pytest.fixture(scope="session")
def server(tmp_path_factory):
    """One server for the whole folder (every test makes tables of its own)."""
    from servers import ServerProcess

    proc = ServerProcess(tmp_path_factory.mktemp("clients-server"))
    proc.start()
    yield proc
    proc.kill()


@pytest.fixture
def own_server(tmp_path):
    """A server of the test's own, to stop and restart; killed at the end."""
    from servers import ServerProcess

    made: list[ServerProcess] = []

    def make() -> ServerProcess:
        proc = ServerProcess(tmp_path / f"server{len(made)}")
        proc.workdir.mkdir()
        made.append(proc)
        proc.start()
        return proc

    yield make
    for proc in made:
        proc.kill()
