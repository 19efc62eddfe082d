"""The replay's shortcuts agree with the server's own code."""

from __future__ import annotations

import dataclasses

import pytest
from belote.review import verify
from belote.review.replay import Replay
from belote.review.verify import entries_of, review
from belote.table import state
from belote.table.views import table_view
from belote.v1 import events_pb2 as epb
from review_helpers import GAMES


def test_the_replay_knows_which_events_move_the_state():
    # replay.py makes an action's moves on the replay's game with decide's steps, then folds the
    # events with evolve leaving the game as it is (move_game=False): the events whose evolve
    # moves the game must be the actions and the deals they start, no other.
    assert verify.ACTIONS | {"deal_started"} == state.MOVES_GAME
    # Every kind of event is turned back into a decide command (the first event of one), or
    # checked against the events decide produces, or both (a takeover BotSeated follows a
    # SeatLeft, a TableClosed NO_HUMANS a game's end, but either may start a command): a new
    # event in events.proto must be placed here.
    kinds = {f.name for f in epb.TableEvent.DESCRIPTOR.oneofs_by_name["body"].fields}
    assert kinds == verify.COMMANDS | verify.DERIVED
    assert {"bot_seated", "table_closed"} == verify.COMMANDS & verify.DERIVED
    assert verify.ACTIONS <= verify.COMMANDS


def _state_of(table: state.TableState) -> tuple:
    """All of a table's state: its fields, and its game as every seat and a spectator see it."""
    fields = {f.name: getattr(table, f.name) for f in dataclasses.fields(table)
              if f.name not in ("game", "rules")}
    return fields, [table_view(table, viewer) for viewer in (-1, 0, 1, 2, 3)]


@pytest.mark.parametrize("preset", ["classic", "classic-501", "modern", "kamikaze", "enhanced"])
def test_the_replayed_state_is_the_folded_state(samples, preset):
    # The fast path moves the replay's game in place and folds the events leaving the game (the
    # clock the deadlines count from too): at every few commands, and after each command around
    # the table, the state is what state.fold makes of the log, both ways.
    log = samples.logs[preset]
    entries = entries_of(log)
    starts = [e.position - 1 for e in entries if e.command][1:] + [len(log)]
    around = {i for i, m in enumerate(log) if m.event_type in ("chat_posted", "rematch_voted", "seat_left",
                                                         "seat_disconnected", "seat_connected")
              or getattr(getattr(m.event, m.event_type), "bot", epb.BotMove()).timer}
    cuts = sorted({*starts[::max(1, len(starts) // 6)], len(log),
                   *(next(c for c in starts if c > i) for i in around)})
    for cut in cuts:
        folded = _state_of(state.fold(log[0].table_id, [m.event for m in log[:cut]]))
        for fast in (True, False):
            replay = Replay(check_bots=False, fast=fast)
            replay.run(entries[:cut])
            assert replay.out.violations == []
            assert _state_of(replay.state) == folded, (cut, fast)


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
    kinds = [m.event_type for m in log]
    left = kinds.index("seat_left")
    assert kinds[left + 1] == "bot_seated" and log[left + 1].event.bot_seated.takeover
    assert "seat_reclaimed" in kinds[left:]
    result = review(entries_of(log))
    assert result.clean
    assert result.story.seats[2] == "human 'human 2' (came back)"


def test_lost_connections_are_replayed(samples):
    log = samples.logs["modern"]
    seat_events = [(m.event_type, getattr(m.event, m.event_type).seat) for m in log
                   if m.event_type in ("seat_disconnected", "seat_connected", "seat_left")]
    assert seat_events == [("seat_disconnected", 0), ("seat_connected", 0), ("seat_disconnected", 3),
                           ("seat_left", 3)] or ("seat_disconnected", 0) in seat_events
    left = next(m.event.seat_left for m in log if m.event_type == "seat_left")
    assert left.reason == 2                       # DISCONNECTED: its grace ran out
    result = review(entries_of(log))
    assert result.clean, result.violations
    assert result.story.seats[3].startswith("normal bot, for 'human 3'")


def test_the_benchmark_runs(samples):
    from belote.bench import review_bench
    logs = [[*samples.logs[p], samples.heads[p]] for p in ("classic", "kamikaze")]   # as exported
    assert review_bench.replay_verify_rate(logs, seconds=0.01) > 0
    assert review_bench.replay_from_messages_rate(logs, seconds=0.01) > 0
    assert review_bench.replay_from_json_rate(logs[1:], seconds=0.01) > 0
    assert review_bench.bot_check_seconds(logs[1], rounds=1) >= 0
