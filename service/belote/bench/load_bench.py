"""Load figures (one server on SQLite, the load client in this process, both on this machine):

- ``load_cards_per_s``, ``load_act_p99_ms``, ``load_stream_lag_p99_ms``: 200 tables of four
  scripted seats (one connection each) for 15 s;
- ``act_vs_bare_grpc_ratio``: the same load against the bare gRPC server (same RPC shapes, no
  game, no store): our cards/s over its cards/s, measured in the same run;
- ``rss_kb_per_table``: the server's RSS growth over 1000 idle-but-open tables (four seats
  joined, four watch streams open each), divided by 1000.
"""

from __future__ import annotations

import asyncio
import re
import subprocess
import sys
import tempfile
import time
import uuid

import grpc
import psutil

from belote.bench.table_bench import start_server
from belote.load.report import run_load
from belote.v1 import table_service_pb2 as pb
from belote.v1 import table_service_pb2_grpc as tgrpc

TABLES = 200
SECONDS = 15.0
IDLE_TABLES = 1000


def start_bare() -> tuple[subprocess.Popen, str]:
    proc = subprocess.Popen([sys.executable, "-m", "belote.load.bare"], stdout=subprocess.PIPE,
                            stderr=subprocess.DEVNULL, text=True)
    for line in proc.stdout:
        found = re.search(r"listening on (\S+)", line)
        if found:
            return proc, found.group(1)
    raise RuntimeError("the bare server did not start")


async def open_idle_tables(target: str, count: int) -> tuple[int, list]:
    """``count`` tables, four seats joined each, a watch stream open per seat; returns the
    number of errors and the open calls (cancel them when done)."""
    channels = [grpc.aio.insecure_channel(target) for _ in range(16)]
    stubs = [tgrpc.TableServiceStub(c) for c in channels]
    errors, calls = 0, []

    async def one(i: int) -> None:
        nonlocal errors
        stub = stubs[i % len(stubs)]
        try:
            created = await stub.CreateTable(pb.CreateTableRequest(request_id=uuid.uuid4().hex))
            for seat in range(4):
                joined = await stub.JoinTable(pb.JoinTableRequest(
                    table_id=created.table_id, seat=seat, display_name="idle", request_id=uuid.uuid4().hex))
                call = stub.WatchTable(pb.WatchTableRequest(table_id=created.table_id),
                                       metadata=(("authorization", f"Bearer {joined.seat_token}"),))
                calls.append(call)
                await call.read()          # the stream is open: its first event arrived
        except grpc.aio.AioRpcError:
            errors += 1

    for start in range(0, count, 50):
        await asyncio.gather(*(one(i) for i in range(start, min(start + 50, count))))
    return errors, calls + channels


async def idle_rss(target: str, pid: int) -> tuple[float, int]:
    server = psutil.Process(pid)
    await asyncio.sleep(1.0)
    before = server.memory_info().rss
    errors, handles = await open_idle_tables(target, IDLE_TABLES)
    await asyncio.sleep(3.0)       # idle: streams open, nobody acts
    after = server.memory_info().rss
    for handle in handles:
        if isinstance(handle, grpc.aio.Channel):
            await handle.close()
        else:
            handle.cancel()
    return (after - before) / 1024 / IDLE_TABLES, errors


def run() -> list[tuple[str, float, str]]:
    with tempfile.TemporaryDirectory() as tmp:
        proc, target = start_server(f"sqlite:///{tmp}/load.db")
        try:
            ours = run_load(target, TABLES, SECONDS, proc.pid)
        finally:
            proc.terminate()
            proc.wait(10)
        bare_proc, bare_target = start_bare()
        try:
            bare = run_load(bare_target, TABLES, SECONDS, bare_proc.pid)
        finally:
            bare_proc.terminate()
            bare_proc.wait(10)
        proc, target = start_server(f"sqlite:///{tmp}/idle.db")
        try:
            per_table, idle_errors = asyncio.run(idle_rss(target, proc.pid))
        finally:
            proc.terminate()
            proc.wait(10)
    for line in ours.lines():
        print(f"  ours: {line}")
    for line in bare.lines():
        print(f"  bare: {line}")
    return [
        ("load_cards_per_s", ours.cards_per_s, "cards/s"),
        ("load_act_p99_ms", ours.act_p99_ms, "ms"),
        ("load_stream_lag_p99_ms", ours.lag_p99_ms, "ms"),
        ("load_errors", ours.errors, "errors"),
        ("bare_cards_per_s", bare.cards_per_s, "cards/s"),
        ("act_vs_bare_grpc_ratio", ours.cards_per_s / bare.cards_per_s if bare.cards_per_s else 0.0, "ratio"),
        ("rss_kb_per_table", per_table, "KB"),
        ("idle_tables_errors", idle_errors, "errors"),
    ]


if __name__ == "__main__":
    started = time.perf_counter()
    for name, value, unit in run():
        print(f"bench: {name} {value:.2f} {unit}")
    print(f"  ({time.perf_counter() - started:.0f} s)")
