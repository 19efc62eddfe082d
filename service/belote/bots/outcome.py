"""What the end of a deal is worth to a team: the search's trick points turned into the deal
score difference the team actually gets (SPEC §7: contract made or failed, capot, litige,
belote, announcements, multipliers, tens), by the rules' own :func:`score_deal`.

The search maximises trick points; this mapping is where "81 is not 80" lives, so the bot
weighs the risk of failing the contract, not just the points.
"""

from __future__ import annotations

from belote.rules.announcements import (
    CAPOT_ANNONCE,
    classic_announcements,
    classic_scoring_team,
)
from belote.rules.cards import KING, QUEEN
from belote.rules.scoring import score_deal
from belote.rules.values import ALL_TRUMP, NO_TRUMP, ContractTable


class DealValue:
    """Maps a final trick-point value of ``team`` (capot folded in as in :mod:`search`) to
    (team's deal score - the other team's), for one deal whose hands are all known."""

    def __init__(self, rules, table: ContractTable, taker: int, team: int, belote, announcements,
                 capot_announced_team: int, reserve: int, cache: dict):
        self.rules, self.table, self.taker, self.team = rules, table, taker, team
        self.belote = tuple(belote)
        self.announcements = tuple(announcements)
        self.capot_team = capot_announced_team
        self.reserve = reserve
        self.cache = cache

    def __call__(self, value: int) -> float:
        key = (value, self.belote, self.announcements)
        got = self.cache.get(key)
        if got is not None:
            return got
        total = self.table.deal_total
        if value > total:
            mine, won = total, 8
        elif value < 0:
            mine, won = 0, 0
        else:
            mine, won = value, 4
        team = self.team
        points = [0, 0]
        tricks = [0, 0]
        points[team], points[1 - team] = mine, total - mine
        tricks[team], tricks[1 - team] = won, 8 - won
        score = score_deal(self.rules, self.table, self.taker, points, tricks, self.belote,
                           self.announcements, self.reserve, self.capot_team).deal_score
        got = score[team] - score[1 - team]
        self.cache[key] = got
        return got


def deal_value(view, table: ContractTable, hands_now: list[int], played_by: list[int],
               order_played: list[int], cache: dict) -> DealValue:
    """The :class:`DealValue` of the deal where each seat holds ``hands_now`` (one sample)."""
    rules = view.rules
    belote = belote_points(rules, view.contract, hands_now, played_by, order_played)
    announcements, capot_team = announcement_points(view, hands_now, played_by)
    return DealValue(rules, table, view.taker, view.seat & 1, belote, announcements, capot_team,
                     view.reserve, cache)


def belote_points(rules, contract: int, hands_now, played_by, order_played) -> tuple[int, int]:
    """Belote (SPEC §5) per team in this deal: K and Q of a trump suit from one hand, the king
    first when ``belote_order=king_first`` (a pair still in hand can still be played K first)."""
    if contract == NO_TRUMP or contract < 0:
        return (0, 0)
    suits = range(4) if contract == ALL_TRUMP else (contract,)
    points = [0, 0]
    for suit in suits:
        king, queen = 1 << (suit * 8 + KING), 1 << (suit * 8 + QUEEN)
        for seat in range(4):
            owned = hands_now[seat] | played_by[seat]
            if owned & king and owned & queen:
                if rules.belote_order == "king_first" and played_by[seat] & queen and (
                        not played_by[seat] & king
                        or order_played.index(suit * 8 + QUEEN) < order_played.index(suit * 8 + KING)):
                    break
                points[seat & 1] += 20
                break
    return (points[0], points[1])


def announcement_points(view, hands_now, played_by) -> tuple[tuple[int, int], int]:
    """Scoring announcements per team and the capot annoncé team (-1 if none)."""
    style = view.rules.announcements
    points = [0, 0]
    capot_team = -1
    if style == "classic":
        by_seat = [classic_announcements(hands_now[s] | played_by[s]) for s in range(4)]
        team = classic_scoring_team(by_seat, view.contract)
        if team is not None:
            points[team] = sum(a.points for s in (team, team + 2) for a in by_seat[s])
    elif style == "enhanced":
        for seat, a in view.announcements:
            if a.kind == CAPOT_ANNONCE:
                capot_team = seat & 1
            else:
                points[seat & 1] += a.points
    return (points[0], points[1]), capot_team

