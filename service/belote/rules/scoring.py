"""Scoring a deal (SPEC §7) and the end of the game (SPEC §8)."""

from __future__ import annotations

from .options import Rules
from .result import (CAPOT_AGAINST, CAPOT_MADE, FAILED, LITIGE_DEDANS, LITIGE_RESERVE, MADE,
                     NOTHING, DealResult, DealScore, Outcome, Pair)
from .values import ALL_TRUMP, NO_TRUMP, ContractTable

CAPOT_ANNOUNCED_BONUS = 250
MADE_OUTCOME, FAILED_OUTCOME, LITIGE_OUTCOME = Outcome.MADE, Outcome.FAILED, Outcome.LITIGE

__all__ = ["MADE", "FAILED", "CAPOT_MADE", "CAPOT_AGAINST", "LITIGE_RESERVE", "LITIGE_DEDANS",
           "DealResult", "DealScore", "Outcome", "settle_deal", "score_deal", "belgian_tens",
           "game_winner", "CAPOT_ANNOUNCED_BONUS"]


def belgian_tens(points: int) -> int:
    """Trick points in tens, rounded up from 6: 45 -> 4, 46 -> 5."""
    return (points + 4) // 10


def settle_deal(rules: Rules, table: ContractTable, taker: int, trick_points, tricks_won, belote,
                announcements, reserve_waiting: int = 0, capot_announced_team: int | None = None,
                *, deal_number: int = 0, dealer: int = 0, forced: bool = False) -> DealResult:
    """Score one played deal from its trick points, tricks, belote and scoring announcements
    (per team, the capot annoncé apart: ``capot_announced_team`` declared one)."""
    tt = taker & 1
    dt = 1 - tt
    if tricks_won[0] == 8:
        capot_team, t = 0, (table.capot_points, 0)
    elif tricks_won[1] == 8:
        capot_team, t = 1, (0, table.capot_points)
    else:
        capot_team, t = None, (trick_points[0], trick_points[1])
    belote = (belote[0], belote[1])
    ann = (announcements[0], announcements[1])
    bonus = capot_announced_bonus(capot_announced_team, capot_team)
    scoring = (ann[0] + bonus[0], ann[1] + bonus[1])
    contract_points = t
    if rules.belote_in_contract:
        contract_points = (contract_points[0] + belote[0], contract_points[1] + belote[1])
    if rules.announcements_in_contract:
        contract_points = (contract_points[0] + scoring[0], contract_points[1] + scoring[1])

    # SPEC §7: a capot by the defence is settled before the contract points are compared.
    if capot_team == dt or contract_points[tt] < contract_points[dt]:
        outcome = FAILED_OUTCOME
    elif contract_points[tt] > contract_points[dt]:
        outcome = MADE_OUTCOME
    else:
        outcome = LITIGE_OUTCOME if rules.litige == "reserve" else FAILED_OUTCOME
    if rules.scoring == "belgian_tens":
        base, reserve = _belgian_tens_base(outcome, tt, t, capot_team, scoring)
        bel = (belote[0] // 10, belote[1] // 10)
    else:
        base, reserve = _points_base(outcome, tt, t, capot_team, scoring, table,
                                     rules.announcements == "enhanced")
        bel = belote

    winner = tt if outcome is MADE_OUTCOME else dt
    multiplier = 1
    contract = table.contract
    if rules.multipliers == "sa_ta" and contract in (NO_TRUMP, ALL_TRUMP):
        multiplier = 2 if contract == NO_TRUMP else 3
        score = ((base[0] * multiplier if winner == 0 else base[0]) + bel[0],
                 (base[1] * multiplier if winner == 1 else base[1]) + bel[1])
    elif rules.multipliers == "x3_both":
        multiplier = 3
        reserve *= 3
        score = (base[0] * 3 + bel[0], base[1] * 3 + bel[1])
    else:
        score = (base[0] + bel[0], base[1] + bel[1])

    paid, paid_to, waiting = 0, None, reserve_waiting
    if outcome is LITIGE_OUTCOME:
        waiting += reserve
    elif reserve_waiting and score[0] != score[1]:
        paid_to = 0 if score[0] > score[1] else 1
        paid, waiting = reserve_waiting, 0

    # Positional, in the field order (one is built per deal: keywords cost twice as much).
    return DealResult(deal_number, dealer, outcome, taker, contract, forced,
                      (tricks_won[0], tricks_won[1]), t, capot_team, belote, ann, bonus,
                      contract_points, multiplier, score, reserve, paid, paid_to, waiting)


def capot_announced_bonus(capot_announced_team: int | None, capot_team: int | None) -> Pair:
    """SPEC §6 enhanced: +250 to the declarer's team if it takes all 8 tricks, else to the
    opponents; nothing when no capot was announced."""
    if capot_announced_team is None:
        return NOTHING
    team = capot_announced_team if capot_team == capot_announced_team else 1 - capot_announced_team
    return (CAPOT_ANNOUNCED_BONUS, 0) if team == 0 else (0, CAPOT_ANNOUNCED_BONUS)


def _points_base(outcome: Outcome, tt: int, t: Pair, capot_team: int | None, scoring: Pair,
                 table: ContractTable, own_announcements: bool) -> tuple[list[int], int]:
    """``scoring=points``: per team, what the deal scores before multipliers and belote, and the
    litige's reserve. ``own_announcements`` (enhanced, SPEC §6): each team's own, whatever the
    contract does."""
    dt = 1 - tt
    if outcome is MADE_OUTCOME:
        return [t[0] + scoring[0], t[1] + scoring[1]], 0
    base = [0, 0]
    if outcome is FAILED_OUTCOME:
        # The deal's trick total: the capot value whenever a team took all 8 tricks (even
        # a taker's capot that fails on the defence's belote and announcements).
        total = table.capot_points if capot_team is not None else table.deal_total
        if own_announcements:
            base[dt], base[tt] = total + scoring[dt], scoring[tt]
        else:
            base[dt] = total + scoring[0] + scoring[1]
        return base, 0
    base[dt] = t[dt] + scoring[dt]
    if own_announcements:
        base[tt] = scoring[tt]
        return base, t[tt]
    return base, t[tt] + scoring[tt]


def _belgian_tens_base(outcome: Outcome, tt: int, t: Pair, capot_team: int | None,
                       scoring: Pair) -> tuple[list[int], int]:
    """``scoring=belgian_tens``: the same in tens (16 a deal, 25 a capot)."""
    dt = 1 - tt
    tens = [a // 10 for a in scoring]
    defence_tens = belgian_tens(t[dt])
    base = [0, 0]
    if outcome is FAILED_OUTCOME:
        base[dt] = (25 if capot_team is not None else 16) + tens[0] + tens[1]
    elif outcome is MADE_OUTCOME and capot_team == tt:
        base[tt], base[dt] = 25 + tens[tt], tens[dt]
    elif outcome is MADE_OUTCOME:
        base[dt], base[tt] = defence_tens + tens[dt], 16 - defence_tens + tens[tt]
    else:
        base[dt] = defence_tens + tens[dt]
        return base, 16 - defence_tens + tens[tt]
    return base, 0


def score_deal(rules: Rules, table: ContractTable, taker: int, trick_points, tricks_won, belote,
               announcements, reserve_pending: int = 0, capot_announced_team: int = -1) -> DealScore:
    """:func:`settle_deal` as the DealScored event writes it (-1: no capot annoncé)."""
    return settle_deal(rules, table, taker, trick_points, tricks_won, belote, announcements,
                       reserve_pending, None if capot_announced_team < 0 else capot_announced_team
                       ).as_deal_score()


def game_winner(totals, target: int) -> int | None:
    """SPEC §8: the winning team, or None while no team has reached the target or the totals
    are tied."""
    if max(totals) >= target and totals[0] != totals[1]:
        return 0 if totals[0] > totals[1] else 1
    return None
