"""Easy bot (sheet 001: "Facile joue la plus petite carte légale"): lowest legal card; takes on a
simple hand-strength threshold, so four easy bots do not pass deal after deal."""

from __future__ import annotations

from belote.rules.actions import Bid, Declare, Play
from belote.rules.announcements import ENHANCED_POINTS
from belote.rules.auction import PASS
from belote.rules.cards import ACE, cards_of
from belote.rules.values import contract_table

TAKE_THRESHOLD = 40      # trump points held (turned card included in round 1) plus side aces


def choose(view, seed: int):
    bids = [a for a in view.legal if isinstance(a, Bid)]
    if bids:
        return _bid(view, bids)
    declarations = [a for a in view.legal if isinstance(a, Declare) and a.kind != "capot_annonce"]
    if declarations:
        return max(declarations, key=lambda d: ENHANCED_POINTS[d.kind])
    table = contract_table(view.rules.values, view.contract)
    cards = [a for a in view.legal if isinstance(a, Play)]
    return min(cards, key=lambda a: (table.points[a.card], table.order[a.card], a.card))


def trump_strength(view, suit: int) -> int:
    """Points of the hand's trumps with ``suit`` as trump, plus 11 per side ace; in round 1
    the turned card counts, since the taker receives it."""
    table = contract_table(view.rules.values, suit)
    cards = cards_of(view.hand)
    if len(view.bids) < 4 and view.turned_card >= 0 and view.turned_card >> 3 == suit:
        cards.append(view.turned_card)
    return sum(table.points[c] if c >> 3 == suit else (11 if c & 7 == ACE else 0) for c in cards)


def _bid(view, bids: list[Bid]):
    suits = [b for b in bids if 0 <= b.contract < 4]
    if not suits:
        return Bid(PASS)
    best = max(suits, key=lambda b: trump_strength(view, b.contract))
    if Bid(PASS) not in bids or trump_strength(view, best.contract) >= TAKE_THRESHOLD:
        return best
    return Bid(PASS)
