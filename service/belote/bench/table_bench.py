"""Table figures: folding a stored log, and Act RPCs against a real server process.

- ``fold_events_per_s``: read a stored 10-deal log from SQLite, decode and fold it.
- ``act_rpc_per_s`` / ``act_rpc_p99_ms``: 100 tables of four human seats on one server
  (``belote serve``, SQLite) in another process; this process plays them all at once, each seat
  asking GetLegalActions then Act; throughput and latency are of Act alone.
"""

from __future__ import annotations

import asyncio
import os
import random
import re
import statistics
import subprocess
import sys
import tempfile
import time
import uuid
from dataclasses import replace

import grpc

from belote.rules.options import MAX_STORED_TARGET, MAX_TARGET
from belote.store import NewEvent, open_store
from belote.table.codec import decode_stored, encode_body, event_type
from belote.table.decide import Act, CreateTable, JoinSeat, NextDeal, decide
from belote.table.state import TableState, evolve, fold
from belote.v1 import events_pb2 as epb
from belote.v1 import table_service_pb2 as tpb
from belote.v1 import table_service_pb2_grpc as tgrpc


def ten_deal_log(seed: int = 1) -> list[epb.TableEvent]:
    """A classic game of random legal actions, stopped after 10 scored deals."""
    from belote.rules import rules_for
    rng = random.Random(seed)
    rules = replace(rules_for("classic"), target=MAX_STORED_TARGET)
    state = TableState("bench")
    events: list[epb.TableEvent] = []

    def run(command):
        for e in decide(state, command, NextDeal(tuple(rng.sample(range(32), 32)), rng.randbytes(16))):
            e.sequence = len(events) + 1
            events.append(e)
            evolve(state, e)

    run(CreateTable(epb.TableCreated(name="bench", preset="classic", options=rules.as_strings())))
    for seat in range(4):
        run(JoinSeat(seat, f"p{seat}", bytes([seat]) * 32))
    while sum(e.HasField("deal_scored") for e in events) < 10:
        seat = state.to_act()
        run(Act(seat, rng.choice(state.game.legal_actions(seat))))
    return events


async def fold_rate(seconds: float = 3.0) -> float:
    events = ten_deal_log()
    with tempfile.TemporaryDirectory() as tmp:
        store = open_store(f"sqlite:///{tmp}/fold.db")
        await store.events.append("bench", 0, [NewEvent(event_type(e), encode_body(e)) for e in events],
                           request_id="log", recorded_at_us=0)
        folded = 0
        start = time.perf_counter()
        while time.perf_counter() - start < seconds:
            stored = await store.events.read("bench")
            fold("bench", (decode_stored(s) for s in stored))
            folded += len(stored)
        rate = folded / (time.perf_counter() - start)
        await store.close()
    return rate


def start_server(store_url: str, extra_env: dict | None = None) -> tuple[subprocess.Popen, str]:
    """``belote serve`` on a free loopback port; returns the process and its address."""
    env = {**os.environ, "BELOTE_LOG_LEVEL": "warning", "BELOTE_METRICS_LISTEN": "",
           "BELOTE_WEB_LISTEN": "",
           "BELOTE_TABLES_PER_MINUTE": "0", **(extra_env or {})}      # one client makes every table
    proc = subprocess.Popen([sys.executable, "-m", "belote.cli", "serve", "--listen", "127.0.0.1:0",
                             "--store", store_url], stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                            env=env, text=True)
    for line in proc.stdout:
        found = re.search(r"listening on (\S+)", line)
        if found:
            return proc, found.group(1)
    raise RuntimeError("the server did not start")


def _next_to_act(seat: int, events) -> int | None:
    """Who acts after ``seat``'s action, from the events it produced."""
    nxt = (seat + 1) & 3
    for e in events:
        kind = e.WhichOneof("body")
        if kind == "deal_started":
            nxt = (e.deal_started.dealer + 1) & 3
        elif kind == "trick_won":
            nxt = e.trick_won.winner
        elif kind == "contract_settled":
            pass  # the eldest leads; already set by deal_started or still the bidder order below
        elif kind == "game_ended":
            return None
    return nxt


async def _play_table(stub, index: int, until: float, latencies: list[float], rng: random.Random) -> int:
    created = await stub.CreateTable(tpb.CreateTableRequest(
        preset="classic", options={"target": str(MAX_TARGET)}, request_id=uuid.uuid4().hex))
    table_id = created.table_id
    tokens = []
    for seat in range(4):
        joined = await stub.JoinTable(tpb.JoinTableRequest(
            table_id=table_id, seat=seat, display_name=f"p{seat}", request_id=uuid.uuid4().hex))
        tokens.append([("authorization", f"Bearer {joined.seat_token}")])
    acts, seat, n = 0, 1, 0
    while time.perf_counter() < until:
        legal = await stub.GetLegalActions(tpb.GetLegalActionsRequest(table_id=table_id), metadata=tokens[seat])
        if not legal.your_turn:
            table = await stub.GetTable(tpb.GetTableRequest(table_id=table_id))
            seat = table.game.to_act
            continue
        n += 1
        start = time.perf_counter()
        resp = await stub.Act(tpb.ActRequest(table_id=table_id, action=rng.choice(legal.actions),
                                             request_id=uuid.uuid4().hex), metadata=tokens[seat])
        latencies.append(time.perf_counter() - start)
        acts += 1
        seat = _next_to_act(seat, resp.events)
        if seat is None:
            break
    return acts


async def act_rpc(target: str, tables: int = 100, seconds: float = 10.0) -> tuple[float, float]:
    async with grpc.aio.insecure_channel(target) as channel:
        stub = tgrpc.TableServiceStub(channel)
        latencies: list[float] = []
        warm = time.perf_counter() + 2.0
        await asyncio.gather(*(_play_table(stub, i, warm, [], random.Random(i)) for i in range(4)))
        start = time.perf_counter()
        counts = await asyncio.gather(*(_play_table(stub, i, start + seconds, latencies, random.Random(i))
                                        for i in range(tables)))
        elapsed = time.perf_counter() - start
    p99 = statistics.quantiles(latencies, n=100)[98] * 1000
    return sum(counts) / elapsed, p99


def run() -> list[tuple[str, float, str]]:
    figures = [("fold_events_per_s", asyncio.run(fold_rate()), "events/s")]
    with tempfile.TemporaryDirectory() as tmp:
        proc, target = start_server(f"sqlite:///{tmp}/act.db")
        try:
            rate, p99 = asyncio.run(act_rpc(target))
        finally:
            proc.terminate()
            proc.wait(10)
    figures += [("act_rpc_per_s", rate, "acts/s"), ("act_rpc_p99_ms", p99, "ms")]
    return figures


if __name__ == "__main__":
    for name, value, unit in run():
        print(f"bench: {name} {value:.1f} {unit}")
