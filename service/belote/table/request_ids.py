"""The request ids under which the server appends its own moves, as a log records them.

A client's request id is its own key (app/requests.py); the server's moves are named by what
made them and the table's version they were judged on, so two replicas making the same move
meet on one id, and a review can tell from the log who appended an event.
"""

from __future__ import annotations

# The deadline sweep's moves (``deadline(what, version)``).
TIMER = "timer"              # a bot's move for a human seat whose turn timer ran out
CLOSE = "close"              # a table closed when its rematch vote ran out


def bot_move(sequence: int) -> str:
    """A seated bot's move, by the bot loop: the sequence its event gets."""
    return f"bot-{sequence}"


def deadline(what: str, version: int) -> str:
    """A move of the deadline sweep (``TIMER``, ``CLOSE``, ``grace(seat)``) on the table at
    ``version``: its event gets sequence ``version + 1``."""
    return f"{what}-{version}"


def grace(seat: int) -> str:
    """The sweep's move for a seat whose connection was lost longer than its grace."""
    return f"grace-{seat}"


def presence(seat: int, now_us: int) -> str:
    """A seat's (dis)connection, noted by the replica that saw its streams come or go."""
    return f"presence-{seat}-{now_us}"
