"""SPEC §3 (card order and values) and §4 (playing a card): exact legal sets, trick winners."""

from __future__ import annotations

import random

import pytest
from belote.rules import ALL_TRUMP, NO_TRUMP, Game, IllegalAction, Play, contract_table, rules_for
from belote.rules.cards import RANK_LETTERS
from belote.rules.play import BELGIAN, FREE, STANDARD
from rules_helpers import (
    SUIT_PER_SEAT,
    H,
    S,
    bid,
    card,
    deck_for,
    legal,
    names,
    play_first_legal,
    position,
)


# SPEC §3 ---------------------------------------------------------------------------------------
def strongest_first(values: str, contract: int, suit: int) -> list[str]:
    """The ranks of ``suit`` from the strongest down, under ``contract``."""
    table = contract_table(values, contract)
    ranks = sorted(range(8), key=lambda r: -table.order[suit * 8 + r])
    return [RANK_LETTERS[r] for r in ranks]


def points_of(values: str, contract: int, suit: int) -> dict[str, int]:
    table = contract_table(values, contract)
    return {RANK_LETTERS[r]: table.points[suit * 8 + r] for r in range(8)}


@pytest.mark.parametrize("rank, trump_pos, trump_pts, plain_pos, plain_pts", [
    ("J", 1, 20, 5, 2),
    ("9", 2, 14, 6, 0),
    ("A", 3, 11, 1, 11),
    ("10", 4, 10, 2, 10),
    ("K", 5, 4, 3, 4),
    ("Q", 6, 3, 4, 3),
    ("8", 7, 0, 7, 0),
    ("7", 8, 0, 8, 0),
])
def test_standard_card_order_and_points(rank, trump_pos, trump_pts, plain_pos, plain_pts):
    """SPEC §3 «Standard (values=standard), sheets 000-003:»
    SPEC §3 «| rank | trump order | trump pts | plain order | plain pts |»
    SPEC §3 «| J | 1st | 20 | 5th | 2 |» «| 9 | 2nd | 14 | 6th | 0 |» «| A | 3rd | 11 | 1st | 11 |»
    SPEC §3 «| 10 | 4th | 10 | 2nd | 10 |» «| K | 5th | 4 | 3rd | 4 |» «| Q | 6th | 3 | 4th | 3 |»
    SPEC §3 «| 8 | 7th | 0 | 7th | 0 |» «| 7 | 8th | 0 | 8th | 0 |»

    Hearts trump: hearts follow the trump columns, spades the plain ones.
    """
    assert strongest_first("standard", H, H).index(rank) + 1 == trump_pos
    assert points_of("standard", H, H)[rank] == trump_pts
    assert strongest_first("standard", H, S).index(rank) + 1 == plain_pos
    assert points_of("standard", H, S)[rank] == plain_pts


def test_standard_orders_in_full():
    """SPEC §3 «Standard (values=standard), sheets 000-003:»"""
    assert strongest_first("standard", H, H) == ["J", "9", "A", "10", "K", "Q", "8", "7"]
    assert strongest_first("standard", H, S) == ["A", "10", "K", "Q", "J", "9", "8", "7"]
    assert strongest_first("standard", NO_TRUMP, S) == ["A", "10", "K", "Q", "J", "9", "8", "7"]
    assert strongest_first("standard", ALL_TRUMP, S) == ["J", "9", "A", "10", "K", "Q", "8", "7"]


def test_deal_totals():
    """SPEC §3 «Dix de der (last trick) +10.» «Suit contract: 152 + 10 = 162.»
    SPEC §3 «TA: every suit is played and scored as trump: 4 x 62 + 10 = 258.»
    SPEC §3 «SA: every suit plain: 4 x 30 + 10 = 130.»
    """
    for suit in range(4):
        table = contract_table("standard", suit)
        assert (sum(table.points), table.last_trick_bonus, table.deal_total) == (152, 10, 162)
    ta = contract_table("standard", ALL_TRUMP)
    assert [points_of("standard", ALL_TRUMP, s) == points_of("standard", H, H) for s in range(4)] == [True] * 4
    assert (sum(ta.points), ta.deal_total) == (248, 258)
    sa = contract_table("standard", NO_TRUMP)
    assert [points_of("standard", NO_TRUMP, s) == points_of("standard", H, S) for s in range(4)] == [True] * 4
    assert (sum(sa.points), sa.deal_total) == (120, 130)


def test_dix_de_der_goes_to_the_last_trick():
    """SPEC §3 «Dix de der (last trick) +10.»

    One suit per seat, seat 2 takes hearts: every trick is 4 cards of points p, and the last one
    is p + 10.
    """
    game = Game(rules_for("classic"))
    game.start_deal(deck_for(SUIT_PER_SEAT, dealer=0, taker=2, turned="JH"))
    bid(game, "pass", H)
    tricks = [o for o in play_first_legal(game) if type(o).__name__ == "TrickWon"]
    table = game.play.table
    assert [t.points for t in tricks[:7]] == [sum(table.points[c] for c in t.cards) for t in tricks[:7]]
    assert tricks[7].points == sum(table.points[c] for c in tricks[7].cards) + 10
    assert sum(t.points for t in tricks) == 162


def test_enhanced_values():
    """SPEC §3 «Sheet 004 (values=enhanced): order follows points.»
    SPEC §3 «Trump: J 20, 10 15, A 10, K 8, Q 6, 9 2, 8 1, 7 0 (order J 10 A K Q 9 8 7).»
    SPEC §3 «Plain: A 10, K 8, Q 6, J 4, 10 3, 9 2, 8 1, 7 0 (order A K Q J 10 9 8 7).»
    SPEC §3 «No dix de der; total 164 = 62 + 3 x 34.»
    """
    assert strongest_first("enhanced", H, H) == ["J", "10", "A", "K", "Q", "9", "8", "7"]
    assert points_of("enhanced", H, H) == {"J": 20, "10": 15, "A": 10, "K": 8, "Q": 6, "9": 2, "8": 1, "7": 0}
    assert strongest_first("enhanced", H, S) == ["A", "K", "Q", "J", "10", "9", "8", "7"]
    assert points_of("enhanced", H, S) == {"A": 10, "K": 8, "Q": 6, "J": 4, "10": 3, "9": 2, "8": 1, "7": 0}
    table = contract_table("enhanced", H)
    assert (table.last_trick_bonus, table.deal_total) == (0, 164)
    assert sum(points_of("enhanced", H, H).values()) == 62
    assert sum(points_of("enhanced", H, S).values()) == 34


def test_enhanced_last_trick_has_no_bonus():
    """SPEC §3 «No dix de der; total 164 = 62 + 3 x 34.»"""
    play = position({0: "7S", 1: "8S", 2: "9S", 3: "10S"}, H, values="enhanced")
    play.trick_number = 7                              # this is the eighth trick
    for c in ("7S", "8S", "9S", "10S"):
        play.play(card(c))
    assert play.tricks[-1][2:] == (3, 0 + 1 + 2 + 3)


# SPEC §4: legal cards --------------------------------------------------------------------------
ALL_RULES = [("standard", STANDARD, True), ("standard, undertrump allowed", STANDARD, False),
             ("belgian", BELGIAN, True), ("free", FREE, True)]


@pytest.mark.parametrize("contract", [H, NO_TRUMP, ALL_TRUMP], ids=["hearts", "SA", "TA"])
@pytest.mark.parametrize("label, rule, under", ALL_RULES, ids=[r[0] for r in ALL_RULES])
def test_always_follow_the_led_suit(label, rule, under, contract):
    """SPEC §4 «Always: follow the led suit if you can.»

    Seat 0 leads the 7 of spades; seat 1 holds two spades (both above the 7, so no "go higher"
    rule narrows the set) and cards of every other suit.
    """
    play = position({1: "8S KS 7C AD JH"}, contract, "7S", rule=rule, undertrump_required=under)
    assert legal(play) == {"8S", "KS"}


def test_leading_any_card():
    """SPEC §4 «Always: follow the led suit if you can.»

    The leader of a trick may lead any card of its hand.
    """
    play = position({0: "7C AD JH 8S"}, H)
    assert legal(play) == {"7C", "AD", "JH", "8S"}


def test_trump_led_you_must_beat_the_highest_trump_even_your_partners():
    """SPEC §4 «standard (sheets 001, 002, 003): trump led -> you must beat the highest trump in
    the trick if you can (even your partner's).»
    """
    # Seat 0 leads the ace of trump, seat 1 plays the 7: seat 2 (partner of the winner) must
    # still go higher: only the 9 beats the ace.
    assert legal(position({2: "9H KH 8C"}, H, "AH 7H")) == {"9H"}
    # An opponent's 10 on the partner's queen: 9 and jack beat the 10, the king does not.
    assert legal(position({2: "JH 9H KH 7D"}, H, "QH 10H")) == {"JH", "9H"}
    # Nothing beats the jack: any trump.
    assert legal(position({2: "9H KH 8C"}, H, "JH 7H")) == {"9H", "KH"}
    # No trump at all: anything.
    assert legal(position({2: "AC 8D"}, H, "JH 7H")) == {"AC", "8D"}


def test_void_partner_wins_play_anything():
    """SPEC §4 «Void in the led suit: if your partner currently wins the trick, play anything.»"""
    # Partner (seat 0) wins with the ace of spades; seat 2 holds trumps and may still discard.
    for under in (True, False):
        play = position({2: "9H 7D 8C"}, H, "AS 7S", undertrump_required=under)
        assert legal(play) == {"9H", "7D", "8C"}
    # Partner wins with a trump: in standard, still anything (even a lower trump or a discard).
    assert legal(position({3: "8H 7D"}, H, "7S JH 8S")) == {"8H", "7D"}


def test_void_opponent_wins_you_must_trump_and_overtrump():
    """SPEC §4 «Otherwise you must trump; if an opponent has already trumped, you must overtrump
    if you can; if you cannot, you must still play a trump (undertrump) when undertrump=required
    (sheets 002, 003), or may play any card when undertrump=allowed (sheet 001: "sous-couper est
    permis").»
    """
    # An opponent wins with a plain card: trump (any trump).
    assert legal(position({2: "8H KH KD 7C"}, H, "7S AS")) == {"8H", "KH"}
    # An opponent has trumped with the queen: overtrump with the king (the 8 is lower).
    for under in (True, False):
        assert legal(position({2: "KH 8H 7D"}, H, "7S QH", undertrump_required=under)) == {"KH"}
    # Cannot overtrump the queen: undertrump when required, anything when allowed.
    assert legal(position({2: "8H 7H 7D"}, H, "7S QH")) == {"8H", "7H"}
    assert legal(position({2: "8H 7H 7D"}, H, "7S QH", undertrump_required=False)) == {"8H", "7H", "7D"}
    # The partner trumped and an opponent overtrumped: the opponent wins, overtrump it.
    assert legal(position({3: "JH 8H 7D"}, H, "AS 10H 9H")) == {"JH"}


def test_void_with_no_trump_play_anything():
    """SPEC §4 «With no trump, play anything.»"""
    assert legal(position({2: "7D 8C KD"}, H, "7S AS")) == {"7D", "8C", "KD"}
    assert legal(position({2: "7D 8C"}, H, "7S QH")) == {"7D", "8C"}


def test_belgian_forced_undertrump_on_partner():
    """SPEC §4 «belgian (sheet 000): as standard with undertrump=required, plus: when your partner
    wins the trick with a trump, you are void in the led suit, you hold trumps and none of them
    beats your partner's, you must undertrump.»
    """
    # Seat 3 leads a spade, partner seat 0 trumps with the 9, seat 1 follows: seat 2 holds the
    # king and 8 of trump, neither beats the 9: it must undertrump.
    play = position({2: "KH 8H 7D AC"}, H, "7S 9H 8S", leader=3, rule=BELGIAN)
    assert legal(play) == {"KH", "8H"}
    # The same position under standard (belgian-open): anything.
    assert legal(position({2: "KH 8H 7D AC"}, H, "7S 9H 8S", leader=3)) == {"KH", "8H", "7D", "AC"}


def test_belgian_exceptions_play_anything():
    """SPEC §4 «(When partner wins with a trump and you can beat it, or partner wins with a plain
    card, you play anything.) Sheet 000's last paragraph (belgian house) switches this extra rule
    off.»
    """
    # Partner wins with the 9 of trump and seat 2 holds the jack, which beats it: anything.
    assert legal(position({2: "JH 8H 7D"}, H, "7S 9H 8S", leader=3, rule=BELGIAN)) == {"JH", "8H", "7D"}
    # Partner wins with a plain card: anything.
    assert legal(position({2: "8H 7D"}, H, "7S AS 8S", leader=3, rule=BELGIAN)) == {"8H", "7D"}
    # No trump in hand: anything.
    assert legal(position({2: "7D 8C"}, H, "7S 9H 8S", leader=3, rule=BELGIAN)) == {"7D", "8C"}
    # Following suit is never affected.
    assert legal(position({2: "KS 8H"}, H, "7S 9H 8S", leader=3, rule=BELGIAN)) == {"KS"}
    # Against an opponent's trump the Belgian rule is the standard one with undertrump required.
    assert legal(position({2: "8H 7H 7D"}, H, "7S QH", rule=BELGIAN)) == {"8H", "7H"}
    # belgian-open is play=standard, undertrump=required: no forced undertrump on partner.
    open_rules = rules_for("belgian-open")
    assert (open_rules.play, open_rules.undertrump) == ("standard", "required")


def test_free_play():
    """SPEC §4 «free (sheet 004): follow suit; void -> any card (trump or discard); never an
    obligation to go higher, in TA too.»
    """
    # Follow suit still applies.
    assert legal(position({1: "KS 8H 7D"}, H, "7S", rule=FREE)) == {"KS"}
    # Void, an opponent wins with a plain card: trump or discard.
    assert legal(position({2: "8H KD 7C"}, H, "7S AS", rule=FREE)) == {"8H", "KD", "7C"}
    # Void, an opponent has trumped: no overtrump, no undertrump obligation.
    assert legal(position({2: "KH 8H 7D"}, H, "7S QH", rule=FREE)) == {"KH", "8H", "7D"}
    # Trump led: no obligation to go higher.
    assert legal(position({1: "JH 7H 8C"}, H, "10H", rule=FREE)) == {"JH", "7H"}
    # TA too: the ace beats the 10 but the 7 may be played.
    assert legal(position({1: "AS 7S 8C"}, ALL_TRUMP, "10S", rule=FREE)) == {"AS", "7S"}


def test_all_trump_follow_and_beat_the_highest_card_of_the_led_suit():
    """SPEC §4 «TA: every suit is trump: following the led suit, you must beat the highest card
    of that suit in the trick if you can; void -> any card.»
    """
    # King led, 9 on it: the 9 is the highest card of spades in the trick (J 9 A 10 K Q 8 7).
    assert legal(position({2: "JS QS 7D"}, ALL_TRUMP, "KS 9S")) == {"JS"}
    assert legal(position({2: "AS QS 7D"}, ALL_TRUMP, "KS 9S")) == {"AS", "QS"}
    # Even on the partner's card.
    assert legal(position({2: "AS 10S 8S"}, ALL_TRUMP, "KS 7S")) == {"AS", "10S"}
    # A card of another suit does not raise the bar: only spades count.
    assert legal(position({3: "AS 8S"}, ALL_TRUMP, "10S JH QS")) == {"AS"}
    # Void: any card, even when an opponent wins.
    assert legal(position({2: "7D 8C JH"}, ALL_TRUMP, "KS 9S")) == {"7D", "8C", "JH"}


def test_no_trump_follow_suit_and_nothing_more():
    """SPEC §4 «SA: follow suit, void -> any card; nothing more.»"""
    assert legal(position({2: "7S KS 8D"}, NO_TRUMP, "10S AS")) == {"7S", "KS"}
    assert legal(position({2: "7D 8C JH"}, NO_TRUMP, "10S AS")) == {"7D", "8C", "JH"}


# SPEC §4: trick winner ---------------------------------------------------------------------
@pytest.mark.parametrize("contract, trick, winner, points", [
    (H, "AS 7H 8H 10S", 2, 21),       # highest trump: the 8 beats the 7 of trump
    (H, "AS 7H 10S KS", 1, 25),       # one trump beats every plain card
    (H, "AH 9H 10H JH", 3, 55),       # trump order J 9 A 10
    (H, "7S AD 8S AC", 2, 22),        # no trump: the highest card of the led suit
    (H, "KS 10S QS 9S", 1, 17),       # plain order A 10 K Q J 9
    (ALL_TRUMP, "10S JH 9S AS", 2, 55),   # TA: highest of the led suit (9 > A > 10); JH is off-suit
    (NO_TRUMP, "KS AH AS 10S", 2, 36),    # SA: highest of the led suit, order A 10 K
    (NO_TRUMP, "JS 9S 7S 8S", 0, 2),      # SA: J beats 9 (plain order)
])
def test_trick_winner(contract, trick, winner, points):
    """SPEC §4 «Trick winner: highest trump if any trump was played, else the highest card of the
    led suit (TA/SA: highest card of the led suit).»
    """
    played = trick.split()
    hands = {seat: played[seat] for seat in range(4)}
    play = position(hands, contract)
    for c in played:
        play.play(card(c))
    assert play.tricks == [(0, tuple(card(c) for c in played), winner, points)]
    assert play.leader == winner


# SPEC §4: illegal cards are refused, naming the rule -------------------------------------------
def refusal(play, name: str) -> tuple[str, str]:
    with pytest.raises(IllegalAction) as err:
        play.check_card(card(name))
    return err.value.reason, str(err.value)


def test_illegal_cards_name_the_rule():
    """SPEC §4 «Always: follow the led suit if you can.»
    SPEC §4 «Otherwise you must trump; if an opponent has already trumped, you must overtrump if
    you can; if you cannot, you must still play a trump (undertrump) when undertrump=required
    (sheets 002, 003), or may play any card when undertrump=allowed (sheet 001: "sous-couper est
    permis").»
    """
    assert refusal(position({1: "8S KS 7C"}, H, "7S"), "AS") == (
        "CARD_NOT_IN_HAND", "the ace of spades is not in your hand")
    assert refusal(position({1: "8S KS 7C"}, H, "7S"), "7C") == (
        "MUST_FOLLOW_SUIT", "you must follow spades")
    assert refusal(position({1: "9H 7H 8C"}, H, "AH"), "7H") == (
        "MUST_GO_HIGHER", "you must play a trump higher than the ace of hearts")
    assert refusal(position({2: "JS QS"}, ALL_TRUMP, "KS 9S"), "QS") == (
        "MUST_GO_HIGHER", "you must play a spade higher than the 9 of spades")
    assert refusal(position({2: "8H KD 7C"}, H, "7S AS"), "KD") == (
        "MUST_TRUMP", "you cannot follow spades: you must trump")
    assert refusal(position({2: "KH 8H 7D"}, H, "7S QH"), "8H") == (
        "MUST_OVERTRUMP", "you must overtrump the queen of hearts")
    assert refusal(position({2: "KH 8H 7D"}, H, "7S QH"), "7D") == (
        "MUST_OVERTRUMP", "you must overtrump the queen of hearts")
    assert refusal(position({2: "8H 7H 7D"}, H, "7S QH"), "7D") == (
        "MUST_UNDERTRUMP", "you cannot follow spades nor overtrump: you must play a trump")
    assert refusal(position({2: "KH 8H 7D"}, H, "7S 9H 8S", leader=3, rule=BELGIAN), "7D") == (
        "MUST_UNDERTRUMP",
        "your partner wins with the 9 of hearts and you cannot beat it: you must undertrump (Belgian rule)")


def test_legal_cards_are_accepted():
    """SPEC §4 «Always: follow the led suit if you can.»"""
    play = position({2: "KH 8H 7D"}, H, "7S QH")
    play.check_card(card("KH"))          # no exception: the one legal card
    assert legal(play) == {"KH"}


def test_game_level_refusals():
    """SPEC §4 «Always: follow the led suit if you can.»

    Through ``Game.apply``: out of turn, no such card, not in hand; nothing is played.
    """
    game = Game(rules_for("classic"))
    game.start_deal(deck_for(SUIT_PER_SEAT, dealer=0, taker=2, turned="JH"))
    bid(game, "pass", H)
    assert game.to_act() == 1
    cases = [(2, Play(card("7H")), "NOT_YOUR_TURN", "it is seat 1's turn, not seat 2's"),
             (1, Play(40), "BAD_CARD", "no such card: 40"),
             (1, Play(card("7H")), "CARD_NOT_IN_HAND", "the 7 of hearts is not in your hand"),
             (1, "7D", "BAD_ACTION", "not an action: '7D'")]
    for seat, action, reason, message in cases:
        with pytest.raises(IllegalAction) as err:
            game.apply(seat, action)
        assert (err.value.reason, str(err.value)) == (reason, message)
    assert game.play.trick == [] and names(game.hand(1)) == set(SUIT_PER_SEAT[1].split())


def _snapshot(game: Game) -> tuple:
    play = game.play
    return repr(game), game.to_act(), play and (tuple(play.hands), tuple(play.trick), len(play.belote_calls))


@pytest.mark.parametrize("preset", ["classic", "belgian", "modern", "kamikaze", "enhanced"])
def test_play_card_accepts_exactly_the_cards_check_accepts(preset):
    """``Game.play_card`` (the review's way to play a card) decides on the legal-cards mask and
    leaves the refusals to ``check``: every seat and every card, at every point of a random game
    (auction, play, between deals, game over), is accepted or refused as ``check`` says, with
    the same rule, and a refused card changes nothing."""
    rng = random.Random(preset)
    game = Game(rules_for(preset))
    while True:
        for seat in range(4):
            for c in (-1, *range(32), 32):
                try:
                    game.check(seat, Play(c))
                    expected = None
                except IllegalAction as err:
                    expected = (err.reason, err.message)
                trial = game.copy()
                try:
                    trial.play_card(seat, c)
                    got = None
                except IllegalAction as err:
                    got = (err.reason, err.message)
                    assert _snapshot(trial) == _snapshot(game)
                assert got == expected, (seat, c)
        if game.phase == "over":
            break
        _random_step(game, rng)


def _random_step(game: Game, rng: random.Random) -> None:
    """Deal a shuffled deck, or let the seat to act take a random legal action."""
    if game.phase == "dealing":
        deck = list(range(32))
        rng.shuffle(deck)
        game.start_deal(deck)
    else:
        game.apply(game.to_act(), rng.choice(game.legal_actions()))


def test_a_copied_deal_holds_every_field_and_plays_on_without_touching_the_original():
    """Searches play on copies: a copy has every field of the deal, and what is played on it
    (cards, tricks, points, belote) leaves the original as it was."""
    from belote.rules.play import CardPlay
    rng = random.Random(7)
    game = Game(rules_for("classic"))
    while game.play is None or game.play.trick_number < 3:
        _random_step(game, rng)
    play = game.play
    copied = play.copy()
    assert all(getattr(copied, f) == getattr(play, f) for f in CardPlay.__slots__)
    before = {f: repr(getattr(play, f)) for f in CardPlay.__slots__}
    while not copied.over:
        legal = copied.legal_cards()
        copied.play((legal & -legal).bit_length() - 1)
    assert {f: repr(getattr(play, f)) for f in CardPlay.__slots__} == before
    assert copied.trick_number == 8 and play.trick_number == 3
