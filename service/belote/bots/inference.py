"""Where the unseen cards can be (sheet 001: the hard bot "mémorise les cartes jouées, déduit
les coupes et évalue la probabilité de chaque carte restante").

From a seat's view only:
- every card played is remembered, so the unseen cards are the others' hands;
- failing to follow a suit shows a void; failing to trump, to overtrump or to go higher when
  the rules (SPEC §4) would have forced it shows that the seat holds no trump, or no trump (or
  card of the led suit, in TA) above the one winning the trick;
- the taker holds the turned card; shown announcements place their cards (a couleur only
  tells how many cards of its suit the seat had);
- the auction weighs the odds: a bidder is likely to hold the top cards of its contract;
- from version 3 of the hard bot, belote calls and the players' habits (:mod:`habits`).
:meth:`Knowledge.sample` deals the unseen cards at random among the other seats, consistently
with all of that (each card weighted by those odds), from a ``random.Random`` it is given.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field

from belote.rules.announcements import CARRE, CHELEM_COULEUR, COULEUR, QUINTE_FLUSH
from belote.rules.cards import ACE, FULL_DECK, JACK, NINE, SUIT_MASK, cards_of
from belote.rules.play import FREE, PLAY_RULES
from belote.rules.values import ALL_TRUMP, NO_TRUMP, contract_table

from .habits import belote_placed, habit_odds
from .reading import played_so_far, table_of, tricks_so_far

# Odds from the auction: how much likelier a card is in the bidder's hand than in another
# unseen hand, measured on normal bots' auctions (a taker of hearts holds the unseen jack of
# hearts 4.5 times as often as another seat does). Indexed by the card's place in the trump
# order, 7 = the highest (J). A pass showed no measurable odds, so it weighs nothing.
TAKER_TRUMP_ODDS = (1.3, 1.3, 1.7, 1.7, 1.7, 1.9, 2.6, 4.5)
# A seat that gave a card to the opponents' trick seldom kept a cheaper one it could have given.
CHEAPER_CARD_KEPT_ODDS = 0.3
SA_TAKER_ACE = 4.7            # aces with the SA taker
TA_TAKER_JACK, TA_TAKER_NINE = 4.5, 1.3


@dataclass
class Knowledge:
    """What one seat knows of the other hands, now."""

    seat: int
    hand: int
    unseen: int                             # cards the other three hold between them
    counts: list[int]                       # cards each seat holds now
    possible: list[int]                     # per seat: unseen cards it may hold
    known: list[int]                        # per seat: unseen cards it surely holds
    suit_counts: list[tuple[int, int, int]] = field(default_factory=list)  # (seat, suit, n) exact
    weights: dict[tuple[int, int], float] = field(default_factory=dict)  # (seat, card) -> odds
    _seats: tuple | None = field(default=None, init=False, repr=False, compare=False)

    def sample(self, rng: random.Random) -> list[int]:
        """Four hands: the seat's own and a random consistent deal of the unseen cards."""
        for _attempt in range(40):
            hands = self._try_sample(rng)
            if hands is not None:
                return hands
        return self._any_consistent_deal()

    def _try_sample(self, rng: random.Random) -> list[int] | None:
        hands = self.known[:]
        hands[self.seat] = self.hand
        need = [self.counts[s] - self.known[s].bit_count() for s in range(4)]
        need[self.seat] = 0
        placed = hands[0] | hands[1] | hands[2] | hands[3]
        possible = self.possible[:]
        # A couleur: exactly n more cards of that suit, then none.
        for s, suit, n in self.suit_counts:
            pool = cards_of(possible[s] & SUIT_MASK[suit] & ~placed)
            extra = n - (hands[s] & SUIT_MASK[suit]).bit_count()
            if extra < 0 or extra > len(pool) or extra > need[s]:
                return None
            for c in rng.sample(pool, extra):
                hands[s] |= 1 << c
                placed |= 1 << c
            need[s] -= extra
            possible[s] &= ~SUIT_MASK[suit]
        seats_of, nseats = self._seats_of_card()
        cards = cards_of(self.unseen & ~placed)
        rng.shuffle(cards)
        cards.sort(key=nseats.__getitem__)
        for c in cards:
            choice = seats_of[c]
            if len(choice) == 1:
                s, _odds = choice[0]
                if not need[s]:
                    return None
            else:
                seats = [(s, w) for s, w in choice if need[s]]
                if not seats:
                    return None
                if len(seats) == 1:
                    s = seats[0][0]
                else:
                    odds = [need[s] * w for s, w in seats]
                    x = rng.random() * sum(odds)
                    s = seats[-1][0]
                    for (seat, _w), o in zip(seats, odds):
                        x -= o
                        if x < 0:
                            s = seat
                            break
            hands[s] |= 1 << c
            need[s] -= 1
        return hands

    def _seats_of_card(self):
        """Per card: the (seat, odds) that may hold it once the couleurs are placed, and how
        many such seats (the order cards are dealt in). The same for every sample."""
        got = self._seats
        if got is None:
            possible = self.possible[:]
            for s, suit, _n in self.suit_counts:
                possible[s] &= ~SUIT_MASK[suit]
            others = [s for s in range(4) if s != self.seat]
            weights = self.weights
            seats_of = [tuple((s, weights.get((s, c), 1.0)) for s in others if possible[s] >> c & 1)
                        for c in range(32)]
            got = self._seats = (seats_of, [len(t) for t in seats_of])
        return got

    def _any_consistent_deal(self) -> list[int]:
        """A deal that fits every constraint, found by augmenting paths (never fails when the
        knowledge is right: the real deal fits)."""
        hands = self.known[:]
        hands[self.seat] = self.hand
        need = [self.counts[s] - self.known[s].bit_count() for s in range(4)]
        need[self.seat] = 0
        slots = [s for s in range(4) for _ in range(max(0, need[s]))]
        cards = cards_of(self.unseen & ~(hands[0] | hands[1] | hands[2] | hands[3]))
        owner: dict[int, int] = {}          # slot index -> card

        def place(card, seen):
            for i, s in enumerate(slots):
                if i in seen or not self.possible[s] >> card & 1:
                    continue
                seen.add(i)
                if i not in owner or place(owner[i], seen):
                    owner[i] = card
                    return True
            return False

        for c in cards:
            place(c, set())
        for i, c in owner.items():
            hands[slots[i]] |= 1 << c
        return hands


def read_knowledge(view, habits: bool = False) -> Knowledge:
    """Everything the seat can deduce about the other hands from its view; with ``habits``,
    also from the belote calls and the players' habits (:mod:`habits`)."""
    seat = view.seat
    played_by, _order = played_so_far(view)
    played = played_by[0] | played_by[1] | played_by[2] | played_by[3]
    unseen = FULL_DECK & ~played & ~view.hand
    counts = [8 - played_by[s].bit_count() for s in range(4)]
    possible = [unseen] * 4
    possible[seat] = 0
    if view.contract >= 0:                      # the play has started
        for s, no in _cards_ruled_out(view, table_of(view)).items():
            possible[s] &= ~no
    known = [0, 0, 0, 0]
    suit_counts = []
    if view.taker >= 0 and view.turned_card >= 0 and unseen >> view.turned_card & 1:
        known[view.taker] |= 1 << view.turned_card
    for s, a in view.announcements:
        if s == seat:
            continue
        cards = announced_cards(a, view.rules.announcements)
        known[s] |= cards & unseen
        if a.kind == COULEUR and view.rules.announcements == "enhanced":
            n = a.length - (played_by[s] & SUIT_MASK[a.suit]).bit_count()
            suit_counts.append((s, a.suit, n))
    if habits:
        holds, lacks = belote_placed(view, unseen)
        for s in range(4):
            known[s] |= holds[s]
            possible[s] &= ~lacks[s]
    for s in range(4):
        if s != seat:
            for other in range(4):
                if other != s:
                    possible[s] &= ~known[other]
            possible[s] &= ~known[s]
    known[seat] = 0
    odds = auction_odds(view, unseen)
    if view.contract >= 0:
        for key, factor in play_odds(view, table_of(view), unseen).items():
            odds[key] = odds.get(key, 1.0) * factor
        if habits:
            for key, factor in habit_odds(view, table_of(view), unseen).items():
                odds[key] = odds.get(key, 1.0) * factor
    return Knowledge(seat, view.hand, unseen, counts, possible, known, suit_counts, odds)


def announced_cards(a, style: str) -> int:
    """The cards an announcement shows to everybody (SPEC §6).

    Classic announcements are shown with their cards. An enhanced one is shown by kind, suit,
    rank or top and length only, so the cards are rebuilt from those: a couleur shows none.
    """
    if style == "classic":
        return a.cards
    if a.kind == CARRE:
        return sum(1 << (s * 8 + a.rank) for s in range(4))
    if a.kind == CHELEM_COULEUR:
        return SUIT_MASK[a.suit]
    if a.kind == QUINTE_FLUSH:
        low = a.rank - a.length + 1
        return ((1 << a.length) - 1) << (a.suit * 8 + low)
    return 0


def _cards_ruled_out(view, table) -> dict[int, int]:
    """Per seat, the unseen cards its past plays prove it does not hold (SPEC §4)."""
    rule = PLAY_RULES[view.rules.play]
    undertrump_required = view.rules.undertrump == "required"
    tm = table.trump_mask
    out = {0: 0, 1: 0, 2: 0, 3: 0}
    for seat, c, led, best, best_seat in _followed_plays(view, table):
        bit = 1 << c
        followed = bool(bit & led)
        if not followed:
            out[seat] |= led                                  # void in the led suit
        if rule != FREE and tm:
            if followed and led & tm and table.order[c] < table.order[best] \
                    and best >> 3 == c >> 3:
                out[seat] |= table.higher[best]               # could not go higher
            elif not followed and tm != FULL_DECK and best_seat != seat ^ 2:
                best_is_trump = (1 << best) & tm
                if not bit & tm:
                    # Did not trump though an opponent held the trick.
                    if not best_is_trump or undertrump_required:
                        out[seat] |= tm
                    else:
                        out[seat] |= table.higher[best]
                elif best_is_trump and table.order[c] < table.order[best]:
                    out[seat] |= table.higher[best]           # undertrumped: no higher one
    return out


def _followed_plays(view, table):
    """Every card played after a trick's lead, in order, as (seat, card, led suit mask, the
    trick's best card before it, that card's seat): what a seat faced when it played."""
    tm = table.trump_mask
    for leader, cards in tricks_so_far(view):
        led = SUIT_MASK[cards[0] >> 3]
        best, best_seat = cards[0], leader
        for i, c in enumerate(cards[1:], 1):
            seat = (leader + i) & 3
            yield seat, c, led, best, best_seat
            if (c >> 3 == best >> 3 and table.order[c] > table.order[best]) or (
                    (1 << c) & tm and not (1 << best) & tm):
                best, best_seat = c, seat


def auction_odds(view, unseen: int) -> dict[tuple[int, int], float]:
    """(seat, card) -> how much likelier than average the card is in that seat's hand: a bid
    promises the cards that make its contract."""
    odds: dict[tuple[int, int], float] = {}

    def scale(seat, card, factor):
        if seat != view.seat and unseen >> card & 1:
            odds[seat, card] = odds.get((seat, card), 1.0) * factor

    for s, call in view.bids:
        if 0 <= call < 4:
            table = contract_table(view.rules.values, call)
            for c in range(call * 8, call * 8 + 8):
                scale(s, c, TAKER_TRUMP_ODDS[table.order[c]])
        elif call == NO_TRUMP:
            for suit in range(4):
                scale(s, suit * 8 + ACE, SA_TAKER_ACE)
        elif call == ALL_TRUMP:
            for suit in range(4):
                scale(s, suit * 8 + JACK, TA_TAKER_JACK)
                scale(s, suit * 8 + NINE, TA_TAKER_NINE)
    return odds


def play_odds(view, table, unseen: int) -> dict[tuple[int, int], float]:
    """(seat, card) -> odds from how the others played: a seat that could not (or did not) win
    the trick and gave a card to the opponents gives its cheapest, so an unseen card cheaper
    than the one it gave, among those it could have given, is unlikely in its hand."""
    odds: dict[tuple[int, int], float] = {}
    tm = table.trump_mask
    for seat, c, led, best, best_seat in _followed_plays(view, table):
        bit = 1 << c
        wins = (c >> 3 == best >> 3 and table.order[c] > table.order[best]) or (
            bit & tm and not (1 << best) & tm)
        if not wins and seat != view.seat and best_seat != seat ^ 2 and not bit & tm:
            could_give = led if bit & led else ~tm & FULL_DECK
            key = (table.points[c], table.order[c])
            m = unseen & could_give
            while m:
                low = m & -m
                m ^= low
                x = low.bit_length() - 1
                if (table.points[x], table.order[x]) < key:
                    odds[seat, x] = odds.get((seat, x), 1.0) * CHEAPER_CARD_KEPT_ODDS
    return odds

