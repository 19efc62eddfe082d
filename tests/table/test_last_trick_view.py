"""GameView.last_trick: the last trick won in the current deal, its four cards in play order and
its winner, for every viewer; unset before the deal's first trick is won, cleared by a new deal."""

from __future__ import annotations

from belote.rules import Bid, Play
from belote.table.codec import card_from_pb
from belote.table.decide import Act
from belote.table.views import SPECTATOR, table_view
from table_log import Log

HEARTS = 2
# DECK = 0..31, dealer 0, eldest 1, hearts turned (the jack, 20). Seat 1 takes it: the hands of
# 8 are then (SPEC §1) seat 0: 9 10 11 18 19 29 30 31, seat 1: 0 1 2 12 13 20 21 22,
# seat 2: 3 4 5 14 15 23 24 25, seat 3: 6 7 8 16 17 26 27 28 (card = suit * 8 + rank, suits
# C D H S, ranks 7 8 9 10 J Q K A).
SEVEN_C, QUEEN_C, ACE_C, NINE_H = 0, 5, 7, 18
JACK_H, SEVEN_S, NINE_S, QUEEN_S = 20, 24, 26, 29


def taken_by_seat_1() -> Log:
    log = Log("classic").seat_all()
    log.when(Act(1, Bid(HEARTS)))
    return log


def shown(log: Log, viewer: int) -> list[tuple[int, int]]:
    last = table_view(log.state, viewer).game.last_trick
    return [(c.seat, card_from_pb(c.card)) for c in last.cards]


def test_no_last_trick_before_the_first_trick_is_won():
    log = taken_by_seat_1()
    for seat, card in ((1, SEVEN_C), (2, QUEEN_C), (3, ACE_C)):
        log.when(Act(seat, Play(card)))
    for viewer in (0, 1, 2, 3, SPECTATOR):
        assert not table_view(log.state, viewer).game.HasField("last_trick")


def test_the_first_trick_won_is_shown_to_every_viewer_with_its_winner():
    log = taken_by_seat_1()
    # Seat 0 holds no club: it must trump, and wins with the 9 of hearts (14 + 11 + 3 points).
    for seat, card in ((1, SEVEN_C), (2, QUEEN_C), (3, ACE_C), (0, NINE_H)):
        log.when(Act(seat, Play(card)))
    for viewer in (0, 1, 2, 3, SPECTATOR):
        view = table_view(log.state, viewer).game
        assert view.last_trick.trick_number == 1
        assert view.last_trick.winner == 0
        assert shown(log, viewer) == [(1, SEVEN_C), (2, QUEEN_C), (3, ACE_C), (0, NINE_H)]
        assert not view.current_trick and view.trick_number == 2


def test_the_last_trick_stays_while_the_next_is_played_then_gives_way_to_it():
    log = taken_by_seat_1()
    for seat, card in ((1, SEVEN_C), (2, QUEEN_C), (3, ACE_C), (0, NINE_H)):
        log.when(Act(seat, Play(card)))
    log.when(Act(0, Play(QUEEN_S)))           # the winner leads the second trick
    assert shown(log, SPECTATOR) == [(1, SEVEN_C), (2, QUEEN_C), (3, ACE_C), (0, NINE_H)]
    # Seat 1 has no spade: it trumps with the jack of hearts and wins.
    for seat, card in ((1, JACK_H), (2, SEVEN_S), (3, NINE_S)):
        log.when(Act(seat, Play(card)))
    view = table_view(log.state, 2).game
    assert (view.last_trick.trick_number, view.last_trick.winner) == (2, 1)
    assert shown(log, 2) == [(0, QUEEN_S), (1, JACK_H), (2, SEVEN_S), (3, NINE_S)]


def test_the_eighth_trick_shows_at_the_game_s_end_and_a_new_deal_clears_it():
    for target, over in (("1", True), ("1000", False)):
        log = Log("classic", target=target).seat_all()
        log.when(Act(1, Bid(HEARTS)))
        while log.state.game.play is not None and log.state.game.play.trick_number < 8:
            state = log.state
            seat = state.to_act()
            log.when(Act(seat, state.game.legal_actions(seat)[0]))
        view = table_view(log.state, SPECTATOR).game
        if not over:                            # the next deal started in the same append
            assert view.deal_number == 2 and not view.HasField("last_trick")
            continue
        kinds = [e.WhichOneof("body") for e in log.events]
        last_cards = [e.card_played for e in log.events if e.HasField("card_played")][-4:]
        won = [e.trick_won for e in log.events if e.HasField("trick_won")][-1]
        assert kinds[-1] == "game_ended" and won.trick_number == 8
        assert view.last_trick.trick_number == 8 and view.last_trick.winner == won.winner
        assert [(c.seat, c.card) for c in view.last_trick.cards] == [(c.seat, c.card) for c in last_cards]
