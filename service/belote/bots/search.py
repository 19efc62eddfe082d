"""A deal in progress with every hand known (one sampled deal): what the hard bot searches.

A :class:`Position` is searched by :mod:`endgame` (exact, the last tricks) and :mod:`rollout`
(fast play-outs, the earlier ones).

Values are the trick points the searching team ends the deal with, the capot folded in:
``+capot_bonus`` when it takes all 8 tricks, ``-capot_bonus`` when the other team does, so
one number orders every outcome. Legal moves are the rules' own
:func:`belote.rules.play.legal_mask`, the function behind ``CardPlay.legal_cards``.
"""

from __future__ import annotations

from functools import cache
from typing import NamedTuple

from belote.rules.cards import SUIT_MASK
from belote.rules.play import PLAY_RULES, legal_mask
from belote.rules.values import ContractTable


class SearchRules(NamedTuple):
    """What the search needs of the contract and the play rule, as plain tuples."""

    trump_mask: int
    order: tuple
    points: tuple
    higher: tuple
    rule: int
    undertrump_required: bool
    last_trick_bonus: int
    capot_bonus: int              # extra trick points of a capot (252 - 162 in a suit contract)
    deal_total: int
    # Per card, smaller is preferred by the rollout policy when it...
    cheap_key: tuple              # ...gives away as little as possible: no trump, few points
    rich_key: tuple               # ...gives as much as possible: a plain card, many points
    win_key: tuple                # ...takes a trick: a rich plain card, else the smallest trump

    @staticmethod
    def of(rules, table: ContractTable) -> SearchRules:
        return _search_rules(rules.play, rules.undertrump, table)


@cache
def _search_rules(play: str, undertrump: str, table: ContractTable) -> SearchRules:
    tm, order, points = table.trump_mask, table.order, table.points
    trump = [bool(tm >> c & 1) for c in range(32)]
    cheap = tuple(trump[c] * 1000 + points[c] * 10 + order[c] for c in range(32))
    rich = tuple(trump[c] * 1000 - points[c] * 10 - order[c] for c in range(32))
    win = tuple(100 + order[c] if trump[c] else -points[c] * 10 - order[c] for c in range(32))
    return SearchRules(tm, order, points, table.higher, PLAY_RULES[play],
                       undertrump == "required", table.last_trick_bonus,
                       table.capot_points - table.deal_total, table.deal_total, cheap, rich, win)


class Position:
    """A deal in progress with all hands known, from the view of ``team``."""

    __slots__ = (
        "best",
        "best_seat",
        "hands",
        "leader",
        "led",
        "points",
        "r",
        "team",
        "trick",
        "trick_points",
        "tricks_left",
        "tricks_won",
        "turn",
    )

    def __init__(self, r: SearchRules, hands: list[int], team: int, leader: int, trick: list[int],
                 points: int, tricks_won: tuple[int, int], tricks_left: int):
        self.r = r
        self.hands = list(hands)
        self.team = team
        self.leader = leader
        self.trick: list[int] = []
        self.best = -1
        self.best_seat = -1
        self.led = 0
        self.trick_points = 0
        self.points = points                 # trick points of ``team`` in finished tricks
        self.tricks_left = tricks_left       # tricks not finished, the current one included
        self.tricks_won = list(tricks_won)   # (team's, other team's)
        self.turn = leader
        for card in trick:                   # cards already on the table (not in any hand)
            self.hands[self.turn] |= 1 << card
            self.play(card)

    def copy(self) -> Position:
        new = Position.__new__(Position)
        new.r, new.team, new.leader, new.turn = self.r, self.team, self.leader, self.turn
        new.hands = self.hands[:]
        new.trick = self.trick[:]
        new.best, new.best_seat, new.led = self.best, self.best_seat, self.led
        new.trick_points, new.points = self.trick_points, self.points
        new.tricks_left, new.tricks_won = self.tricks_left, self.tricks_won[:]
        return new

    def legal(self) -> int:
        return legal_mask(self.hands[self.turn], self.led, self.best,
                          self.best_seat == self.turn ^ 2, self.r)

    def play(self, card: int) -> None:
        r = self.r
        seat = self.turn
        bit = 1 << card
        self.hands[seat] ^= bit
        if not self.trick:
            self.best, self.best_seat, self.led = card, seat, SUIT_MASK[card >> 3]
        else:
            best = self.best
            if card >> 3 == best >> 3:
                if r.order[card] > r.order[best]:
                    self.best, self.best_seat = card, seat
            elif bit & r.trump_mask and not (1 << best) & r.trump_mask:
                self.best, self.best_seat = card, seat
        self.trick.append(card)
        self.trick_points += r.points[card]
        if len(self.trick) == 4:
            self.tricks_left -= 1
            pts = self.trick_points + (r.last_trick_bonus if self.tricks_left == 0 else 0)
            mine = (self.best_seat & 1) == self.team
            if mine:
                self.points += pts
            self.tricks_won[0 if mine else 1] += 1
            self.leader = self.turn = self.best_seat
            self.trick = []
            self.led = self.trick_points = 0
            self.best = self.best_seat = -1
        else:
            self.turn = (seat + 1) & 3

    def final_value(self) -> int:
        """The team's trick points once the deal is over, capot folded in."""
        if self.tricks_won[1] == 0:
            return self.points + self.r.capot_bonus
        if self.tricks_won[0] == 0:
            return self.points - self.r.capot_bonus
        return self.points
