"""The replay's shortcuts agree with the server's own code."""

from __future__ import annotations

import pytest
from belote.review import verify
from belote.review.verify import entries_of, review
from belote.table import state
from review_helpers import GAMES


def test_the_replay_knows_which_events_move_the_state():
    # verify.py lets decide move the replay's game and folds only the other events that change
    # the state; a new evolve handler in table/state.py must be looked at there.
    seat_and_table = {"table_created", "seat_joined", "seat_left", "bot_seated", "seat_reclaimed",
                      "seat_connected", "game_started"}
    assert set(state._HANDLERS) == verify.MOVES_GAME | verify.FOLLOWS_ACTION | seat_and_table


@pytest.mark.parametrize("preset", list(GAMES))
def test_the_fast_path_and_decide_agree_on_real_games(samples, preset):
    entries = entries_of(samples.logs[preset])
    fast, slow = review(entries, check_bots=False), review(entries, check_bots=False, fast=False)
    assert fast.violations == slow.violations == []
    assert fast.checks == slow.checks
    body = [(seq, e.WhichOneof("body"), getattr(e, e.WhichOneof("body")).SerializeToString(deterministic=True))
            for seq, e in fast.timeline]
    assert body == [(seq, e.WhichOneof("body"), getattr(e, e.WhichOneof("body")).SerializeToString(deterministic=True))
                    for seq, e in slow.timeline]
    assert [seq for seq, _ in fast.timeline] == list(range(1, len(entries) + 1))


def test_a_takeover_and_a_reclaim_are_replayed(samples):
    log = samples.logs["classic-501"]
    kinds = [m.type for m in log]
    left = kinds.index("seat_left")
    assert kinds[left + 1] == "bot_seated" and log[left + 1].event.bot_seated.takeover
    assert "seat_reclaimed" in kinds[left:]
    result = review(entries_of(log))
    assert result.clean
    assert result.story.seats[2] == "human 'human 2' (came back)"


def test_lost_connections_are_replayed(samples):
    log = samples.logs["modern"]
    seat_events = [(m.type, getattr(m.event, m.type).seat) for m in log
                   if m.type in ("seat_disconnected", "seat_connected", "seat_left")]
    assert seat_events == [("seat_disconnected", 0), ("seat_connected", 0), ("seat_disconnected", 3),
                           ("seat_left", 3)] or ("seat_disconnected", 0) in seat_events
    left = next(m.event.seat_left for m in log if m.type == "seat_left")
    assert left.reason == 2                       # DISCONNECTED: its grace ran out
    result = review(entries_of(log))
    assert result.clean, result.violations
    assert result.story.seats[3].startswith("normal bot, for 'human 3'")


def test_the_benchmark_runs(samples):
    from belote.bench import review_bench
    logs = [samples.logs[p] for p in ("classic", "kamikaze")]
    assert review_bench.replay_verify_rate(logs, seconds=0.01) > 0
    assert review_bench.replay_from_messages_rate(logs, seconds=0.01) > 0
    assert review_bench.replay_from_json_rate(logs[1:], seconds=0.01) > 0
    assert review_bench.bot_check_seconds(samples.logs["kamikaze"], rounds=1) >= 0
