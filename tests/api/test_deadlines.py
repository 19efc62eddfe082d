"""Deadlines kept soonest first: a sweep loads the tables whose deadline has come and those the
store's index shows changed since it last looked, never the idle ones."""

from __future__ import annotations

import pytest
from google.protobuf.duration_pb2 import Duration
from belote.app import deadlines as deadline_sweep
from belote.app.deadlines import Deadlines
from belote.v1 import table_service_pb2 as pb
from embedded import embedded_server
from players import new_table, watch

pytestmark = pytest.mark.timeout(120)
S = 1_000_000


def test_the_soonest_deadline_comes_first_and_a_table_noted_again_keeps_only_its_last():
    deadlines = Deadlines()
    deadlines.note("a", 30, version=5)
    deadlines.note("b", 10, version=2)
    deadlines.note("c", 20, version=9)
    deadlines.note("a", 5, version=6)          # a sooner one: the old entry is dead
    deadlines.note("c", None, version=10)      # no deadline any more
    assert (len(deadlines), deadlines.soonest()) == (2, 5)
    assert deadlines.pop_due(4) == []
    assert deadlines.pop_due(10) == ["a", "b"]
    assert (len(deadlines), deadlines.soonest(), deadlines.pop_due(10**9)) == (0, None, [])
    # Tables noted at the version the index shows have not changed; others have, or are new.
    assert deadlines.changed([("a", 6), ("b", 3), ("c", 10), ("d", 1)]) == ["b", "d"]
    deadlines.look_again("a")
    assert deadlines.changed([("a", 6), ("c", 10)]) == ["a"]
    # Tables gone from the index (closed) are forgotten: listed again later, they are new.
    assert deadlines.changed([("a", 6)]) == ["a"]
    assert deadlines.changed([("c", 10)]) == ["c"]


def test_noting_a_table_over_and_over_keeps_the_heap_small():
    deadlines = Deadlines()
    for i in range(10_000):
        deadlines.note(f"t{i % 10}", 1_000 + i, version=i)
    assert len(deadlines) == 10 and len(deadlines._heap) <= 2 * 10 + 65
    assert deadlines.pop_due(10**9) == [f"t{i}" for i in range(10)]


def _count_loads(app) -> list[str]:
    loaded: list[str] = []
    load = app.tables.load

    async def counting(table_id):
        loaded.append(table_id)
        return await load(table_id)
    app.tables.load = counting
    return loaded


async def test_the_sweep_loads_no_idle_table_only_changed_and_due_ones(tmp_path, monkeypatch):
    # The servers' own sweeps look at the index once, at their start (no table yet), and not
    # again during the test: only the test's sweeps load tables.
    monkeypatch.setattr(deadline_sweep, "SWEEP_MAX_S", 3600.0)
    async with embedded_server(tmp_path) as (one, stub), embedded_server(tmp_path) as (two, _):
        idle = [await new_table(stub, "classic", {"target": "2000"}) for _ in range(12)]
        timed = await new_table(stub, "classic", {"target": "2000"}, turn_timer=Duration(seconds=30))
        assert {(await t.view()).status for t in [*idle, timed]} == {pb.TABLE_STATUS_PLAYING}
        deadline = (await timed.view()).turn_deadline_time.ToMicroseconds()
        on_one, on_two = _count_loads(one), _count_loads(two)
        # `one` appended every event: it knows every deadline, and loads nothing to sweep.
        assert await one.enforce_deadlines(now_us=deadline - 1) == 0
        assert on_one == []
        # `two` (another replica) learns them from the index once, then loads nothing more.
        assert await two.enforce_deadlines(now_us=deadline - 1) == 0
        assert len(on_two) >= 13 and set(on_two) == {t.table_id for t in [*idle, timed]}
        on_two.clear()
        assert await two.enforce_deadlines(now_us=deadline - 1) == 0
        assert on_two == []
        # A move on one idle table (through `one`): `two` loads that table, and only it.
        seat = (await idle[3].view()).game.to_act
        await idle[3].act(seat, (await idle[3].legal(seat)).actions[0])
        assert await two.enforce_deadlines(now_us=deadline - 1) == 0
        assert set(on_two) == {idle[3].table_id}
        on_two.clear()
        # The timer's deadline comes: `two` loads that table (to act on it), and only it.
        assert await two.enforce_deadlines(now_us=deadline) == 1
        assert set(on_two) == {timed.table_id}
        log = await watch(stub, timed.table_id, count=await timed.version(), until_game_ended=False)
        assert [e.bid_made.bot.timer for e in log if e.HasField("bid_made")] == [True]
        # `one` learns of that move from the index too; the timer is not played twice.
        assert await one.enforce_deadlines(now_us=deadline) == 0
