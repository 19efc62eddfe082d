"""Fixtures of the API tests: a real `belote serve` process on loopback, and clients of it.

`server` is one process shared by the whole session (tests there use tables of their own);
tests that kill, stop or restart a server get their own from `server_factory`.
"""

from __future__ import annotations

import grpc
import pytest
from belote.v1 import table_service_pb2_grpc
from servers import ServerProcess


@pytest.fixture(scope="session")
def server(tmp_path_factory) -> ServerProcess:
    proc = ServerProcess(tmp_path_factory.mktemp("shared-server"))
    proc.start()
    yield proc
    proc.kill()


@pytest.fixture
def server_factory(tmp_path):
    """Servers of one test's own (each on a fresh store); all killed at the end."""
    made: list[ServerProcess] = []

    def make(**kwargs) -> ServerProcess:
        proc = ServerProcess(tmp_path / f"server{len(made)}", **kwargs)
        proc.workdir.mkdir()
        made.append(proc)
        proc.start()
        return proc

    yield make
    for proc in made:
        proc.kill()


@pytest.fixture
async def stub(server):
    async with grpc.aio.insecure_channel(server.address) as channel:
        yield table_service_pb2_grpc.TableServiceStub(channel)
