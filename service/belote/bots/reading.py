"""Reading the table from a seat's view: what has been played, who wins the trick, which cards
are masters. Shared by the normal and hard bots; everything is a mask or a card int.

Only the view is read, so nothing here can know more than the seat does.
"""

from __future__ import annotations

from belote.rules.actions import Bid, Declare, Play
from belote.rules.cards import FULL_DECK, SUIT_MASK
from belote.rules.values import ContractTable, contract_table


def legal_cards(view) -> int:
    """Mask of the cards the seat may play now (0 during the auction)."""
    mask = 0
    for a in view.legal:
        if isinstance(a, Play):
            mask |= 1 << a.card
    return mask


def legal_bids(view) -> list[Bid]:
    return [a for a in view.legal if isinstance(a, Bid)]


def legal_declarations(view) -> list[Declare]:
    return [a for a in view.legal if isinstance(a, Declare)]


def table_of(view) -> ContractTable:
    return contract_table(view.rules.values, view.contract)


def played_mask(view) -> int:
    """Every card played so far in this deal, the current trick included."""
    mask = 0
    for _leader, cards, _winner, _points in view.tricks:
        for c in cards:
            mask |= 1 << c
    for c in view.trick:
        mask |= 1 << c
    return mask


def unseen_mask(view) -> int:
    """Cards the seat has not seen: neither in its hand nor played (the others hold them)."""
    return FULL_DECK & ~played_mask(view) & ~view.hand


def beats(card: int, best: int, table: ContractTable) -> bool:
    """Does ``card`` beat ``best``, the card winning the trick (SPEC §4 trick winner)?"""
    if card >> 3 == best >> 3:
        return table.order[card] > table.order[best]
    return bool((1 << card) & table.trump_mask) and not (1 << best) & table.trump_mask


def trick_winner(cards, leader: int, table: ContractTable) -> tuple[int, int]:
    """(card, seat) winning a trick in progress; (-1, -1) for an empty trick."""
    best, best_seat = -1, -1
    for i, c in enumerate(cards):
        if best < 0 or beats(c, best, table):
            best, best_seat = c, (leader + i) & 3
    return best, best_seat


def masters_in(cards: int, unseen: int, higher: tuple) -> int:
    """The cards of ``cards`` that no unseen card of their suit beats (``higher``: per card,
    the cards of its suit above it). A plain master can still be trumped."""
    out = 0
    m = cards
    while m:
        low = m & -m
        m ^= low
        if not higher[low.bit_length() - 1] & unseen:
            out |= low
    return out


def lowest(cards: int, key: tuple) -> int:
    """The card of ``cards`` with the smallest ``key[card]`` (the lowest card on a tie), or -1."""
    best, best_key = -1, _NO_KEY
    while cards:
        low = cards & -cards
        cards ^= low
        c = low.bit_length() - 1
        if key[c] < best_key:
            best, best_key = c, key[c]
    return best


def highest(cards: int, key: tuple) -> int:
    """The card of ``cards`` with the largest ``key[card]`` (the lowest card on a tie), or -1."""
    best, best_key = -1, -_NO_KEY
    while cards:
        low = cards & -cards
        cards ^= low
        c = low.bit_length() - 1
        if key[c] > best_key:
            best, best_key = c, key[c]
    return best


_NO_KEY = 1 << 62       # beyond every key


def tricks_so_far(view) -> list[tuple[int, tuple]]:
    """(leader, cards) of each trick of the deal, the one in progress last if it has begun."""
    tricks = [(leader, cards) for leader, cards, _w, _p in view.tricks]
    if view.trick:
        tricks.append((view.trick_leader, view.trick))
    return tricks


def played_so_far(view) -> tuple[list[int], list[int]]:
    """The cards each seat has played this deal, and every card in the order played."""
    played_by = [0, 0, 0, 0]
    order = []
    for leader, cards in tricks_so_far(view):
        for i, c in enumerate(cards):
            played_by[(leader + i) & 3] |= 1 << c
            order.append(c)
    return played_by, order


def voids_shown(view, table: ContractTable) -> dict[int, int]:
    """Per seat, the mask of suits (as card masks) it failed to follow: it holds none of them.

    The plain memory of "who did not follow", without the finer trump inferences of the hard bot.
    """
    voids = {0: 0, 1: 0, 2: 0, 3: 0}
    for leader, cards in tricks_so_far(view):
        led = cards[0] >> 3
        for i, c in enumerate(cards[1:], 1):
            if c >> 3 != led:
                voids[(leader + i) & 3] |= SUIT_MASK[led]
    return voids
