"""A whole game: deals from recorded deck orders, auction, announcements, play, scores, end.

``Game`` is the rules engine's one state machine. The caller supplies each deal's deck order
(``start_deal``) and each seat's actions (``apply``); everything else follows from the rules,
and ``apply`` returns what happened (tricks won, scores, ...) as small values. Same decks and
same actions, same game: nothing here reads a clock or a random source.
"""

from __future__ import annotations

from enum import StrEnum
from typing import NamedTuple

from . import announcements as ann
from .actions import BIDS, PLAYS_HIGH, PLAYS_LOW, PLAYS_MIDDLE, Action, Bid, Declare, Play
from .auction import PASS, Auction
from .errors import IllegalAction
from .options import Rules
from .play import CALLED, PLAY_RULES, TRICK_DONE, CardPlay
from .result import DealResult
from .scoring import game_winner, settle_deal
from .values import ALL_TRUMP, CONTRACTS, contract_table


class Phase(StrEnum):
    """Where a game stands: whose move it is and what kind of move (SPEC §2, §4, §8)."""

    DEALING = "dealing"                  # waiting for the next deal's deck order
    AUCTION = "auction"                  # bidding: see ``Game.auction_round``
    CHOOSING_TRUMP = "choosing_trump"    # all_pass=forced_trump: the eldest, holding 8, names it
    PLAYING = "playing"                  # the tricks (and enhanced declarations in the first)
    OVER = "over"


DEALING, AUCTION, CHOOSING_TRUMP, PLAYING, OVER = (
    Phase.DEALING, Phase.AUCTION, Phase.CHOOSING_TRUMP, Phase.PLAYING, Phase.OVER)


# What ``apply`` and ``start_deal`` report -------------------------------------------------------
class ContractSettled(NamedTuple):
    taker: int
    contract: int
    forced: bool


class AllPassed(NamedTuple):
    """Everyone passed: a redeal (its :class:`DealResult` is ``Game.last_result``)."""

    deal_number: int


class BeloteCalled(NamedTuple):
    seat: int
    card: int
    call: str          # "belote" | "rebelote" (the rebelote scores the 20)


class TrickWon(NamedTuple):
    number: int        # 1..8
    winner: int
    points: int
    leader: int
    cards: tuple


class AnnouncementsRevealed(NamedTuple):
    by_seat: tuple     # ((seat, Announcement), ...)
    scoring_team: int | None  # None: nobody (none, or a perfect tie)


class GameOver(NamedTuple):
    winning_team: int
    totals: tuple


# Dealing (SPEC §1) -----------------------------------------------------------------------------
_DECK = frozenset(range(32))


def check_deck(deck) -> None:
    if len(deck) != 32 or frozenset(deck) != _DECK:
        raise IllegalAction("BAD_DECK", "a deck order must hold each of the 32 cards once")


_BIT = tuple(1 << card for card in range(32))
NO_POINTS = (0, 0)


def _packets(eldest: int, counts) -> tuple:
    """Per seat from the eldest, the deck positions of its cards when dealing packets of
    ``counts`` (``counts=(3, 2)``: d[0..2] and d[12..13] to the eldest, ...)."""
    seats: list[list[int]] = [[], [], [], []]
    position = 0
    for n in counts:
        for k in range(4):
            seats[(eldest + k) & 3] += range(position, position + n)
            position += n
    return tuple(tuple(p) for p in seats)


# Per eldest (and taker), per seat: the deck positions it receives.
_FIRST_FIVE = tuple(_packets(e, (3, 2)) for e in range(4))
_ALL_EIGHT = tuple(_packets(e, (3, 2, 3)) for e in range(4))


def _completion(eldest: int, taker: int) -> tuple:
    """The taker gets the turned card d[20] and 2 more, every other seat 3, from d[21]."""
    seats: list[list[int]] = [[], [], [], []]
    seats[taker].append(20)
    position = 21
    for k in range(4):
        seat = (eldest + k) & 3
        n = 2 if seat == taker else 3
        seats[seat] += range(position, position + n)
        position += n
    return tuple(tuple(p) for p in seats)


_COMPLETION = tuple(tuple(_completion(e, t) for t in range(4)) for e in range(4))


def deal_first_five(deck, eldest: int) -> list[int]:
    """3 cards to each seat from the eldest, then 2 each: d[0..19] (five per seat)."""
    bit = _BIT
    return [bit[deck[a]] | bit[deck[b]] | bit[deck[c]] | bit[deck[d]] | bit[deck[e]]
            for a, b, c, d, e in _FIRST_FIVE[eldest]]


def complete_hands(deck, eldest: int, taker: int, hands: list[int]) -> list[int]:
    """The taker gets the turned card d[20] and 2 more, every other seat 3, from d[21..31]
    (three per seat)."""
    bit = _BIT
    return [hand | bit[deck[a]] | bit[deck[b]] | bit[deck[c]]
            for hand, (a, b, c) in zip(hands, _COMPLETION[eldest][taker])]


def deal_all_eight(deck, eldest: int) -> list[int]:
    """``bidding=none``: 3, then 2, then 3 to each seat from the eldest, from d[0]."""
    return [sum(_BIT[deck[i]] for i in positions) for positions in _ALL_EIGHT[eldest]]


class Game:
    """One game of Belote under ``rules``, from the first deal to the winner."""

    def __init__(self, rules: Rules):
        self.rules = rules
        self.phase = DEALING
        self.dealer = rules.first_dealer
        self.deal_number = 0                 # deals started, redeals included
        self.totals = [0, 0]
        self.reserve = 0                     # litige reserve waiting for a decisive deal
        self.results: list[DealResult] = []  # one per finished deal, redeals included
        self.winner: int | None = None
        self._enhanced = rules.announcements == "enhanced"
        self._classic = rules.announcements == "classic"
        self._announced = self._classic or self._enhanced
        self._play_rules = (PLAY_RULES[rules.play], rules.undertrump == "required",
                            rules.belote_order == "king_first")
        self._auction_held = rules.bidding != "none"
        # Per contract (indexed by it): the order and points the deal state reads.
        self._tables = tuple(contract_table(rules.values, c) for c in CONTRACTS)
        self._reset_deal()

    def _reset_deal(self) -> None:
        self.deck: list[int] | None = None
        self.turned_card = -1
        self.dealt: list[int] = [0, 0, 0, 0]     # hands as dealt (5, then 8 once completed)
        self.auction: Auction | None = None
        self.play: CardPlay | None = None
        self.taker = -1
        self.contract = -1
        self.forced = False
        self.classic: list[list[ann.Announcement]] = [[], [], [], []]
        self.classic_team: int | None = None
        self.declared: list[ann.Announcement | None] = [None, None, None, None]

    @property
    def eldest(self) -> int:
        return (self.dealer + 1) & 3

    @property
    def last_result(self) -> DealResult | None:
        """The result of the last finished deal (a redeal's too), None before the first."""
        return self.results[-1] if self.results else None

    @property
    def scores(self) -> list:
        """The scored deals as the DealScored event writes them (redeals left out): kept for
        the callers that read the event's figures; ``results`` holds the rules' values."""
        return [r.as_deal_score() for r in self.results if r.outcome is not None]

    @property
    def auction_round(self) -> int | None:
        """During the auction: 1 (a suit call takes the turned suit) or 2 (a suit call names
        another suit); None otherwise (in CHOOSING_TRUMP a suit call chooses the trump)."""
        if self.phase != AUCTION or self.auction is None:
            return None
        return 1 if len(self.auction.calls) < 4 else 2

    def copy(self) -> Game:
        new = Game.__new__(Game)
        new.__dict__.update(self.__dict__)
        new.totals = self.totals[:]
        new.results = self.results[:]
        new.dealt = self.dealt[:]
        new.declared = self.declared[:]
        new.auction = self.auction.copy() if self.auction else None
        new.play = self.play.copy() if self.play else None
        return new

    # Whose turn, and what may they do -----------------------------------------------------------
    def to_act(self) -> int | None:
        """The seat to act, or None (waiting for a deck, or game over)."""
        phase = self.phase
        if phase is PLAYING:
            assert self.play is not None
            return self.play.turn
        if phase is AUCTION or phase is CHOOSING_TRUMP:
            assert self.auction is not None
            return self.auction.turn
        return None

    def hand(self, seat: int) -> int:
        """The seat's cards now, as a mask."""
        if self.play is not None:
            return self.play.hands[seat]
        return self.dealt[seat]

    def legal_actions(self, seat: int | None = None) -> list[Action]:
        """Every action ``seat`` (default: the seat to act) may take now; [] if not its turn.

        A suit ``Bid`` takes the turned suit in round 1, names another suit in round 2 (see
        ``auction_round``) and chooses the trump in ``CHOOSING_TRUMP``.
        """
        phase = self.phase
        if phase is AUCTION or phase is CHOOSING_TRUMP:
            auction = self.auction
            assert auction is not None
            if seat is not None and seat != auction.turn:
                return []
            return [BIDS[c] for c in auction.open_calls()]
        play = self.play
        if phase is not PLAYING or play is None:
            return []
        turn = play.turn
        if seat is not None and seat != turn:
            return []
        m = play.legal
        plays: list[Action] = [*PLAYS_LOW[m & 0x7FF], *PLAYS_MIDDLE[m >> 11 & 0x7FF],
                               *PLAYS_HIGH[m >> 22]]
        if self._enhanced and self._may_declare(turn):
            declarations: list[Action] = [Declare(a.kind, a.suit, a.rank)
                                          for a in self._enhanced_options(turn)]
            return declarations + plays
        return plays

    def _may_declare(self, seat: int) -> bool:
        return (self._enhanced and self.play is not None and self.play.trick_number == 0
                and self.declared[seat] is None)

    def _enhanced_options(self, seat: int) -> list[ann.Announcement]:
        capot_free = all(d is None or d.kind != ann.CAPOT_ANNONCE for d in self.declared)
        return ann.enhanced_options(self.hand(seat), capot_free)

    # Dealing ------------------------------------------------------------------------------------
    def start_deal(self, deck) -> list:
        """Deal from a recorded deck order (top first)."""
        if self.phase is not DEALING:
            raise IllegalAction("DEAL_IN_PROGRESS" if self.phase != OVER else "GAME_OVER",
                                "the game is over" if self.phase == OVER else "a deal is in progress")
        check_deck(deck)
        self._reset_deal()
        self.deck = deck = list(deck)
        self.deal_number += 1
        eldest = (self.dealer + 1) & 3
        if not self._auction_held:
            self.dealt = deal_all_eight(deck, eldest)
            return [self._settle(eldest, ALL_TRUMP, False)]
        self.dealt = deal_first_five(deck, eldest)
        self.turned_card = turned = deck[20]
        self.auction = Auction(self.rules.bidding, self.rules.all_pass, eldest, turned >> 3)
        self.phase = AUCTION
        return []

    def _settle(self, taker: int, contract: int, forced: bool) -> ContractSettled:
        eldest = (self.dealer + 1) & 3
        if self._auction_held and not forced:     # a forced taker holds its 8 already
            self.dealt = complete_hands(self.deck, eldest, taker, self.dealt)
        self.taker, self.contract, self.forced = taker, contract, forced
        self.play = CardPlay(self.dealt, contract, taker, eldest, self._tables[contract],
                             *self._play_rules)
        if self._classic:
            self.classic = [ann.classic_announcements(h) for h in self.dealt]
            self.classic_team = ann.classic_scoring_team(self.classic, contract)
        self.phase = PLAYING
        return ContractSettled(taker, contract, forced)

    # Acting -------------------------------------------------------------------------------------
    def check(self, seat: int, action: Action) -> None:
        """Raise IllegalAction (naming the rule) unless ``seat`` may take ``action`` now."""
        self._check(seat, action)

    def _check(self, seat: int, action: Action):
        if self.phase == OVER:
            raise IllegalAction("GAME_OVER", "the game is over")
        turn = self.to_act()
        if turn is None:
            raise IllegalAction("NO_DEAL", "no deal is in progress")
        if seat != turn:
            raise IllegalAction("NOT_YOUR_TURN", f"it is seat {turn}'s turn, not seat {seat}'s")
        if isinstance(action, Bid):
            if self.phase == PLAYING or self.auction is None:
                raise IllegalAction("NOT_BIDDING", "the auction is over: play a card")
            self.auction.check_call(action.contract)
            return None
        play = self.play
        if self.phase != PLAYING or play is None:
            raise IllegalAction("BIDDING", "the auction is not over: bid or pass")
        if isinstance(action, Declare):
            if not self._enhanced:
                raise IllegalAction("NO_DECLARATIONS", "announcements are not declared at this table")
            if play.trick_number != 0:
                raise IllegalAction("ANNOUNCE_TOO_LATE", "announcements are made during the first trick only")
            if self.declared[seat] is not None:
                raise IllegalAction("ALREADY_ANNOUNCED", "you have already made your one announcement")
            for a in self._enhanced_options(seat):
                if ann.same_declaration(a, action.kind, action.suit, action.rank):
                    return a
            if action.kind == ann.CAPOT_ANNONCE:
                raise IllegalAction("CAPOT_ALREADY_ANNOUNCED", "a capot has already been announced this deal")
            if action.kind not in ann.ENHANCED_KINDS:
                raise IllegalAction("UNKNOWN_ANNOUNCEMENT",
                                    f"unknown announcement {action.kind!r} (valid: {', '.join(ann.ENHANCED_KINDS)})")
            raise IllegalAction("ANNOUNCEMENT_NOT_HELD", f"your hand does not hold that {action.kind.replace('_', ' ')}")
        if isinstance(action, Play):
            if not 0 <= action.card < 32:
                raise IllegalAction("BAD_CARD", f"no such card: {action.card}")
            play.check_card(action.card)
            return None
        raise IllegalAction("BAD_ACTION", f"not an action: {action!r}")

    def apply(self, seat: int, action: Action) -> list:
        """Take ``action`` for ``seat`` (checked first); return what happened."""
        if type(action) is Play:                 # the most common action: see play_card
            return self.play_card(seat, action.card)
        auction = self.auction
        if (type(action) is Bid and self.phase is AUCTION and auction is not None
                and seat == auction.turn and action.contract in auction.open_calls()):
            return self._call(action.contract)   # a legal call (anything else: _check says why)
        declared = self._check(seat, action)     # raises for anything but a Bid, a Declare or a Play
        if isinstance(action, Bid):
            return self._call(action.contract)
        if isinstance(action, Play):
            return self.play_card(seat, action.card)
        self.declared[seat] = declared
        return []

    def _call(self, call: int) -> list:
        auction = self.auction
        assert auction is not None and self.deck is not None
        auction.call(call)
        if auction.forced and self.phase == AUCTION:
            # SPEC §2 forced_trump: the eldest receives the turned card plus 2, the others 3,
            # and *then* chooses: it sees its 8 cards while choosing.
            self.dealt = complete_hands(self.deck, self.eldest, self.eldest, self.dealt)
            self.phase = CHOOSING_TRUMP
            return []
        if not auction.finished:
            return []
        if auction.all_passed:
            passed = AllPassed(self.deal_number)
            self.results.append(DealResult(self.deal_number, self.dealer, None,
                                           reserve_waiting=self.reserve))
            self._next_dealer()
            return [passed]
        return [self._settle(auction.best_seat, auction.best, auction.forced)]

    def play_card(self, seat: int, card: int) -> list:
        """``apply(seat, Play(card))``, for callers that play many cards (the review replays every
        card of a log): a legal card is recognised on the legal-cards mask alone, and anything
        else goes through ``_check``, which raises naming the rule broken."""
        play = self.play
        if (self.phase is not PLAYING or play is None or seat != play.turn or not 0 <= card < 32
                or not (play.legal >> card) & 1):
            self._check(seat, Play(card))        # raises: not this seat's turn, or not legal
            raise AssertionError("unreachable: _check refuses what is not a legal card")
        happened = play.play(card)
        if not happened:
            return []                            # most cards: no belote call, the trick goes on
        out: list = [BeloteCalled(*play.belote_calls[-1])] if happened & CALLED else []
        if happened & TRICK_DONE:
            leader, cards, winner, points = play.tricks[-1]
            out.append(TrickWon(play.trick_number, winner, points, leader, cards))
            if play.trick_number == 1 and self._classic:
                shown = tuple((s, a) for s in range(4) for a in self.classic[s])
                out.append(AnnouncementsRevealed(shown, self.classic_team))
            if play.trick_number == 8:
                out += self._finish_deal()
        return out

    def scoring_announcements(self) -> tuple[int, int]:
        """Per team, the announcement points that score this deal (capot annoncé aside)."""
        points = [0, 0]
        team = self.classic_team
        if self._classic and team is not None:
            points[team] = sum(a.points for s in range(team, 4, 2) for a in self.classic[s])
        elif self._enhanced:
            for seat, a in enumerate(self.declared):
                if a is not None:
                    points[seat & 1] += a.points
        return points[0], points[1]

    def _finish_deal(self) -> list:
        play = self.play
        assert play is not None
        capot_team = None
        if self._enhanced:
            capot_team = next((s & 1 for s, a in enumerate(self.declared)
                               if a is not None and a.kind == ann.CAPOT_ANNONCE), None)
        announced = self.scoring_announcements() if self._announced else NO_POINTS
        result = settle_deal(self.rules, play.table, self.taker, play.trick_points, play.tricks_won,
                             play.belote_points, announced, self.reserve, capot_team,
                             deal_number=self.deal_number, dealer=self.dealer, forced=self.forced)
        self.results.append(result)
        self.reserve = result.reserve_waiting
        gained = result.deal_score
        totals = self.totals
        totals[0] += gained[0]
        totals[1] += gained[1]
        self.winner = winner = game_winner(totals, self.rules.target)
        if winner is not None:
            self.phase = OVER
            return [result, GameOver(winner, tuple(totals))]
        self._next_dealer()
        return [result]

    def _next_dealer(self) -> None:
        self.dealer = (self.dealer + 1) & 3
        self.phase = DEALING

    def __repr__(self) -> str:
        return (f"<Game {self.phase} deal {self.deal_number} dealer {self.dealer} "
                f"totals {self.totals[0]}-{self.totals[1]} reserve {self.reserve}>")


__all__ = ["Game", "Phase", "DEALING", "AUCTION", "CHOOSING_TRUMP", "PLAYING", "OVER",
           "ContractSettled", "AllPassed", "BeloteCalled", "TrickWon", "AnnouncementsRevealed",
           "GameOver", "PASS"]
