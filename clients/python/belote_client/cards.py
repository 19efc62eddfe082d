"""Cards, bids and announcements as people write them: ``10♥``, ``pass``, ``tierce to the K♠``.

Also the other way round (:func:`parse_card`: ``"10h"``, ``"KS"``, ``"7♣"``) and a hand sorted
the way a player holds it (:func:`sort_hand`).
"""

from __future__ import annotations

from collections.abc import Iterable

from belote.v1 import cards_pb2 as c

SUIT_SYMBOL = {c.SUIT_CLUBS: "♣", c.SUIT_DIAMONDS: "♦", c.SUIT_HEARTS: "♥", c.SUIT_SPADES: "♠"}
SUIT_NAME = {c.SUIT_CLUBS: "clubs", c.SUIT_DIAMONDS: "diamonds", c.SUIT_HEARTS: "hearts", c.SUIT_SPADES: "spades"}
SUIT_LETTER = {c.SUIT_CLUBS: "C", c.SUIT_DIAMONDS: "D", c.SUIT_HEARTS: "H", c.SUIT_SPADES: "S"}
RED_SUITS = frozenset({c.SUIT_DIAMONDS, c.SUIT_HEARTS})
RANK_TEXT = {c.RANK_SEVEN: "7", c.RANK_EIGHT: "8", c.RANK_NINE: "9", c.RANK_TEN: "10", c.RANK_JACK: "J", c.RANK_QUEEN: "Q",
             c.RANK_KING: "K", c.RANK_ACE: "A"}
RANK_NAME = {c.RANK_SEVEN: "sevens", c.RANK_EIGHT: "eights", c.RANK_NINE: "nines", c.RANK_TEN: "tens",
             c.RANK_JACK: "jacks", c.RANK_QUEEN: "queens", c.RANK_KING: "kings", c.RANK_ACE: "aces"}

CONTRACT_SUIT = {c.CONTRACT_CLUBS: c.SUIT_CLUBS, c.CONTRACT_DIAMONDS: c.SUIT_DIAMONDS,
                 c.CONTRACT_HEARTS: c.SUIT_HEARTS, c.CONTRACT_SPADES: c.SUIT_SPADES}

# Strongest first, with the standard values.
TRUMP_ORDER = (c.RANK_JACK, c.RANK_NINE, c.RANK_ACE, c.RANK_TEN, c.RANK_KING, c.RANK_QUEEN, c.RANK_EIGHT, c.RANK_SEVEN)
PLAIN_ORDER = (c.RANK_ACE, c.RANK_TEN, c.RANK_KING, c.RANK_QUEEN, c.RANK_JACK, c.RANK_NINE, c.RANK_EIGHT, c.RANK_SEVEN)
# Suits in a hand alternate colours: ♠ ♥ ♣ ♦.
HAND_SUIT_ORDER = (c.SUIT_SPADES, c.SUIT_HEARTS, c.SUIT_CLUBS, c.SUIT_DIAMONDS)

_ANNOUNCEMENT_NAME = {
    c.ANNOUNCEMENT_KIND_TIERCE: "tierce", c.ANNOUNCEMENT_KIND_CINQUANTE: "cinquante", c.ANNOUNCEMENT_KIND_CENT: "cent", c.ANNOUNCEMENT_KIND_CARRE: "carré",
    c.ANNOUNCEMENT_KIND_COULEUR: "couleur", c.ANNOUNCEMENT_KIND_QUINTE_FLUSH: "quinte flush", c.ANNOUNCEMENT_KIND_CHELEM_COULEUR: "chelem couleur",
    c.ANNOUNCEMENT_KIND_CAPOT_ANNONCE: "capot announced",
}


def card_text(card: c.Card) -> str:
    """``10♥``, ``K♠``."""
    return f"{RANK_TEXT.get(card.rank, '?')}{SUIT_SYMBOL.get(card.suit, '?')}"


def parse_card(text: str) -> c.Card:
    """``"10h"``, ``"KS"``, ``"7♣"``, ``"qd"`` -> a Card. Raises ValueError."""
    text = text.strip()
    symbols = {v: k for k, v in SUIT_SYMBOL.items()} | {v: k for k, v in SUIT_LETTER.items()}
    suit = symbols.get(text[-1:].upper()) if text else None
    ranks = {v: k for k, v in RANK_TEXT.items()} | {"T": c.RANK_TEN}
    rank = ranks.get(text[:-1].upper())
    if suit is None or rank is None:
        raise ValueError(f"not a card: {text!r} (write it like 10h, KS or 7♣)")
    return c.Card(suit=suit, rank=rank)


def trump_suits(contract: int) -> frozenset[int]:
    """The suits that are trump under ``contract`` (all four in TA, none in SA or before one)."""
    if contract == c.CONTRACT_ALL_TRUMP:
        return frozenset(SUIT_SYMBOL)
    suit = CONTRACT_SUIT.get(contract)
    return frozenset({suit}) if suit else frozenset()


def sort_hand(cards: Iterable[c.Card], contract: int = c.CONTRACT_UNSPECIFIED) -> list[c.Card]:
    """The hand as a player holds it: suits grouped, alternating colours, the trump suit first;
    in each suit the strongest card first (trump order J 9 A 10 K Q 8 7 in a trump suit)."""
    trumps = trump_suits(contract)

    def key(card: c.Card) -> tuple[int, int, int]:
        order = TRUMP_ORDER if card.suit in trumps else PLAIN_ORDER
        first = 0 if (card.suit in trumps and len(trumps) == 1) else 1
        return first, HAND_SUIT_ORDER.index(card.suit), order.index(card.rank)

    return sorted(cards, key=key)


def contract_text(contract: int) -> str:
    """``♥ hearts``, ``SA (no trump)``, ``TA (all trump)``."""
    if contract in CONTRACT_SUIT:
        suit = CONTRACT_SUIT[contract]
        return f"{SUIT_SYMBOL[suit]} {SUIT_NAME[suit]}"
    return {c.CONTRACT_NO_TRUMP: "SA (no trump)", c.CONTRACT_ALL_TRUMP: "TA (all trump)"}.get(
        contract, "no contract")


def bid_text(bid: c.Bid) -> str:
    return "pass" if bid.passed else contract_text(bid.contract)


def announcement_text(a: c.Announcement) -> str:
    """``tierce to the K♥ (20)``, ``carré of jacks (200)``, ``couleur of 6 ♠ (50)``."""
    name = _ANNOUNCEMENT_NAME.get(a.kind, "announcement")
    if a.kind == c.ANNOUNCEMENT_KIND_CARRE:
        text = f"{name} of {RANK_NAME.get(a.rank, '?')}"
    elif a.kind in (c.ANNOUNCEMENT_KIND_TIERCE, c.ANNOUNCEMENT_KIND_CINQUANTE, c.ANNOUNCEMENT_KIND_CENT, c.ANNOUNCEMENT_KIND_QUINTE_FLUSH):
        text = f"{name} to the {RANK_TEXT.get(a.top, '?')}{SUIT_SYMBOL.get(a.suit, '?')}"
        if a.length > 3 and a.kind != c.ANNOUNCEMENT_KIND_TIERCE:
            text += f" ({a.length} cards)"
    elif a.kind in (c.ANNOUNCEMENT_KIND_COULEUR, c.ANNOUNCEMENT_KIND_CHELEM_COULEUR):
        text = f"{name} of {a.length} {SUIT_SYMBOL.get(a.suit, '?')}"
    else:
        text = name
    return f"{text} ({a.points})" if a.points else text


def action_text(action: c.Action) -> str:
    """A card, a bid or an announcement, as :func:`card_text`, :func:`bid_text` or
    :func:`announcement_text` write it."""
    kind = action.WhichOneof("action")
    if kind == "card":
        return card_text(action.card)
    if kind == "bid":
        return bid_text(action.bid)
    if kind == "announce":
        return "announce " + announcement_text(action.announce)
    return "nothing"


def card_action(card: c.Card) -> c.Action:
    return c.Action(card=card)


def bid_action(contract: int | None) -> c.Action:
    """A bid: ``None`` for a pass, else the contract (``cards_pb2.CONTRACT_HEARTS``...)."""
    if contract is None:
        return c.Action(bid=c.Bid(passed=True))
    return c.Action(bid=c.Bid(contract=contract))
