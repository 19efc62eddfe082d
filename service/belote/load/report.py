"""Run a load and say what it measured: throughput, latencies, errors, the server's CPU and RSS."""

from __future__ import annotations

import asyncio
import contextlib
import statistics
import time
from dataclasses import dataclass

import psutil

from belote.v1 import events_pb2 as epb

from .players import run_tables


@dataclass
class LoadReport:
    tables: int
    seconds: float
    think_s: float
    cards_per_s: float
    acts: int
    act_p50_ms: float
    act_p99_ms: float
    lag_p50_ms: float
    lag_p99_ms: float
    errors: int
    error_kinds: dict
    server_cpu_percent: float | None     # of one core
    server_rss_kb: int | None
    humans_per_table: int = 4
    bots: str = ""                       # the bots' level, with fewer than four humans
    wait_p50_ms: float = 0.0             # a human's Act answered -> its next turn
    wait_p99_ms: float = 0.0
    workers_cpu_percent: float | None = None   # the server's child processes (bot workers)

    @property
    def acts_per_s(self) -> float:
        return self.acts / self.seconds

    def lines(self) -> list[str]:
        cpu = "n/a" if self.server_cpu_percent is None else f"{self.server_cpu_percent:.0f}% of a core"
        rss = "n/a" if self.server_rss_kb is None else f"{self.server_rss_kb} KB"
        bots = (f", {self.humans_per_table} human(s) and {4 - self.humans_per_table} {self.bots} "
                f"bots per table" if self.humans_per_table < 4 else "")
        workers = ("" if self.workers_cpu_percent is None or self.humans_per_table == 4
                   else f", bot workers {self.workers_cpu_percent:.0f}% of a core")
        lines = [
            f"tables: {self.tables}{bots}, {self.seconds:.0f} s, "
            + (f"players think {self.think_s * 500:.0f}-{self.think_s * 1500:.0f} ms per action"
               if self.think_s else "no think time (a saturating closed loop)"),
            f"cards played: {self.cards_per_s:.1f}/s",
            f"act latency: p50 {self.act_p50_ms:.1f} ms, p99 {self.act_p99_ms:.1f} ms ({self.acts} acts)",
            (f"stream lag (appended -> every seat watching): p50 {self.lag_p50_ms:.1f} ms, "
            f"p99 {self.lag_p99_ms:.1f} ms"),
            f"errors: {self.errors}" + (f" {self.error_kinds}" if self.errors else ""),
            f"server: cpu {cpu}{workers}, rss {rss}",
        ]
        if self.humans_per_table < 4:
            lines.insert(3, f"human acts: {self.acts_per_s:.1f}/s; wait (Act answered -> next "
                            f"turn): p50 {self.wait_p50_ms:.1f} ms, p99 {self.wait_p99_ms:.1f} ms")
        return lines


def server_process(target: str, pid: int | None) -> psutil.Process | None:
    """The server's process: the given pid, else whoever listens on the target's port here."""
    if pid:
        return psutil.Process(pid)
    port = int(target.rsplit(":", 1)[1])
    for conn in psutil.net_connections("tcp"):
        if conn.status == psutil.CONN_LISTEN and conn.laddr and conn.laddr.port == port and conn.pid:
            return psutil.Process(conn.pid)
    return None


def _percentile(values: list[float], q: int) -> float:
    if len(values) < 2:
        return values[0] * 1000 if values else 0.0
    return statistics.quantiles(values, n=100)[q - 1] * 1000


def _cpu_s(procs: list[psutil.Process]) -> dict[int, float]:
    seconds = {}
    for p in procs:
        with contextlib.suppress(psutil.Error):
            times = p.cpu_times()
            seconds[p.pid] = times.user + times.system
    return seconds


def run_load(target: str, tables: int, duration: float, server_pid: int | None = None,
             think_s: float = 0.0, humans_per_table: int = 4, bots: str = "normal") -> LoadReport:
    proc = server_process(target, server_pid)
    children = proc.children(recursive=True) if proc else []
    cpu_before = _cpu_s([proc]) if proc else {}
    workers_before = _cpu_s(children)
    started = time.perf_counter()
    stats = asyncio.run(run_tables(target, tables, duration, think_s=think_s,
                                   humans_per_table=humans_per_table,
                                   bot_level=epb.BotLevel.Value(f"BOT_LEVEL_{bots.upper()}")))
    elapsed = time.perf_counter() - started
    cpu = workers = None
    if proc:
        cpu = 100 * (_cpu_s([proc])[proc.pid] - cpu_before[proc.pid]) / elapsed
        after = _cpu_s(children)
        if after:
            workers = 100 * sum(after[p] - workers_before.get(p, 0.0) for p in after) / elapsed
    lags = stats.stream_lags()
    return LoadReport(
        tables=tables, seconds=duration, think_s=think_s, cards_per_s=stats.cards / duration, acts=len(stats.act_latencies),
        act_p50_ms=_percentile(stats.act_latencies, 50), act_p99_ms=_percentile(stats.act_latencies, 99),
        lag_p50_ms=_percentile(lags, 50), lag_p99_ms=_percentile(lags, 99),
        errors=stats.errors, error_kinds=dict(stats.error_kinds),
        server_cpu_percent=cpu, server_rss_kb=proc.memory_info().rss // 1024 if proc else None,
        humans_per_table=humans_per_table, bots=bots if humans_per_table < 4 else "",
        wait_p50_ms=_percentile(stats.waits, 50), wait_p99_ms=_percentile(stats.waits, 99),
        workers_cpu_percent=workers)


def add_commands(subparsers, env) -> None:
    load = subparsers.add_parser("load", help="play many scripted tables against a server and measure")
    load.add_argument("--target", default=env("BELOTE_TARGET", "127.0.0.1:50051"),
                      help="HOST:PORT of the server (env BELOTE_TARGET)")
    load.add_argument("--tables", type=int, default=50, help="tables of four scripted seats (default 50)")
    load.add_argument("--duration", type=float, default=10.0, help="seconds measured (default 10)")
    load.add_argument("--think-ms", type=float, default=0.0,
                      help="mean think time of a player before each action, uniform from half to "
                           "one and a half of it (default 0: act at once, saturating the server)")
    load.add_argument("--humans-per-table", type=int, choices=(1, 2, 3, 4), default=4,
                      help="scripted players per table, on the first seats (default 4)")
    load.add_argument("--bots", choices=("easy", "normal", "hard"), default="normal",
                      help="the level of the bots on the other seats (default normal)")
    load.add_argument("--server-pid", type=int, default=None,
                      help="the server's pid for CPU/RSS (default: whoever listens on the port here)")
    load.set_defaults(run=_cmd_load)


def _cmd_load(args) -> int:
    report = run_load(args.target, args.tables, args.duration, args.server_pid, args.think_ms / 1000,
                      args.humans_per_table, args.bots)
    print("\n".join(report.lines()))
    return 0 if report.errors == 0 else 1
