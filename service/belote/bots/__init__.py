"""Bots: functions of (what their seat sees, the legal actions, a seed) -> one legal action.

A bot gets the same redacted table view the API sends to its seat; it cannot reach the full
state. The seed is recorded in the log with the move, so a reviewer can recompute it.
"""

from __future__ import annotations

from belote.v1 import events_pb2 as epb

from . import easy

LEVELS = {epb.EASY: easy.choose}


def choose(level: int, view, legal: list, seed: int):
    """The action the bot of ``level`` takes, given its seat's view and legal actions."""
    return LEVELS.get(level, easy.choose)(view, legal, seed)
