"""The ``derived`` check: the events a command recorded against those decide produced.

Compared byte for byte, then, where they differ, aligned by kind and field by field, so a
missing, added or moved event and a wrong field each read as what they are.
"""

from __future__ import annotations

import difflib

from belote.table.codec import encode_body
from belote.v1 import events_pb2 as epb

from . import text
from .entries import Entry
from .findings import Violation


def compare(group: list[Entry], produced: list[epb.TableEvent], fail,
            violations: list[Violation]) -> None:
    """Findings (to ``fail``) for each way ``group`` (a command's events as logged) is not
    ``produced``; ``violations``: those found so far (a deck the deck checks reported is not
    reported again)."""
    if len(group) == len(produced):
        # decide's events hold only their body, so their bytes are encode_body's.
        for g, p in zip(group, produced):
            if g.payload != p.SerializeToString(deterministic=True):
                break
        else:
            return
    matcher = difflib.SequenceMatcher(a=[p.WhichOneof("body") for p in produced],
                                      b=[g.kind for g in group], autojunk=False)
    for op, a0, a1, b0, b1 in matcher.get_opcodes():
        if op == "equal" or (op == "replace" and a1 - a0 == b1 - b0):
            for p, g in zip(produced[a0:a1], group[b0:b1]):
                _compare_one(g, p, fail, violations)
            continue
        where = group[b0].position if b0 < len(group) else group[-1].position + 1
        for p in produced[a0:a1]:
            expected = text.body(p)
            if p.HasField("deal_started") and not p.deal_started.salt:   # the placeholder's
                d = p.deal_started
                expected = f"deal_started {{deal_number: {d.deal_number}, dealer: {d.dealer}, a new deck}}"
            fail(where, "derived", f"{p.WhichOneof('body')} is missing here: the rules produce it "
                 f"after seq {group[0].position}", expected, "-")
        for g in group[b0:b1]:
            fail(g.position, "derived", f"{g.kind} does not follow from the action of seq "
                 f"{group[0].position}: it was added or moved", "-", text.body(g.event))


def _compare_one(g: Entry, p: epb.TableEvent, fail, violations: list[Violation]) -> None:
    kind = p.WhichOneof("body")
    if g.kind != kind:
        fail(g.position, "derived", f"the rules produce {kind} here, the log has {g.kind}",
             text.body(p), text.body(g.event))
        return
    if g.payload == encode_body(p):
        return
    if kind in ("deal_started", "deck_revealed") and any(
            v.sequence == g.position and v.check in ("commitment", "reveal") for v in violations):
        return                                     # the deck checks reported it
    diffs = text.diff(getattr(p, kind), getattr(g.event, kind))
    for path, expected, found in diffs or [("", text.body(p), text.body(g.event))]:
        fail(g.position, "derived", f"{kind}.{path} is not what the rules give" if path
             else f"{kind} is not what the rules give", expected, found)
