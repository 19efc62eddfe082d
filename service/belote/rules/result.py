"""What a finished deal gives (SPEC §7): one frozen :class:`DealResult`, redeals included.

Every figure a caller may want is a field of its own, in the SPEC's words: the three outcomes
(made, failed, litige), trick points, belote, the announcements and the capot annoncé's +250
apart, the deal's own score, and the reserve created, paid and still waiting. Pairs are
(team 0, team 1).
"""

from __future__ import annotations

from enum import StrEnum
from typing import NamedTuple

from .values import contract_name

Pair = tuple[int, int]
NOTHING: Pair = (0, 0)


class Outcome(StrEnum):
    """SPEC §7's three outcomes of a deal (a capot is told by ``DealResult.capot_team``)."""

    MADE = "made"
    FAILED = "failed"            # dedans; a litige with ``litige=dedans`` is one
    LITIGE = "litige"            # equal contract points with ``litige=reserve``


# The six outcomes of the DealScored event (the wire schema, kept as it is).
MADE, FAILED, CAPOT_MADE, CAPOT_AGAINST, LITIGE_RESERVE, LITIGE_DEDANS = (
    "made", "failed", "capot_made", "capot_against", "litige_reserve", "litige_dedans")


class DealResult(NamedTuple):
    """One finished deal: a scored one, or a redeal after everyone passed (``outcome`` None).
    Immutable (a NamedTuple: one is built per deal, and random play builds many)."""

    deal_number: int
    dealer: int
    outcome: Outcome | None            # None: everyone passed, the cards are dealt again
    taker: int | None = None
    contract: int | None = None
    forced: bool = False               # ``all_pass=forced_trump``: the eldest had to choose
    tricks_won: Pair = NOTHING
    trick_points: Pair = NOTHING       # dix de der included; the capot value for 8 tricks
    capot_team: int | None = None      # the team that won all 8 tricks
    belote: Pair = NOTHING
    announcements: Pair = NOTHING      # scoring announcements, the capot annoncé's 250 apart
    capot_announced_bonus: Pair = NOTHING   # the +250 of a capot annoncé, to whom it went
    contract_points: Pair = NOTHING    # what was compared (SPEC §7)
    multiplier: int = 1
    score: Pair = NOTHING              # what the deal itself scores, reserve paid excluded
    reserve_created: int = 0           # put into the reserve by this deal's litige
    reserve_paid: int = 0              # a waiting reserve paid out by this deal...
    reserve_paid_to: int | None = None  # ...to this team
    reserve_waiting: int = 0           # the reserve still waiting after this deal

    @property
    def redeal(self) -> bool:
        return self.outcome is None

    @property
    def deal_score(self) -> Pair:
        """What each team adds to its game total this deal: its score plus any reserve paid."""
        if self.reserve_paid_to is None:
            return self.score
        paid = [0, 0]
        paid[self.reserve_paid_to] = self.reserve_paid
        return (self.score[0] + paid[0], self.score[1] + paid[1])

    def _scored_contract(self) -> tuple[int, int]:
        """Taker and contract of a scored deal; a redeal has neither."""
        if self.outcome is None or self.taker is None or self.contract is None:
            raise ValueError("a redeal is not scored")
        return self.taker, self.contract

    @property
    def event_outcome(self) -> str:
        """The outcome as the DealScored event names it (one of six)."""
        taker, _ = self._scored_contract()
        taker_team = taker & 1
        if self.outcome == Outcome.MADE:
            return CAPOT_MADE if self.capot_team == taker_team else MADE
        if self.outcome == Outcome.LITIGE:
            return LITIGE_RESERVE
        if self.capot_team == 1 - taker_team:
            return CAPOT_AGAINST
        if self.contract_points[0] == self.contract_points[1]:
            return LITIGE_DEDANS
        return FAILED

    @property
    def explanation(self) -> str:
        """One sentence naming the rule that produced this result."""
        if self.outcome is None:
            return "everyone passed: the cards are dealt again, nothing is scored"
        taker, contract = self._scored_contract()
        return _explain(self.event_outcome, taker, contract, self.contract_points,
                        self.multiplier, self.reserve_created, self.reserve_paid,
                        self.reserve_paid_to)

    def as_deal_score(self) -> DealScore:
        """The DealScored event's figures (announcements with the capot annoncé's 250)."""
        a, b = self.announcements, self.capot_announced_bonus
        taker, contract = self._scored_contract()
        return DealScore(
            taker=taker, contract=contract, outcome=self.event_outcome,
            trick_points=self.trick_points, belote=self.belote,
            announcements=(a[0] + b[0], a[1] + b[1]), contract_points=self.contract_points,
            deal_score=self.deal_score, multiplier=self.multiplier,
            reserve_created=self.reserve_created, reserve_paid=self.reserve_paid,
            reserve_paid_to=-1 if self.reserve_paid_to is None else self.reserve_paid_to,
            reserve_pending=self.reserve_waiting)


class DealScore(NamedTuple):
    """A scored deal as the DealScored event writes it (six outcomes, the capot annoncé's 250
    inside ``announcements``, -1 for no team). Kept for the callers that read the event's
    figures; :class:`DealResult` is the rules' own value."""

    taker: int
    contract: int
    outcome: str
    trick_points: Pair
    belote: Pair
    announcements: Pair
    contract_points: Pair
    deal_score: Pair
    multiplier: int
    reserve_created: int
    reserve_paid: int
    reserve_paid_to: int
    reserve_pending: int

    @property
    def explanation(self) -> str:
        return _explain(self.outcome, self.taker, self.contract, self.contract_points,
                        self.multiplier, self.reserve_created, self.reserve_paid,
                        self.reserve_paid_to)


def _explain(outcome: str, taker: int, contract: int, contract_points: Pair, multiplier: int,
             reserve_created: int, paid: int, paid_to: int | None) -> str:
    tt = taker & 1
    taker_points, defence = contract_points[tt], contract_points[1 - tt]
    text = {
        MADE: f"taker {taker_points} > defence {defence}: contract made",
        CAPOT_MADE: f"taker took all 8 tricks: capot, contract made ({taker_points} to {defence})",
        FAILED: f"taker {taker_points} < defence {defence}: contract failed (dedans), "
                "defence scores the deal",
        CAPOT_AGAINST: "defence took all 8 tricks: capot against the taker, contract failed",
        LITIGE_RESERVE: f"litige {taker_points} = {defence}: defence scores its points, "
                        f"taker's {reserve_created} go to the reserve",
        LITIGE_DEDANS: f"litige {taker_points} = {defence}: counted as failed (dedans)",
    }[outcome]
    if multiplier > 1:
        text += f"; {contract_name(contract)} x{multiplier}"
    if paid:
        text += f"; reserve of {paid} paid to team {paid_to}"
    return text
