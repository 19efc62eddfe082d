"""Scoring a deal (SPEC §7) and the end of the game (SPEC §8)."""

from __future__ import annotations

from .options import Rules
from .result import (CAPOT_AGAINST, CAPOT_MADE, FAILED, LITIGE_DEDANS, LITIGE_RESERVE, MADE,
                     DealResult, DealScore, Outcome)
from .values import ALL_TRUMP, NO_TRUMP, ContractTable

CAPOT_ANNOUNCED_BONUS = 250

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
    tt, dt = taker & 1, 1 - (taker & 1)
    if tricks_won[0] == 8:
        capot_team, t = 0, [table.capot_points, 0]
    elif tricks_won[1] == 8:
        capot_team, t = 1, [0, table.capot_points]
    else:
        capot_team, t = None, [trick_points[0], trick_points[1]]
    ann = (announcements[0], announcements[1])
    bonus = [0, 0]
    if capot_announced_team is not None:
        # SPEC §6 enhanced: +250 to the declarer's team if it takes all 8 tricks, else to the opponents.
        bonus[capot_announced_team if capot_team == capot_announced_team
              else 1 - capot_announced_team] = CAPOT_ANNOUNCED_BONUS
    scoring = [ann[0] + bonus[0], ann[1] + bonus[1]]
    contract_points = (t[0], t[1])
    if rules.belote_in_contract:
        contract_points = (contract_points[0] + belote[0], contract_points[1] + belote[1])
    if rules.announcements_in_contract:
        contract_points = (contract_points[0] + scoring[0], contract_points[1] + scoring[1])

    # SPEC §7: a capot by the defence is settled before the contract points are compared.
    if capot_team == dt or contract_points[tt] < contract_points[dt]:
        outcome = Outcome.FAILED
    elif contract_points[tt] > contract_points[dt]:
        outcome = Outcome.MADE
    else:
        outcome = Outcome.LITIGE if rules.litige == "reserve" else Outcome.FAILED
    # SPEC §6: enhanced announcements are each team's own, whatever the contract does.
    own_announcements = rules.announcements == "enhanced"
    base, reserve = [0, 0], 0
    if rules.scoring == "belgian_tens":
        tens = [a // 10 for a in scoring]
        defence_tens = belgian_tens(t[dt])
        bel = [b // 10 for b in belote]
        if outcome == Outcome.FAILED:
            base[dt] = (25 if capot_team is not None else 16) + tens[0] + tens[1]
        elif outcome == Outcome.MADE and capot_team == tt:
            base[tt], base[dt] = 25 + tens[tt], tens[dt]
        elif outcome == Outcome.MADE:
            base[dt], base[tt] = defence_tens + tens[dt], 16 - defence_tens + tens[tt]
        else:
            base[dt] = defence_tens + tens[dt]
            reserve = 16 - defence_tens + tens[tt]
    else:
        bel = list(belote)
        if outcome == Outcome.FAILED:
            # The deal's trick total: the capot value whenever a team took all 8 tricks (even
            # a taker's capot that fails on the defence's belote and announcements).
            total = table.capot_points if capot_team is not None else table.deal_total
            if own_announcements:
                base[dt], base[tt] = total + scoring[dt], scoring[tt]
            else:
                base[dt] = total + scoring[0] + scoring[1]
        elif outcome == Outcome.LITIGE:
            base[dt] = t[dt] + scoring[dt]
            if own_announcements:
                base[tt], reserve = scoring[tt], t[tt]
            else:
                reserve = t[tt] + scoring[tt]
        else:
            base = [t[0] + scoring[0], t[1] + scoring[1]]

    winner = tt if outcome == Outcome.MADE else dt
    mult = [1, 1]
    contract = table.contract
    if rules.multipliers == "sa_ta" and contract in (NO_TRUMP, ALL_TRUMP):
        mult[winner] = 2 if contract == NO_TRUMP else 3
    elif rules.multipliers == "x3_both":
        mult = [3, 3]
        reserve *= 3
    score = (base[0] * mult[0] + bel[0], base[1] * mult[1] + bel[1])

    paid, paid_to, waiting = 0, None, reserve_waiting
    if outcome == Outcome.LITIGE:
        waiting += reserve
    elif reserve_waiting and score[0] != score[1]:
        paid_to = 0 if score[0] > score[1] else 1
        paid, waiting = reserve_waiting, 0

    return DealResult(
        deal_number, dealer, outcome, taker, contract, forced,
        tricks_won=(tricks_won[0], tricks_won[1]), trick_points=(t[0], t[1]),
        capot_team=capot_team, belote=(belote[0], belote[1]), announcements=ann,
        capot_announced_bonus=(bonus[0], bonus[1]), contract_points=contract_points,
        multiplier=mult[0] if mult[0] > mult[1] else mult[1], score=score,
        reserve_created=reserve, reserve_paid=paid, reserve_paid_to=paid_to,
        reserve_waiting=waiting)


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
