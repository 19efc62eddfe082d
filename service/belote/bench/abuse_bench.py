"""What a flood from one client costs the server (one server on SQLite, on this machine):

- ``password_flood_cpu_s`` / ``password_flood_wall_s``: the server's CPU and the wall time of 100
  wrong passwords sent at once by one caller to a private table (each scrypt costs tens of ms);
- ``password_right_cpu_s``: 100 right passwords sent at once (spectators of a private table);
- ``create_flood_tables``: tables one caller gets out of 200 CreateTable calls at once, on a
  server with its default quota;
- ``quickplay_hog_seats``: the most seats one caller holds after 30 QuickPlay calls at once
  (the seats of its own at every table it got, on a server with its default limit).
"""

from __future__ import annotations

import asyncio
import contextlib
import tempfile
import uuid

import grpc
import psutil

from belote.bench.table_bench import start_server
from belote.v1 import table_service_pb2 as tpb
from belote.v1 import table_service_pb2_grpc as tgrpc

TRIES = 100


def _cpu_s(proc: psutil.Process) -> float:
    times = proc.cpu_times()
    return times.user + times.system


async def _flood(stub, table_id: str, password: str) -> None:
    async def look(p: str) -> None:
        with contextlib.suppress(grpc.aio.AioRpcError):
            await stub.GetTable(tpb.GetTableRequest(table_id=table_id, password=p))
    await asyncio.gather(*(look(password.format(i)) for i in range(TRIES)))


async def passwords(address: str, pid: int) -> tuple[float, float, float]:
    server = psutil.Process(pid)
    loop = asyncio.get_running_loop()
    async with grpc.aio.insecure_channel(address) as channel:
        stub = tgrpc.TableServiceStub(channel)
        table_id = (await stub.CreateTable(tpb.CreateTableRequest(
            is_private=True, password="sesame", request_id=uuid.uuid4().hex))).table_id
        before, started = _cpu_s(server), loop.time()
        await _flood(stub, table_id, "guess {}")
        wrong_cpu, wrong_wall = _cpu_s(server) - before, loop.time() - started
        other = (await stub.CreateTable(tpb.CreateTableRequest(
            is_private=True, password="sesame", request_id=uuid.uuid4().hex))).table_id
        before = _cpu_s(server)
        await _flood(stub, other, "sesame")
        return wrong_cpu, wrong_wall, _cpu_s(server) - before


async def creates(address: str) -> int:
    async with grpc.aio.insecure_channel(address) as channel:
        stub = tgrpc.TableServiceStub(channel)

        async def create() -> int:
            try:
                await stub.CreateTable(tpb.CreateTableRequest(request_id=uuid.uuid4().hex))
                return 1
            except grpc.aio.AioRpcError:
                return 0
        return sum(await asyncio.gather(*(create() for _ in range(200))))


async def quick_plays(address: str) -> int:
    async with grpc.aio.insecure_channel(address) as channel:
        stub = tgrpc.TableServiceStub(channel)
        answers = await asyncio.gather(*(stub.QuickPlay(tpb.QuickPlayRequest(
            preset="classic", display_name=f"hog {i}", request_id=uuid.uuid4().hex))
            for i in range(30)), return_exceptions=True)
        seats = 0
        for table_id in {a.table.table_id for a in answers if isinstance(a, tpb.QuickPlayResponse)}:
            table = await stub.GetTable(tpb.GetTableRequest(table_id=table_id))
            seats += sum(s.occupant == tpb.SEAT_OCCUPANT_HUMAN for s in table.seats)
        return seats


def _serve(tmp: str, extra_env: dict | None = None):
    return start_server(f"sqlite:///{tmp}/{uuid.uuid4().hex}.db", extra_env)


def _on_a_server(tmp: str, run, extra_env: dict | None = None):
    """``run(address, pid)`` against a server of its own, stopped after."""
    proc, address = _serve(tmp, extra_env)
    try:
        return asyncio.run(run(address, proc.pid))
    finally:
        proc.terminate()
        proc.wait(30)


def main() -> None:
    default_quota = {"BELOTE_TABLES_PER_MINUTE": ""}
    with tempfile.TemporaryDirectory() as tmp:
        wrong_cpu, wrong_wall, right_cpu = _on_a_server(tmp, passwords)
        tables = _on_a_server(tmp, lambda address, _: creates(address), default_quota)
        hog_seats = _on_a_server(tmp, lambda address, _: quick_plays(address), default_quota)
    print(f"bench: password_flood_cpu_s {wrong_cpu:.2f} s", flush=True)
    print(f"bench: password_flood_wall_s {wrong_wall:.2f} s", flush=True)
    print(f"bench: password_right_cpu_s {right_cpu:.2f} s", flush=True)
    print(f"bench: create_flood_tables {tables} tables", flush=True)
    print(f"bench: quickplay_hog_seats {hog_seats} seats", flush=True)


if __name__ == "__main__":
    main()
