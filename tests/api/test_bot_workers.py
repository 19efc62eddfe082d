"""`belote serve --bot-workers N`: the bots of a real server decide in N worker processes, the
moves they append verify, and SIGTERM ends the server and its workers within the grace."""

from __future__ import annotations

import asyncio
import time

import grpc
import psutil
from belote.review.verify import export_of, review
from belote.v1 import events_pb2
from belote.v1 import table_service_pb2 as pb
from belote.v1 import table_service_pb2_grpc
from players import REVIEWER_TOKEN, bearer, rid
from test_metrics import scrape, value


def bot_workers(pid: int) -> list[psutil.Process]:
    return [p for p in psutil.Process(pid).children()
            if any("spawn_main" in part for part in p.cmdline())]


def gone(p: psutil.Process) -> bool:
    try:
        return p.status() == psutil.STATUS_ZOMBIE
    except psutil.NoSuchProcess:
        return True


async def test_bots_play_in_the_workers_and_sigterm_ends_them(server_factory):
    server = server_factory(extra_args=("--bot-workers", "2"))
    workers = bot_workers(server.proc.pid)
    assert len(workers) == 2
    async with grpc.aio.insecure_channel(server.address) as channel:
        stub = table_service_pb2_grpc.TableServiceStub(channel)
        created = await stub.CreateTable(pb.CreateTableRequest(request_id=rid()))
        for seat in range(4):
            await stub.AddBot(pb.AddBotRequest(table_id=created.table_id, seat=seat,
                                               level=events_pb2.BOT_LEVEL_HARD, request_id=rid()),
                              metadata=bearer(created.host_token))
        deadline = time.monotonic() + 60
        while (await stub.GetTable(pb.GetTableRequest(table_id=created.table_id))).version < 40:
            assert time.monotonic() < deadline, "the bots did not play"
            await asyncio.sleep(0.1)
        export = stub.ExportLog(pb.ExportLogRequest(table_id=created.table_id),
                                metadata=bearer(REVIEWER_TOKEN))
        lines = [line async for line in export]
    # Each of those moves waited in the pool's queue: none was decided on the server's loop.
    _, values = scrape(server.metrics_url)
    waited = value(values, "belote_bot_queue_wait_seconds_count", level="hard")
    decided = value(values, "belote_bot_decision_seconds_count", level="hard")
    entries, end = export_of(lines)
    checked = review(entries, end=end)           # every bot move recomputed
    assert checked.violations == []
    assert checked.checks["bot"] >= 20
    assert decided >= checked.checks["bot"] and waited - decided in (0, 1, 2)   # two in flight
    assert value(values, "belote_bot_worker_restarts_total") == 0
    began = time.monotonic()
    assert server.terminate() == 0
    assert time.monotonic() - began < 3 + 5       # the grace (--grace 3), and a margin
    assert all(gone(p) for p in workers)
