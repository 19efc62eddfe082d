"""Easy bot (sheet 001: "Facile joue la plus petite carte légale"): lowest legal card; takes on a
simple hand-strength threshold, so four easy bots do not pass deal after deal."""

from __future__ import annotations

from belote.rules.actions import Bid, Declare, Play
from belote.rules.auction import PASS
from belote.rules.values import contract_table

from ._view import SeatView

TAKE_THRESHOLD = 40      # trump points held (turned card included in round 1) plus side aces


def choose(view, legal: list, seed: int):
    seat = SeatView(view)
    bids = [a for a in legal if isinstance(a, Bid)]
    if bids:
        return _bid(seat, bids)
    declarations = [a for a in legal if isinstance(a, Declare) and a.kind != "capot_annonce"]
    if declarations:
        return max(declarations, key=lambda d: seat.declaration_points(d))
    table = contract_table(seat.values, seat.contract)
    cards = [a for a in legal if isinstance(a, Play)]
    return min(cards, key=lambda a: (table.points[a.card], table.order[a.card], a.card))


def _bid(seat: SeatView, bids: list[Bid]):
    suits = [b for b in bids if 0 <= b.contract < 4]
    if not suits:
        return Bid(PASS)
    best = max(suits, key=lambda b: seat.trump_strength(b.contract))
    if Bid(PASS) not in bids or seat.trump_strength(best.contract) >= TAKE_THRESHOLD:
        return best
    return Bid(PASS)
