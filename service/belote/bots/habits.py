"""What the others' plays show beyond the rules (hard bot from version 3): what was called
aloud, and what a player's habits say of the cards it kept.

- **Belote** (SPEC §5) is called aloud as the king or queen of trump is played: the seat that
  called holds the other card; a seat that played one of them without a call never held both.
- **Habits** of a rules-of-thumb player (the normal bot's, and most club players'): cash a
  master nobody can ruff before any other lead; the taker draws trumps while it holds the
  master trump; the taker's partner leads a trump before any side card while it holds one;
  second and third hands take an opponents' trick with the master of the suit when they hold
  it, and the last hand with any card that beats it; a ruff is made with the smallest trump
  that wins; the last hand on its partner's trick gives the richest card of the suit it can
  spare. A play against a habit makes the card it would have played unlikely (odds
  :data:`AGAINST_HABIT`), not impossible: players, and the hard bot's own searched plays,
  do not always follow them.
"""

from __future__ import annotations

from belote.rules.cards import FULL_DECK, KING, QUEEN, SUIT_MASK
from belote.rules.values import ALL_TRUMP, NO_TRUMP, ContractTable

from .reading import highest, tricks_so_far

# How much less likely a card is in a hand whose play went against a habit that would have
# played it (duplicate matches against the normal bot: 0.1 and 0.35 were within noise of it).
AGAINST_HABIT = 0.2


def belote_placed(view, unseen: int) -> tuple[list[int], list[int]]:
    """Per seat: the unseen trump king or queen it surely holds (it called belote with the other),
    and the one it cannot hold (it played the other without a call)."""
    holds, lacks = [0, 0, 0, 0], [0, 0, 0, 0]
    contract = view.contract
    if contract < 0 or contract == NO_TRUMP:
        return holds, lacks
    played_by = {card: seat for seat, card in _plays(view)}
    callers = {card: seat for seat, card, _call in view.belote_calls}
    king_first = view.rules.belote_order == "king_first"
    for suit in range(4) if contract == ALL_TRUMP else (contract,):
        king, queen = suit * 8 + KING, suit * 8 + QUEEN
        for card, other in ((king, queen), (queen, king)):
            seat = played_by.get(card)
            if seat is None or seat == view.seat or not unseen >> other & 1:
                continue
            if callers.get(card) == seat:
                holds[seat] |= 1 << other
            elif not king_first or card == king:    # king first: a queen led first calls nothing
                lacks[seat] |= 1 << other
    return holds, lacks


def habit_odds(view, table: ContractTable, unseen: int) -> dict[tuple[int, int], float]:
    """(seat, card) -> odds, for each unseen card a seat's play against a habit says it lacks."""
    odds: dict[tuple[int, int], float] = {}

    def unlikely(seat: int, cards: int) -> None:
        cards &= unseen
        if seat == view.seat:
            return
        while cards:
            low = cards & -cards
            cards ^= low
            key = (seat, low.bit_length() - 1)
            odds[key] = odds.get(key, 1.0) * AGAINST_HABIT

    tm, order, higher, points = table.trump_mask, table.order, table.higher, table.points
    suit_contract = 0 <= view.contract < 4
    played = 0                  # cards played before the trick being read
    voids = [0, 0, 0, 0]        # suits each seat has shown it lacks
    trump_led_by = [False] * 4
    for leader, cards in tricks_so_far(view):
        lead = cards[0]
        if suit_contract and not (1 << lead) & tm:
            _read_side_lead(view, leader, lead, played, voids, trump_led_by, table, unlikely)
        if (1 << lead) & tm:
            trump_led_by[leader] = True
        led = SUIT_MASK[lead >> 3]
        best, best_seat = lead, leader
        before = played | 1 << lead            # played before this card
        for i, c in enumerate(cards[1:], 1):
            seat = (leader + i) & 3
            bit = 1 << c
            wins = (c >> 3 == best >> 3 and order[c] > order[best]) or bool(
                bit & tm and not (1 << best) & tm)
            opponents_trick = best_seat != seat ^ 2
            if not bit & led:
                voids[seat] |= led
            # Let a plain trick of the opponents go: no card that takes it for sure.
            if opponents_trick and not wins and bit & led and not led & tm and not (1 << best) & tm:
                if i == 3:
                    unlikely(seat, led & higher[best])              # any card that beat it
                else:
                    top = highest(led & ~before, order)
                    if top >= 0 and order[top] > order[best]:
                        unlikely(seat, 1 << top)                    # the suit's master
            # Ruffed the opponents' trick: with the smallest trump that wins.
            if (opponents_trick and wins and bit & tm and not bit & led
                    and tm != FULL_DECK):
                smaller = tm & ~higher[c] & ~bit                    # trumps below the ruff...
                if (1 << best) & tm:
                    smaller &= higher[best]                         # ...that would also win
                unlikely(seat, smaller)
            # Last on the partner's trick: gave the richest card of the suit it could spare.
            if i == 3 and not opponents_trick and bit & led and not bit & tm:
                richer = 0
                m = led & ~tm & ~before
                while m:
                    low = m & -m
                    m ^= low
                    x = low.bit_length() - 1
                    if points[x] > points[c] and higher[x] & ~before & ~bit:   # not a master
                        richer |= low
                unlikely(seat, richer)
            if wins:
                best, best_seat = c, seat
            before |= bit
        played = before
    return odds


def _read_side_lead(view, leader: int, lead: int, played: int, voids: list[int],
                    trump_led_by: list[bool], table: ContractTable, unlikely) -> None:
    """A side card led in a suit contract: no master trump (the taker) or no trump at all (the
    taker's partner, before its first trump lead) while trumps are out; no safe master if the
    card led was none."""
    tm, order = table.trump_mask, table.order
    trumps_out = tm & ~played
    if trumps_out and leader == view.taker:
        top = highest(tm & ~played, order)
        if top >= 0:
            unlikely(leader, 1 << top)
    if trumps_out and leader == view.taker ^ 2 and not trump_led_by[leader]:
        unlikely(leader, tm)
    if highest(SUIT_MASK[lead >> 3] & ~played, order) == lead:
        return                                  # it cashed a master
    opponents = ((leader + 1) & 3, (leader + 3) & 3)
    for suit in range(4):
        suit_mask = SUIT_MASK[suit]
        if suit_mask & tm or (trumps_out and any(voids[o] & suit_mask for o in opponents)):
            continue                            # a master there could be ruffed: not safe
        top = highest(suit_mask & ~played, order)
        if top >= 0:
            unlikely(leader, 1 << top)


def _plays(view):
    for leader, cards in tricks_so_far(view):
        for i, c in enumerate(cards):
            yield (leader + i) & 3, c
