"""Bots: functions of (what their seat knows, a seed) -> one of the seat's legal actions.

A bot gets a :class:`belote.table.views.SeatView`, built by the same module that redacts the
API's streams: its own hand, the public cards and history, the legal actions. It cannot reach
the full state. The seed is recorded in the log with the move, so a reviewer can recompute it.

Levels (sheet 001, "Intelligence artificielle"):
- ``easy``: the lowest legal card (:mod:`easy`);
- ``normal``: rules of thumb read off the view (:mod:`normal`, bids from :mod:`bidding`);
- ``hard``: remembers and infers where the cards are (:mod:`inference`), samples deals and
  plays them out (:mod:`search`, :mod:`rollout`, :mod:`endgame`, :mod:`outcome`), in :mod:`hard`.
Both normal and hard declare enhanced announcements by :mod:`announcing`.
:mod:`match` plays duplicate matches between levels (``belote bots-match``).

A level's algorithm changes over time, and old logs must still be recomputed move for move:
each move records its level's ``version`` (``BotMove.version``, 0 in logs from before it was
recorded), and :func:`choose` plays the version it is asked for. Every version a log may carry
stays playable here (:data:`VERSIONS`).
"""

from __future__ import annotations

from belote.v1 import events_pb2 as epb

from . import easy, hard, normal

LEVELS = {epb.BOT_LEVEL_EASY: easy.choose, epb.BOT_LEVEL_NORMAL: normal.choose, epb.BOT_LEVEL_HARD: hard.choose}
# Per level, the versions this build plays; the last one is what new moves use.
VERSIONS = {epb.BOT_LEVEL_EASY: (0,), epb.BOT_LEVEL_NORMAL: (0,), epb.BOT_LEVEL_HARD: tuple(hard.VERSIONS)}


class UnknownVersion(ValueError):
    """A move recorded by a version of a bot level this build does not have."""


def current_version(level: int) -> int:
    """The version new moves of ``level`` are made (and recorded) with."""
    return VERSIONS.get(level, (0,))[-1]


def move_record(level: int, seed: int) -> epb.BotMove:
    """What a bot's move records for the review: its level, seed and the level's version."""
    return epb.BotMove(level=level, seed=seed, version=current_version(level))


def choose(level: int, view, seed: int, version: int | None = None):
    """The action the bot of ``level`` (at ``version``, default the current one) takes from its
    seat's view."""
    if version is None:
        version = current_version(level)
    if version not in VERSIONS.get(level, (0,)):
        raise UnknownVersion(f"this build has no version {version} of the "
                             f"{epb.BotLevel.Name(level).removeprefix('BOT_LEVEL_').lower()} bot")
    if level == epb.BOT_LEVEL_HARD:
        return hard.choose(view, seed, version)
    return LEVELS.get(level, easy.choose)(view, seed)
