"""SPEC §5: belote-rebelote."""

from __future__ import annotations

from belote.rules import (
    ALL_TRUMP,
    NO_TRUMP,
    BeloteCalled,
    Game,
    contract_table,
    rules_for,
    score_deal,
)
from rules_helpers import (
    H,
    bid,
    card,
    deal_score,
    deck_for,
    deck_none,
    play_capot_against_deal,
    play_first_legal,
    play_tricks,
    position,
)

# Two-trick mini deals, hearts trump, seat 0 leads: seat 1 trumps the ace of spades with its
# first belote card, wins, and leads its second one.
MINI = {0: "AS AC", 1: "KH QH", 2: "7S 7C", 3: "8S 8C"}


def play_mini(order: str, king_first: bool = False):
    first, second = order.split()
    play = position(MINI, H, king_first=king_first)
    calls_after_first = None
    for trick in (f"AS {first} 7S 8S", f"{second} 7C 8C AC"):
        for c in trick.split():
            play.play(card(c))
            if c == first:
                calls_after_first = (list(play.belote_calls), list(play.belote_points))
    return play, calls_after_first


def test_king_and_queen_of_trump_in_one_hand_score_20_at_the_second_card():
    """SPEC §5 «King and queen of trump in one hand: 20 points to that team, announced
    automatically when the second of the two is played.»
    """
    play, after_first = play_mini("KH QH")
    assert after_first == ([(1, card("KH"), "belote")], [0, 0])          # not yet scored
    assert play.belote_calls == [(1, card("KH"), "belote"), (1, card("QH"), "rebelote")]
    assert play.belote_points == [0, 20]
    assert play.trick_points == [0, 11 + 4 + 3 + 11]                   # belote is not trick points


def test_king_and_queen_in_two_hands_are_no_belote():
    """SPEC §5 «King and queen of trump in one hand: 20 points to that team, announced
    automatically when the second of the two is played.»
    """
    play = position({0: "AS", 1: "KH", 2: "7S", 3: "QH"}, H)
    for c in ("AS", "KH", "7S", "QH"):
        play.play(card(c))
    assert (play.belote_calls, play.belote_points) == ([], [0, 0])
    # King and queen of a plain suit are no belote either.
    play = position({0: "AS AC", 1: "KD QD", 2: "7S 7C", 3: "8S 8C"}, H)
    for c in ("AS", "KD", "7S", "8S", "QD", "7C", "8C", "AC"):
        play.play(card(c))
    assert (play.belote_calls, play.belote_points) == ([], [0, 0])


def test_belote_calls_reach_the_game_outcomes():
    """SPEC §5 «King and queen of trump in one hand: 20 points to that team, announced
    automatically when the second of the two is played.»
    """
    hands = {0: "7C 8C 9C 10C JC QC KC AC", 1: "7D 8D 9D 10D JD QD KD AD",
             2: "7H 8H 9H 10H JH QH KH AH", 3: "7S 8S 9S 10S JS QS KS AS"}
    game = Game(rules_for("classic"))
    game.start_deal(deck_for(hands, dealer=0, taker=2, turned="KH"))
    bid(game, "pass", H)
    out = play_first_legal(game)
    assert [o for o in out if isinstance(o, BeloteCalled)] == [
        BeloteCalled(2, card("QH"), "belote"), BeloteCalled(2, card("KH"), "rebelote")]
    assert deal_score(out).belote == (20, 0)


def test_all_trump_each_pair_counts_up_to_four():
    """SPEC §5 «In TA each K+Q pair of one suit counts (so up to 4).»

    Kamikaze (TA, x3 both): the eldest, seat 1, holds all four kings and queens and is made
    capot: the defence scores 258 x 3 = 774, seat 1's team keeps its 4 x 20 = 80, not
    multiplied.
    """
    hands = {0: "7C 8C 9C 10C 7D 8D 9D 10D", 1: "KC QC KD QD KH QH KS QS",
             2: "JC AC JD AD JH AH JS AS", 3: "7H 8H 9H 10H 7S 8S 9S 10S"}
    game = Game(rules_for("kamikaze"))
    game.start_deal(deck_none(hands, dealer=0))
    out = play_tricks(game, "KC JC 7H 7C", "AC 8H 9C QC", "7D KD JD 9H", "AD 10H 9D QD",
                      "8D KH JH 7S", "10D QH AH 8S", "8C KS JS 9S", "10C QS AS 10S")
    calls = [o for o in out if isinstance(o, BeloteCalled)]
    assert [(c.card, c.call) for c in calls] == [
        (card("KC"), "belote"), (card("QC"), "rebelote"), (card("KD"), "belote"),
        (card("QD"), "rebelote"), (card("KH"), "belote"), (card("QH"), "rebelote"),
        (card("KS"), "belote"), (card("QS"), "rebelote")]
    score = deal_score(out)
    assert [t.points for t in out if type(t).__name__ == "TrickWon"] == [24, 28, 38, 38, 24, 24, 38, 44]
    assert (score.outcome, score.belote, score.trick_points) == ("capot_against", (0, 80), (258, 0))
    assert (score.multiplier, score.deal_score) == (3, (774, 80))


def test_no_belote_in_no_trump():
    """SPEC §5 «In SA none.»"""
    play = position({0: "AS AC", 1: "KH QH", 2: "7S 7C", 3: "8S 8C"}, NO_TRUMP)
    for c in ("AS", "KH", "7S", "8S", "AC", "QH", "7C", "8C"):
        play.play(card(c))
    assert (play.belote_calls, play.belote_points) == ([], [0, 0])


def test_belote_order_any_queen_first_scores():
    """SPEC §5 «belote_order=any (default): K then Q or Q then K. king_first (sheet 000 Belgian
    default): only scores if the king was played before the queen.»
    """
    assert rules_for("classic").belote_order == "any"
    assert rules_for("belgian").belote_order == "king_first"
    play, _ = play_mini("QH KH")
    assert play.belote_calls == [(1, card("QH"), "belote"), (1, card("KH"), "rebelote")]
    assert play.belote_points == [0, 20]
    play, _ = play_mini("KH QH", king_first=True)
    assert play.belote_points == [0, 20]
    play, _ = play_mini("QH KH", king_first=True)
    assert (play.belote_calls, play.belote_points) == ([], [0, 0])


def test_king_first_per_suit_in_all_trump():
    """SPEC §5 «belote_order=any (default): K then Q or Q then K. king_first (sheet 000 Belgian
    default): only scores if the king was played before the queen.»
    SPEC §5 «In TA each K+Q pair of one suit counts (so up to 4).»

    Seat 1 plays the king of hearts before the queen (20), but the queen of spades before the
    king (nothing).
    """
    hands = {0: "AS AC 7D 7H", 1: "KH QH QS KS", 2: "7S 7C 8D 8H", 3: "8S 8C 9D 9H"}
    play = position(hands, ALL_TRUMP, king_first=True)
    for c in ("7D KH 8D 9D", "8C AC QS 7C", "7H QH 8H 9H", "8S AS KS 7S"):
        for name in c.split():
            assert play.legal_cards() >> card(name) & 1, name
            play.play(card(name))
    assert [w for _, _, w, _ in play.tricks] == [3, 0, 3, 0]
    assert play.belote_calls == [(1, card("KH"), "belote"), (1, card("QH"), "rebelote")]
    assert play.belote_points == [0, 20]


def _table(contract=H):
    return contract_table("standard", contract)


def test_belote_is_never_lost():
    """SPEC §5 «It is never lost: kept by its team when the taker fails, in a litige, and when
    the other team makes capot.»

    Classic (belote counts in the contract), team 0 takes with the belote.
    """
    rules = rules_for("classic")
    failed = score_deal(rules, _table(), 0, (60, 102), (3, 5), (20, 0), (0, 0))
    assert (failed.outcome, failed.deal_score) == ("failed", (20, 162))
    litige = score_deal(rules, _table(), 0, (71, 91), (4, 4), (20, 0), (0, 0))
    assert (litige.outcome, litige.deal_score, litige.reserve_created) == ("litige_reserve", (20, 91), 71)
    capot = score_deal(rules, _table(), 0, (0, 162), (0, 8), (20, 0), (0, 0))
    assert (capot.outcome, capot.deal_score) == ("capot_against", (20, 252))
    # The defence's belote too, when the taker makes its contract.
    made = score_deal(rules, _table(), 0, (100, 62), (5, 3), (0, 20), (0, 0))
    assert (made.outcome, made.deal_score) == ("made", (100, 82))


def test_belote_kept_by_a_taker_who_is_made_capot():
    """SPEC §5 «It is never lost: kept by its team when the taker fails, in a litige, and when
    the other team makes capot.»

    Seat 1 takes spades with the king and queen; seat 0 draws them with the jack and the 9 and
    wins every trick.
    """
    game = Game(rules_for("classic", {"first_dealer": 3}))
    out = play_capot_against_deal(game)   # JS KS 7H 7C, 9S QS 8H 8C, AS 7D 9H 9C, ...
    assert [o for o in out if isinstance(o, BeloteCalled)] == [
        BeloteCalled(1, card("KS"), "belote"), BeloteCalled(1, card("QS"), "rebelote")]
    score = deal_score(out)
    assert (score.outcome, score.trick_points, score.deal_score) == ("capot_against", (252, 0), (252, 20))
    assert game.totals == [252, 20]


def test_belote_in_contract():
    """SPEC §5 «belote_in_contract (default true: sheets 000, 001, 002): it counts when comparing
    taker and defence.» «False for sheet 003 (only trick points decide).»

    Taker 72 trick points with the belote, defence 90.
    """
    assert {p: rules_for(p).belote_in_contract for p in
            ("classic", "classic-501", "belgian", "belgian-open", "online-classic", "modern",
             "kamikaze", "enhanced")} == {
        "classic": True, "classic-501": True, "belgian": True, "belgian-open": True,
        "online-classic": False, "modern": False, "kamikaze": False, "enhanced": False}
    counted = score_deal(rules_for("classic"), _table(), 0, (72, 90), (4, 4), (20, 0), (0, 0))
    assert (counted.outcome, counted.contract_points, counted.deal_score) == ("made", (92, 90), (92, 90))
    not_counted = score_deal(rules_for("online-classic"), _table(), 0, (72, 90), (4, 4), (20, 0), (0, 0))
    assert (not_counted.outcome, not_counted.contract_points, not_counted.deal_score) == (
        "failed", (72, 90), (20, 162))
