"""Load figures of bot tables (one server on SQLite, the load client in this process): tables of
one scripted human, who thinks 0.5 to 1.5 s before each action, and three hard bots, the common
online table (``belote load --humans-per-table 1 --bots hard --think-ms 1000``).

- ``bots_load_60_act_p99_ms``, ``bots_load_60_wait_p99_ms``: 60 such tables for 30 s, the
  human's Act latency and its wait, from its Act's answer to its next turn (the bots' moves in
  between);
- ``bots_load_150_act_p99_ms``, ``bots_load_150_wait_p99_ms``,
  ``bots_load_150_human_acts_per_s``: 150 tables, where the bots' workers are saturated: the
  Act latency says whether the loop stays responsive meanwhile.

The server runs with its default bot workers (one per core), or ``BELOTE_BOT_WORKERS`` from the
environment (docs/performance.md compares 1 and 2).
"""

from __future__ import annotations

import os
import tempfile
import time
import uuid

from belote.bench.load_bench import _measured
from belote.bench.table_bench import start_server
from belote.load.report import run_load

SECONDS = 30.0
THINK_S = 1.0                  # the human's mean think time per action (uniform 0.5 to 1.5 s)
RUNS = (60, 150)               # tables


def run() -> list[tuple[str, float, str]]:
    workers = os.environ.get("BELOTE_BOT_WORKERS") or "default (one per core)"
    print(f"  bot workers: {workers}; machine load before: {os.getloadavg()[0]:.2f}")
    results = []
    with tempfile.TemporaryDirectory() as tmp:
        for tables in RUNS:
            def ours():
                return start_server(f"sqlite:///{tmp}/{uuid.uuid4().hex}.db")

            report = _measured(ours, lambda t, pid, n=tables: run_load(
                t, n, SECONDS, pid, THINK_S, humans_per_table=1, bots="hard"))
            for line in report.lines():
                print(f"  {tables} tables: {line}")
            results += [(f"bots_load_{tables}_act_p99_ms", report.act_p99_ms, "ms"),
                        (f"bots_load_{tables}_wait_p99_ms", report.wait_p99_ms, "ms")]
            if tables == RUNS[-1]:
                results.append((f"bots_load_{tables}_human_acts_per_s", report.acts_per_s, "acts/s"))
            results.append((f"bots_load_{tables}_errors", report.errors, "errors"))
    return results


if __name__ == "__main__":
    started = time.perf_counter()
    for name, value, unit in run():
        print(f"bench: {name} {value:.2f} {unit}")
    print(f"  ({time.perf_counter() - started:.0f} s)")
