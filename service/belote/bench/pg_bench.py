"""PostgreSQL figures: raw appends through the store, and Act RPCs through one and two replicas.

``python -m belote.bench.pg_bench`` prints::

    bench: pg_append_per_s <N> appends/s
    bench: pg_append_events_per_s <N> events/s
    bench: pg_act_rpc_per_s_1_replica <N> acts/s
    bench: pg_act_rpc_p99_ms_1_replica <ms> ms
    bench: pg_act_rpc_per_s_2_replicas <N> acts/s
    bench: pg_act_rpc_p99_ms_2_replicas <ms> ms

- ``pg_append_per_s``: WRITERS coroutines, one table each, on one PostgresStore (its
  default pool of 10 connections), each appending requests of 1-3 small events (~40 bytes)
  with an index entry, back to back, for ``seconds``. One append is one statement and a
  whole durable transaction (synchronous_commit on): head row lock, request lookup, inserts
  checked by the database's trigger (sequence, chain, sha256), index upsert, COMMIT; then the
  batched NOTIFY to the other replicas.
- ``pg_act_rpc_*``: table_bench's Act figures (100 tables of four humans, each seat asking
  GetLegalActions then Act; throughput and p99 latency of Act alone) with ``belote serve
  --store postgresql://...``: one replica, then two replicas with the tables split between them.
  The client is this one Python process.

Every run uses a fresh database ``belote_bench_<random>`` on the server of
BELOTE_BENCH_POSTGRES (default postgresql://postgres@127.0.0.1:5432/postgres), dropped after.
The figures depend on the machine: PostgreSQL, the server processes and this client share it.
"""

from __future__ import annotations

import asyncio
import atexit
import contextlib
import functools
import os
import random
import secrets
import statistics
import tempfile
import time
import uuid
from collections.abc import Iterator

import grpc
import psycopg

from belote.bench.table_bench import _play_table, act_rpc, start_server
from belote.store import NewEvent, TableIndexEntry, open_store
from belote.v1 import table_service_pb2_grpc as tgrpc

ADMIN_URL = os.environ.get("BELOTE_BENCH_POSTGRES", "postgresql://postgres@127.0.0.1:5432/postgres")
WRITERS = 16


@contextlib.contextmanager
def fresh_database() -> Iterator[str]:
    name = f"belote_bench_{uuid.uuid4().hex[:12]}"
    with psycopg.connect(ADMIN_URL, autocommit=True) as c:
        c.execute(f'CREATE DATABASE "{name}"')
    info = psycopg.conninfo.conninfo_to_dict(ADMIN_URL)
    info["dbname"] = name
    password = f":{info['password']}" if info.get("password") else ""
    try:
        yield (f"postgresql://{info.get('user', 'postgres')}{password}@"
               f"{info.get('host', '127.0.0.1')}:{info.get('port', 5432)}/{name}")
    finally:
        with psycopg.connect(ADMIN_URL, autocommit=True) as c:
            c.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


async def append_rate(url: str, writers: int = WRITERS, seconds: float = 5.0) -> tuple[float, float]:
    """(appends/s, events/s) of `writers` concurrent writers, one table each."""
    store = open_store(url)
    index = TableIndexEntry("playing", False, b"s" * 24)
    stop = time.perf_counter() + 0.5  # warm-up: connections, prepared statements

    async def writer(w: int, until: float, counts: list[int]) -> None:
        rng = random.Random(w)
        table, version = f"bench-{w}-{uuid.uuid4().hex[:6]}", 0
        while time.perf_counter() < until:
            n = rng.randint(1, 3)
            events = [NewEvent("card_played", rng.randbytes(40)) for _ in range(n)]
            await store.events.append(table, version, events, request_id=f"r{version}",
                               recorded_at_us=time.time_ns() // 1000, index=index)
            version += n
            counts[0] += 1
            counts[1] += n

    try:
        await asyncio.gather(*(writer(w, stop, [0, 0]) for w in range(writers)))
        counts = [0, 0]
        start = time.perf_counter()
        await asyncio.gather(*(writer(w, start + seconds, counts) for w in range(writers)))
        elapsed = time.perf_counter() - start
    finally:
        await store.close()
    return counts[0] / elapsed, counts[1] / elapsed


async def act_rpc_split(targets: list[str], tables: int = 100,
                        seconds: float = 10.0) -> tuple[float, float]:
    """table_bench.act_rpc with the tables dealt round-robin over several replicas."""
    channels = [grpc.aio.insecure_channel(t) for t in targets]
    stubs = [tgrpc.TableServiceStub(c) for c in channels]
    try:
        latencies: list[float] = []
        warm = time.perf_counter() + 2.0
        await asyncio.gather(*(_play_table(stubs[i % len(stubs)], i, warm, [], random.Random(i))
                               for i in range(4)))
        start = time.perf_counter()
        counts = await asyncio.gather(*(
            _play_table(stubs[i % len(stubs)], i, start + seconds, latencies, random.Random(i))
            for i in range(tables)))
        elapsed = time.perf_counter() - start
    finally:
        for c in channels:
            await c.close()
    p99 = statistics.quantiles(latencies, n=100)[98] * 1000
    return sum(counts) / elapsed, p99


@functools.cache
def _key_file() -> str:
    """A key for this run's servers (a PostgreSQL server needs one, the same on each replica)."""
    fd, path = tempfile.mkstemp(prefix="belote-bench-", suffix=".key")
    with os.fdopen(fd, "w") as out:
        out.write(secrets.token_hex(32))
    atexit.register(os.unlink, path)
    return path


def _server(url: str):
    # No metrics endpoint: its fixed default port would keep a second replica from starting.
    return start_server(url, {"BELOTE_METRICS_LISTEN": "", "BELOTE_KEY_FILE": _key_file()})


def _stop(proc) -> None:
    proc.terminate()
    try:
        proc.wait(10)
    except Exception:  # noqa: BLE001 - a bench must not leave servers behind
        proc.kill()


def run() -> list[tuple[str, float, str]]:
    figures: list[tuple[str, float, str]] = []
    with fresh_database() as url:
        appends, events = asyncio.run(append_rate(url))
    figures += [("pg_append_per_s", appends, "appends/s"),
                ("pg_append_events_per_s", events, "events/s")]

    with fresh_database() as url:
        proc, target = _server(url)
        try:
            rate, p99 = asyncio.run(act_rpc(target))
        finally:
            _stop(proc)
    figures += [("pg_act_rpc_per_s_1_replica", rate, "acts/s"),
                ("pg_act_rpc_p99_ms_1_replica", p99, "ms")]

    with fresh_database() as url:
        servers = [_server(url) for _ in range(2)]
        try:
            rate, p99 = asyncio.run(act_rpc_split([t for _, t in servers]))
        finally:
            for proc, _ in servers:
                _stop(proc)
    figures += [("pg_act_rpc_per_s_2_replicas", rate, "acts/s"),
                ("pg_act_rpc_p99_ms_2_replicas", p99, "ms")]
    return figures


if __name__ == "__main__":
    for name, value, unit in run():
        print(f"bench: {name} {value:.1f} {unit}")
