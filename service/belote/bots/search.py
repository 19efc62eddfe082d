"""Card play with every hand known (one sampled deal): the hard bot's search.

A :class:`Position` is a deal in progress where all four hands are known. On it:
- :func:`solve` finds the exact minimax value (alpha-beta with a transposition table at trick
  starts) within a node budget, for the last tricks;
- :func:`rollout` plays the deal out with :func:`greedy_card`, a fast open-handed policy, for
  the early tricks where exact search costs too much.

Values are the trick points the searching team ends the deal with, the capot folded in:
``+capot_bonus`` when it takes all 8 tricks, ``-capot_bonus`` when the other team does, so
one number orders every outcome. Legal moves are the rules' own
:func:`belote.rules.play.legal_mask`, the function behind ``CardPlay.legal_cards``.
"""

from __future__ import annotations

from functools import cache
from typing import NamedTuple

from belote.rules.cards import SUIT_MASK, cards_of
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


# Rollouts ---------------------------------------------------------------------------------------
def greedy_card(pos: Position) -> int:
    """An open-handed rule of thumb: lead a master nobody can ruff, else a small card; win the
    opponents' trick with the card that cannot be beaten and gives most (a plain card) or the
    smallest trump; charge the partner's trick when nobody after can beat it; else give least."""
    legal = pos.legal()
    if not legal & (legal - 1):
        return legal.bit_length() - 1
    r = pos.r
    seat = pos.turn
    hands = pos.hands
    if not pos.trick:
        safe = _safe_leads(legal, seat, hands, r.higher, r.trump_mask)
        return _pick_min(safe, r.rich_key) if safe else _pick_min(legal, r.cheap_key)
    later = [(seat + k) & 3 for k in range(1, 4 - len(pos.trick))]
    best = pos.best
    if pos.best_seat == seat ^ 2:
        if _can_be_beaten(best, later, hands, pos.led, r):
            return _pick_min(legal, r.cheap_key)
        return _pick_min(legal, r.rich_key)
    winners = legal & r.higher[best]
    if not (1 << best) & r.trump_mask:
        winners |= legal & r.trump_mask
    if winners:
        sure = 0
        m = winners
        while m:
            low = m & -m
            m ^= low
            if not _can_be_beaten(low.bit_length() - 1, later, hands, pos.led, r):
                sure |= low
        if sure:
            return _pick_min(sure, r.win_key)
    return _pick_min(legal & ~winners or legal, r.cheap_key)


def _safe_leads(legal: int, seat: int, hands: list[int], higher: tuple, tm: int) -> int:
    """The masters ``seat`` may lead that nobody can ruff (a trump, or a suit both opponents
    still hold, or no opponent has a trump)."""
    others = hands[seat ^ 1] | hands[seat ^ 3] | hands[seat ^ 2]
    left, right = hands[(seat + 1) & 3], hands[(seat + 3) & 3]
    opp_trumps = (left | right) & tm
    safe = 0
    m = legal
    while m:
        low = m & -m
        m ^= low
        c = low.bit_length() - 1
        if not higher[c] & others:
            suit = SUIT_MASK[c >> 3]
            if low & tm or not opp_trumps or (left & suit and right & suit):
                safe |= low
    return safe


def _can_be_beaten(card: int, later: list[int], hands: list[int], led: int, r: SearchRules) -> bool:
    """Could one of the seats still to play this trick beat ``card``?"""
    tm = r.trump_mask
    plain = not (1 << card) & tm
    for seat in later:
        hand = hands[seat]
        if hand & r.higher[card]:
            return True
        if plain and hand & tm and not hand & led:
            return True                   # void in the led suit: it may ruff
    return False


def _pick_min(mask: int, key: tuple) -> int:
    best, best_key = -1, 1 << 30
    while mask:
        low = mask & -mask
        mask ^= low
        c = low.bit_length() - 1
        if key[c] < best_key:
            best, best_key = c, key[c]
    return best


def rollout(pos: Position) -> int:
    """Play ``pos`` to the end with :func:`greedy_card`'s choices (``pos`` is not changed); its
    final value.

    The rollouts are most of the hard bot's work, so this is :func:`greedy_card` and
    :meth:`Position.play` over local variables, without a Position per card; a test plays both
    side by side on random positions."""
    r = pos.r
    tm, higher, order, points_of = r.trump_mask, r.higher, r.order, r.points
    cheap, rich, win = r.cheap_key, r.rich_key, r.win_key
    hands = pos.hands[:]
    n = len(pos.trick)
    best, best_seat, led, tpts = pos.best, pos.best_seat, pos.led, pos.trick_points
    points, left, team = pos.points, pos.tricks_left, pos.team
    won_mine, won_other = pos.tricks_won
    seat = pos.turn
    while left:
        if left == 1 and not n:
            # The last trick: one card in each hand, no choice.
            best = hands[seat].bit_length() - 1
            best_seat = seat
            tpts = points_of[best] + r.last_trick_bonus
            for k in (1, 2, 3):
                s = (seat + k) & 3
                c = hands[s].bit_length() - 1
                tpts += points_of[c]
                if c >> 3 == best >> 3:
                    if order[c] > order[best]:
                        best, best_seat = c, s
                elif (1 << c) & tm and not (1 << best) & tm:
                    best, best_seat = c, s
            if (best_seat & 1) == team:
                points += tpts
                won_mine += 1
            else:
                won_other += 1
            break
        hand = hands[seat]
        legal = legal_mask(hand, led, best, best_seat == seat ^ 2, r)
        if not legal & (legal - 1):
            card = legal.bit_length() - 1
        else:
            pick, key = 0, cheap
            if not n:
                pick = _safe_leads(legal, seat, hands, higher, tm)
                if pick:
                    key = rich
                else:
                    pick = legal
            else:
                if n == 1:
                    later = (hands[(seat + 1) & 3], hands[(seat + 2) & 3])
                elif n == 2:
                    later = (hands[(seat + 1) & 3],)
                else:
                    later = ()
                if best_seat == seat ^ 2:
                    pick = legal
                    if not _beatable(best, later, led, tm, higher):
                        key = rich
                else:
                    winners = legal & higher[best]
                    if not (1 << best) & tm:
                        winners |= legal & tm
                    m = winners
                    while m:
                        low = m & -m
                        m ^= low
                        if not _beatable(low.bit_length() - 1, later, led, tm, higher):
                            pick |= low
                    if pick:
                        key = win
                    else:
                        pick = legal & ~winners or legal
            card = _pick_min(pick, key)
        # Position.play, inlined
        hands[seat] ^= 1 << card
        if not n:
            best, best_seat, led = card, seat, SUIT_MASK[card >> 3]
        elif card >> 3 == best >> 3:
            if order[card] > order[best]:
                best, best_seat = card, seat
        elif (1 << card) & tm and not (1 << best) & tm:
            best, best_seat = card, seat
        tpts += points_of[card]
        if n == 3:
            left -= 1
            if (best_seat & 1) == team:
                points += tpts + (r.last_trick_bonus if left == 0 else 0)
                won_mine += 1
            else:
                won_other += 1
            seat = best_seat
            n = led = tpts = 0
            best = best_seat = -1
        else:
            n += 1
            seat = (seat + 1) & 3
    if won_other == 0:
        return points + r.capot_bonus
    if won_mine == 0:
        return points - r.capot_bonus
    return points


def _beatable(card: int, later, led: int, tm: int, higher: tuple) -> bool:
    """:func:`_can_be_beaten` given the hands still to play this trick."""
    beats = higher[card]
    plain = not (1 << card) & tm
    for hand in later:  # noqa: SIM110 - a loop: no generator built per rollout card
        if hand & beats or (plain and hand & tm and not hand & led):
            return True
    return False


# Exact search -----------------------------------------------------------------------------------
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
        r = self.r
        order, tm = r.order, r.trump_mask
        best = hands[leader].bit_length() - 1
        best_seat = leader
        tpts = r.points[best] + r.last_trick_bonus
        for k in (1, 2, 3):
            seat = (leader + k) & 3
            c = hands[seat].bit_length() - 1
            tpts += r.points[c]
            if c >> 3 == best >> 3:
                if order[c] > order[best]:
                    best, best_seat = c, seat
            elif (1 << c) & tm and not (1 << best) & tm:
                best, best_seat = c, seat
        mine = (best_seat & 1) == self.team
        if mine:
            return tpts + r.capot_bonus if won[1] == 0 else tpts
        return -r.capot_bonus if won[0] == 0 else 0

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

