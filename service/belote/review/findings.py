"""What a review finds: each :class:`Violation` with its place and check, gathered in a :class:`Review`."""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import cached_property

from belote.v1 import events_pb2 as epb

# Exit statuses of `belote replay` (and ``Review.exit_code``): 2 is also argparse's for usage.
EXIT_CLEAN = 0          # no violation, and the export's head signed by a key the reviewer trusts
EXIT_VIOLATION = 1      # a check failed: the log (or its head) is not as the server wrote it
EXIT_UNREADABLE = 2     # the input cannot be read, or the command line is wrong
EXIT_UNKNOWN_KEY = 3    # no violation, but the head's key is neither --key nor a pinned one

# The checks a review makes, in the order of their description at ``verify.review``.
CHECKS = ("sequence", "envelope", "chain", "hash", "commitment", "reveal", "legal", "derived", "bot",
          "head")


@dataclass(frozen=True)
class Violation:
    sequence: int           # where: the sequence the event at that place of the log must have
    check: str              # one of CHECKS
    message: str
    expected: str = ""
    found: str = ""
    rule: str = ""          # for ``legal``: the stable reason of the rule broken

    def as_dict(self) -> dict:
        out = {"sequence": self.sequence, "check": self.check, "message": self.message}
        for name in ("expected", "found", "rule"):
            if getattr(self, name):
                out[name] = getattr(self, name)
        return out

    def __str__(self) -> str:
        out = f"seq {self.sequence}: [{self.check}] {self.message}"
        if self.rule:
            out += f" (rule {self.rule})"
        if self.expected or self.found:
            out += f"\n    expected: {self.expected or '-'}\n    found:    {self.found or '-'}"
        return out


@dataclass
class Review:
    table_id: str = ""
    events: int = 0
    violations: list[Violation] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    checks: dict[str, int] = field(default_factory=dict)     # check -> times it was made
    timeline: list[tuple[int, epb.TableEvent]] = field(default_factory=list)  # (seq, recomputed event)
    bot_check: bool = True
    # A good head's key the reviewer does not trust (see known_keys): not proven the server's.
    unknown_key: bytes | None = None

    @property
    def clean(self) -> bool:
        return not self.violations

    @property
    def exit_code(self) -> int:
        # A violation first: whatever signed the log, it is shown wrong.
        if not self.clean:
            return EXIT_VIOLATION
        return EXIT_CLEAN if self.unknown_key is None else EXIT_UNKNOWN_KEY

    @property
    def first_violation(self) -> int | None:
        return self.violations[0].sequence if self.violations else None

    @cached_property
    def story(self):
        """What happened, deal by deal (built on demand from the recomputed events)."""
        from .story import tell
        return tell(self.timeline)
