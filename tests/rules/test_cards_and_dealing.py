"""SPEC §1: table, seats, cards, and dealing from a recorded deck order."""

from __future__ import annotations

import random

import pytest
from belote.rules import (
    ALL_TRUMP,
    PASS,
    AllPassed,
    Bid,
    ContractSettled,
    Game,
    IllegalAction,
    card_name,
    cards_of,
    mask_of,
    rules_for,
    shuffled_deck,
)
from belote.rules import cards as cards_module
from rules_helpers import H, bid, card, names, play_first_legal, position

# A recorded deck order, top first (any order would do: hands must be a function of it).
DECK = list(range(32))
random.Random(2024).shuffle(DECK)


def dealt(*indices: int) -> set[str]:
    """The cards at these positions of DECK."""
    return names([DECK[i] for i in indices])


def test_seats_in_order_of_play_and_teams():
    """SPEC §1 «4 seats numbered 0..3 in order of play; teams are seats {0,2} and {1,3}.»
    SPEC §1 «(Sheet 000's "places 1 et 3 / 2 et 4" are seats 0/2 and 1/3.)»
    SPEC §1 «The winner of a trick leads the next one.»

    Seat 3 leads, then seat 0, 1, 2 play; seat 2 trumps and wins, so the trick counts for the
    team of seats 0 and 2, and seat 2 leads the next trick.
    """
    play = position({3: "AS 7C", 0: "7S 8C", 1: "8S 9C", 2: "JH 10C"}, H, leader=3)
    turns = []
    for c in ("AS", "7S", "8S", "JH"):
        turns.append(play.turn)
        play.play(card(c))
    assert turns == [3, 0, 1, 2]
    assert play.tricks == [(3, (card("AS"), card("7S"), card("8S"), card("JH")), 2, 31)]
    assert play.trick_points == [31, 0]
    assert play.tricks_won == [1, 0]
    assert (play.leader, play.turn) == (2, 2)


@pytest.mark.parametrize("direction", ["clockwise", "counter_clockwise", "counter-clockwise"])
def test_play_direction_only_told_to_front_ends(direction):
    """SPEC §1 «play_direction (clockwise or counter-clockwise) is only told to front-ends; the
    engine always moves seat s -> s+1 mod 4.»
    """
    game = Game(rules_for("classic", {"play_direction": direction, "first_dealer": 2}))
    game.start_deal(DECK)
    speakers = []
    for _ in range(8):
        speakers.append(game.to_act())
        bid(game, "pass")
    assert speakers == [3, 0, 1, 2, 3, 0, 1, 2]
    assert game.rules.play_direction == direction.replace("-", "_")


def test_thirty_two_cards():
    """SPEC §1 «32 cards: suits clubs, diamonds, hearts, spades (C D H S); ranks 7 8 9 10 J Q K A.»"""
    assert [card_name(c) for c in range(32)] == [
        "7C", "8C", "9C", "10C", "JC", "QC", "KC", "AC",
        "7D", "8D", "9D", "10D", "JD", "QD", "KD", "AD",
        "7H", "8H", "9H", "10H", "JH", "QH", "KH", "AH",
        "7S", "8S", "9S", "10S", "JS", "QS", "KS", "AS"]
    assert [card(card_name(c)) for c in range(32)] == list(range(32))
    with pytest.raises(ValueError, match="not a card: '6H'"):
        card("6H")


def _finish_deal_somehow(game: Game) -> None:
    bid(game, game.turned_card >> 3)      # the eldest takes the turned suit
    play_first_legal(game)


def test_dealer_rotates_after_every_deal_and_after_a_redeal():
    """SPEC §1 «The dealer of deal 1 is seat 0 unless the table says otherwise; the deal passes
    to the next seat after every deal, including a redeal after everyone passed.»
    """
    assert Game(rules_for("classic")).dealer == 0
    assert Game(rules_for("classic", {"first_dealer": 3})).dealer == 3

    game = Game(rules_for("classic", {"first_dealer": 3}))
    game.start_deal(DECK)
    assert bid(game, *["pass"] * 8) == [AllPassed(1)]          # redeal
    assert (game.dealer, game.phase) == (0, "dealing")
    game.start_deal(DECK)
    _finish_deal_somehow(game)                                     # a played deal
    assert game.dealer == 1
    game.start_deal(DECK)
    assert bid(game, *["pass"] * 8) == [AllPassed(3)]
    assert game.dealer == 2


def test_eldest_speaks_first_and_leads_the_first_trick():
    """SPEC §1 «The seat after the dealer ("eldest") speaks first and leads the first trick
    (sheets 001/004 "à gauche", sheet 002 "à droite" both mean: next in the direction of play).»

    Dealer 1: seat 2 speaks first; seat 0 takes, and still seat 2 leads.
    """
    game = Game(rules_for("classic", {"first_dealer": 1}))
    game.start_deal(DECK)
    assert game.eldest == 2 and game.to_act() == 2
    turned_suit = DECK[20] >> 3
    assert bid(game, "pass", "pass", turned_suit) == [ContractSettled(0, turned_suit, False)]
    assert game.to_act() == 2 and game.play.leader == 2


def test_hands_are_a_function_of_the_recorded_deck():
    """SPEC §1 «The deck order of every deal is recorded, so hands are a function of it.»"""
    games = [Game(rules_for("classic")) for _ in range(2)]
    for g in games:
        g.start_deal(DECK)
    assert games[0].deck == DECK
    assert games[0].dealt == games[1].dealt
    other = Game(rules_for("classic"))
    other.start_deal(DECK[::-1])
    assert other.dealt != games[0].dealt


def test_dealing_two_rounds_from_the_deck_order():
    """SPEC §1 «From a deck ordered top to bottom d[0..31], starting with the eldest: each seat
    gets 3 cards, then each seat 2; d[20] is turned up; once the trump is settled, again from
    the eldest, the taker gets the turned card and 2 cards and every other seat 3, in order from
    d[21..31].»

    Dealer 0, so seat 1 is eldest; seat 3 takes in round 1.
    """
    game = Game(rules_for("classic"))
    game.start_deal(DECK)
    assert [names(game.hand(s)) for s in range(4)] == [
        dealt(9, 10, 11, 18, 19),        # seat 0 (the dealer) is served last
        dealt(0, 1, 2, 12, 13),          # seat 1, the eldest
        dealt(3, 4, 5, 14, 15),
        dealt(6, 7, 8, 16, 17),
    ]
    assert game.turned_card == DECK[20]
    bid(game, "pass", "pass", DECK[20] >> 3)
    assert [names(game.hand(s)) for s in range(4)] == [
        dealt(9, 10, 11, 18, 19, 29, 30, 31),
        dealt(0, 1, 2, 12, 13, 21, 22, 23),
        dealt(3, 4, 5, 14, 15, 24, 25, 26),
        dealt(6, 7, 8, 16, 17, 20, 27, 28),   # the taker: the turned card d[20] and 2 cards
    ]


def test_dealing_when_the_eldest_takes_in_round_two():
    """SPEC §1 «From a deck ordered top to bottom d[0..31], starting with the eldest: each seat
    gets 3 cards, then each seat 2; d[20] is turned up; once the trump is settled, again from
    the eldest, the taker gets the turned card and 2 cards and every other seat 3, in order from
    d[21..31].»

    Dealer 3, so seat 0 is eldest and takes in round 2: it gets d[20], d[21], d[22].
    """
    game = Game(rules_for("classic", {"first_dealer": 3}))
    game.start_deal(DECK)
    other_suit = ((DECK[20] >> 3) + 1) % 4
    bid(game, *["pass"] * 4, other_suit)
    assert [names(game.hand(s)) for s in range(4)] == [
        dealt(0, 1, 2, 12, 13, 20, 21, 22),
        dealt(3, 4, 5, 14, 15, 23, 24, 25),
        dealt(6, 7, 8, 16, 17, 26, 27, 28),
        dealt(9, 10, 11, 18, 19, 29, 30, 31),
    ]


def test_dealing_with_bidding_none_is_three_two_three():
    """SPEC §1 «With bidding=none each seat, starting with the eldest, gets 3, then each 2, then
    each 3, from d[0].»
    """
    game = Game(rules_for("kamikaze"))           # dealer 0, eldest 1
    assert game.start_deal(DECK) == [ContractSettled(1, ALL_TRUMP, False)]
    assert [names(game.hand(s)) for s in range(4)] == [
        dealt(9, 10, 11, 18, 19, 29, 30, 31),
        dealt(0, 1, 2, 12, 13, 20, 21, 22),
        dealt(3, 4, 5, 14, 15, 23, 24, 25),
        dealt(6, 7, 8, 16, 17, 26, 27, 28),
    ]


def test_shuffles_use_a_cryptographic_random_source(monkeypatch):
    """SPEC §1 «Shuffles use a cryptographic random source.»

    With no generator given, ``shuffled_deck`` shuffles with ``secrets.SystemRandom`` (the OS's
    cryptographic source); a deck is always the 32 cards once.
    """
    used = []

    class Recording(random.Random):
        def shuffle(self, x):
            used.append("SystemRandom")
            x.reverse()

    monkeypatch.setattr(cards_module.secrets, "SystemRandom", Recording)
    assert shuffled_deck() == list(range(31, -1, -1))
    assert used == ["SystemRandom"]
    monkeypatch.undo()
    deck = shuffled_deck()
    assert sorted(deck) == list(range(32))
    expected = list(range(32))
    random.Random(9).shuffle(expected)
    assert shuffled_deck(random.Random(9)) == expected


@pytest.mark.parametrize("deck", [list(range(31)), list(range(31)) + [0], list(range(1, 33))])
def test_a_deck_must_hold_the_32_cards_once(deck):
    """SPEC §1 «32 cards: suits clubs, diamonds, hearts, spades (C D H S); ranks 7 8 9 10 J Q K A.»"""
    game = Game(rules_for("classic"))
    with pytest.raises(IllegalAction) as err:
        game.start_deal(deck)
    assert err.value.reason == "BAD_DECK"
    assert str(err.value) == "a deck order must hold each of the 32 cards once"
    assert game.phase == "dealing"


def test_no_second_deal_while_one_is_in_progress():
    """SPEC §1 «The deck order of every deal is recorded, so hands are a function of it.»

    No action before a deal has started; no new deal while one is in progress; nobody but the
    seat to act has legal actions.
    """
    game = Game(rules_for("classic"))
    assert (game.to_act(), game.legal_actions()) == (None, [])
    with pytest.raises(IllegalAction) as err:
        game.apply(1, Bid(PASS))
    assert (err.value.reason, str(err.value)) == ("NO_DEAL", "no deal is in progress")
    game.start_deal(DECK)
    with pytest.raises(IllegalAction) as err:
        game.start_deal(DECK)
    assert (err.value.reason, str(err.value)) == ("DEAL_IN_PROGRESS", "a deal is in progress")
    assert game.legal_actions(2) == [] and game.legal_actions(1) == [Bid(PASS), Bid(DECK[20] >> 3)]


def test_cards_of_and_mask_round_trip():
    """SPEC §1 «32 cards: suits clubs, diamonds, hearts, spades (C D H S); ranks 7 8 9 10 J Q K A.»"""
    hand = [card("AS"), card("7C"), card("10H")]
    assert cards_of(mask_of(hand)) == [card("7C"), card("10H"), card("AS")]
    assert card("TH") == card("10H") == card("10h") == 19
    assert (card("7C"), card("7D"), card("7H"), card("7S"), card("AS")) == (0, 8, 16, 24, 31)
