"""Cards as small ints, hands as 32-bit masks.

A card is ``suit * 8 + rank`` with suits C D H S (0..3) and ranks in natural order
7 8 9 10 J Q K A (0..7), so a suit is one byte of a hand mask and a run of ranks is a
run of bits. Everything here is a plain int so the deal state stays fast.
"""

from __future__ import annotations

import secrets
from collections.abc import Iterable

CLUBS, DIAMONDS, HEARTS, SPADES = 0, 1, 2, 3
SUITS = (CLUBS, DIAMONDS, HEARTS, SPADES)
SUIT_LETTERS = "CDHS"
SUIT_NAMES = ("clubs", "diamonds", "hearts", "spades")

SEVEN, EIGHT, NINE, TEN, JACK, QUEEN, KING, ACE = range(8)
RANKS = (SEVEN, EIGHT, NINE, TEN, JACK, QUEEN, KING, ACE)
RANK_LETTERS = ("7", "8", "9", "10", "J", "Q", "K", "A")
RANK_NAMES = ("7", "8", "9", "10", "jack", "queen", "king", "ace")

FULL_DECK = (1 << 32) - 1
SUIT_MASK = tuple(0xFF << (8 * s) for s in SUITS)


def make_card(suit: int, rank: int) -> int:
    return suit * 8 + rank


def card_suit(card: int) -> int:
    return card >> 3


def card_rank(card: int) -> int:
    return card & 7


def card_name(card: int) -> str:
    """Short name: ``"10H"``, ``"JS"``, ``"7C"``."""
    return RANK_LETTERS[card & 7] + SUIT_LETTERS[card >> 3]


def card_words(card: int) -> str:
    """Name a player reads: ``"the 10 of hearts"``, ``"the jack of spades"``."""
    return f"the {RANK_NAMES[card & 7]} of {SUIT_NAMES[card >> 3]}"


def parse_card(text: str) -> int:
    """Parse ``"10H"``, ``"TH"``, ``"jh"``; raise ValueError naming the expected form."""
    t = text.strip().upper()
    if len(t) >= 2 and t[-1] in SUIT_LETTERS:
        rank_text = "10" if t[:-1] == "T" else t[:-1]
        if rank_text in RANK_LETTERS:
            return make_card(SUIT_LETTERS.index(t[-1]), RANK_LETTERS.index(rank_text))
    raise ValueError(f"not a card: {text!r} (expected rank 7 8 9 10 J Q K A then suit C D H S, e.g. 10H)")


def cards_of(mask: int) -> list[int]:
    """The cards of a mask, lowest first."""
    out = []
    while mask:
        low = mask & -mask
        out.append(low.bit_length() - 1)
        mask ^= low
    return out


def mask_of(cards: Iterable[int]) -> int:
    m = 0
    for c in cards:
        m |= 1 << c
    return m


def hand_names(mask: int) -> str:
    return " ".join(card_name(c) for c in cards_of(mask))


def shuffled_deck(rng=None) -> list[int]:
    """A deck order top to bottom. Default source: the OS's cryptographic one (``secrets``)."""
    deck = list(range(32))
    (rng or secrets.SystemRandom()).shuffle(deck)
    return deck
