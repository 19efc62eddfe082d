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
    """An enhanced announcement: kind, with the suit (couleur, quinte, chelem) and the rank of
    a carré or of a quinte's top card (a quinte may leave it -1: its suit names it)."""

    kind: str
    suit: int = -1
    rank: int = -1

    def __str__(self) -> str:
        what = self.kind.replace("_", " ")
        if self.suit >= 0:
            what += f" in {SUIT_NAMES[self.suit]}"
        if self.rank >= 0:
            what += f" of {RANK_NAMES[self.rank]}s" if self.kind == "carre" else f" to the {RANK_NAMES[self.rank]}"
        return f"declare {what}"


class Play(NamedTuple):
    """Play a card."""

    card: int

    def __str__(self) -> str:
        return f"play {card_name(self.card)}"


Action = Union[Bid, Declare, Play]
PASS_BID = Bid(PASS)

BIDS = {call: Bid(call) for call in (PASS, 0, 1, 2, 3, 4, 5)}
# PLAYS[suit][byte]: the Play of each card of that suit in the byte, lowest first, so the legal
# plays of a mask are four lookups.
_PLAY = tuple(Play(card) for card in range(32))
PLAYS = tuple(tuple([_PLAY[suit * 8 + rank] for rank in range(8) if byte >> rank & 1]
                    for byte in range(256)) for suit in range(4))
