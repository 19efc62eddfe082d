"""Hand evaluation per contract type (sheet 001: the normal bot "bids from a hand evaluation").

A strength is a rough count of the points the hand brings if it takes ``contract``, on one
scale for every contract: the taker's cards are its hand plus the turned card (it receives it
in either round). The thresholds are measured, not guessed: deals where a seat was made to
take, played out by normal bots, break even at about these strengths (in every preset's
values), and duplicate matches of nearby thresholds confirmed them. A linear fit of the deal
result on richer hand features chose no better contracts.
"""

from __future__ import annotations

from belote.rules.actions import Bid
from belote.rules.auction import PASS, bid_rank
from belote.rules.cards import SUIT_MASK
from belote.rules.values import ALL_TRUMP, NO_TRUMP, contract_table

# Value of a trump by its place in the trump order (index 7 = the highest: J in both scales).
TRUMP_BY_ORDER = (6, 6, 7, 8, 12, 14, 22, 30)
TOP_PLAIN = 12              # a side ace (standard) or the side suit's top card
SECOND_PLAIN_WITH_TOP = 8   # its second card (10 in standard) behind the top
SECOND_PLAIN_GUARDED = 3    # the second card guarded by another small card
BELOTE_BONUS = 20           # K+Q of trump: 20 points that stay with the team
SHORT_SUIT_BONUS = (8, 4)   # a void / a singleton beside 3+ trumps: tricks to trump

# Take when strength >= threshold (per contract kind: suit, SA, TA). See the module doc.
THRESHOLD = {"suit": 54, "sa": 48, "ta": 58}


def contract_kind(contract: int) -> str:
    return "sa" if contract == NO_TRUMP else "ta" if contract == ALL_TRUMP else "suit"


def taker_cards(view) -> int:
    """The cards the seat would hold as taker and already knows: hand + turned card."""
    if view.turned_card >= 0:
        return view.hand | (1 << view.turned_card)
    return view.hand


def strength(cards: int, contract: int, values: str = "standard",
             belote_counts: bool = True) -> int:
    """How good ``cards`` are for taking ``contract`` (a suit, SA or TA)."""
    table = contract_table(values, contract)
    total = 0
    trumps = 0
    for suit in range(4):
        mine = cards & SUIT_MASK[suit]
        if not mine:
            continue
        in_suit = sorted((c for c in range(suit * 8, suit * 8 + 8) if mine >> c & 1),
                         key=lambda c: -table.order[c])
        if table.trump_mask & SUIT_MASK[suit]:
            trumps += len(in_suit) if contract != ALL_TRUMP else 0
            total += _trump_suit_value(in_suit, table, contract)
            if belote_counts and contract != NO_TRUMP:
                kq = (1 << (suit * 8 + 6)) | (1 << (suit * 8 + 5))
                if mine & kq == kq:
                    total += BELOTE_BONUS
        else:
            total += _plain_suit_value(in_suit, table, contract)
    if 0 <= contract < 4 and trumps >= 3:
        for suit in range(4):
            if suit != contract:
                n = (cards & SUIT_MASK[suit]).bit_count()
                if n < 2:
                    total += SHORT_SUIT_BONUS[n]
    return total


def _trump_suit_value(in_suit: list[int], table, contract: int) -> int:
    if contract == ALL_TRUMP:
        # TA: only the top of each suit takes tricks; the jack, and the 9 behind it.
        value = 0
        orders = [table.order[c] for c in in_suit]
        if 7 in orders:
            value += 26
            if 6 in orders:
                value += 14
        elif 6 in orders and len(in_suit) >= 2:
            value += 8
        return value + 3 * max(0, len(in_suit) - 2)
    return sum(TRUMP_BY_ORDER[table.order[c]] for c in in_suit)


def _plain_suit_value(in_suit: list[int], table, contract: int) -> int:
    orders = [table.order[c] for c in in_suit]
    value = 0
    if 7 in orders:
        value += TOP_PLAIN
        if 6 in orders:
            value += SECOND_PLAIN_WITH_TOP
    elif 6 in orders and len(in_suit) >= 2:
        value += SECOND_PLAIN_GUARDED
    if contract == NO_TRUMP:
        # SA: aces are the tricks, and a long suit headed by A-10 runs.
        value = value * 3 // 2
        if 7 in orders and 6 in orders:
            value += 5 * max(0, len(in_suit) - 3)
    return value


def bid_margin(view, contract: int) -> int:
    """Strength above (positive) or below the threshold of taking ``contract``."""
    rules = view.rules
    strength_now = strength(taker_cards(view), contract, rules.values, rules.belote_in_contract)
    return strength_now - THRESHOLD[contract_kind(contract)]


def choose_bid(view, bids: list[Bid], margin=bid_margin) -> Bid:
    """The best contract whose margin is >= 0, else pass; a forced take names the best suit.

    Over a partner's standing bid, a higher bid needs a clearly better hand (its margin must
    beat the partner's contract as if we held it).
    """
    offers = [b for b in bids if b.contract != PASS]
    if not offers:
        return Bid(PASS)
    scored = sorted(((margin(view, b.contract), bid_rank(b.contract), b) for b in offers),
                    key=lambda t: (t[0], t[1]), reverse=True)
    best_margin, _, best = scored[0]
    if Bid(PASS) not in bids:
        return best                     # forced take (Belgian): the best suit, whatever it is
    standing = [(s, c) for s, c in view.bids if c != PASS]
    if standing and standing[-1][0] == view.seat ^ 2 and best_margin < 20:
        return Bid(PASS)            # leave the partner's contract alone
    return best if best_margin >= 0 else Bid(PASS)
