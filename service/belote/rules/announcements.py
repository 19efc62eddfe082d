"""Announcements (SPEC §6): ``classic`` detected from each hand, ``enhanced`` declared in trick 1."""

from __future__ import annotations

from typing import NamedTuple

from .cards import ACE, JACK, KING, NINE, QUEEN, RANK_NAMES, RANKS, SUIT_NAMES, SUITS, TEN, card_words
from .values import ALL_TRUMP, NO_TRUMP

TIERCE, CINQUANTE, CENT, CARRE = "tierce", "cinquante", "cent", "carre"
COULEUR, QUINTE_FLUSH, CHELEM_COULEUR, CAPOT_ANNONCE = "couleur", "quinte_flush", "chelem_couleur", "capot_annonce"
CLASSIC_KINDS = (TIERCE, CINQUANTE, CENT, CARRE)
ENHANCED_KINDS = (COULEUR, CARRE, QUINTE_FLUSH, CHELEM_COULEUR, CAPOT_ANNONCE)

CLASSIC_CARRE_POINTS = {JACK: 200, NINE: 150, ACE: 100, TEN: 100, KING: 100, QUEEN: 100}
_CARRE_ORDER = {ACE: 4, TEN: 3, KING: 2, QUEEN: 1}          # equal value: A > 10 > K > Q
ENHANCED_POINTS = {COULEUR: 50, CARRE: 100, QUINTE_FLUSH: 150, CHELEM_COULEUR: 200, CAPOT_ANNONCE: 0}
CAPOT_ANNONCE_BONUS = 250


class Announcement(NamedTuple):
    """One announcement. ``rank`` is the carré's rank or a sequence's top card rank."""

    kind: str
    suit: int = -1
    rank: int = -1
    length: int = 0
    points: int = 0
    cards: int = 0          # mask of the cards that make it (0 for capot annoncé)

    def __str__(self) -> str:
        if self.kind == CARRE:
            return f"carré of {RANK_NAMES[self.rank]}s ({self.points})"
        if self.kind == CAPOT_ANNONCE:
            return "capot annoncé"
        if self.kind in (TIERCE, CINQUANTE, CENT, QUINTE_FLUSH):
            top = card_words(self.suit * 8 + self.rank)
            return f"{self.kind.replace('_', ' ')} to {top} ({self.points})"
        return f"{self.kind.replace('_', ' ')} in {SUIT_NAMES[self.suit]} ({self.points})"


def _rank_mask(rank: int) -> int:
    return sum(1 << (s * 8 + rank) for s in SUITS)


def _runs(byte: int) -> tuple[tuple[int, int], ...]:
    """Maximal runs of set bits in a suit's byte: (lowest rank, length)."""
    runs, rank = [], 0
    while rank < 8:
        if byte >> rank & 1:
            start = rank
            while rank < 8 and byte >> rank & 1:
                rank += 1
            runs.append((start, rank - start))
        else:
            rank += 1
    return tuple(runs)


# Looked up for each hand whenever a contract settles: computed once, by rank and by suit byte.
_RANK_MASKS = tuple(_rank_mask(rank) for rank in RANKS)
_RUNS = tuple(_runs(byte) for byte in range(256))


def _sequences(suit: int, byte: int) -> tuple[Announcement, ...]:
    """SPEC §6 classic: each maximal run of 3 or more in one suit's byte is one sequence."""
    found = []
    for low, length in _RUNS[byte]:
        if length >= 3:
            kind, points = (TIERCE, 20) if length == 3 else (CINQUANTE, 50) if length == 4 else (CENT, 100)
            cards = ((1 << length) - 1) << (8 * suit + low)
            found.append(Announcement(kind, suit, low + length - 1, length, points, cards))
    return tuple(found)


# Announcements are immutable: each possible one is built once and looked up (every deal of
# random play and of the bots' searches detects four hands).
_SEQUENCES = tuple(tuple(_sequences(suit, byte) for byte in range(256)) for suit in SUITS)
_CLASSIC_CARRES = tuple((rank, Announcement(CARRE, -1, rank, 4, points, _RANK_MASKS[rank]))
                        for rank, points in CLASSIC_CARRE_POINTS.items())
_CLASSIC_CARRE_RANKS = sum(1 << rank for rank in CLASSIC_CARRE_POINTS)


def classic_announcements(hand: int) -> list[Announcement]:
    """SPEC §6 classic: carrés first, then each maximal run of the rest is one sequence."""
    found = []
    rest = hand
    # The ranks held in all four suits (a rank's cards are 8 bits apart).
    carres = hand & hand >> 8 & hand >> 16 & hand >> 24 & _CLASSIC_CARRE_RANKS
    if carres:
        for rank, carre in _CLASSIC_CARRES:
            if carres >> rank & 1:
                found.append(carre)
                rest &= ~carre.cards
    runs = _SEQUENCES
    return [*found, *runs[0][rest & 0xFF], *runs[1][rest >> 8 & 0xFF], *runs[2][rest >> 16 & 0xFF],
            *runs[3][rest >> 24]]


def announcement_strength(a: Announcement, contract: int) -> tuple:
    """Comparison key of SPEC §6: value, carré over sequence, carré rank, length, top, trump."""
    if a.kind == CARRE:
        return (a.points, 1, _CARRE_ORDER.get(a.rank, 0), 0, 0, 0)
    trump = contract == ALL_TRUMP or (contract != NO_TRUMP and a.suit == contract)
    return (a.points, 0, 0, a.length, a.rank, 1 if trump else 0)


def classic_scoring_team(by_seat: list[list[Announcement]], contract: int) -> int | None:
    """The team holding the single best announcement, or None (none, or a perfect tie)."""
    if not (by_seat[0] or by_seat[1] or by_seat[2] or by_seat[3]):
        return None                # most deals: nobody holds one
    best: list[tuple | None] = [None, None]
    for seat, anns in enumerate(by_seat):
        for a in anns:
            key = announcement_strength(a, contract)
            held = best[seat & 1]
            if held is None or key > held:
                best[seat & 1] = key
    if best[0] is None and best[1] is None:
        return None
    ours, theirs = best
    if theirs is None or (ours is not None and ours > theirs):
        return 0
    if ours is None or theirs > ours:
        return 1
    return None


def enhanced_options(hand: int, capot_available: bool) -> list[Announcement]:
    """SPEC §6 enhanced: what this hand of 8 may declare (one of them, once)."""
    options = []
    for suit in SUITS:
        byte = hand >> (8 * suit) & 0xFF
        count = byte.bit_count()
        if count >= 5:
            options.append(Announcement(COULEUR, suit, -1, count, 50, byte << (8 * suit)))
        for low, length in _RUNS[byte]:
            if length >= 5:
                cards = ((1 << length) - 1) << (8 * suit + low)
                options.append(Announcement(QUINTE_FLUSH, suit, low + length - 1, length, 150, cards))
        if count == 8:
            options.append(Announcement(CHELEM_COULEUR, suit, -1, 8, 200, byte << (8 * suit)))
    for rank in RANKS:
        m = _RANK_MASKS[rank]
        if hand & m == m:
            options.append(Announcement(CARRE, -1, rank, 4, 100, m))
    if capot_available:
        options.append(Announcement(CAPOT_ANNONCE))
    return options


def same_declaration(a: Announcement, kind: str, suit: int, rank: int) -> bool:
    """Does a declaration request (kind, suit or rank) name announcement ``a``?"""
    if a.kind != kind:
        return False
    if kind == CARRE:
        return a.rank == rank
    if kind == CAPOT_ANNONCE:
        return True
    if kind == QUINTE_FLUSH and rank >= 0:
        return a.suit == suit and a.rank == rank       # its top card, when one is named
    return a.suit == suit
