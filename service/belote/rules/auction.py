"""The auction (SPEC §2): ``two_rounds``, ``two_rounds_with_no_trump`` and the all-pass policies.

A call is a contract (suit 0..3, ``NO_TRUMP``, ``ALL_TRUMP``) or ``PASS``.
"""

from __future__ import annotations

from .cards import SUIT_NAMES
from .errors import IllegalAction
from .values import ALL_TRUMP, NO_TRUMP, contract_name

PASS = -1


def bid_rank(contract: int) -> int:
    """Suit < SA < TA."""
    return 2 if contract == ALL_TRUMP else 1 if contract == NO_TRUMP else 0


def call_name(call: int) -> str:
    return "pass" if call == PASS else contract_name(call)


def _opening(sa_ta: bool, turned_suit: int) -> tuple[tuple[int, ...], tuple[int, ...]]:
    """The calls open while no bid stands, in round 1 and in round 2."""
    others = tuple(s for s in range(4) if s != turned_suit)
    extra = (NO_TRUMP, ALL_TRUMP) if sa_ta else ()
    return (PASS, turned_suit, *extra), (PASS, *others, *extra)


_OPENING = tuple(tuple(_opening(sa_ta, suit) for suit in range(4)) for sa_ta in (False, True))


class Auction:
    """Calls from the eldest until a contract stands, everyone passed, or a forced take."""

    __slots__ = ("bidding", "all_pass", "eldest", "turned_suit", "calls", "turn", "best", "best_seat",
                 "passes_after_best", "forced", "finished", "all_passed", "_opening")

    def __init__(self, bidding: str, all_pass: str, eldest: int, turned_suit: int):
        self.bidding = bidding
        self.all_pass = all_pass
        self.eldest = eldest
        self.turned_suit = turned_suit
        self.calls: list[tuple[int, int]] = []     # (seat, call)
        self.turn = eldest
        self.best = PASS                           # standing bid
        self.best_seat = -1
        self.passes_after_best = 0
        self.forced = False                        # forced_trump: the eldest must name a suit
        self.finished = False
        self.all_passed = False                    # finished with no taker: redeal
        self._opening = _OPENING[bidding != "two_rounds"][turned_suit]

    @property
    def round(self) -> int:
        """1 for the first four calls, 2 after (forced choice: 3)."""
        return 3 if self.forced else 1 if len(self.calls) < 4 else 2

    def legal_calls(self) -> list[int]:
        return list(self.open_calls())

    def open_calls(self) -> tuple[int, ...]:
        """The calls the seat to speak may make (:meth:`legal_calls` as a tuple)."""
        if self.finished:
            return ()
        if self.forced:
            return (0, 1, 2, 3)
        if self.best == PASS:
            return self._opening[0 if len(self.calls) < 4 else 1]
        return (PASS, *(c for c in (NO_TRUMP, ALL_TRUMP) if bid_rank(c) > bid_rank(self.best)))

    def check_call(self, call: int) -> None:
        if self.finished:
            raise IllegalAction("AUCTION_OVER", "the auction is over")
        if call in self.open_calls():
            return
        if call not in (PASS, 0, 1, 2, 3, NO_TRUMP, ALL_TRUMP):
            raise IllegalAction("BAD_CALL", f"not a call: {call!r} (pass, a suit 0..3, SA 4 or TA 5)")
        if self.forced:
            raise IllegalAction("MUST_TAKE", "everyone passed: you must choose a trump suit (forced take)")
        if call in range(4) and self.best == PASS:
            if len(self.calls) < 4:
                raise IllegalAction("FIRST_ROUND_TURNED_SUIT",
                                    f"in the first round you may only take {SUIT_NAMES[self.turned_suit]}"
                                    " (the turned suit) or pass")
            raise IllegalAction("SECOND_ROUND_OTHER_SUIT",
                                f"in the second round you must name a suit other than "
                                f"{SUIT_NAMES[self.turned_suit]} (the turned suit)")
        if call in (NO_TRUMP, ALL_TRUMP) and self.bidding == "two_rounds":
            raise IllegalAction("NO_SA_TA", "no trump and all trump are not played at this table")
        raise IllegalAction("MUST_OVERBID", f"you must bid higher than {call_name(self.best)} or pass")

    def call(self, call: int) -> None:
        """Record the call of the seat to speak (checked by the caller)."""
        seat = self.turn
        if self.forced:
            self.calls.append((seat, call))
            self.best, self.best_seat, self.finished = call, seat, True
            return
        self.calls.append((seat, call))
        self.turn = (seat + 1) & 3
        if call != PASS:
            self.best, self.best_seat, self.passes_after_best = call, seat, 0
            if self.bidding == "two_rounds":
                self.finished = True          # the first take ends the auction
            return
        if self.best != PASS:
            self.passes_after_best += 1
            if self.passes_after_best == 3:
                self.finished = True
            return
        if len(self.calls) == 8:
            if self.all_pass == "forced_trump":
                self.forced = True
                self.turn = self.eldest
            else:
                self.finished = self.all_passed = True

    def copy(self) -> Auction:
        new = Auction.__new__(Auction)
        for name in Auction.__slots__:
            setattr(new, name, getattr(self, name))
        new.calls = self.calls[:]
        return new
