"""What a seat can do: bid, declare an announcement (enhanced), play a card. Small printable values."""

from __future__ import annotations

from typing import NamedTuple, Union

from .auction import PASS, call_name
from .cards import RANK_NAMES, SUIT_NAMES, card_name


class Bid(NamedTuple):
    """A call of the auction: a contract (suit 0..3, NO_TRUMP, ALL_TRUMP) or PASS. A suit call
    takes the turned suit in round 1, names another suit in round 2, and chooses the trump in
    ``Phase.CHOOSING_TRUMP`` (``Game.auction_round`` tells the rounds apart)."""

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
# The Play of each card of a mask, lowest first, in three lookups (cards 0-10, 11-21, 22-31):
# the legal plays of a legal-cards mask, built once per card played.
_PLAY = tuple(Play(card) for card in range(32))


def _plays_of_bits(first: int, count: int) -> tuple[list[Play], ...]:
    return tuple([_PLAY[first + i] for i in range(count) if bits >> i & 1]
                 for bits in range(1 << count))


PLAYS_LOW, PLAYS_MIDDLE, PLAYS_HIGH = _plays_of_bits(0, 11), _plays_of_bits(11, 11), _plays_of_bits(22, 10)
