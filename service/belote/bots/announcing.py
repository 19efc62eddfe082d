"""Enhanced announcements (SPEC §6, sheet 004): which one to declare, and capot annoncé.

Each seat makes at most one announcement, and every declared one scores for its team whatever
the contract does, so the bot declares the most valuable one it holds. Capot annoncé gives
+250 if the declarer's team wins all 8 tricks and +250 to the opponents otherwise: a bot
declares it only when :func:`capot_is_certain` proves the hand wins every trick whatever the
other three hold and play.
"""

from __future__ import annotations

from belote.rules.actions import Declare
from belote.rules.announcements import CAPOT_ANNONCE, ENHANCED_POINTS
from belote.rules.cards import SUIT_MASK, cards_of

from .reading import table_of


def choose_declaration(view, declarations: list[Declare]) -> Declare | None:
    """The declaration to make now, or None (then the bot plays its card)."""
    if any(d.kind == CAPOT_ANNONCE for d in declarations) and capot_is_certain(view):
        return Declare(CAPOT_ANNONCE)
    scoring = [d for d in declarations if d.kind != CAPOT_ANNONCE]
    if not scoring:
        return None
    return max(scoring, key=lambda d: (ENHANCED_POINTS[d.kind], d.suit, d.rank))


def capot_is_certain(view) -> bool:
    """True when the seat, about to lead the first trick, wins all 8 tricks by force.

    Sufficient condition (never a guess): in every suit the seat holds, its cards are the top
    cards of that suit, so each lead wins; and in a suit contract it holds at least as many
    top trumps as all the other trumps together, so leading them first leaves nobody a trump
    to ruff the side winners with. Only the leader can be sure: whoever leads before it could
    start a suit it cannot win.
    """
    if view.trick or view.tricks or view.trick_leader != view.seat:
        return False
    hand = view.hand
    if hand.bit_count() != 8:
        return False
    table = table_of(view)
    everything_else = ~hand & 0xFFFFFFFF
    for suit in range(4):
        mine = hand & SUIT_MASK[suit]
        m = mine
        while m:
            low = m & -m
            card = low.bit_length() - 1
            if table.higher[card] & everything_else:
                return False            # some card of this suit beats one of ours
            m ^= low
    if 0 <= view.contract < 4:
        trumps = (hand & SUIT_MASK[view.contract]).bit_count()
        if trumps < 8 and trumps < 8 - trumps:
            return False                # an opponent may keep a trump to ruff a side winner
    return True


def capot_lead(view, legal: int) -> int:
    """After declaring capot: trumps first while any other trump is out, then any master."""
    table = table_of(view)
    trumps = legal & table.trump_mask
    if 0 <= view.contract < 4 and trumps:
        return max(cards_of(trumps), key=lambda c: table.order[c])
    return max(cards_of(legal), key=lambda c: (table.order[c], c))
