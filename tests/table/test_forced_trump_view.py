"""SPEC §2 forced_trump: the eldest "receives the turned card plus 2, the others 3, and it then
chooses": it chooses seeing its 8 cards, in its GetTable view and in the view a bot decides
from (issue 17: both showed the 5 dealt cards until the trump was named)."""

from __future__ import annotations

from belote import bots
from belote.rules import PASS, Bid
from belote.rules.cards import cards_of
from belote.table.codec import card_from_pb
from belote.table.decide import Act
from belote.table.state import fold
from belote.table.views import SPECTATOR, Redactor, seat_view, table_view
from belote.v1 import events_pb2 as epb
from belote.v1 import table_service_pb2 as tpb
from table_log import Log

# DECK = 0..31, dealer 0, seat 1 the forced taker: 3 + 2 from the eldest, then d[20] and 2 more
# to the taker, 3 to each other seat (SPEC §1).
EIGHT = [[9, 10, 11, 18, 19, 29, 30, 31], [0, 1, 2, 12, 13, 20, 21, 22],
         [3, 4, 5, 14, 15, 23, 24, 25], [6, 7, 8, 16, 17, 26, 27, 28]]
HEARTS = 2


def forced_choice():
    """belgian, dealer 0: all eight calls are passes; seat 1 (the eldest) must choose."""
    log = Log("belgian").seat_all()
    for _ in range(8):
        log.when(Act(log.state.to_act(), Bid(PASS)))
    return log.state


def test_every_seat_sees_its_eight_cards_while_the_eldest_chooses():
    state = forced_choice()
    assert state.to_act() == 1
    for seat in range(4):
        view = table_view(state, seat)
        assert view.game.phase == tpb.DEAL_PHASE_AUCTION
        assert sorted(card_from_pb(c) for c in view.game.your_hand) == EIGHT[seat]
        assert cards_of(seat_view(state, seat).hand) == EIGHT[seat]
    assert seat_view(state, 1).legal == (Bid(0), Bid(1), Bid(2), Bid(3))


def test_the_bot_chooses_the_forced_trump_from_its_eight_cards():
    """Its five dealt cards (7 8 9 of clubs, J Q of diamonds) would make every bot level name
    clubs or diamonds; the three completing cards, J Q K of hearts, make it hearts."""
    view = seat_view(forced_choice(), 1)
    assert [bots.choose(level, view, 7) for level in (epb.BOT_LEVEL_EASY, epb.BOT_LEVEL_NORMAL, epb.BOT_LEVEL_HARD)] == [
        Bid(HEARTS)] * 3


def test_a_seat_s_stream_shows_its_eight_cards_at_the_eighth_pass():
    """A front-end that follows only WatchTable learns the completed hand with the eighth pass,
    before the choice, not with ContractSettled after it; a spectator never does."""
    log = Log("belgian").seat_all()
    for _ in range(8):
        log.when(Act(log.state.to_act(), Bid(PASS)))
    passes = [e for e in log.events if e.WhichOneof("body") == "bid_made"]
    for seat in range(4):
        redactor = Redactor(seat)
        shown = {e.sequence: redactor.see(e) for e in log.events}
        hands = [sorted(card_from_pb(c) for c in shown[e.sequence].bid_made.hand) for e in passes]
        assert hands == [[]] * 7 + [EIGHT[seat]]
    spectator = Redactor(SPECTATOR)
    assert not any(spectator.see(e).bid_made.hand for e in log.events)
    # A stream resumed mid-auction counts the passes it did not see.
    resumed = Redactor(1)
    resumed.prime(fold("t", log.events[:-1]))
    assert sorted(card_from_pb(c) for c in resumed.see(log.events[-1]).bid_made.hand) == EIGHT[1]


def test_a_redealt_table_shows_no_hand_at_the_eighth_pass():
    log = Log("classic").seat_all()                   # all_pass=redeal
    for _ in range(8):
        log.when(Act(log.state.to_act(), Bid(PASS)))
    redactor = Redactor(0)
    assert not any(redactor.see(e).bid_made.hand for e in log.events)
