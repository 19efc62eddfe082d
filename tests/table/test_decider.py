"""The table as a decider: given events, when a command, then exactly these events."""

from __future__ import annotations

import random

import pytest
from belote.rules import IllegalAction
from belote.rules.actions import Bid, Play
from belote.rules.auction import PASS
from belote.rules.cards import HEARTS, cards_of, parse_card
from belote.table.codec import card_from_pb, event_type
from belote.table.decide import Act, JoinSeat, LeaveSeat, Refused, SeatBot, decide, deck_commitment
from belote.table.state import BOT, FINISHED, PLAYING, WAITING
from belote.v1 import cards_pb2 as cpb
from belote.v1 import events_pb2 as epb
from table_log import DECK, SALT, Log, next_deal


def types(events):
    return [event_type(e) for e in events]


def test_the_fourth_seat_starts_the_game_and_deals_from_the_recorded_deck():
    log = Log()
    for seat in range(3):
        assert types(log.when(JoinSeat(seat, f"p{seat}", bytes([seat]) * 32))) == ["seat_joined"]
    assert log.state.status == WAITING
    events = log.when(SeatBot(None, epb.BOT_LEVEL_EASY))
    assert types(events) == ["bot_seated", "game_started", "deal_started"]
    dealt = events[2].deal_started
    assert [card_from_pb(c) for c in dealt.deck] == list(DECK)
    assert dealt.deck_commitment == deck_commitment(DECK, SALT)
    assert (dealt.dealer, dealt.deal_number) == (0, 1)
    assert card_from_pb(dealt.turned_card) == parse_card("JH")
    state = log.state
    assert state.status == PLAYING and state.seats[3].occupant == BOT
    # SPEC §1: the eldest (seat 1) gets d[0..2] then d[12..13].
    assert cards_of(state.game.hand(1)) == [0, 1, 2, 12, 13]


def test_a_take_settles_the_contract_and_completes_the_hands():
    log = Log().seat_all()
    events = log.when(Act(1, Bid(HEARTS)))
    assert types(events) == ["bid_made", "contract_settled"]
    assert (events[1].contract_settled.taker, events[1].contract_settled.contract) == (1, cpb.CONTRACT_HEARTS)
    assert log.state.game.hand(1).bit_count() == 8


def test_eight_passes_reveal_the_deck_and_the_next_seat_deals_again():
    log = Log().seat_all()
    for i in range(7):
        assert types(log.when(Act((1 + i) % 4, Bid(PASS)))) == ["bid_made"]
    second = tuple(reversed(DECK))
    events = log.when(Act(0, Bid(PASS)), deck=second)
    assert types(events) == ["bid_made", "all_passed", "deck_revealed", "deal_started"]
    assert [card_from_pb(c) for c in events[2].deck_revealed.deck] == list(DECK)
    assert (events[3].deal_started.dealer, events[3].deal_started.deal_number) == (1, 2)


def test_the_last_card_scores_the_deal_reveals_the_deck_and_deals_the_next():
    log = Log().seat_all()
    log.when(Act(1, Bid(HEARTS)))
    rng = random.Random(4)
    for _ in range(31):
        state = log.state
        seat = state.to_act()
        log.when(Act(seat, rng.choice(state.game.legal_actions(seat))))
    state = log.state
    last = log.when(Act(state.to_act(), state.game.legal_actions()[0]))
    assert types(last) == ["card_played", "trick_won", "deal_scored", "deck_revealed", "deal_started"]
    scored = last[2].deal_scored
    assert sum(scored.trick_points) in (162, 252)
    assert list(scored.totals) == list(scored.deal_score)
    assert log.state.game.dealer == 1


def test_acting_out_of_turn_is_refused_with_the_rule_and_writes_nothing():
    log = Log().seat_all()
    with pytest.raises(IllegalAction) as refused:
        decide(log.state, Act(2, Bid(PASS)), next_deal())
    assert refused.value.reason == "NOT_YOUR_TURN"
    with pytest.raises(IllegalAction) as refused:
        decide(log.state, Act(1, Play(0)), next_deal())
    assert refused.value.reason == "BIDDING"


def test_seats_taken_or_full_and_a_game_not_started():
    log = Log()
    log.when(JoinSeat(2, "a", b"a" * 32))
    with pytest.raises(Refused) as taken:
        decide(log.state, JoinSeat(2, "b", b"b" * 32), next_deal())
    assert taken.value.reason == "SEAT_TAKEN"
    with pytest.raises(Refused) as early:
        decide(log.state, Act(2, Bid(PASS)), next_deal())
    assert early.value.reason == "GAME_NOT_STARTED"
    for seat in (0, 1, 3):
        log.when(JoinSeat(seat, "x", bytes([seat + 10]) * 32))
    with pytest.raises(Refused) as full:
        decide(log.state, JoinSeat(None, "late", b"l" * 32), next_deal())
    assert full.value.reason == "TABLE_FULL"


def test_leaving_during_the_game_seats_a_takeover_bot_at_once_and_keeps_the_claim():
    log = Log().seat_all()
    events = log.when(LeaveSeat(2, epb.BOT_LEVEL_NORMAL))
    assert types(events) == ["seat_left", "bot_seated"]
    assert events[1].bot_seated.takeover and events[1].bot_seated.level == epb.BOT_LEVEL_NORMAL
    seat = log.state.seats[2]
    assert (seat.occupant, seat.takeover, seat.token_hash) == (BOT, True, bytes([2]) * 32)


def test_leaving_before_the_game_frees_the_seat():
    log = Log()
    log.when(JoinSeat(1, "a", b"a" * 32))
    assert types(log.when(LeaveSeat(1, epb.BOT_LEVEL_NORMAL))) == ["seat_left"]
    assert log.state.free_seats() == [0, 1, 2, 3]


def test_kamikaze_deals_eight_each_and_the_eldest_takes_all_trump_at_once():
    log = Log("kamikaze")
    events = None
    for seat in range(4):
        events = log.when(JoinSeat(seat, "p", bytes([seat]) * 32))
    assert types(events) == ["seat_joined", "game_started", "deal_started", "contract_settled"]
    assert (events[3].contract_settled.taker, events[3].contract_settled.contract) == (1, cpb.CONTRACT_ALL_TRUMP)
    assert not events[2].deal_started.HasField("turned_card")


@pytest.mark.parametrize("preset", ["classic", "belgian", "modern", "enhanced"])
def test_a_whole_game_folds_to_the_same_state_as_it_was_decided(preset):
    log = Log(preset, target="150" if preset != "belgian" else "20").seat_all()
    rng = random.Random(preset)
    while log.state.status != FINISHED:
        state = log.state
        seat = state.to_act()
        deck = tuple(rng.sample(range(32), 32))
        log.when(Act(seat, rng.choice(state.game.legal_actions(seat))), deck=deck)
    state = log.state
    ended = log.events[-1].game_ended
    assert types(log.events[-1:]) == ["game_ended"]
    assert list(ended.totals) == state.game.totals
    assert state.winning_team == ended.winning_team == state.game.winner
    assert max(state.game.totals) >= state.rules.target
    last_scored = [e.deal_scored for e in log.events if e.HasField("deal_scored")][-1]
    assert list(last_scored.totals) == list(ended.totals)
