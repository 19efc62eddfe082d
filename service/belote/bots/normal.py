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
"""

from __future__ import annotations

from belote.rules.actions import Play
from belote.rules.announcements import CAPOT_ANNONCE
from belote.rules.cards import SUIT_MASK, cards_of

from .announcing import capot_lead, choose_declaration
from .bidding import bid_margin, choose_bid
from .reading import (
    beats,
    cards_by_strength,
    is_master,
    legal_bids,
    legal_cards,
    legal_declarations,
    masters_in,
    partner,
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
    unseen = unseen_mask(view)
    if not view.trick:
        return lead(view, legal, table, unseen)
    return follow(view, legal, table, unseen)


def team_declared_capot(view) -> bool:
    return any(kind.kind == CAPOT_ANNONCE and (s & 1) == (view.seat & 1)
               for s, kind in view.announcements)


# Following ------------------------------------------------------------------------------------
def follow(view, legal: int, table, unseen: int) -> int:
    best, best_seat = trick_winner(view.trick, view.trick_leader, table)
    last = len(view.trick) == 3
    if best_seat == partner(view.seat):
        if last or cannot_be_beaten(view, best, table, unseen):
            return give_points(legal, table, unseen)
        return cheapest(legal, table, unseen)
    winners = [c for c in cards_of(legal) if beats(c, best, table)]
    if not winners:
        return cheapest(legal, table, unseen)
    if last:
        return richest_winner(winners, table, unseen)
    led_trump = (1 << view.trick[0]) & table.trump_mask
    if not led_trump and all((1 << c) & table.trump_mask for c in winners):
        return min(winners, key=lambda c: table.order[c])       # ruff with the smallest trump
    sure = [c for c in winners if cannot_be_beaten(view, c, table, unseen)]
    if sure:
        return min(sure, key=lambda c: table.order[c])          # the cheapest sure winner
    return cheapest(legal, table, unseen)


def cannot_be_beaten(view, card: int, table, unseen: int) -> bool:
    """``card`` would hold the trick whatever the seats after us play, as far as we know: it is
    the master of its suit, and if it is a plain card, either no trump is out or nobody after
    us has shown a void in the led suit."""
    if not is_master(card, unseen, table):
        return False
    if (1 << card) & table.trump_mask or not unseen & table.trump_mask:
        return True
    voids = voids_shown(view, table)
    led = SUIT_MASK[view.trick[0] >> 3]
    to_play = [(view.seat + k) & 3 for k in range(1, 4 - len(view.trick))]
    return not any(voids[s] & led for s in to_play)


def give_points(legal: int, table, unseen: int) -> int:
    """Charge the partner's trick: the most points we can spare, never a master or a trump
    if a plain card will do."""
    masters = masters_in(legal, unseen, table)
    for pool in (legal & ~table.trump_mask & ~masters, legal & ~masters,
                 legal & ~table.trump_mask, legal):
        if pool:
            return max(cards_of(pool), key=lambda c: (table.points[c], -table.order[c]))
    raise AssertionError("no legal card")


def cheapest(legal: int, table, unseen: int) -> int:
    """Give away as little as possible: no trump and no master if avoidable, fewest points."""
    masters = masters_in(legal, unseen, table)
    for pool in (legal & ~table.trump_mask & ~masters, legal & ~table.trump_mask,
                 legal & ~masters, legal):
        if pool:
            return cards_by_strength(pool, table)[0]
    raise AssertionError("no legal card")


def richest_winner(winners: list[int], table, unseen: int) -> int:
    """Last to play and winning: win with the card worth most, keeping masters and trumps."""
    def cost(c):
        keep = (1 << c) & table.trump_mask or is_master(c, unseen & ~(1 << c), table)
        if (1 << c) & table.trump_mask:
            return (2, table.order[c])                          # smallest trump last resort
        return (1 if keep else 0, -table.points[c])
    return min(winners, key=cost)


# Leading --------------------------------------------------------------------------------------
def lead(view, legal: int, table, unseen: int) -> int:
    hand = legal
    trumps_out = unseen & table.trump_mask
    my_trumps = hand & table.trump_mask
    suit_contract = 0 <= view.contract < 4
    if suit_contract and my_trumps and trumps_out:
        if view.taker == view.seat:
            master_trumps = masters_in(my_trumps, unseen, table)
            if master_trumps:
                return max(cards_of(master_trumps), key=lambda c: table.order[c])
            if my_trumps.bit_count() >= 3:
                return min(cards_of(my_trumps), key=lambda c: table.order[c])
        elif view.taker == partner(view.seat) and not _led_trump(view):
            return min(cards_of(my_trumps), key=lambda c: table.order[c])   # to the taker
    voids = voids_shown(view, table)
    opponents = (view.seat + 1) & 3, (view.seat + 3) & 3
    side = hand & ~table.trump_mask if suit_contract else hand
    masters = masters_in(side, unseen, table)
    ruffs_possible = suit_contract and trumps_out          # nobody ruffs in SA or TA
    safe_masters = [c for c in cards_of(masters)
                    if not (ruffs_possible and any(voids[o] & SUIT_MASK[c >> 3] for o in opponents))]
    if safe_masters:
        return max(safe_masters, key=lambda c: (table.points[c], table.order[c]))
    helped = partner_strong_suits(view, table, voids)
    for suit in helped:
        in_suit = hand & SUIT_MASK[suit]
        if in_suit:
            return cards_by_strength(in_suit, table)[0]
    return quiet_lead(hand, table, unseen)


def _led_trump(view) -> bool:
    """Has this seat already led a trump this deal?"""
    tm = table_of(view).trump_mask
    return any(leader == view.seat and (1 << cards[0]) & tm for leader, cards, _w, _p in view.tricks)


def partner_strong_suits(view, table, voids) -> list[int]:
    """Suits to lead to the partner: where it can trump (void, as taker's team), then suits it
    led itself or won with a master."""
    mate = partner(view.seat)
    suits = []
    if 0 <= view.contract < 4 and (view.taker & 1) == (view.seat & 1):
        for suit in range(4):
            if suit != view.contract and voids[mate] & SUIT_MASK[suit] and \
                    not voids[mate] & table.trump_mask:
                suits.append(suit)
    for leader, cards, winner, _p in view.tricks:
        suit = cards[0] >> 3
        if leader == mate and winner == mate and suit not in suits and \
                not (1 << cards[0]) & table.trump_mask:
            suits.append(suit)
    return suits


def quiet_lead(hand: int, table, unseen: int) -> int:
    """A lead that gives little: a small card from a side suit whose 10 is not exposed,
    preferring short suits (to trump later) and never a trump when a plain card will do."""
    best, best_key = -1, None
    plain = hand & ~table.trump_mask or hand
    for suit in range(4):
        in_suit = plain & SUIT_MASK[suit]
        if not in_suit:
            continue
        low = cards_by_strength(in_suit, table)[0]
        exposed_honour = any(table.points[c] >= 10 and not is_master(c, unseen, table)
                             for c in cards_of(in_suit))
        key = (exposed_honour and in_suit.bit_count() <= 2, table.points[low],
               in_suit.bit_count(), table.order[low])
        if best_key is None or key < best_key:
            best, best_key = low, key
    return best

