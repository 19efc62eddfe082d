"""Card order and points (SPEC §3), precomputed per (values, contract) for the deal state.

A contract is a suit 0..3 (that suit is trump), ``NO_TRUMP`` (SA) or ``ALL_TRUMP`` (TA).
"""

from __future__ import annotations

from typing import NamedTuple

from .cards import FULL_DECK, RANKS, SUIT_LETTERS, SUIT_MASK, SUIT_NAMES, SUITS

NO_TRUMP, ALL_TRUMP = 4, 5
CONTRACTS = (0, 1, 2, 3, NO_TRUMP, ALL_TRUMP)
CONTRACT_CODES = ("C", "D", "H", "S", "SA", "TA")


def contract_name(contract: int) -> str:
    if contract == NO_TRUMP:
        return "no trump (SA)"
    if contract == ALL_TRUMP:
        return "all trump (TA)"
    return f"{SUIT_NAMES[contract]} trump"


def contract_code(contract: int) -> str:
    return CONTRACT_CODES[contract]


# Per rank 7 8 9 10 J Q K A: position in the order (7 = highest) and points.
_ORDER = {
    ("standard", True): (0, 1, 6, 4, 7, 2, 3, 5),    # J 9 A 10 K Q 8 7
    ("standard", False): (0, 1, 2, 6, 3, 4, 5, 7),   # A 10 K Q J 9 8 7
    ("enhanced", True): (0, 1, 2, 6, 7, 3, 4, 5),    # J 10 A K Q 9 8 7
    ("enhanced", False): (0, 1, 2, 3, 4, 5, 6, 7),   # A K Q J 10 9 8 7
}
_POINTS = {
    ("standard", True): (0, 0, 14, 10, 20, 3, 4, 11),
    ("standard", False): (0, 0, 0, 10, 2, 3, 4, 11),
    ("enhanced", True): (0, 1, 2, 15, 20, 6, 8, 10),
    ("enhanced", False): (0, 1, 2, 3, 4, 6, 8, 10),
}


class ContractTable(NamedTuple):
    """What the deal state looks up for one contract: all tuples indexed by card."""

    contract: int
    trump_mask: int          # every trump card (all cards in TA, none in SA)
    order: tuple             # position of a card in its suit's order, 0..7
    points: tuple            # card points
    higher: tuple            # mask of the cards of the same suit that beat it
    last_trick_bonus: int    # dix de der
    deal_total: int          # trick points of a deal, dix de der included (162/258/130/164)
    capot_points: int        # trick points of a team taking all 8 tricks
    beats: tuple             # mask of the cards that take the trick from it (higher, or a trump)


def _table(values: str, contract: int) -> ContractTable:
    if contract == ALL_TRUMP:
        trump_mask = FULL_DECK
    elif contract == NO_TRUMP:
        trump_mask = 0
    else:
        trump_mask = SUIT_MASK[contract]
    order, points, higher = [], [], []
    for suit in SUITS:
        is_trump = bool(trump_mask & SUIT_MASK[suit])
        o = _ORDER[values, is_trump]
        p = _POINTS[values, is_trump]
        for rank in RANKS:
            order.append(o[rank])
            points.append(p[rank])
            higher.append(sum(1 << (suit * 8 + r) for r in RANKS if o[r] > o[rank]))
    bonus = 0 if values == "enhanced" else 10
    total = sum(points) + bonus
    if values == "enhanced":
        capot = 250
    elif contract == ALL_TRUMP:
        capot = 258
    elif contract == NO_TRUMP:
        capot = 250
    else:
        capot = 252
    beats = tuple(higher[c] | (0 if trump_mask >> c & 1 else trump_mask) for c in range(32))
    return ContractTable(contract, trump_mask, tuple(order), tuple(points), tuple(higher),
                         bonus, total, capot, beats)


TABLES: dict[tuple[str, int], ContractTable] = {
    (values, contract): _table(values, contract)
    for values in ("standard", "enhanced") for contract in CONTRACTS
}


def contract_table(values: str, contract: int) -> ContractTable:
    return TABLES[values, contract]


def suit_from_letter(letter: str) -> int:
    return SUIT_LETTERS.index(letter)
