"""Exact search of the last tricks of a deal with every hand known: alpha-beta with a
transposition table at trick starts, within a node budget (:func:`solve`).
"""

from __future__ import annotations

from functools import cache

from belote.rules.cards import SUIT_MASK, cards_of
from belote.rules.play import legal_mask

from .rollout import last_trick
from .search import Position, SearchRules

INF = 10**6


class BudgetExceeded(Exception):
    pass


class Solver:
    """Alpha-beta over the rest of the deal for ``pos.team``, counting nodes against a budget.

    Values are the trick points still to come (capot folded in). Trick starts are memoised
    (hands, leader, capot still possible either way); equivalent cards (same hand and suit,
    no live card between them in the order, same points) are searched once.
    """

    def __init__(self, pos: Position, budget: int):
        self.pos = pos
        self.r = r = pos.r
        self.team = pos.team
        self.budget = budget
        self.nodes = 0
        self.table: dict = {}
        self.high_to_low = _high_to_low(r.order)

    def value_after(self, card: int) -> int:
        """Value of the deal for the team once the seat to play plays ``card``."""
        p = self.pos
        live = p.hands[0] | p.hands[1] | p.hands[2] | p.hands[3]
        for c in p.trick:
            live |= 1 << c
        return p.points + self._after(p.hands[:], p.turn, card, len(p.trick), p.best, p.best_seat,
                                      p.led, p.trick_points, p.tricks_left, tuple(p.tricks_won),
                                      live, -INF, INF)

    def _after(self, hands, seat, card, n, best, best_seat, led, tpts, left, won, live,
               alpha, beta):
        """Value still to come after ``seat`` plays ``card`` as the trick's card number n+1."""
        r = self.r
        bit = 1 << card
        if n == 0:
            best, best_seat, led = card, seat, SUIT_MASK[card >> 3]
        elif card >> 3 == best >> 3:
            if r.order[card] > r.order[best]:
                best, best_seat = card, seat
        elif bit & r.trump_mask and not (1 << best) & r.trump_mask:
            best, best_seat = card, seat
        tpts += r.points[card]
        hands[seat] ^= bit
        if n < 3:
            value = self._search(hands, (seat + 1) & 3, n + 1, best, best_seat, led, tpts, left,
                                 won, live, alpha, beta)
        else:
            value = self._trick_won(hands, best_seat, tpts, left - 1, won, alpha, beta)
        hands[seat] ^= bit
        return value

    def _trick_won(self, hands, winner, tpts, left, won, alpha, beta):
        r = self.r
        mine = (winner & 1) == self.team
        won = (won[0] + 1, won[1]) if mine else (won[0], won[1] + 1)
        if left == 0:
            gained = tpts + r.last_trick_bonus if mine else 0
            if won[1] == 0:
                return gained + r.capot_bonus
            if won[0] == 0:
                return gained - r.capot_bonus
            return gained
        gained = tpts if mine else 0
        if left == 1:
            return gained + self._last_trick(hands, winner, won)
        return gained + self._search_trick(hands, winner, left, won, alpha - gained,
                                           beta - gained)

    def _last_trick(self, hands, leader, won):
        """One card left in each hand: no choice, just count."""
        winner, points = last_trick(hands, leader, self.r)
        if (winner & 1) == self.team:
            return points + self.r.capot_bonus if won[1] == 0 else points
        return -self.r.capot_bonus if won[0] == 0 else 0

    def _search_trick(self, hands, leader, left, won, alpha, beta):
        """Value of the tricks still to play, from a trick start (memoised as bounds)."""
        key = (hands[0], hands[1], hands[2], hands[3], leader, won[0] == 0, won[1] == 0)
        bounds = self.table.get(key)
        if bounds is not None:
            lo, hi = bounds
            if lo >= beta:
                return lo
            if hi <= alpha:
                return hi
            if lo == hi:
                return lo
            alpha, beta = max(alpha, lo), min(beta, hi)
        else:
            lo, hi = -INF, INF
        a0, b0 = alpha, beta
        live = hands[0] | hands[1] | hands[2] | hands[3]
        value = self._search(hands, leader, 0, -1, -1, 0, 0, left, won, live, alpha, beta)
        if value <= a0:
            hi = min(hi, value)
        elif value >= b0:
            lo = max(lo, value)
        else:
            lo = hi = value
        self.table[key] = (lo, hi)
        return value

    def _search(self, hands, seat, n, best, best_seat, led, tpts, left, won, live, alpha, beta):
        self.nodes += 1
        if self.nodes > self.budget:
            raise BudgetExceeded
        legal = legal_mask(hands[seat], led, best, best_seat == seat ^ 2, self.r)
        after = self._after
        if (seat & 1) == self.team:
            value = -INF
            for card in self._moves(legal, n, best, best_seat, seat, live):
                v = after(hands, seat, card, n, best, best_seat, led, tpts, left, won, live,
                          alpha, beta)
                if v > value:
                    value = v
                    if v > alpha:
                        alpha = v
                        if alpha >= beta:
                            break
            return value
        value = INF
        for card in self._moves(legal, n, best, best_seat, seat, live):
            v = after(hands, seat, card, n, best, best_seat, led, tpts, left, won, live,
                      alpha, beta)
            if v < value:
                value = v
                if v < beta:
                    beta = v
                    if alpha >= beta:
                        break
        return value

    def _moves(self, legal: int, n: int, best: int, best_seat: int, seat: int, live: int):
        """Legal cards, one per group of equivalent ones, likeliest best first: high cards
        when leading or on the partner's trick, else the winners then the smallest cards."""
        points = self.r.points
        cards = []
        for suit in range(4):
            mine = legal & SUIT_MASK[suit]
            if not mine:
                continue
            if not mine & (mine - 1):
                cards.append(mine.bit_length() - 1)
                continue
            kept = -1
            for c in self.high_to_low[suit]:
                bit = 1 << c
                if mine & bit:
                    mine ^= bit
                    if kept < 0 or points[c] != points[kept]:
                        cards.append(c)             # else the same as ``kept`` for every outcome
                    kept = c
                    if not mine:
                        break
                elif live & bit:
                    kept = -1
        if n == 0 or best_seat == seat ^ 2 or len(cards) < 2:
            return cards
        r = self.r
        order, tm = r.order, r.trump_mask
        best_is_trump = (1 << best) & tm
        winners, others = [], []
        for c in cards:
            if (c >> 3 == best >> 3 and order[c] > order[best]) or (
                    (1 << c) & tm and not best_is_trump):
                winners.append(c)
            else:
                others.append(c)
        others.reverse()
        return winners + others


@cache
def _high_to_low(order: tuple) -> tuple:
    """Per suit, its cards from the highest in ``order``."""
    return tuple(tuple(sorted(range(s * 8, s * 8 + 8), key=lambda c: -order[c])) for s in range(4))


def equivalent_cards(r: SearchRules, cards: int, live: int) -> dict[int, int]:
    """Each of ``cards`` (one hand's) -> the highest card of its group of equivalent ones: same
    suit and points, no ``live`` card (one not played yet, or on the table) between them in the
    order. Equivalent cards bring the same value in every deal."""
    order, points = _high_to_low(r.order), r.points
    out = {}
    for suit in range(4):
        kept = -1
        for c in order[suit]:
            bit = 1 << c
            if cards & bit:
                if kept < 0 or points[c] != points[kept]:
                    kept = c
                out[c] = kept
            elif live & bit:
                kept = -1
    return out


def solve(pos: Position, budget: int, cards: list[int] | None = None
          ) -> tuple[dict[int, int] | None, int]:
    """Exact value of each legal card (or of ``cards``) for ``pos.team`` (None past ``budget``
    nodes), and the nodes spent. The seat to play must be on ``pos.team``."""
    solver = Solver(pos, budget)
    values = {}
    try:
        for card in cards_of(pos.legal()) if cards is None else cards:
            values[card] = solver.value_after(card)
    except BudgetExceeded:
        return None, solver.nodes
    return values, solver.nodes
