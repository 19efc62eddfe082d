"""The rules' API read like the rules: one DealResult per finished deal (redeals included), the
game's phases, the auction's rounds, declarations, SPEC §10's chips and ratings in ``rules``."""

from __future__ import annotations

from enum import StrEnum

import pytest
from belote.rules import (
    CHOOSING_TRUMP,
    DEALING,
    OVER,
    PLAYING,
    AllPassed,
    DealResult,
    Declare,
    IllegalAction,
    Outcome,
    Phase,
    contract_table,
    rules_for,
    settle_deal,
)
from belote.rules.cards import ACE, KING
from belote.rules.chips import pot_is_refunded, share_pot
from belote.rules.play import legal_mask
from belote.rules.rating import K, RATING_START, team_changes, team_rating
from rules_helpers import (
    D,
    H,
    SUIT_PER_SEAT,
    bid,
    deck_for,
    new_game,
    play_capot_against_deal,
    play_first_legal,
    play_litige_deal,
)


def test_outcomes_are_the_three_of_the_spec():
    """SPEC §7 «Made: the taker's contract points > the defence's.»
    SPEC §7 «Failed (dedans): the defence scores the deal's trick total»
    SPEC §7 «Litige (equal contract points), litige:»
    """
    assert [o.value for o in Outcome] == ["made", "failed", "litige"]
    assert issubclass(Outcome, StrEnum) and Outcome.LITIGE == "litige"


def test_a_capot_against_the_taker_is_one_failed_result_with_everything_apart():
    """SPEC §7 «a capot by the defence is a failed contract»

    The capot deal of ``rules_helpers`` (dealer 3, seat 1 takes spades, seat 0 takes all 8).
    """
    game = new_game("classic", first_dealer=3)
    out = play_capot_against_deal(game)
    result = game.last_result
    assert [o for o in out if isinstance(o, DealResult)] == [result] == game.results
    assert result == DealResult(
        deal_number=1, dealer=3, outcome=Outcome.FAILED, taker=1, contract=3, forced=False,
        tricks_won=(8, 0), trick_points=(252, 0), capot_team=0, belote=(0, 20),
        announcements=(0, 0), capot_announced_bonus=(0, 0), contract_points=(252, 20),
        multiplier=1, score=(252, 20), reserve_created=0, reserve_paid=0, reserve_paid_to=None,
        reserve_waiting=0)
    assert result.deal_score == (252, 20) and not result.redeal
    assert result.explanation == "defence took all 8 tricks: capot against the taker, contract failed"
    with pytest.raises(AttributeError):
        result.score = (0, 0)                       # frozen


def test_a_paid_reserve_is_apart_from_the_deals_own_score():
    """SPEC §7 «The team with the higher deal score in the next deal that is neither a redeal nor
    a litige adds the whole reserve to its score»

    Online-classic: the litige of ``rules_helpers`` (81 = 81), then a deal seat 2 takes and
    fails: the defence scores 162, the taker keeps its belote, and the 81 waiting are paid to
    the defence apart from that score.
    """
    game = new_game("online-classic")
    play_litige_deal(game)
    litige = game.last_result
    assert (litige.outcome, litige.score, litige.reserve_created, litige.reserve_waiting) == (
        Outcome.LITIGE, (81, 0), 81, 81)
    deck = list(range(32))
    game.start_deal(deck)
    bid(game, deck[20] >> 3)                         # seat 2, the eldest, takes
    play_first_legal(game)
    paid = game.last_result
    assert (paid.outcome, paid.taker, paid.score, paid.belote) == (Outcome.FAILED, 2, (20, 162), (20, 0))
    assert (paid.reserve_paid, paid.reserve_paid_to, paid.reserve_waiting) == (81, 1, 0)
    assert paid.deal_score == (20, 243) and game.totals == [81 + 20, 243]
    assert [r.deal_number for r in game.results] == [1, 2]


def test_a_redeal_gives_a_result_and_no_score():
    """SPEC §2 «A redeal is not a "deal" for scoring or litige.»"""
    game = new_game("classic")
    game.reserve = 81
    game.start_deal(list(range(32)))
    assert bid(game, *["pass"] * 8) == [AllPassed(1)]
    result = game.last_result
    assert result == DealResult(deal_number=1, dealer=0, outcome=None, reserve_waiting=81)
    assert result.redeal and result.deal_score == (0, 0) and result.taker is None
    assert result.explanation == "everyone passed: the cards are dealt again, nothing is scored"
    assert (game.results, game.scores, game.totals, game.phase) == ([result], [], [0, 0], DEALING)


def test_the_capot_annonce_bonus_is_apart_from_the_announcements():
    """SPEC §6 «the declarer's team must win all 8 tricks: +250 on top of the capot value if it
    does (250 + 250 = 500), else +250 to the opponents.»
    """
    rules = rules_for("enhanced")
    table = contract_table("enhanced", H)
    made = settle_deal(rules, table, 0, (164, 0), (8, 0), (0, 0), (150, 0), 0, 0)
    assert (made.outcome, made.capot_team, made.announcements, made.capot_announced_bonus) == (
        Outcome.MADE, 0, (150, 0), (250, 0))
    assert (made.trick_points, made.score) == ((250, 0), (650, 0))
    missed = settle_deal(rules, table, 0, (150, 14), (7, 1), (0, 0), (0, 50), 0, 0)
    assert (missed.outcome, missed.capot_team, missed.announcements, missed.capot_announced_bonus,
            missed.score) == (Outcome.MADE, None, (0, 50), (0, 250), (150, 314))
    # The DealScored event keeps its figures: the 250 inside announcements, six outcomes.
    assert made.as_deal_score().announcements == (400, 0)
    assert made.as_deal_score().outcome == "capot_made"


def test_the_winner_is_none_until_the_game_is_over():
    """SPEC §8 «A game ends only at the end of a deal, once a team has reached target.»"""
    game = new_game("classic", target="100", first_dealer=3)
    assert game.winner is None
    play_capot_against_deal(game)
    assert (game.winner, game.phase, game.to_act()) == (0, OVER, None)


def test_phases_are_an_enum_of_strings():
    assert issubclass(Phase, StrEnum)
    assert [p.value for p in Phase] == ["dealing", "auction", "choosing_trump", "playing", "over"]
    assert CHOOSING_TRUMP == "choosing_trump" and f"{PLAYING}" == "playing"


def test_a_quinte_is_offered_with_its_top_card_and_may_be_declared_without_it():
    """SPEC §6 «quinte flush (at least 5 in sequence in one suit, order 7..A) 150»

    Seat 1 holds the 8 diamonds: its quinte runs to the ace. The offered Declare keeps the top
    rank the stored announcement keeps; naming the suit alone still declares it; a wrong top
    card is refused.
    """
    game = new_game("enhanced")
    game.start_deal(deck_for(SUIT_PER_SEAT, dealer=0, taker=1, turned="JD"))
    bid(game, D)
    assert Declare("quinte_flush", D, ACE) in game.legal_actions()
    with pytest.raises(IllegalAction) as err:
        game.apply(1, Declare("quinte_flush", D, KING))
    assert err.value.reason == "ANNOUNCEMENT_NOT_HELD"
    game.apply(1, Declare("quinte_flush", D))
    assert (game.declared[1].kind, game.declared[1].suit, game.declared[1].rank) == ("quinte_flush", D, ACE)
    assert str(Declare("quinte_flush", D, ACE)) == "declare quinte flush in diamonds to the ace"


def test_one_legal_card_mask_for_the_rules_and_the_bots():
    from belote.bots import search
    assert search.legal_mask is legal_mask


def test_the_pot_goes_to_the_winning_humans_or_back():
    """SPEC §10 «A table may set a stake: each human seat pays it into the pot when the game
    starts; at the end the pot is shared equally by the humans of the winning team (rounding
    remainder to the lowest seat); if that team has no human, the stakes are refunded.»
    """
    assert share_pot(5, (0, 1, 2), 0) == [8, 0, 7, 0]
    assert share_pot(5, (0, 1, 2), 1) == [0, 15, 0, 0]
    assert share_pot(5, (0, 2), 1) == [5, 0, 5, 0] and pot_is_refunded((0, 2), 1)
    assert not pot_is_refunded((0, 1, 2), 1)


def test_ratings_start_at_1500_and_teams_use_the_mean_with_k_32():
    """SPEC §10 «Ratings (Elo) are kept per rule family (preset) and per calendar month (UTC), and
    start at 1500 on the 1st of each month.»
    SPEC §10 «Teams use the mean rating of their two players, K = 32.»
    """
    assert (RATING_START, K) == (1500.0, 32)
    assert team_rating(1532, 1500) == 1516
    assert team_changes((1500, 1500), 0) == (16.0, -16.0)
    assert team_changes((1516, 1484), 1) == (-17.47, 17.47)
