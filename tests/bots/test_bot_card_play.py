"""Card play in hand-built positions (sheet 001): the normal bot charges its partner's trick
and trumps when it must with its smallest trump; the hard bot keeps a master card that the
exact search proves worth keeping."""

from __future__ import annotations

from belote.bots import hard, normal
from belote.bots.endgame import solve
from belote.bots.search import Position, SearchRules
from belote.rules import Play, contract_table
from bot_helpers import H, card, cards, mask, scripted_game, view_of

# Dealer 3, so seat 0 is eldest; seat 0 takes hearts (the turned jack) in round 1.
CHARGE_HANDS = {0: "AS KS JH 9H 8C 9C 7D 8D", 1: "8S QS 7H 8H 10C JC 9D JD",
                2: "10D 7C QC KC AC QD KD AH", 3: "7S 9S 10S JS 10H QH KH AD"}


def test_normal_charges_its_partners_winning_trick():
    """Seat 0 leads the ace of spades (master); seat 2 has no spade: it may play anything and
    puts its 10 of diamonds (10 points, not a master: the ace is out) on its partner's trick."""
    game = scripted_game(CHARGE_HANDS, turned="JH", calls=[H], plays="AS 8S")
    view = view_of(game)
    assert view.seat == 2
    assert normal.choose(view, 0) == Play(card("10D"))


def test_normal_gives_nothing_to_the_opponents_trick():
    """Same hands, seat 1 to play on seat 0's ace: it cannot win, so it plays its smallest spade."""
    game = scripted_game(CHARGE_HANDS, turned="JH", calls=[H], plays="AS")
    assert normal.choose(view_of(game), 0) == Play(card("8S"))


# Dealer 2, so seat 3 is eldest: it passes, seat 0 takes hearts (the turned ace). Seat 3 leads
# a club, seat 1's ace wins it; seat 2 has no club and holds J, 9 and 7 of trump.
TRUMP_HANDS = {0: "AH 10H 8C 7S 8S 9S 7D 8D", 1: "AC KC 10S JS 10D JD QD KH",
               2: "JH 9H 7H QS KS AS KD AD", 3: "7C 9C 10C JC QC 8H QH 9D"}


def trump_position(preset="classic"):
    return scripted_game(TRUMP_HANDS, preset=preset, dealer=2, taker=0, turned="AH",
                         calls=["pass", H], plays="7C 8C AC")


def test_normal_and_hard_trump_when_they_must_normal_with_its_smallest_trump():
    view = view_of(trump_position())
    assert view.seat == 2
    assert {a.card for a in view.legal} == set(cards("JH 9H 7H")), "void, an opponent wins"
    assert normal.choose(view, 0) == Play(card("7H")), "the 7 wins: keep the jack and the 9"
    for seed in range(3):
        assert hard.choose(view, seed).card in cards("JH 9H 7H")


def test_normal_trumps_the_opponents_ace_when_trumping_is_free():
    """``enhanced`` (play=free): no obligation to trump, yet it takes the ace (10 points) with
    its smallest trump rather than giving a card."""
    view = view_of(trump_position("enhanced"))
    assert view.seat == 2 and Play(card("KD")) in view.legal, "any card is legal"
    assert normal.choose(view, 0) == Play(card("7H"))


# An endgame where exact search proves the master must be kept. Seat 0 (hearts) wins the clubs,
# draws trumps, then leads spades; seat 2 has only diamonds left: AD (master) and KD.
MASTER_HANDS = {0: "AC 10C JH 9H AS 10S KS 9D", 1: "7C JC 7H 8H 9S JS 7S 10D",
                2: "8C QC 10H QH 7D 8D AD KD", 3: "9C KC KH AH 8S QS QD JD"}
MASTER_PLAYS = ("AC 7C 8C 9C  10C JC QC KC  JH 7H 10H KH  9H 8H QH AH "
                "AS 9S 7D 8S  10S JS 8D QS  KS 7S")


def test_hard_keeps_a_master_card_exact_search_says_to_keep():
    """On its partner's sure trick, discarding the ace of diamonds gives 11 now; keeping it wins
    the last trick (10 of diamonds, dix de der). Hard remembers trumps and spades are gone."""
    game = scripted_game(MASTER_HANDS, turned="JH", calls=[H], plays=MASTER_PLAYS)
    view = view_of(game)
    assert view.seat == 2 and view.hand == mask("AD KD")
    # The premise, on the real deal: keeping the ace is worth strictly more.
    play = game.play
    pos = Position(SearchRules.of(game.rules, contract_table("standard", H)), play.hands, 0,
                   play.leader, list(play.trick), play.trick_points[0],
                   tuple(play.tricks_won), 8 - play.trick_number)
    values, _nodes = solve(pos, 10**6)
    assert values[card("KD")] > values[card("AD")]
    for seed in range(5):
        assert hard.choose(view, seed) == Play(card("KD"))
    assert normal.choose(view, 0) == Play(card("KD"))
