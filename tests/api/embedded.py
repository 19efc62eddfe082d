"""A real gRPC server on loopback inside the test's own process, around an app the test holds:
for the tests that configure the app (player-token key, starting chips) or drive its clock
(`app.enforce_deadlines(now_us=...)`). Registered players' tokens are made here too."""

from __future__ import annotations

import contextlib
import os
import time
from pathlib import Path

import grpc
import jwt
from belote.api.server import start
from belote.app.server_key import read_key_file
from belote.app.tables import TableApp
from belote.store import SqliteStore
from belote.v1 import table_service_pb2 as pb
from belote.v1 import table_service_pb2_grpc
from players import Table, rid

AUTH_SECRET = "test-auth-secret-0123456789abcdef"


def player_token(sub: str, *, secret: str = AUTH_SECRET, expires_in: float = 3600) -> str:
    """What the site's identity provider would give player `sub`."""
    return jwt.encode({"sub": sub, "exp": int(time.time() + expires_in)}, secret, algorithm="HS256")


def as_player(sub: str, **kw) -> tuple[tuple[str, str], ...]:
    return (("x-player-token", player_token(sub, **kw)),)


@contextlib.asynccontextmanager
async def embedded_server(workdir: Path, **app_options):
    """(app, stub) of a server on 127.0.0.1:<any port> over the sqlite file `belote.db` in
    `workdir`: two of them on one workdir are two replicas on one store."""
    async with embedded_address(workdir, **app_options) as (app, address):
        async with grpc.aio.insecure_channel(address) as channel:
            yield app, table_service_pb2_grpc.TableServiceStub(channel)


@contextlib.asynccontextmanager
async def embedded_address(workdir: Path, **app_options):
    """(app, address) of such a server, for a test that makes its own channels."""
    store = SqliteStore(str(workdir / "belote.db"))
    # The session's key (tests/conftest.py): replicas on one workdir share it, as they must.
    key = read_key_file(os.environ["BELOTE_KEY_FILE"])
    app = TableApp(store, **{"auth_secret": AUTH_SECRET, "server_key": key, **app_options})
    running = await start("127.0.0.1:0", app)
    try:
        yield app, running.address
    finally:
        await running.stop(0.5)


async def seated_table(stub, players: dict, preset: str = "classic", options: dict | None = None,
                       **create):
    """A table with `players` (seat -> registered player id, or None for a guest) joined first,
    then EASY bots on the other seats."""
    created = await stub.CreateTable(pb.CreateTableRequest(
        preset=preset, options=options or {}, request_id=rid(), **create))
    table = Table(stub, created.table_id, created.host_token,
                  int(created.table.options["target"]), password=create.get("password", ""))
    for seat, player in players.items():
        reply = await stub.JoinTable(
            pb.JoinTableRequest(table_id=table.table_id, seat=seat, request_id=rid(),
                                display_name=player or f"guest{seat}", password=table.password),
            metadata=as_player(player) if player else None)
        table.tokens[seat] = reply.seat_token
    for seat in sorted(set(range(4)) - set(players)):
        await table.add_bot(seat)
    return table
