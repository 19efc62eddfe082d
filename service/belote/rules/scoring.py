"""Scoring a deal (SPEC §7) and the end of the game (SPEC §8)."""

from __future__ import annotations

from typing import NamedTuple

from .options import Rules
from .values import ALL_TRUMP, NO_TRUMP, ContractTable, contract_name

MADE, FAILED, CAPOT_MADE, CAPOT_AGAINST, LITIGE_RESERVE, LITIGE_DEDANS = (
    "made", "failed", "capot_made", "capot_against", "litige_reserve", "litige_dedans")


class DealScore(NamedTuple):
    """Everything a reviewer needs to check a deal's score. Pairs are (team 0, team 1)."""

    taker: int
    contract: int
    outcome: str
    trick_points: tuple[int, int]      # after capot: the capot value for the team with 8 tricks
    belote: tuple[int, int]
    announcements: tuple[int, int]     # scoring announcements (capot annoncé bonus included)
    contract_points: tuple[int, int]
    deal_score: tuple[int, int]        # what each team adds this deal, reserve paid included
    multiplier: int
    reserve_created: int
    reserve_paid: int
    reserve_paid_to: int               # team, or -1
    reserve_pending: int               # reserve still waiting after this deal

    @property
    def explanation(self) -> str:
        """One sentence naming the rule that produced this score."""
        return _explain(self)


def belgian_tens(points: int) -> int:
    """Trick points in tens, rounded up from 6: 45 -> 4, 46 -> 5."""
    return (points + 4) // 10


def score_deal(rules: Rules, table: ContractTable, taker: int, trick_points, tricks_won, belote,
               announcements, reserve_pending: int = 0, capot_announced_team: int = -1) -> DealScore:
    """Score one deal from its trick points, belote and scoring announcements (per team)."""
    tt, dt = taker & 1, 1 - (taker & 1)
    contract = table.contract
    t = list(trick_points)
    capot_team = 0 if tricks_won[0] == 8 else 1 if tricks_won[1] == 8 else -1
    if capot_team >= 0:
        t[capot_team], t[1 - capot_team] = table.capot_points, 0
    ann = list(announcements)
    if capot_announced_team >= 0:
        # SPEC §6 enhanced: +250 to the declarer's team if it takes all 8 tricks, else to the opponents.
        ann[capot_announced_team if capot_team == capot_announced_team else 1 - capot_announced_team] += 250
    in_contract = [t[i] + (belote[i] if rules.belote_in_contract else 0)
                   + (ann[i] if rules.announcements_in_contract else 0) for i in (0, 1)]

    if in_contract[tt] > in_contract[dt]:
        outcome = CAPOT_MADE if capot_team == tt else MADE
    elif in_contract[tt] == in_contract[dt]:
        outcome = LITIGE_RESERVE if rules.litige == "reserve" else LITIGE_DEDANS
    else:
        outcome = CAPOT_AGAINST if capot_team == dt else FAILED
    failed = outcome in (FAILED, CAPOT_AGAINST, LITIGE_DEDANS)
    enhanced = rules.announcements == "enhanced"
    base, reserve = [0, 0], 0
    if rules.scoring == "belgian_tens":
        tens = [a // 10 for a in ann]
        defence_tens = belgian_tens(t[dt])
        bel = [b // 10 for b in belote]
        if outcome == MADE:
            base[dt], base[tt] = defence_tens + tens[dt], 16 - defence_tens + tens[tt]
        elif outcome == CAPOT_MADE:
            base[tt], base[dt] = 25 + tens[tt], tens[dt]
        elif failed:
            base[dt] = (25 if capot_team >= 0 else 16) + tens[0] + tens[1]
        else:
            base[dt] = defence_tens + tens[dt]
            reserve = 16 - defence_tens + tens[tt]
    else:
        bel = list(belote)
        if failed:
            # The deal's trick total: the capot value whenever a team took all 8 tricks (even
            # a taker's capot that fails on the defence's belote and announcements).
            total = table.capot_points if capot_team >= 0 else table.deal_total
            if enhanced:
                base[dt], base[tt] = total + ann[dt], ann[tt]
            else:
                base[dt] = total + ann[0] + ann[1]
        elif outcome == LITIGE_RESERVE:
            base[dt] = t[dt] + ann[dt]
            reserve = t[tt] + ann[tt]
        else:
            base = [t[0] + ann[0], t[1] + ann[1]]

    winner = tt if outcome in (MADE, CAPOT_MADE) else dt
    mult = [1, 1]
    if rules.multipliers == "sa_ta" and contract in (NO_TRUMP, ALL_TRUMP):
        mult[winner] = 2 if contract == NO_TRUMP else 3
    elif rules.multipliers == "x3_both":
        mult = [3, 3]
        reserve *= 3
    score = [base[i] * mult[i] + bel[i] for i in (0, 1)]

    paid, paid_to = 0, -1
    if outcome == LITIGE_RESERVE:
        pending = reserve_pending + reserve
    elif reserve_pending and score[0] != score[1]:
        paid_to = 0 if score[0] > score[1] else 1
        paid, pending = reserve_pending, 0
        score[paid_to] += paid
    else:
        pending = reserve_pending

    return DealScore(
        taker=taker, contract=contract, outcome=outcome, trick_points=(t[0], t[1]),
        belote=(belote[0], belote[1]), announcements=(ann[0], ann[1]),
        contract_points=(in_contract[0], in_contract[1]), deal_score=(score[0], score[1]),
        multiplier=max(mult), reserve_created=reserve, reserve_paid=paid, reserve_paid_to=paid_to,
        reserve_pending=pending)


def _explain(score: DealScore) -> str:
    tt = score.taker & 1
    taker, defence = score.contract_points[tt], score.contract_points[1 - tt]
    outcome, mult, paid = score.outcome, score.multiplier, score.reserve_paid
    text = {
        MADE: f"taker {taker} > defence {defence}: contract made",
        CAPOT_MADE: f"taker took all 8 tricks: capot, contract made ({taker} to {defence})",
        FAILED: f"taker {taker} < defence {defence}: contract failed (dedans), defence scores the deal",
        CAPOT_AGAINST: "defence took all 8 tricks: capot against the taker, contract failed",
        LITIGE_RESERVE: f"litige {taker} = {defence}: defence scores its points, "
                        f"taker's {score.reserve_created} go to the reserve",
        LITIGE_DEDANS: f"litige {taker} = {defence}: counted as failed (dedans)",
    }[outcome]
    if mult > 1:
        text += f"; {contract_name(score.contract)} x{mult}"
    if paid:
        text += f"; reserve of {paid} paid to team {score.reserve_paid_to}"
    return text


def game_winner(totals, target: int) -> int:
    """SPEC §8: -1 while no team has reached the target or the totals are tied."""
    if max(totals) >= target and totals[0] != totals[1]:
        return 0 if totals[0] > totals[1] else 1
    return -1
