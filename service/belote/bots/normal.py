"""Normal bot (sheet 001: "Normal estime le pli, économise les atouts maîtres, coupe lorsque
nécessaire et soutient le partenaire").

Plain rules of thumb a club player uses, read off the seat's view:
- it judges who wins the trick in progress and whether that card can still be beaten;
- it keeps its master trumps (no discarding them, no spending them where a smaller one does);
- it trumps when it must, with the smallest trump that wins;
- it puts points on a trick its partner is sure to win ("charger") and gives nothing to the
  opponents' tricks;
- it leads trumps when its team took, cashes its masters, and leads to its partner's strength;
- it bids from a hand evaluation per contract type (:mod:`bidding`).
The seed is unused: the normal bot is deterministic.

The card rules (:func:`club_card`) read only masks: the seat's legal cards, the cards it has
not seen, the trick on the table and its :class:`Memory` of the deal (who took, the voids
shown, who led trumps, which suits each seat led and won). So the same rules, at the same
speed, play every seat of the hard bot's play-outs (:mod:`rollout`, version 4), each from
what that seat would see.
"""

from __future__ import annotations

from functools import cache
from typing import NamedTuple

from belote.rules.actions import Play
from belote.rules.announcements import CAPOT_ANNONCE
from belote.rules.cards import FULL_DECK, SUIT_MASK
from belote.rules.values import ContractTable

from .announcing import capot_lead, choose_declaration
from .bidding import bid_margin, choose_bid
from .reading import (
    highest,
    legal_bids,
    legal_cards,
    legal_declarations,
    lowest,
    masters_in,
    table_of,
    trick_winner,
    unseen_mask,
    voids_shown,
)


def choose(view, seed: int = 0):
    return choose_with(view, choose_card)


def choose_with(view, card_chooser, margin=bid_margin):
    """Bid (by ``margin``, see :func:`bidding.choose_bid`), declare, or play the card
    ``card_chooser(view, legal cards)`` picks."""
    bids = legal_bids(view)
    if bids:
        return choose_bid(view, bids, margin)
    declarations = legal_declarations(view)
    if declarations:
        declaration = choose_declaration(view, declarations)
        if declaration is not None:
            return declaration
    return Play(card_chooser(view, legal_cards(view)))


def choose_card(view, legal: int) -> int:
    if legal & (legal - 1) == 0:
        return legal.bit_length() - 1          # one legal card
    if not view.trick and team_declared_capot(view):
        return capot_lead(view, legal)
    table = table_of(view)
    best, best_seat = trick_winner(view.trick, view.trick_leader, table)
    led = SUIT_MASK[view.trick[0] >> 3] if view.trick else 0
    return club_card(club_table(table), Memory.of_view(view, table), view.seat, legal,
                     unseen_mask(view), len(view.trick), best, best_seat, led)


def team_declared_capot(view) -> bool:
    return any(kind.kind == CAPOT_ANNONCE and (s & 1) == (view.seat & 1)
               for s, kind in view.announcements)


class ClubTable(NamedTuple):
    """What the rules look up for one contract, per card."""

    trump_mask: int
    suit_contract: bool          # one trump suit (not SA, not TA): ruffs and drawing trumps
    order: tuple
    points: tuple
    higher: tuple                # the cards of its suit that beat it
    beats: tuple                 # the cards that take the trick from it
    weakest: tuple               # smaller is weaker: points, then order
    richest: tuple               # smaller is richer to give: more points, then lower order
    safest: tuple                # smaller is a better master to cash: more points, then order


@cache
def club_table(table: ContractTable) -> ClubTable:
    tm, order, points = table.trump_mask, table.order, table.points
    return ClubTable(tm, tm not in (0, FULL_DECK), order, points, table.higher, table.beats,
                     tuple(points[c] * 1000 + order[c] * 32 + c for c in range(32)),
                     tuple(order[c] - points[c] * 100 for c in range(32)),
                     tuple(-(points[c] * 100 + order[c]) for c in range(32)))


class Memory:
    """What every seat remembers of the deal so far (all of it public)."""

    __slots__ = ("led_trump", "taker", "voids", "won_own_lead")

    def __init__(self, taker: int, voids: list[int], led_trump: list[bool],
                 won_own_lead: list[tuple[int, ...]]):
        self.taker = taker
        self.voids = voids                      # per seat: the suits it failed to follow
        self.led_trump = led_trump              # per seat: it has led a trump
        self.won_own_lead = won_own_lead        # per seat: plain suits it led and won, in order

    @staticmethod
    def of_view(view, table: ContractTable) -> Memory:
        tm = table.trump_mask
        voids = voids_shown(view, table)
        led_trump = [False] * 4
        won: list[tuple[int, ...]] = [(), (), (), ()]
        for leader, cards, winner, _points in view.tricks:
            if (1 << cards[0]) & tm:
                led_trump[leader] = True
            elif winner == leader and cards[0] >> 3 not in won[leader]:
                won[leader] += (cards[0] >> 3,)
        if view.trick and (1 << view.trick[0]) & tm:
            led_trump[view.trick_leader] = True
        return Memory(view.taker, [voids[s] for s in range(4)], led_trump, won)

    def copy(self) -> Memory:
        new = Memory.__new__(Memory)       # one per play-out: no __init__ call
        new.taker, new.voids = self.taker, self.voids[:]
        new.led_trump, new.won_own_lead = self.led_trump[:], self.won_own_lead[:]
        return new


def club_card(t: ClubTable, memory: Memory, seat: int, legal: int, unseen: int, n: int,
              best: int, best_seat: int, led: int) -> int:
    """The card the rules of thumb play from ``legal`` (two cards or more), ``n`` cards on the
    table (``best`` of ``best_seat`` winning, ``led`` the led suit's mask), ``unseen`` the
    cards the seat has not seen."""
    if n:
        return follow(t, memory, seat, legal, unseen, n, best, best_seat, led)
    return lead(t, memory, seat, legal, unseen)


# Following ------------------------------------------------------------------------------------
def follow(t: ClubTable, memory: Memory, seat: int, legal: int, unseen: int, n: int, best: int,
           best_seat: int, led: int) -> int:
    last = n == 3
    if best_seat == seat ^ 2:
        if last or cannot_be_beaten(t, memory, seat, best, unseen, n, led):
            return give_points(t, legal, unseen)
        return cheapest(t, legal, unseen)
    winners = legal & t.beats[best]
    if not winners:
        return cheapest(t, legal, unseen)
    if last:
        return richest_winner(t, winners, unseen)
    if not led & t.trump_mask and not winners & ~t.trump_mask:
        return lowest(winners, t.order)                     # ruff with the smallest trump
    sure = 0
    m = winners
    while m:
        low = m & -m
        m ^= low
        if cannot_be_beaten(t, memory, seat, low.bit_length() - 1, unseen, n, led):
            sure |= low
    if sure:
        return lowest(sure, t.order)                        # the cheapest sure winner
    return cheapest(t, legal, unseen)


def cannot_be_beaten(t: ClubTable, memory: Memory, seat: int, card: int, unseen: int, n: int,
                     led: int) -> bool:
    """``card`` would hold the trick whatever the seats after us play, as far as we know: it is
    the master of its suit, and if it is a plain card, either no trump is out or nobody after
    us has shown a void in the led suit."""
    if t.higher[card] & unseen:
        return False
    if (1 << card) & t.trump_mask or not unseen & t.trump_mask:
        return True
    voids = memory.voids
    return not any(voids[(seat + k) & 3] & led for k in range(1, 4 - n))


def give_points(t: ClubTable, legal: int, unseen: int) -> int:
    """Charge the partner's trick: the most points we can spare, never a master or a trump
    if a plain card will do."""
    tm = t.trump_mask
    masters = masters_in(legal, unseen, t.higher)
    for pool in (legal & ~tm & ~masters, legal & ~masters, legal & ~tm, legal):
        if pool:
            return lowest(pool, t.richest)
    raise AssertionError("no legal card")


def cheapest(t: ClubTable, legal: int, unseen: int) -> int:
    """Give away as little as possible: no trump and no master if avoidable, fewest points."""
    tm = t.trump_mask
    masters = masters_in(legal, unseen, t.higher)
    for pool in (legal & ~tm & ~masters, legal & ~tm, legal & ~masters, legal):
        if pool:
            return lowest(pool, t.weakest)
    raise AssertionError("no legal card")


def richest_winner(t: ClubTable, winners: int, unseen: int) -> int:
    """Last to play and winning: win with the card worth most, keeping masters and trumps
    (the smallest trump as a last resort)."""
    best, best_cost = -1, None
    m = winners
    while m:
        low = m & -m
        m ^= low
        c = low.bit_length() - 1
        if low & t.trump_mask:
            cost = (2, t.order[c])
        else:
            keep = not t.higher[c] & unseen & ~low
            cost = (1 if keep else 0, -t.points[c])
        if best_cost is None or cost < best_cost:
            best, best_cost = c, cost
    return best


# Leading --------------------------------------------------------------------------------------
def lead(t: ClubTable, memory: Memory, seat: int, hand: int, unseen: int) -> int:
    tm = t.trump_mask
    trumps_out = unseen & tm
    my_trumps = hand & tm
    if t.suit_contract and my_trumps and trumps_out:
        if memory.taker == seat:
            master_trumps = masters_in(my_trumps, unseen, t.higher)
            if master_trumps:
                return highest(master_trumps, t.order)
            if my_trumps.bit_count() >= 3:
                return lowest(my_trumps, t.order)
        elif memory.taker == seat ^ 2 and not memory.led_trump[seat]:
            return lowest(my_trumps, t.order)                # to the taker
    voids = memory.voids
    opponents_void = voids[(seat + 1) & 3] | voids[(seat + 3) & 3]
    side = hand & ~tm if t.suit_contract else hand
    masters = masters_in(side, unseen, t.higher)
    if t.suit_contract and trumps_out:                  # nobody ruffs in SA or TA
        for suit in range(4):
            if opponents_void & SUIT_MASK[suit]:
                masters &= ~SUIT_MASK[suit]
    if masters:
        return lowest(masters, t.safest)
    for suit in partner_strong_suits(t, memory, seat):
        in_suit = hand & SUIT_MASK[suit]
        if in_suit:
            return lowest(in_suit, t.weakest)
    return quiet_lead(t, hand, unseen)


def partner_strong_suits(t: ClubTable, memory: Memory, seat: int) -> list[int]:
    """Suits to lead to the partner: where it can trump (void, as taker's team), then suits it
    led itself and won."""
    mate = seat ^ 2
    suits = []
    if t.suit_contract and (memory.taker & 1) == (seat & 1):
        mate_voids = memory.voids[mate]
        if not mate_voids & t.trump_mask:
            suits = [s for s in range(4) if mate_voids & SUIT_MASK[s] & ~t.trump_mask]
    for suit in memory.won_own_lead[mate]:
        if suit not in suits:
            suits.append(suit)
    return suits


def quiet_lead(t: ClubTable, hand: int, unseen: int) -> int:
    """A lead that gives little: a small card from a side suit whose 10 is not exposed,
    preferring short suits (to trump later) and never a trump when a plain card will do."""
    best, best_key = -1, None
    plain = hand & ~t.trump_mask or hand
    for suit in range(4):
        in_suit = plain & SUIT_MASK[suit]
        if not in_suit:
            continue
        low = lowest(in_suit, t.weakest)
        exposed_honour = False
        m = in_suit
        while m:
            bit = m & -m
            m ^= bit
            c = bit.bit_length() - 1
            if t.points[c] >= 10 and t.higher[c] & unseen:
                exposed_honour = True
                break
        count = in_suit.bit_count()
        key = (exposed_honour and count <= 2, t.points[low], count, t.order[low])
        if best_key is None or key < best_key:
            best, best_key = low, key
    return best
