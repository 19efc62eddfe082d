"""Around the table, as a decider: chat, one seat per player, the pot, rematches, closing, the
turn timer. Given events (with their times) / when a command / then exactly these events."""

from __future__ import annotations

import pytest
from belote.table.decide import (
    CloseTable,
    JoinSeat,
    PostChat,
    TimerMove,
    VoteRematch,
    share_pot,
)
from belote.table.state import FINISHED, HUMAN, PLAYING
from belote.table.views import SPECTATOR, table_view
from belote.v1 import events_pb2 as epb
from timed_log import T0, S, TimedLog, game_won_by


def types(events):
    return [e.WhichOneof("body") for e in events]



# Chat ----------------------------------------------------------------------------------------
def test_five_chat_messages_per_ten_seconds_per_author():
    log = TimedLog().seat()
    for i in range(5):
        log.now_us = T0 + i * S
        assert types(log.when(PostChat(0, "p0", f"hello {i}", log.now_us))) == ["chat_posted"]
    log.now_us = T0 + 9 * S
    assert log.refused(PostChat(0, "p0", "one more", log.now_us)) == "CHAT_TOO_FAST"
    # Others are not held back by seat 0; a spectator's rate is its caller's (the app counts it),
    # not its name's, which anyone may give.
    chat = log.when(PostChat(1, "p1", "hi", log.now_us))[0].chat_posted
    assert (chat.seat, chat.display_name, chat.text) == (1, "p1", "hi")
    for i in range(6):
        assert types(log.when(PostChat(SPECTATOR, "ann", f"go {i}!", log.now_us))) == ["chat_posted"]
    # 10 s after its first message, seat 0's oldest one has left the window.
    log.now_us = T0 + 10 * S + 1
    assert types(log.when(PostChat(0, "p0", "back", log.now_us))) == ["chat_posted"]
    assert log.refused(PostChat(0, "p0", "again", log.now_us)) == "CHAT_TOO_FAST"


def test_a_closed_table_takes_no_chat():
    log = TimedLog("classic", target="1").seat(humans=())     # four bots: closes at once
    log.play_out()
    assert log.state.closed
    assert log.refused(PostChat(SPECTATOR, "ann", "gg", log.now_us)) == "TABLE_CLOSED"


# Seats and players ---------------------------------------------------------------------------
def test_a_player_holds_one_seat_of_a_table():
    log = TimedLog()
    log.when(JoinSeat(0, "ana", b"a" * 32, "player-ana"))
    assert log.refused(JoinSeat(1, "ana again", b"b" * 32, "player-ana")) == "ALREADY_SEATED"
    log.when(JoinSeat(1, "bob", b"b" * 32, "player-bob"))
    log.when(JoinSeat(2, "guest", b"c" * 32))
    log.when(JoinSeat(3, "guest", b"d" * 32))               # guests are not players: no limit
    assert [s.player_id for s in log.state.seats] == ["player-ana", "player-bob", "", ""]


# The pot -------------------------------------------------------------------------------------
def test_the_pot_goes_to_the_paying_seats_of_the_winners():
    # Stake 5, humans on 0, 1, 2 (pot 15). Team 1 (seat 1 and the bot on 3) wins: seat 1 takes 15.
    assert share_pot(5, (0, 1, 2), 1) == [0, 15, 0, 0]
    # Team 0 (seats 0 and 2) wins: 15 = 7 + 7 and the remainder 1 to the lowest seat.
    assert share_pot(5, (0, 1, 2), 0) == [8, 0, 7, 0]
    # Three winners cannot happen; two shares of an even pot are equal.
    assert share_pot(5, (0, 1, 2, 3), 1) == [0, 10, 0, 10]
    # No paying seat on the winning team: every stake goes back.
    assert share_pot(5, (0, 2), 1) == [5, 0, 5, 0]
    assert share_pot(5, (), 0) == [0, 0, 0, 0]


def test_each_human_pays_the_stake_when_the_game_starts_and_bots_never_do():
    log = TimedLog(stake=5).seat(humans=(0, 1, 2), players=["a", "b", "c", ""])
    started = next(e.game_started for e in log.events if e.HasField("game_started"))
    assert (started.pot, list(started.paying_seats)) == (15, [0, 1, 2])
    assert table_view(log.state, SPECTATOR).pot == 15


@pytest.mark.parametrize("team, payouts", [(1, [0, 15, 0, 0]), (0, [8, 0, 7, 0])])
def test_the_game_end_carries_the_payouts(team, payouts):
    log = game_won_by(team, stake=5, humans=(0, 1, 2), players=["a", "b", "c", ""])
    ended = log.events[-1].game_ended
    assert (ended.winning_team, list(ended.payouts), ended.rated) == (team, payouts, False)


def test_stakes_come_back_when_no_winner_paid():
    log = game_won_by(1, stake=5, humans=(0, 2), players=["a", "", "c", ""])
    assert list(log.events[-1].game_ended.payouts) == [5, 0, 5, 0]


def test_only_four_registered_players_make_a_rated_game():
    assert game_won_by(0, players=["a", "b", "c", "d"]).events[-1].game_ended.rated
    assert not game_won_by(0, players=["a", "b", "c", ""]).events[-1].game_ended.rated  # a guest
    assert not game_won_by(0, humans=(0, 1, 2), players=["a", "b", "c", ""]).events[-1].game_ended.rated


# Rematch -------------------------------------------------------------------------------------
def test_a_rematch_starts_when_every_human_has_voted():
    log = TimedLog("classic", target="1", stake=5).seat(humans=(0, 1), players=["a", "b", "", ""])
    log.play_out()
    end_us = log.now_us
    assert table_view(log.state, 0).rematch_deadline_time.ToMicroseconds() == end_us + 120 * S
    assert log.refused(VoteRematch(2, log.now_us)) == "NOT_SEATED"        # a bot's seat
    assert types(log.when(VoteRematch(0, log.now_us))) == ["rematch_voted"]
    assert log.refused(VoteRematch(0, log.now_us)) == "ALREADY_VOTED"
    log.now_us = end_us + 119 * S
    events = log.when(VoteRematch(1, log.now_us))
    assert types(events) == ["rematch_voted", "game_started", "deal_started"]
    started = events[1].game_started
    assert (started.game_number, started.first_dealer, started.pot) == (2, 1, 10)
    assert events[2].deal_started.dealer == 1
    state = log.state
    assert (state.status, state.game_number, state.rematch_votes) == (PLAYING, 2, frozenset())
    assert [s.occupant for s in state.seats][:2] == [HUMAN, HUMAN]


def test_without_every_vote_in_two_minutes_the_table_closes():
    log = TimedLog("classic", target="1").seat(humans=(0, 1))
    log.play_out()
    end_us = log.now_us
    log.when(VoteRematch(0, end_us))
    assert log.refused(CloseTable(end_us + 120 * S - 1)) == "REMATCH_VOTE_OPEN"
    assert log.refused(VoteRematch(1, end_us + 120 * S)) == "REMATCH_VOTE_OVER"
    log.now_us = end_us + 120 * S
    closed = log.when(CloseTable(log.now_us))
    assert [(e.WhichOneof("body"), e.table_closed.reason) for e in closed] == [("table_closed", epb.TABLE_CLOSED_REASON_NO_REMATCH)]
    assert log.state.closed and log.state.status == FINISHED
    assert log.refused(VoteRematch(1, log.now_us)) == "TABLE_CLOSED"
    assert log.refused(CloseTable(log.now_us)) == "TABLE_CLOSED"


def test_a_game_over_with_no_human_closes_the_table_at_once():
    log = TimedLog("classic", target="1").seat(humans=())
    log.play_out()
    assert types(log.events[-2:]) == ["game_ended", "table_closed"]
    assert log.events[-1].table_closed.reason == epb.TABLE_CLOSED_REASON_NO_HUMANS
    assert table_view(log.state, SPECTATOR).closed


# The turn timer ------------------------------------------------------------------------------
def test_the_turn_timer_counts_from_the_event_that_made_it_the_seats_turn():
    log = TimedLog(turn_timer_s=30).seat()
    state = log.state
    seat = state.to_act()                                   # the eldest, after the deal at T0
    assert table_view(state, SPECTATOR).turn_deadline_time.ToMicroseconds() == T0 + 30 * S
    bid = state.game.legal_actions(seat)[0]
    move = epb.BotMove(level=epb.BOT_LEVEL_NORMAL, seed=7)
    # A chat message does not restart the timer.
    log.now_us = T0 + 20 * S
    log.when(PostChat(2, "p2", "hurry up", log.now_us))
    assert log.refused(TimerMove(seat, bid, move, T0 + 30 * S - 1)) == "TIMER_NOT_DUE"
    assert log.refused(TimerMove((seat + 1) % 4, bid, move, T0 + 30 * S)) == "TIMER_NOT_DUE"
    log.now_us = T0 + 30 * S
    made = log.when(TimerMove(seat, bid, move, log.now_us))[0].bid_made
    assert (made.seat, made.bot.timer, made.bot.level, made.bot.seed) == (seat, True, epb.BOT_LEVEL_NORMAL, 7)
    assert log.state.seats[seat].occupant == HUMAN          # one move, the seat stays the human's
    assert log.state.turn_deadline_us() == T0 + 60 * S       # the next seat's turn began now


def test_no_timer_no_timer_move():
    log = TimedLog().seat()
    seat = log.state.to_act()
    bid = log.state.game.legal_actions(seat)[0]
    assert log.refused(TimerMove(seat, bid, epb.BotMove(level=epb.BOT_LEVEL_NORMAL), T0 + 3600 * S)) == "TIMER_NOT_DUE"
