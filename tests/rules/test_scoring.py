"""SPEC §7: scoring a deal. Team 0 (seats 0 and 2) is the taker's team unless said otherwise.

``score_deal(rules, table, taker, T, tricks_won, belote, scoring_announcements)``: every pair is
(team 0, team 1).
"""

from __future__ import annotations

import pytest
from belote.rules import (
    ALL_TRUMP,
    NO_TRUMP,
    PRESETS,
    Declare,
    Game,
    TrickWon,
    contract_table,
    rules_for,
)
from belote.rules.result import Outcome
from belote.rules.scoring import belgian_tens, capot_announced_bonus, score_deal
from rules_helpers import (
    SUIT_PER_SEAT,
    D,
    H,
    bid,
    deal_result,
    deal_score,
    deck_for,
    deck_none,
    play_first_legal,
    play_litige_deal,
    play_tricks,
)

TRUMP = contract_table("standard", H)
SA = contract_table("standard", NO_TRUMP)
TA = contract_table("standard", ALL_TRUMP)
ENH = contract_table("enhanced", H)


def score(preset, table, t, *, taker=0, belote=(0, 0), ann=(0, 0), tricks=(4, 4), pending=0,
          capot_announced=-1, **overrides):
    return score_deal(rules_for(preset, overrides), table, taker, t, tricks, belote, ann,
                      pending, capot_announced)


# T and contract points -------------------------------------------------------------------------
def test_trick_points_per_team_dix_de_der_included():
    """SPEC §7 «Trick points T, per team (dix de der included).»

    The litige deal of ``rules_helpers``: the last trick is worth 16 + 10.
    """
    game = Game(rules_for("online-classic"))
    out = play_litige_deal(game)
    tricks = [o for o in out if isinstance(o, TrickWon)]
    assert [(t.winner, t.points) for t in tricks] == [
        (0, 14), (2, 41), (1, 19), (3, 14), (3, 28), (1, 9), (1, 11), (0, 26)]
    assert deal_score(out).trick_points == (14 + 41 + 26, 19 + 14 + 28 + 9 + 11) == (81, 81)


def test_contract_points():
    """SPEC §7 «"Contract points" = T + (belote if belote_in_contract) + (scoring announcements if
    announcements_in_contract).»
    """
    args = {"belote": (20, 0), "ann": (0, 50)}
    assert score("belgian-open", TRUMP, (90, 72), **args).contract_points == (110, 122)
    assert score("online-classic", TRUMP, (90, 72), **args).contract_points == (90, 72)
    assert score("classic", TRUMP, (90, 72), **args, announcements="classic").contract_points == (110, 122)
    assert score("modern", TRUMP, (90, 72), **args, announcements="classic").contract_points == (90, 72)
    assert score("online-classic", TRUMP, (90, 72), **args, belote_in_contract="true").contract_points == (110, 72)


def test_scoring_announcements():
    """SPEC §7 «"Scoring announcements": with classic, those of the team holding the best one;
    with enhanced, all declared ones.»

    One suit per seat, seat 2 takes hearts: with classic every seat holds a cent and team 0's
    trump cent is best, so team 0 scores 2 x 100 and team 1 nothing; with enhanced, every
    declared announcement scores.
    """
    game = Game(rules_for("belgian-open"))
    game.start_deal(deck_for(SUIT_PER_SEAT, dealer=0, taker=2, turned="JH"))
    bid(game, "pass", H)
    assert game.scoring_announcements() == (200, 0)
    game = Game(rules_for("enhanced"))
    game.start_deal(deck_for(SUIT_PER_SEAT, dealer=0, taker=2, turned="JH"))
    bid(game, "pass", H)
    game.apply(1, Declare("couleur", D))
    assert game.scoring_announcements() == (0, 50)


# Made ----------------------------------------------------------------------------------------
def test_made_each_team_scores_its_own():
    """SPEC §7 «Made: the taker's contract points > the defence's.»
    SPEC §7 «(So with sheet 003's flags the taker needs more than half the trick points, and with
    sheet 004's at least 83 of 164.) Each team scores its own T + belote + scoring
    announcements.»
    """
    s = score("belgian-open", TRUMP, (100, 62), belote=(20, 20), ann=(50, 0))
    assert (s.outcome, s.contract_points, s.deal_score) == ("made", (170, 82), (170, 82))
    assert s.explanation == "taker 170 > defence 82: contract made"
    # Taker in team 1.
    s = score("classic", TRUMP, (62, 100), taker=3, belote=(20, 0))
    assert (s.outcome, s.deal_score) == ("made", (82, 100))


@pytest.mark.parametrize("t, outcome, deal", [
    ((82, 80), "made", (82, 80)),
    ((81, 81), "litige_reserve", (0, 81)),
    ((80, 82), "failed", (0, 162)),
])
def test_sheet_003_more_than_half_the_trick_points(t, outcome, deal):
    """SPEC §7 «(So with sheet 003's flags the taker needs more than half the trick points, and
    with sheet 004's at least 83 of 164.) Each team scores its own T + belote + scoring
    announcements.»
    """
    s = score("online-classic", TRUMP, t, belote=(0, 20))
    assert (s.outcome, s.deal_score) == (outcome, (deal[0], deal[1] + 20))


@pytest.mark.parametrize("t, outcome, deal", [
    ((83, 81), "made", (83, 81)),
    ((82, 82), "litige_dedans", (0, 164)),
    ((81, 83), "failed", (0, 164)),
])
def test_sheet_004_at_least_83_of_164(t, outcome, deal):
    """SPEC §7 «(So with sheet 003's flags the taker needs more than half the trick points, and
    with sheet 004's at least 83 of 164.) Each team scores its own T + belote + scoring
    announcements.»
    SPEC §7 «dedans (sheets 002, 004): equal contract points are a failed contract.»
    """
    s = score("enhanced", ENH, t)
    assert (s.outcome, s.deal_score) == (outcome, deal)


# Failed ----------------------------------------------------------------------------------------
@pytest.mark.parametrize("preset, table, t, deal", [
    ("classic", TRUMP, (60, 102), (0, 162)),
    ("modern", TA, (100, 158), (0, 258)),
    ("modern", SA, (60, 70), (0, 130)),
    ("enhanced", ENH, (80, 84), (0, 164)),
], ids=["suit 162", "TA 258", "SA 130", "enhanced 164"])
def test_failed_defence_scores_the_deal_total(preset, table, t, deal):
    """SPEC §7 «Failed (dedans): the defence scores the deal's trick total (162 / 258 / 130 / 164,
    or the capot value) plus the scoring announcements of both teams; each team keeps its own
    belote; the taker scores nothing else.»
    """
    s = score(preset, table, t, multipliers="none")
    assert (s.outcome, s.deal_score) == ("failed", deal)
    assert s.explanation.endswith("contract failed (dedans), defence scores the deal")


def test_failed_defence_adds_the_scoring_announcements_and_each_keeps_its_belote():
    """SPEC §7 «Failed (dedans): the defence scores the deal's trick total (162 / 258 / 130 / 164,
    or the capot value) plus the scoring announcements of both teams; each team keeps its own
    belote; the taker scores nothing else.»

    belgian-open: the taker's team holds the best announcement (50) and the belote: 40 + 50 + 20
    = 110 < 122 + 20. The defence scores 162 + 50 (+ its belote 20); the taker its belote only.
    """
    s = score("belgian-open", TRUMP, (40, 122), belote=(20, 20), ann=(50, 0))
    assert (s.outcome, s.contract_points, s.deal_score) == ("failed", (110, 142), (20, 232))


def test_failed_with_enhanced_each_team_keeps_its_own_announcements():
    """SPEC §7 «With enhanced, each team keeps its own declared announcements instead (§6).»"""
    s = score("enhanced", ENH, (60, 104), belote=(20, 0), ann=(150, 100))
    assert (s.outcome, s.deal_score) == ("failed", (150 + 20, 164 + 100))


# Capot -----------------------------------------------------------------------------------------
@pytest.mark.parametrize("preset, table, capot", [
    ("classic", TRUMP, 252), ("modern", TA, 258), ("modern", SA, 250), ("enhanced", ENH, 250)],
    ids=["suit 252", "TA 258", "SA 250", "enhanced 250"])
def test_capot_values(preset, table, capot):
    """SPEC §7 «Capot: a team winning all 8 tricks has trick points 252 instead of 162 (dix de der
    becomes 100).» «TA: 258; SA: 250; values=enhanced: 250 (plus 250 more if announced, §6).»
    """
    made = score(preset, table, (table.deal_total, 0), tricks=(8, 0), multipliers="none")
    assert (made.outcome, made.trick_points, made.deal_score) == ("capot_made", (capot, 0), (capot, 0))
    against = score(preset, table, (0, table.deal_total), tricks=(0, 8), multipliers="none")
    assert (against.outcome, against.deal_score) == ("capot_against", (0, capot))
    assert TRUMP.capot_points - TRUMP.deal_total == 100 - 10


def test_capot_annonce_plus_250_both_ways():
    """SPEC §7 «TA: 258; SA: 250; values=enhanced: 250 (plus 250 more if announced, §6).»"""
    made = score("enhanced", ENH, (164, 0), tricks=(8, 0), capot_announced=0)
    assert (made.outcome, made.announcements, made.deal_score) == ("capot_made", (250, 0), (500, 0))
    missed = score("enhanced", ENH, (150, 14), tricks=(7, 1), capot_announced=0)
    assert (missed.outcome, missed.announcements, missed.deal_score) == ("made", (0, 250), (150, 264))
    by_defence = score("enhanced", ENH, (0, 164), tricks=(0, 8), capot_announced=1)
    assert (by_defence.outcome, by_defence.deal_score) == ("capot_against", (0, 500))


def test_a_capot_by_the_taker_is_compared_like_any_other_deal():
    """SPEC §7 «A capot by the taker is compared like any other deal»
    SPEC §7 «Failed (dedans): the defence scores the deal's trick total (162 / 258 / 130 / 164,
    or the capot value) plus the scoring announcements of both teams; each team keeps its own
    belote; the taker scores nothing else.»
    SPEC §7 «A taker's capot that still fails (the defence's belote and announcements outweigh
    it) gives the defence the capot value (252, or 25 in tens), not 162.»

    The taker takes all 8 tricks (252) but the defence holds the best announcements, a carré of
    9s, a carré of aces and a tierce (270): the contract fails, and the defence scores the
    capot value 252 (25 in tens), plus the 270.
    """
    s = score("belgian-open", TRUMP, (162, 0), tricks=(8, 0), ann=(0, 270))
    assert (s.outcome, s.contract_points, s.deal_score) == ("failed", (252, 270), (0, 522))
    tens = score("belgian", TRUMP, (162, 0), tricks=(8, 0), ann=(0, 270))
    assert (tens.outcome, tens.deal_score) == ("failed", (0, 25 + 27))
    # A capot by the defence is always a failed contract.
    s = score("classic", TRUMP, (0, 162), tricks=(0, 8), belote=(20, 0))
    assert (s.outcome, s.deal_score) == ("capot_against", (20, 252))
    assert s.explanation == "defence took all 8 tricks: capot against the taker, contract failed"


def test_a_capot_by_the_defence_is_failed_before_contract_points_are_compared():
    """SPEC §7 «A capot by the taker is compared like any other deal; a capot by the defence is a
    failed contract, whatever the contract points (it is settled before they are compared).»

    Issue 17's example: belgian-open, taker seat 2, tricks (0, 8), belote (20, 0),
    announcements (250, 0): the taker's 270 contract points outweigh the defence's 252, yet the
    contract fails; the old code said made, (270, 252).
    """
    s = score("belgian-open", TRUMP, (0, 162), taker=2, tricks=(0, 8), belote=(20, 0), ann=(250, 0))
    assert (s.outcome, s.contract_points, s.deal_score) == ("capot_against", (270, 252), (20, 502))
    assert s.explanation == "defence took all 8 tricks: capot against the taker, contract failed"
    # In tens the defence scores 25 + 25 and the taker keeps its belote: no negative share.
    tens = score("belgian", TRUMP, (0, 162), taker=2, tricks=(0, 8), belote=(20, 0), ann=(250, 0))
    assert (tens.outcome, tens.deal_score) == ("capot_against", (2, 50))
    # Contract points equal at 252: failed too, not a litige (no reserve).
    tied = score("belgian-open", TRUMP, (0, 162), taker=2, tricks=(0, 8), belote=(20, 0), ann=(232, 0))
    assert (tied.outcome, tied.deal_score, tied.reserve_created) == ("capot_against", (20, 484), 0)


# Litige ----------------------------------------------------------------------------------------
def test_litige_reserve_defence_scores_its_points_taker_points_go_to_the_reserve():
    """SPEC §7 «Litige (equal contract points), litige:»
    SPEC §7 «reserve (sheets 000, 001, 003): the defence scores its own points; the taker's trick
    points plus its scoring announcements go into a reserve (its belote is scored at once;
    enhanced announcements are never reserved: each team scores its own at once, §6).»

    belgian-open: taker 61 + tierce 20 + belote 20 = 101 = defence 101.
    """
    assert sorted(p for p, row in PRESETS.items() if row["litige"] == "reserve") == [
        "belgian", "belgian-open", "classic", "kamikaze", "modern", "online-classic"]
    s = score("belgian-open", TRUMP, (61, 101), belote=(20, 0), ann=(20, 0))
    assert (s.outcome, s.contract_points) == ("litige_reserve", (101, 101))
    assert (s.deal_score, s.reserve_created, s.reserve_pending) == ((20, 101), 81, 81)
    assert s.explanation == "litige 101 = 101: defence scores its points, taker's 81 go to the reserve"


def test_enhanced_announcements_are_never_reserved():
    """SPEC §7 «enhanced announcements are never reserved: each team scores its own at once, §6).»
    SPEC §6 «Announcements never count in the contract, and each team always scores its own
    declared announcements, whatever the contract's result.»

    Issue 17's example, played: kamikaze with announcements=enhanced, dealer 0; seat 1 (the
    taker, TA) declares its couleur of hearts and the tricks split 129 = 129. The defence scores
    129 x 3, the taker's team its couleur 50 x 3 at once, and only the taker's 129 trick points
    x 3 wait in the reserve; the old code reserved the couleur too ((387, 0), reserve 537).
    """
    game = Game(rules_for("kamikaze", {"announcements": "enhanced"}))
    game.start_deal(deck_none(ENHANCED_LITIGE_HANDS, dealer=0))
    game.apply(1, Declare("couleur", H))
    result = deal_result(play_tricks(game, *ENHANCED_LITIGE_TRICKS))
    assert (result.outcome, result.trick_points, result.announcements, result.contract_points) == (
        Outcome.LITIGE, (129, 129), (0, 50), (129, 129))
    assert (result.score, result.deal_score, result.multiplier) == ((387, 150), (387, 150), 3)
    assert (result.reserve_created, result.reserve_waiting, game.reserve) == (387, 387, 387)
    assert game.totals == [387, 150]
    # The +250 the taker's team wins from the defence's failed capot annoncé is scored at once
    # too (the old code reserved it: reserve 332).
    s = score("enhanced", ENH, (82, 82), capot_announced=1, litige="reserve")
    assert (s.outcome, s.announcements, s.deal_score, s.reserve_created) == (
        "litige_reserve", (250, 0), (250, 82), 82)


# Kamikaze + enhanced announcements, dealer 0: seat 1 takes TA with five hearts (a couleur).
ENHANCED_LITIGE_HANDS = {0: "JC QC 9D JD KD JS KS AS", 1: "7D 10D 9H 10H JH QH AH 10S",
                         2: "8C 9C KC AC KH 8S 9S QS", 3: "7C 10C 8D QD AD 7H 8H 7S"}
ENHANCED_LITIGE_TRICKS = ("10S 9S 7S JS", "QC 10D 9C 7C", "KH 8H AS AH", "7D 8C 8D 9D",
                          "JC 10H KC 10C", "KD QH QS AD", "7H KS 9H AC", "JH 8S QD JD")


def test_the_next_decisive_deal_winner_takes_the_whole_reserve():
    """SPEC §7 «The team with the higher deal score in the next deal that is neither a redeal nor
    a litige adds the whole reserve to its score; if that deal's scores are equal, the reserve
    waits.»
    """
    s = score("classic", TRUMP, (100, 62), pending=81)
    assert (s.deal_score, s.reserve_paid, s.reserve_paid_to, s.reserve_pending) == ((181, 62), 81, 0, 0)
    assert s.explanation == "taker 100 > defence 62: contract made; reserve of 81 paid to team 0"
    s = score("classic", TRUMP, (60, 102), pending=81)           # the defence wins the deal
    assert (s.deal_score, s.reserve_paid_to) == ((0, 243), 1)
    # Taker 91 > 71 but the defence's belote makes the deal scores equal (91, 91): it waits.
    s = score("online-classic", TRUMP, (91, 71), belote=(0, 20), pending=81)
    assert (s.outcome, s.deal_score) == ("made", (91, 91))
    assert (s.reserve_paid, s.reserve_paid_to, s.reserve_pending) == (0, -1, 81)


def test_reserves_of_successive_litiges_add_up():
    """SPEC §7 «Reserves of successive litiges add up.»"""
    first = score("classic", TRUMP, (71, 91), belote=(20, 0))
    assert (first.reserve_created, first.reserve_pending) == (71, 71)
    second = score("classic", TRUMP, (91, 71), taker=1, belote=(0, 20), pending=first.reserve_pending)
    assert (second.outcome, second.deal_score, second.reserve_paid) == ("litige_reserve", (91, 20), 0)
    assert (second.reserve_created, second.reserve_pending) == (71, 142)
    third = score("classic", TRUMP, (0, 162), tricks=(0, 8), pending=second.reserve_pending)
    assert (third.deal_score, third.reserve_paid_to, third.reserve_pending) == ((0, 252 + 142), 1, 0)


def test_litige_reserve_in_a_game_paid_to_the_next_deals_winner():
    """SPEC §7 «The team with the higher deal score in the next deal that is neither a redeal nor
    a litige adds the whole reserve to its score; if that deal's scores are equal, the reserve
    waits.»

    Deal 1: the litige above (81 = 81): team 0 scores 81, 81 wait. Deal 2 is a redeal: still
    waiting. Deal 3: every seat holds one suit, seat 2 takes hearts and makes capot (252 +
    belote 20): team 0 adds the 81.
    """
    game = Game(rules_for("online-classic"))
    first = deal_score(play_litige_deal(game))
    assert (first.outcome, first.deal_score, first.reserve_pending) == ("litige_reserve", (81, 0), 81)
    assert (game.totals, game.reserve) == ([81, 0], 81)
    game.start_deal(list(range(32)))                 # dealer 1
    bid(game, *["pass"] * 8)
    assert (game.totals, game.reserve, game.dealer) == ([81, 0], 81, 2)
    game.start_deal(deck_for(SUIT_PER_SEAT, dealer=2, taker=2, turned="JH"))
    bid(game, "pass", "pass", "pass", H)             # seats 3, 0, 1 pass; seat 2 takes
    third = deal_score(play_first_legal(game))
    assert (third.outcome, third.deal_score, third.reserve_paid_to) == ("capot_made", (252 + 20 + 81, 0), 0)
    assert (game.totals, game.reserve) == ([81 + 353, 0], 0)


def test_litige_dedans():
    """SPEC §7 «dedans (sheets 002, 004): equal contract points are a failed contract.»"""
    assert sorted(p for p, row in PRESETS.items() if row["litige"] == "dedans") == ["classic-501", "enhanced"]
    s = score("classic-501", TRUMP, (71, 91), belote=(20, 0))
    assert (s.outcome, s.deal_score, s.reserve_created) == ("litige_dedans", (20, 162), 0)
    assert s.explanation == "litige 91 = 91: counted as failed (dedans)"


# Multipliers -----------------------------------------------------------------------------------
def test_sa_ta_multiplies_the_winner_only():
    """SPEC §7 «multipliers: none; sa_ta (sheet 003 moderne): the team that wins the deal (taker
    if made, else defence; in a litige the defence) has its deal score x2 in SA, x3 in TA;
    x3_both (kamikaze): both teams' deal scores and any reserve x3.»
    """
    s = score("modern", SA, (80, 50))
    assert (s.multiplier, s.deal_score) == (2, (160, 50))
    assert s.explanation == "taker 80 > defence 50: contract made; no trump (SA) x2"
    s = score("modern", TA, (150, 108))
    assert (s.multiplier, s.deal_score) == (3, (450, 108))
    s = score("modern", TA, (100, 158))                        # failed: the defence wins
    assert s.deal_score == (0, 258 * 3)
    s = score("modern", SA, (60, 70))
    assert s.deal_score == (0, 260)
    s = score("modern", TA, (129, 129))                        # litige: the defence x3
    assert (s.outcome, s.deal_score, s.reserve_created) == ("litige_reserve", (0, 387), 129)
    s = score("modern", TRUMP, (100, 62))                      # a suit contract: no multiplier
    assert (s.multiplier, s.deal_score) == (1, (100, 62))


def test_sa_capot_250_x2_and_ta_capot_258_x3():
    """SPEC §7 «What is multiplied is trick points plus announcements (capot included); belote is
    never multiplied.»
    """
    s = score("modern", SA, (130, 0), tricks=(8, 0))
    assert (s.outcome, s.deal_score) == ("capot_made", (500, 0))
    s = score("modern", TA, (258, 0), tricks=(8, 0), belote=(40, 20))
    assert (s.outcome, s.deal_score) == ("capot_made", (774 + 40, 20))


def test_multipliers_apply_to_announcements_not_belote():
    """SPEC §7 «What is multiplied is trick points plus announcements (capot included); belote is
    never multiplied.»
    """
    s = score("modern", TA, (150, 108), belote=(40, 0), ann=(50, 0), announcements="classic")
    assert s.deal_score == ((150 + 50) * 3 + 40, 108)


def test_x3_both_multiplies_both_teams_and_the_reserve():
    """SPEC §7 «multipliers: none; sa_ta (sheet 003 moderne): the team that wins the deal (taker
    if made, else defence; in a litige the defence) has its deal score x2 in SA, x3 in TA;
    x3_both (kamikaze): both teams' deal scores and any reserve x3.»
    """
    s = score("kamikaze", TA, (150, 108), belote=(20, 0))
    assert (s.multiplier, s.deal_score) == (3, (450 + 20, 324))
    s = score("kamikaze", TA, (129, 129))
    assert (s.outcome, s.deal_score, s.reserve_created, s.reserve_pending) == (
        "litige_reserve", (0, 387), 387, 387)
    s = score("kamikaze", TA, (0, 258), tricks=(0, 8), belote=(20, 0))
    assert s.deal_score == (20, 774)
    s = score("classic", TRUMP, (100, 62))
    assert (s.multiplier, s.deal_score) == (1, (100, 62))


# Belgian tens ----------------------------------------------------------------------------------
@pytest.mark.parametrize("defence, tens", [(0, 0), (5, 0), (6, 1), (44, 4), (45, 4), (46, 5),
                                           (81, 8), (85, 8), (86, 9), (162, 16)])
def test_belgian_rounding(defence, tens):
    """SPEC §7 «scoring=belgian_tens (sheet 000 Belgian default): a deal is scored in tens: the
    defence's trick points are rounded to tens, up from 6 (45 -> 4, 46 -> 5); the taker gets 16
    minus that; belote 2; announcements their value / 10; capot 25; failed: defence 16 +
    announcements / 10; litige reserve: 16 minus the defence's tens, plus the taker's
    announcements / 10. scoring=points (every other preset): raw points.»
    """
    assert belgian_tens(defence) == tens


def test_belgian_tens_scores():
    """SPEC §7 «scoring=belgian_tens (sheet 000 Belgian default): a deal is scored in tens: the
    defence's trick points are rounded to tens, up from 6 (45 -> 4, 46 -> 5); the taker gets 16
    minus that; belote 2; announcements their value / 10; capot 25; failed: defence 16 +
    announcements / 10; litige reserve: 16 minus the defence's tens, plus the taker's
    announcements / 10. scoring=points (every other preset): raw points.»
    """
    assert [p for p, row in PRESETS.items() if row["scoring"] == "belgian_tens"] == ["belgian"]
    assert score("belgian", TRUMP, (117, 45)).deal_score == (12, 4)
    assert score("belgian", TRUMP, (116, 46)).deal_score == (11, 5)
    assert score("belgian", TRUMP, (116, 46), taker=1).outcome == "failed"
    assert score("belgian", TRUMP, (46, 116), taker=1).deal_score == (5, 11)
    # Belote 2; announcements / 10.
    assert score("belgian", TRUMP, (97, 65), belote=(20, 0), ann=(50, 0)).deal_score == (10 + 5 + 2, 6)
    # Capot 25 (+ announcements / 10, + belote).
    s = score("belgian", TRUMP, (162, 0), tricks=(8, 0), belote=(20, 0), ann=(100, 0))
    assert (s.outcome, s.deal_score) == ("capot_made", (25 + 10 + 2, 0))
    s = score("belgian", TRUMP, (0, 162), tricks=(0, 8), belote=(20, 0))
    assert (s.outcome, s.deal_score) == ("capot_against", (2, 25))
    # Failed: defence 16 + announcements / 10 (the taker's scoring 50 too); belote kept.
    s = score("belgian", TRUMP, (40, 122), belote=(20, 0), ann=(50, 0))
    assert (s.outcome, s.deal_score) == ("failed", (2, 16 + 5))
    # Litige reserve: taker 71 + belote 20 = 91 = defence 91: defence 9, reserve 16 - 9.
    s = score("belgian", TRUMP, (71, 91), belote=(20, 0))
    assert (s.outcome, s.deal_score, s.reserve_created) == ("litige_reserve", (2, 9), 7)
    s = score("belgian", TRUMP, (51, 91), belote=(20, 0), ann=(20, 0))
    assert (s.outcome, s.deal_score, s.reserve_created) == ("litige_reserve", (2, 9), 7 + 2)
    # scoring=points elsewhere: raw points.
    assert score("belgian-open", TRUMP, (117, 45)).deal_score == (117, 45)


def test_the_capot_announced_bonus_goes_to_the_declarer_only_if_its_team_takes_all_eight():
    # SPEC §6 enhanced: +250 to the declarer's team on its capot, else to the opponents.
    assert capot_announced_bonus(None, None) == (0, 0)
    assert capot_announced_bonus(None, 1) == (0, 0)
    assert capot_announced_bonus(0, 0) == (250, 0)
    assert capot_announced_bonus(1, 1) == (0, 250)
    assert capot_announced_bonus(0, None) == (0, 250)
    assert capot_announced_bonus(1, 0) == (250, 0)
