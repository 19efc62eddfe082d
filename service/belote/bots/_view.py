"""What a bot reads from its seat's table view (a belote.v1.Table), as the rules' small values."""

from __future__ import annotations

from belote.rules.announcements import ENHANCED_POINTS
from belote.rules.cards import ACE, card_suit
from belote.rules.values import contract_table


class SeatView:
    def __init__(self, view):
        self.view = view
        game = view.game
        self.seat = view.your_seat
        self.values = view.options.get("values", "standard")
        self.hand = [(c.suit - 1) * 8 + c.rank - 1 for c in game.your_hand]
        self.contract = game.contract - 1 if game.contract else -1
        self.turned = ((game.turned_card.suit - 1) * 8 + game.turned_card.rank - 1
                       if game.turned_card.suit else -1)
        self.round_one = len(game.bids) < 4

    def trump_strength(self, suit: int) -> int:
        """Points of the hand's trumps with ``suit`` as trump, plus 11 per side ace."""
        table = contract_table(self.values, suit)
        cards = list(self.hand)
        if self.round_one and self.turned >= 0 and card_suit(self.turned) == suit:
            cards.append(self.turned)
        return sum(table.points[c] if card_suit(c) == suit else (11 if c & 7 == ACE else 0)
                   for c in cards)

    def declaration_points(self, declaration) -> int:
        return ENHANCED_POINTS[declaration.kind]
