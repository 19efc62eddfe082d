"""The card play of one deal (SPEC §4, §5): the state bots search through, built for speed.

Hands are 32-bit masks, cards ints (see :mod:`cards`); the contract's order and points come
from precomputed tuples. ``legal_cards()`` gives the mask of the cards the seat to play may
play; ``play(card)`` plays one without checking it (``check_card`` says why a card is illegal).
"""

from __future__ import annotations

from .cards import FULL_DECK, KING, QUEEN, SUIT_MASK, SUIT_NAMES, card_words
from .errors import IllegalAction
from .values import ALL_TRUMP, CONTRACTS, NO_TRUMP, ContractTable

STANDARD, BELGIAN, FREE = 0, 1, 2
PLAY_RULES = {"standard": STANDARD, "belgian": BELGIAN, "free": FREE}

BELOTE, REBELOTE = "belote", "rebelote"
# What play() reports: nothing (0), or either or both of these.
CALLED, TRICK_DONE = 1, 2     # belote or rebelote was called / the card finished the trick


def legal_mask(hand: int, led_mask: int, best: int, partner_wins: bool, r) -> int:
    """SPEC §4: the cards ``hand`` may play on a trick led in ``led_mask`` (0: it leads) whose
    best card so far is ``best``. ``r`` gives the contract's ``trump_mask`` and ``higher``, the
    play ``rule`` and ``undertrump_required`` (a :class:`CardPlay`, or the bots' search rules)."""
    if not led_mask:
        return hand
    follow = hand & led_mask
    tm = r.trump_mask
    if follow:
        # Trump led (every suit in TA): beat the highest card of the trick if you can.
        if led_mask & tm and r.rule != FREE:
            return (follow & r.higher[best]) or follow
        return follow
    if tm == 0 or tm == FULL_DECK or r.rule == FREE:
        return hand                                   # SA, TA, free: void -> any card
    trumps = hand & tm
    if not trumps:
        return hand
    best_is_trump = (1 << best) & tm
    if partner_wins:
        # Partner wins: play anything, except the Belgian forced undertrump.
        if r.rule == BELGIAN and best_is_trump and not trumps & r.higher[best]:
            return trumps
        return hand
    if best_is_trump:
        over = trumps & r.higher[best]
        if over:
            return over
        return trumps if r.undertrump_required else hand
    return trumps


class CardPlay:
    """Eight tricks of one deal, from full hands of 8 to the last card."""

    __slots__ = ("hands", "contract", "taker", "table", "trump_mask", "order", "points", "higher",
                 "beats", "rule", "undertrump_required", "leader", "turn", "trick", "best_card",
                 "best_seat", "led_mask", "trick_number", "trick_points", "tricks_won", "tricks",
                 "belote_points", "belote_calls", "_belote_cards", "_belote_first", "_king_first",
                 "legal")

    def __init__(self, hands: list[int], contract: int, taker: int, leader: int,
                 table: ContractTable, rule: int = STANDARD, undertrump_required: bool = True,
                 belote_king_first: bool = False):
        self.hands = list(hands)
        self.contract = contract
        self.taker = taker
        self.table = table
        self.trump_mask = table.trump_mask
        self.order = table.order
        self.points = table.points
        self.higher = table.higher
        self.beats = table.beats
        self.rule = rule
        self.undertrump_required = undertrump_required
        self.leader = self.turn = leader
        self.trick: list[int] = []
        self.best_card = -1
        self.best_seat = -1
        self.led_mask = 0                # the led suit's cards; 0 before the trick's first card
        self.trick_number = 0            # tricks finished, 0..8
        self.trick_points = [0, 0]       # per team, dix de der included
        self.tricks_won = [0, 0]
        self.tricks: list[tuple] = []         # (leader, cards, winner, points)
        self.belote_points = [0, 0]
        self.belote_calls: list[tuple[int, int, str]] = []   # (seat, card, BELOTE | REBELOTE)
        self._king_first = belote_king_first
        self._belote_first: dict[int, int] = {}
        self._belote_cards = belote_cards(self.hands, contract)
        self.legal = self.hands[leader]  # the mask of legal_cards(), kept current by play()

    def copy(self) -> CardPlay:
        # One tuple assignment, not a loop of setattr: searches copy a deal per position tried.
        new = CardPlay.__new__(CardPlay)
        (new.hands, new.contract, new.taker, new.table, new.trump_mask, new.order, new.points,
         new.higher, new.beats, new.rule, new.undertrump_required, new.leader, new.turn, new.trick,
         new.best_card, new.best_seat, new.led_mask, new.trick_number, new.trick_points,
         new.tricks_won, new.tricks, new.belote_points, new.belote_calls, new._belote_cards,
         new._belote_first, new._king_first, new.legal) = (
            self.hands[:], self.contract, self.taker, self.table, self.trump_mask, self.order,
            self.points, self.higher, self.beats, self.rule, self.undertrump_required, self.leader,
            self.turn, self.trick[:], self.best_card, self.best_seat, self.led_mask,
            self.trick_number, self.trick_points[:], self.tricks_won[:], self.tricks[:],
            self.belote_points[:], self.belote_calls[:], self._belote_cards,
            dict(self._belote_first), self._king_first, self.legal)
        return new

    @property
    def over(self) -> bool:
        return self.trick_number == 8

    def partner_winning(self) -> bool:
        return self.best_seat == self.turn ^ 2

    # SPEC §4 -------------------------------------------------------------------------------
    def legal_cards(self) -> int:
        """Mask of the cards the seat to play may play (``legal``, computed as each card is
        played: every caller asks for it, and Game.apply checks the card against it)."""
        return self.legal

    def play(self, card: int) -> int:
        """Play ``card`` for the seat to play (legality is the caller's business). Returns 0, or
        CALLED (it called belote or rebelote) and/or TRICK_DONE (it finished the trick)."""
        seat = self.turn
        bit = 1 << card
        hands = self.hands
        hands[seat] ^= bit
        trick = self.trick
        trick.append(card)
        n = len(trick)
        if n == 1:
            self.best_card, self.best_seat, self.led_mask = card, seat, SUIT_MASK[card >> 3]
        elif self.beats[self.best_card] & bit:
            self.best_card, self.best_seat = card, seat
        called = bit & self._belote_cards and self._call_belote(seat, card)
        if n == 4:
            # The trick is done (inline: searches and random play finish one every fourth card).
            p = self.points
            c0, c1, c2, c3 = trick
            points = p[c0] + p[c1] + p[c2] + p[c3]
            self.trick_number = number = self.trick_number + 1
            if number == 8:
                points += self.table.last_trick_bonus        # dix de der
            winner = self.best_seat
            self.trick_points[winner & 1] += points
            self.tricks_won[winner & 1] += 1
            self.tricks.append((self.leader, (c0, c1, c2, c3), winner, points))
            self.trick = []
            self.led_mask = 0
            self.leader = self.turn = winner
            self.legal = hands[winner]                   # the winner leads: any card
            return CALLED | TRICK_DONE if called else TRICK_DONE
        self.turn = nxt = (seat + 1) & 3
        self.legal = legal_mask(hands[nxt], self.led_mask, self.best_card,
                                self.best_seat == nxt ^ 2, self)
        return CALLED if called else 0

    def _call_belote(self, seat: int, card: int) -> bool:
        """SPEC §5: the second of K+Q of trump from one hand scores 20 (K first if required).
        True when belote or rebelote is called."""
        suit = card >> 3
        first = self._belote_first.get(suit)
        if first is None:
            if self._king_first and card & 7 == QUEEN:
                self._belote_cards &= ~SUIT_MASK[suit]     # queen first: this belote is lost
                return False
            self._belote_first[suit] = card
            self.belote_calls.append((seat, card, BELOTE))
        else:
            self.belote_points[seat & 1] += 20
            self.belote_calls.append((seat, card, REBELOTE))
        return True

    # Explanations ----------------------------------------------------------------------------
    def check_card(self, card: int) -> None:
        """Raise IllegalAction naming the rule if ``card`` may not be played now."""
        hand = self.hands[self.turn]
        if not (hand >> card) & 1:
            raise IllegalAction("CARD_NOT_IN_HAND", f"{card_words(card)} is not in your hand")
        legal = self.legal_cards()
        if (legal >> card) & 1:
            return
        tm = self.trump_mask
        follow = hand & self.led_mask
        led_suit = SUIT_NAMES[self.trick[0] >> 3]
        if follow and not (1 << card) & self.led_mask:
            raise IllegalAction("MUST_FOLLOW_SUIT", f"you must follow {led_suit}")
        if follow:
            what = "trump" if self.contract != ALL_TRUMP else led_suit[:-1]   # "a spade"
            raise IllegalAction("MUST_GO_HIGHER",
                                f"you must play a {what} higher than {card_words(self.best_card)}")
        if self.best_seat == self.turn ^ 2:
            raise IllegalAction("MUST_UNDERTRUMP",
                                f"your partner wins with {card_words(self.best_card)} and you cannot "
                                "beat it: you must undertrump (Belgian rule)")
        if (1 << self.best_card) & tm:
            if legal & self.higher[self.best_card]:
                raise IllegalAction("MUST_OVERTRUMP", f"you must overtrump {card_words(self.best_card)}")
            raise IllegalAction("MUST_UNDERTRUMP",
                                f"you cannot follow {led_suit} nor overtrump: you must play a trump")
        raise IllegalAction("MUST_TRUMP", f"you cannot follow {led_suit}: you must trump")


def _belote_pairs(contract: int) -> tuple[int, ...]:
    """The K+Q mask of each trump suit of ``contract`` (none in SA)."""
    suits = () if contract == NO_TRUMP else range(4) if contract == ALL_TRUMP else (contract,)
    return tuple((1 << (suit * 8 + KING)) | (1 << (suit * 8 + QUEEN)) for suit in suits)


_BELOTE_PAIRS = tuple(_belote_pairs(contract) for contract in CONTRACTS)


def belote_cards(hands: list[int], contract: int) -> int:
    """Mask of the K and Q of each trump suit held together by one seat (none in SA)."""
    mask = 0
    for pair in _BELOTE_PAIRS[contract]:
        for hand in hands:
            if hand & pair == pair:
                mask |= pair
                break
    return mask
