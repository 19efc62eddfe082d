"""A command decided with a fresh deal at hand: what every append of the app decides with.

The deck and salt of a deal that starts are drawn here (``secrets``) and written into its
event, so the table's fold never needs a random source.
"""

from __future__ import annotations

import functools
import secrets

from belote.rules.cards import shuffled_deck
from belote.table.decide import decide


class FreshDeal:
    """A NextDeal shuffled (with ``secrets``) only if a deal does start: most commands don't."""

    @functools.cached_property
    def deck(self) -> tuple:
        return tuple(shuffled_deck())

    @functools.cached_property
    def salt(self) -> bytes:
        return secrets.token_bytes(16)


def deciding(command):
    """``decide`` for the repository: the command's events on a state, with a fresh deal."""
    return lambda state: decide(state, command, FreshDeal())
