"""Bots: functions of (what their seat knows, a seed) -> one of the seat's legal actions.

A bot gets a :class:`belote.table.views.SeatView`, built by the same module that redacts the
API's streams: its own hand, the public cards and history, the legal actions. It cannot reach
the full state. The seed is recorded in the log with the move, so a reviewer can recompute it.

Levels (sheet 001, "Intelligence artificielle"):
- ``easy``: the lowest legal card (:mod:`easy`);
- ``normal``: rules of thumb read off the view (:mod:`normal`, bids from :mod:`bidding`);
- ``hard``: remembers and infers where the cards are (:mod:`inference`), samples deals and
  searches them (:mod:`search`, :mod:`outcome`), in :mod:`hard`.
Both normal and hard declare enhanced announcements by :mod:`announcing`.
:mod:`match` plays duplicate matches between levels (``belote bots-match``).
"""

from __future__ import annotations

from belote.v1 import events_pb2 as epb

from . import easy, hard, normal

LEVELS = {epb.EASY: easy.choose, epb.NORMAL: normal.choose, epb.HARD: hard.choose}


def choose(level: int, view, seed: int):
    """The action the bot of ``level`` takes from its seat's view."""
    return LEVELS.get(level, easy.choose)(view, seed)
