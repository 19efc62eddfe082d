"""Load figures (one server on SQLite, the load client in this process, both on this machine):

- ``load_cards_per_s``: 200 tables of four scripted seats (one connection each) for 15 s, each
  seat acting the moment it is its turn: a closed loop that saturates the server;
- ``act_vs_bare_grpc_ratio``: the same load against the bare gRPC server (the same RPCs
  carrying the same messages, replayed from memory: no game, no store): our cards/s over its
  cards/s. Both are measured ``PAIRS`` times, in turn (ours, bare, ours, bare...), and the
  figures are medians (the ratio: of each pair's): one pair moves by a tenth either way on a
  shared machine;
- ``load_act_p99_ms``, ``load_stream_lag_p99_ms``: 200 tables again, on a fresh server, with
  seats that think 1 to 3 s before each action as players do (a saturated closed loop measures
  only its own queue: 200 tables / cards per second); the saturated run's p99s are printed too;
- ``rss_kb_per_table``: the server's RSS growth over 1000 idle-but-open tables (four seats
  joined, four watch streams open each), divided by 1000; ``bare_rss_kb_per_table``, the same for
  the bare server (its tables hold their few events, as ours do).
"""

from __future__ import annotations

import asyncio
import re
import statistics
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
PAIRS = 3                      # saturated runs of ours and of the bare server, in turn
THINK_S = 2.0                  # a player's mean think time per action (uniform 1 to 3 s)
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


def _measured(start, measure):
    """``measure(target, pid)`` against a server ``start()`` starts, stopped afterwards."""
    proc, target = start()
    try:
        return measure(target, proc.pid)
    finally:
        proc.terminate()
        try:
            proc.wait(30)
        except subprocess.TimeoutExpired:
            print("  WARNING: the server did not exit within 30 s of SIGTERM; killed", flush=True)
            proc.kill()
            proc.wait(10)


def run() -> list[tuple[str, float, str]]:
    with tempfile.TemporaryDirectory() as tmp:
        def ours():
            return start_server(f"sqlite:///{tmp}/{uuid.uuid4().hex}.db")

        pairs = []
        for _ in range(PAIRS):
            pairs.append((_measured(ours, lambda t, pid: run_load(t, TABLES, SECONDS, pid)),
                          _measured(start_bare, lambda t, pid: run_load(t, TABLES, SECONDS, pid))))
        paced = _measured(ours, lambda t, pid: run_load(t, TABLES, SECONDS, pid, THINK_S))
        per_table, idle_errors = _measured(ours, lambda t, pid: asyncio.run(idle_rss(t, pid)))
        bare_per_table, _ = _measured(start_bare, lambda t, pid: asyncio.run(idle_rss(t, pid)))
    ratios = [s.cards_per_s / b.cards_per_s if b.cards_per_s else 0.0 for s, b in pairs]
    for i, ((saturated, bare), ratio) in enumerate(zip(pairs, ratios), start=1):
        print(f"  pair {i}: ours {saturated.cards_per_s:.0f} cards/s, bare {bare.cards_per_s:.0f}, "
              f"ratio {ratio:.3f}")
    saturated = sorted((p[0] for p in pairs), key=lambda r: r.cards_per_s)[len(pairs) // 2]
    bare = sorted((p[1] for p in pairs), key=lambda r: r.cards_per_s)[len(pairs) // 2]
    for name, report in (("ours (median run)", saturated), ("bare (median run)", bare),
                         ("ours, paced", paced)):
        for line in report.lines():
            print(f"  {name}: {line}")
    ratio = statistics.median(ratios)
    return [
        ("load_cards_per_s", saturated.cards_per_s, "cards/s"),
        ("bare_cards_per_s", bare.cards_per_s, "cards/s"),
        ("act_vs_bare_grpc_ratio", ratio, "ratio"),
        ("load_act_p99_ms", paced.act_p99_ms, "ms"),
        ("load_stream_lag_p99_ms", paced.lag_p99_ms, "ms"),
        ("load_act_p99_saturated_ms", saturated.act_p99_ms, "ms"),
        ("load_stream_lag_p99_saturated_ms", saturated.lag_p99_ms, "ms"),
        ("load_errors", sum(s.errors for s, _ in pairs) + paced.errors, "errors"),
        ("rss_kb_per_table", per_table, "KB"),
        ("bare_rss_kb_per_table", bare_per_table, "KB"),
        ("idle_tables_errors", idle_errors, "errors"),
    ]


if __name__ == "__main__":
    started = time.perf_counter()
    for name, value, unit in run():
        print(f"bench: {name} {value:.2f} {unit}")
    print(f"  ({time.perf_counter() - started:.0f} s)")
