"""What a seat can do: bid, declare an announcement (enhanced), play a card. Small printable values."""

from __future__ import annotations

from typing import NamedTuple, Union

from .auction import PASS, call_name
from .cards import RANK_NAMES, SUIT_NAMES, card_name


class Bid(NamedTuple):
    """A call of the auction: a contract (suit 0..3, NO_TRUMP, ALL_TRUMP) or PASS."""

    contract: int

    def __str__(self) -> str:
        return "pass" if self.contract == PASS else f"bid {call_name(self.contract)}"


class Declare(NamedTuple):
    """An enhanced announcement: kind, with the suit (couleur, quinte, chelem) or rank (carré)."""

    kind: str
    suit: int = -1
    rank: int = -1

    def __str__(self) -> str:
        what = self.kind.replace("_", " ")
        if self.suit >= 0:
            what += f" in {SUIT_NAMES[self.suit]}"
        if self.rank >= 0:
            what += f" of {RANK_NAMES[self.rank]}s"
        return f"declare {what}"


class Play(NamedTuple):
    """Play a card."""

    card: int

    def __str__(self) -> str:
        return f"play {card_name(self.card)}"


Action = Union[Bid, Declare, Play]
PASS_BID = Bid(PASS)
