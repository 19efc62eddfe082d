"""What the hard bot (version 3) reads from the others' plays beyond the rules: belote calls
(SPEC §5) place the other trump honour; plays against a rules-of-thumb habit make the card the
habit would have played unlikely (bots/habits.py)."""

from __future__ import annotations

import random

from belote.bots.habits import AGAINST_HABIT, habit_odds
from belote.bots.inference import read_knowledge
from belote.bots.reading import table_of
from bot_helpers import H, card, scripted_game, view_of

# Hearts trump, taken by seat 0 (the eldest: seat 3 deals) on the turned jack.
DEAL = {
    0: "JH 9H AH 10H KC 8C 7D 8D",
    1: "KH QH AS 7S 7C 10C 9D 10D",
    2: "7H 8H KS QS JC QC JD QD",
    3: "10S 9S 8S JS AC 9C AD KD",
}
# The same, the queen of hearts with seat 2 and its 7 with seat 1: seat 1 has no belote.
NO_BELOTE = {**DEAL, 1: "KH 7H AS 7S 7C 10C 9D 10D", 2: "QH 8H KS QS JC QC JD QD"}


def knowledge(hands, plays: str, seat: int, habits: bool = True):
    game = scripted_game(hands, turned="JH", calls=(H,), plays=plays)
    return read_knowledge(view_of(game, seat), habits)


def test_a_seat_that_called_belote_with_the_king_holds_the_queen():
    # Trick 1: the taker leads the jack, seat 1 plays the king of trump and calls belote.
    k = knowledge(DEAL, "JH KH 7H 8S", seat=2)
    assert k.known[1] & (1 << card("QH"))
    rng = random.Random(1)
    assert all(k.sample(rng)[1] >> card("QH") & 1 for _ in range(50))


def test_without_reading_habits_the_queen_may_be_anywhere_possible():
    k = knowledge(DEAL, "JH KH 7H 8S", seat=2, habits=False)
    assert not k.known[1] & (1 << card("QH"))
    assert k.possible[0] >> card("QH") & 1           # the taker could hold it


def test_a_seat_that_played_the_king_without_a_call_has_no_queen():
    k = knowledge(NO_BELOTE, "JH KH 8H 8S", seat=3)
    assert not k.possible[1] >> card("QH") & 1
    assert k.possible[0] >> card("QH") & 1 and k.possible[2] >> card("QH") & 1


def test_second_hand_letting_the_opponents_trick_go_lacks_the_suits_master():
    # Trick 2: the taker leads the king of clubs, seat 1 plays the 7: it would have taken with
    # the ace (the master of clubs) had it held it.
    game = scripted_game(DEAL, turned="JH", calls=(H,), plays="JH KH 7H 8S KC 7C")
    view = view_of(game, 2)
    odds = habit_odds(view, table_of(view), read_knowledge(view).unseen)
    assert odds[1, card("AC")] == AGAINST_HABIT
    assert (1, card("10C")) not in odds              # not a master: a 10 does not hold the trick


def test_a_taker_leading_a_side_card_lacks_the_master_trump_and_the_safe_masters():
    game = scripted_game(DEAL, turned="JH", calls=(H,), plays="JH KH 7H 8S KC")
    view = view_of(game, 1)
    odds = habit_odds(view, table_of(view), read_knowledge(view).unseen)
    # The 9 of hearts is the master trump once the jack has gone; the aces of spades (seat 1's
    # own: not read), clubs and diamonds are the masters of the side suits.
    assert {key: odds[key] for key in odds if key[0] == 0} == {
        (0, card("9H")): AGAINST_HABIT, (0, card("AC")): AGAINST_HABIT,
        (0, card("AD")): AGAINST_HABIT}


def test_the_takers_partner_leading_a_side_card_holds_no_trump():
    # Seat 2, the taker's partner, wins trick 2 with the jack of clubs and leads a spade while
    # trumps are out, never having led one: it would have led a trump to the taker.
    game = scripted_game(DEAL, turned="JH", calls=(H,), plays="JH KH 7H 8S 8C 7C JC 9C KS")
    assert game.play.tricks[-1][2] == 2
    view = view_of(game, 3)
    odds = habit_odds(view, table_of(view), read_knowledge(view).unseen)
    assert {key: odds[key] for key in odds if key[0] == 2} == {
        (2, card(c)): AGAINST_HABIT for c in ("9H", "AH", "10H", "QH", "8H", "AS")}
