"""Bots: functions of (what their seat knows, a seed) -> one of the seat's legal actions.

A bot gets a :class:`belote.table.views.SeatView`, built by the same module that redacts the
API's streams: its own hand, the public cards and history, the legal actions. It cannot reach
the full state. The seed is recorded in the log with the move, so a reviewer can recompute it.
"""

from __future__ import annotations

from belote.v1 import events_pb2 as epb

from . import easy

LEVELS = {epb.EASY: easy.choose}


def choose(level: int, view, seed: int):
    """The action the bot of ``level`` takes from its seat's view."""
    return LEVELS.get(level, easy.choose)(view, seed)
