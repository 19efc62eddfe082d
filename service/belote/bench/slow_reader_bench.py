"""What streams that never read cost a server.

- ``slow_reader_rss_mb``: the RSS growth of a ``belote serve`` process (SQLite) while 100
  streams that never read are open on one finished table of 50,000 events: 50 spectators'
  WatchTable (a table takes 50) and 50 ExportLog. Each client has its own connection and a
  64 KB HTTP/2 window (no BDP probing), and never reads. The growth is the peak RSS once every
  stream has started sending, minus the RSS after one reading stream of each kind ran to the end
  (the table folded and cached, the code warm).
"""

from __future__ import annotations

import asyncio
import random
import subprocess
import tempfile
import time

import grpc
import psutil

from belote.bench.table_bench import start_server
from belote.rules import rules_for
from belote.store import NewEvent, open_store
from belote.table.codec import encode_body, event_type
from belote.table.decide import Act, CreateTable, JoinSeat, NextDeal, VoteRematch, decide
from belote.table.state import FINISHED, TableState, evolve
from belote.v1 import events_pb2 as epb
from belote.v1 import table_service_pb2 as tpb
from belote.v1 import table_service_pb2_grpc as tgrpc

EVENTS = 50_000
WATCHES = 50
EXPORTS = 50
REVIEWER_TOKEN = "slow-reader-bench-reviewer"
# The window stays at grpc's initial 64 KB; a connection of each channel's own.
NOT_READING = [("grpc.http2.bdp_probe", 0), ("grpc.use_local_subchannel_pool", 1)]
QUIET_S = 3.0       # the peak is taken once the RSS has not risen for this long
MAX_S = 180.0


def long_log(events: int, seed: int = 1) -> list[epb.TableEvent]:
    """Games of random legal actions by four seats that always vote a rematch, up to the end of
    the game that passes ``events`` events."""
    rng = random.Random(seed)
    state = TableState("slow")
    log: list[epb.TableEvent] = []

    def run(command):
        for e in decide(state, command, NextDeal(tuple(rng.sample(range(32), 32)), rng.randbytes(16))):
            e.sequence = len(log) + 1
            log.append(e)
            evolve(state, e)

    rules = rules_for("classic", {})
    run(CreateTable(epb.TableCreated(name="slow readers", preset="classic",
                                     options=rules.as_strings(), takeover_bot_level=epb.BOT_LEVEL_EASY)))
    for seat in range(4):
        run(JoinSeat(seat, f"p{seat}", bytes([seat]) * 32))
    while True:
        if state.status == FINISHED:
            if len(log) >= events:
                return log
            for seat in range(4):
                run(VoteRematch(seat, 0))
        seat = state.to_act()
        run(Act(seat, rng.choice(state.game.legal_actions(seat))))


async def write_log(store_url: str, events: list[epb.TableEvent]) -> None:
    store = open_store(store_url)
    now_us = time.time_ns() // 1000
    for start in range(0, len(events), 5000):
        chunk = events[start:start + 5000]
        await store.events.append("slow", start, [NewEvent(event_type(e), encode_body(e)) for e in chunk],
                           request_id=f"chunk-{start}", recorded_at_us=now_us)
    await store.close()


async def peak_rss_mb(server: psutil.Process) -> float:
    """The highest RSS seen until it has not risen for QUIET_S (or MAX_S passed)."""
    peak, risen_at, started = 0, time.monotonic(), time.monotonic()
    while time.monotonic() - risen_at < QUIET_S and time.monotonic() - started < MAX_S:
        rss = server.memory_info().rss
        if rss > peak:
            peak, risen_at = rss, time.monotonic()
        await asyncio.sleep(0.1)
    return peak / 2**20


async def measure(address: str, server: psutil.Process, version: int) -> float:
    table = tpb.WatchTableRequest(table_id="slow")
    export = tpb.ExportLogRequest(table_id="slow")
    reviewer = (("authorization", f"Bearer {REVIEWER_TOKEN}"),)
    async with grpc.aio.insecure_channel(address) as channel:
        stub = tgrpc.TableServiceStub(channel)
        watch = stub.WatchTable(table)
        for _ in range(version):
            await watch.read()
        watch.cancel()
        assert len([e async for e in stub.ExportLog(export, metadata=reviewer)]) == version + 1  # + head
    base = server.memory_info().rss / 2**20
    channels = [grpc.aio.insecure_channel(address, options=NOT_READING)
                for _ in range(WATCHES + EXPORTS)]
    try:
        stubs = [tgrpc.TableServiceStub(c) for c in channels]
        calls = [s.WatchTable(table) for s in stubs[:WATCHES]]
        calls += [s.ExportLog(export, metadata=reviewer) for s in stubs[WATCHES:]]
        # A stream's first message carries its headers: once each has one, all are sending.
        await asyncio.wait_for(asyncio.gather(*(c.initial_metadata() for c in calls)), MAX_S)
        peak = await peak_rss_mb(server)
    finally:
        for c in channels:
            await c.close()
    return peak - base


async def main() -> None:
    log = long_log(EVENTS)
    with tempfile.TemporaryDirectory() as tmp:
        url = f"sqlite:///{tmp}/slow.db"
        await write_log(url, log)
        proc, address = start_server(url, {"BELOTE_REVIEWER_TOKEN": REVIEWER_TOKEN,
                                        # every stream here comes from one address
                                        "BELOTE_SPECTATORS_PER_CALLER": "50"})
        try:
            growth = await measure(address, psutil.Process(proc.pid), len(log))
        finally:
            proc.terminate()
            try:
                proc.wait(timeout=30)
            except subprocess.TimeoutExpired:   # e.g. blocked on its stdout, which nobody reads
                proc.kill()
                proc.wait(timeout=10)
    print(f"bench: slow_reader_rss_mb {growth:.0f} MB", flush=True)


if __name__ == "__main__":
    asyncio.run(main())
