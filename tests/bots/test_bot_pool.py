"""The bot pool (app/bot_pool.py): decisions in worker processes, the same as in the server's
own; fair across tables; stale turns dropped; a dead worker replaced and its decision retried;
shutdown bounded by the grace.

The scripted deciders below run in the workers (they are pickled by name): a view is
``(name, seconds, log)``; they append ``name`` to the file ``log`` when they start, sleep, and
return ``(name, pid)``.
"""

from __future__ import annotations

import asyncio
import os
import signal
import time
import uuid
from pathlib import Path

import pytest
from belote import bots
from belote.api.commands import proto_tables
from belote.api.errors import STATUS_OF_REASON
from belote.app.bot_pool import (
    ATTEMPTS,
    WORKER_NICENESS,
    BotPool,
    BotPoolClosed,
    BotWorkerLost,
    StaleTurn,
)
from belote.app.tables import TableApp
from belote.observability import BOT_QUEUE_LENGTH, BOT_WORKER_RESTARTS
from belote.review.verify import entries_of_stored, review
from belote.store import SqliteStore
from belote.v1 import table_service_pb2 as tpb
from bot_helpers import EASY, HARD, NORMAL, random_deals


def scripted(level, view, seed, version):
    name, seconds, log = view
    with open(log, "a") as out:
        out.write(name + "\n")
    time.sleep(seconds)
    return name, os.getpid()


def slow_the_first_time(level, view, seed, version):
    """Sleeps only the first time a name is decided (so a killed decision's retry is quick)."""
    name, seconds, log = view
    seen = Path(log).read_text().split() if os.path.exists(log) else []
    with open(log, "a") as out:
        out.write(name + "\n")
    if name not in seen:
        time.sleep(seconds)
    return name, os.getpid()


def dies(level, view, seed, version):
    os._exit(3)


def refuses(level, view, seed, version):
    raise bots.UnknownVersion(f"this build has no version {version} of the bot")


def niceness(level, view, seed, version):
    return os.nice(0)


def with_pid(level, view, seed, version):
    return os.getpid(), bots.choose(level, view, seed, version)


def started(log: Path) -> list[str]:
    return log.read_text().split() if log.exists() else []


async def until(condition, timeout: float = 20.0) -> None:
    deadline = time.monotonic() + timeout
    while not condition():
        assert time.monotonic() < deadline, "timed out"
        await asyncio.sleep(0.01)


async def decide_running(pool: BotPool, table_id: str, level: int, name: str, seconds: float,
                         log: Path) -> asyncio.Task:
    """A decision asked and now running in a worker (its name logged)."""
    seen = len(started(log))
    task = asyncio.create_task(pool.choose(table_id, level, (name, seconds, str(log)), 0))
    await until(lambda: started(log)[seen:] == [name])
    return task


def queue_gauge(level: str) -> float:
    return BOT_QUEUE_LENGTH.labels(level)._value.get()


# --------------------------------------------------------------------------------- fairness

async def test_a_table_with_a_backlog_does_not_starve_another(tmp_path):
    log = tmp_path / "log"
    pool = BotPool(1, decide=scripted)
    try:
        busy = await decide_running(pool, "busy", HARD, "Z", 0.3, log)
        done: list[str] = []
        tasks = []
        for table, name in [("a", "A0"), ("a", "A1"), ("a", "A2"), ("a", "A3"), ("b", "B0"),
                            ("c", "C0"), ("a", "A4")]:
            task = asyncio.create_task(pool.choose(table, HARD, (name, 0.02, str(log)), 0))
            task.add_done_callback(lambda t: done.append(t.result()[0]))
            tasks.append(task)
        await asyncio.sleep(0)
        assert pool.queued() == 7
        assert queue_gauge("hard") == 7
        await asyncio.gather(busy, *tasks)
        # Round-robin over the tables: b and c wait for one decision of a, not for its backlog.
        assert done == ["A0", "B0", "C0", "A1", "A2", "A3", "A4"]
        assert started(log) == ["Z", "A0", "B0", "C0", "A1", "A2", "A3", "A4"]
        assert queue_gauge("hard") == 0
    finally:
        await pool.close()


# ------------------------------------------------------------------------------ stale turns

async def test_a_decision_whose_turn_moved_on_while_queued_never_runs(tmp_path):
    log = tmp_path / "log"
    versions = {"t": 7, "busy": 1}
    pool = BotPool(1, decide=scripted, version_of=versions.get)
    try:
        busy = await decide_running(pool, "busy", NORMAL, "Z", 0.3, log)
        stale = asyncio.create_task(pool.choose("t", NORMAL, ("T", 0.0, str(log)), 0))
        await asyncio.sleep(0)
        versions["t"] = 8                  # the human acted meanwhile
        with pytest.raises(StaleTurn) as raised:
            await stale
        assert (STATUS_OF_REASON[raised.value.reason].name, raised.value.reason) == ("ABORTED", "TURN_MOVED_ON")
        assert (await busy)[0] == "Z"
        assert started(log) == ["Z"]       # T was never decided
        # The table's next turn is decided as usual.
        assert (await pool.choose("t", NORMAL, ("T8", 0.0, str(log)), 0))[0] == "T8"
    finally:
        await pool.close()


async def test_a_decision_whose_turn_moved_on_while_running_is_not_returned(tmp_path):
    log = tmp_path / "log"
    versions = {"t": 7}
    pool = BotPool(1, decide=scripted, version_of=versions.get)
    try:
        running = await decide_running(pool, "t", NORMAL, "T", 0.3, log)
        versions["t"] = 8
        with pytest.raises(StaleTurn):
            await running
    finally:
        await pool.close()


# ----------------------------------------------------------------------------- worker death

async def test_a_killed_worker_is_replaced_and_its_decision_retried(tmp_path):
    log = tmp_path / "log"
    pool = BotPool(1, decide=slow_the_first_time)
    restarts_before = BOT_WORKER_RESTARTS._value.get()
    try:
        asked = await decide_running(pool, "t", HARD, "K", 30.0, log)
        [victim] = pool.worker_pids()
        os.kill(victim, signal.SIGKILL)
        name, pid = await asyncio.wait_for(asked, 20)
        assert name == "K"
        assert pid != victim and pool.worker_pids() == [pid]
        assert started(log) == ["K", "K"]          # decided again, by the new worker
        assert pool.restarts == 1
        assert BOT_WORKER_RESTARTS._value.get() == restarts_before + 1
        # The new worker takes the next decisions.
        assert await pool.choose("t", HARD, ("L", 0.0, str(log)), 0) == ("L", pid)
    finally:
        await pool.close()


async def test_a_decision_that_kills_every_worker_is_given_up_after_the_attempts():
    pool = BotPool(1, decide=dies)
    try:
        with pytest.raises(BotWorkerLost) as raised:
            await asyncio.wait_for(pool.choose("t", EASY, ("X", 0, ""), 0), 30)
        assert (STATUS_OF_REASON[raised.value.reason].name, raised.value.reason) == ("UNAVAILABLE", "BOT_WORKER_LOST")
        assert pool.restarts == ATTEMPTS == 3
    finally:
        await pool.close()


async def test_the_game_goes_on_after_its_bot_worker_is_killed(tmp_path):
    app = TableApp(SqliteStore(str(tmp_path / "b.db")), bot_workers=1)
    tables = proto_tables(app)
    try:
        created = await tables.create_table(tpb.CreateTableRequest(request_id=uuid.uuid4().hex), None)
        table_id = created.table_id
        for seat, level in enumerate((HARD, NORMAL, HARD, NORMAL)):
            await tables.add_bot(tpb.AddBotRequest(table_id=table_id, seat=seat, level=level,
                                                request_id=uuid.uuid4().hex), created.host_token)

        async def version() -> int:
            return (await app.tables.load(table_id)).version

        deadline = time.monotonic() + 60
        while await version() < 30:
            assert time.monotonic() < deadline
            await asyncio.sleep(0.02)
        [victim] = app.bot_pool.worker_pids()
        os.kill(victim, signal.SIGKILL)
        killed_at = await version()
        while await version() < killed_at + 60:
            assert time.monotonic() < deadline, "the bots stopped after their worker was killed"
            await asyncio.sleep(0.05)
        assert app.bot_pool.restarts == 1
        assert app.bot_pool.worker_pids() != [victim]
        stored = await app.store.events.read(table_id, after_sequence=0)
    finally:
        await app.close()
    # Every bot move, before and after the kill, is what the review recomputes.
    checked = review(entries_of_stored(stored))
    assert checked.violations == []
    assert checked.checks["bot"] >= 60


async def test_a_bots_own_error_reaches_the_caller_and_the_worker_stays():
    pool = BotPool(1, decide=refuses)
    try:
        # The pool asks for the level's current version; the error comes back as raised.
        current = bots.current_version(HARD)
        with pytest.raises(bots.UnknownVersion, match=f"no version {current} of the bot"):
            await pool.choose("t", HARD, ("X", 0, ""), 0)
        assert pool.restarts == 0
    finally:
        await pool.close()


async def test_workers_think_at_a_lower_priority_than_the_loop():
    pool = BotPool(1, decide=niceness)
    try:
        assert await pool.choose("t", HARD, None, 0) == min(os.nice(0) + WORKER_NICENESS, 19)
        assert WORKER_NICENESS == 10
    finally:
        await pool.close()


# --------------------------------------------------------------------------------- shutdown

async def test_drain_lets_a_running_decision_finish_and_drops_the_queued(tmp_path):
    log = tmp_path / "log"
    pool = BotPool(1, decide=scripted)
    try:
        running = await decide_running(pool, "a", NORMAL, "A", 0.3, log)
        queued = asyncio.create_task(pool.choose("b", NORMAL, ("B", 0.0, str(log)), 0))
        await asyncio.sleep(0)
        await pool.drain(10.0)
        assert running.done() and running.result()[0] == "A"
        with pytest.raises(BotPoolClosed):
            await queued
        with pytest.raises(BotPoolClosed):
            await pool.choose("c", NORMAL, ("C", 0.0, str(log)), 0)
        assert started(log) == ["A"]
    finally:
        await pool.close()


async def test_shutdown_waits_no_longer_than_the_grace_for_a_decision(tmp_path):
    log = tmp_path / "log"
    pool = BotPool(2, decide=scripted)
    hung = await decide_running(pool, "a", NORMAL, "A", 60.0, log)
    workers = list(pool._processes)
    began = time.monotonic()
    await pool.drain(0.5)
    drained = time.monotonic() - began
    await pool.close()
    closed = time.monotonic() - began
    assert 0.5 <= drained < 1.5
    assert closed < 0.5 + 2 * 1.0 + 1.0         # the grace, then each worker's STOP_S at most
    assert not any(w.process.is_alive() for w in workers)
    with pytest.raises(BotPoolClosed):
        await hung


# ------------------------------------------------------------------------------ determinism

def _views():
    views = []
    random_deals("classic", (NORMAL, EASY, NORMAL, EASY), 2, seed=5,
                 on_decision=lambda game, seat, view, action: views.append(view))
    return [v for v in views if len(v.legal) >= 2][:24]


async def test_a_move_is_the_same_in_process_and_in_every_worker():
    views = _views()
    expected = [bots.choose(level, v, 900 + i) for i, v in enumerate(views) for level in (NORMAL, HARD)]
    in_process = BotPool(0)
    inline = [await in_process.choose(f"t{i}", level, v, 900 + i)
              for i, v in enumerate(views) for level in (NORMAL, HARD)]
    pool = BotPool(2, decide=with_pid)
    try:
        answers = await asyncio.gather(*(pool.choose(f"t{i}-{level}", level, v, 900 + i)
                                         for i, v in enumerate(views) for level in (NORMAL, HARD)))
    finally:
        await pool.close()
    assert inline == expected
    assert [action for _pid, action in answers] == expected
    assert len({pid for pid, _action in answers}) == 2       # both workers decided some
    assert os.getpid() not in {pid for pid, _action in answers}
