"""The ``bot`` check: a move carrying a ``BotMove`` was made by that bot, where and as the server does.

Who made it and under which request id (table/request_ids.py's, as the app names its own
moves), and, when asked, the move recomputed with ``bots.choose`` on the seat's view.
"""

from __future__ import annotations

from belote import bots
from belote.table import request_ids
from belote.table.codec import BOT_LEVEL_NAMES
from belote.table.state import BOT, TableState
from belote.table.views import seat_view
from belote.v1 import events_pb2 as epb

from . import text
from .entries import Entry

# The end of the finding of a recomputed move that differs (a review adds a note about builds).
MOVE_DIFFERS = "does not make this move from its seat's view"


class BotCheck:
    """The ``bot`` check of one log's moves: findings to ``fail``, each recomputed move counted
    in ``counts``; ``recompute=False`` checks who made each move, not the move itself."""

    __slots__ = ("counts", "fail", "recompute")

    def __init__(self, fail, recompute: bool, counts: dict[str, int]):
        self.fail = fail
        self.recompute = recompute
        self.counts = counts

    def check(self, state: TableState, e: Entry, seat: int, action, bot: epb.BotMove) -> None:
        """Check the bot move ``action`` of ``seat`` at ``e`` on ``state``, the table just before it."""
        if bot.timer:
            self._timer_move(state, e, bot)
        else:
            # A seated bot's move: a bot of that level holds the seat, and the bot loop appended it.
            at, level = e.position, bot.level
            if 0 <= seat <= 3:
                occupant = state.seats[seat]
                if occupant.occupant != BOT or occupant.bot_level != level:
                    found = (f"a {BOT_LEVEL_NAMES.get(occupant.bot_level, occupant.bot_level)} bot"
                             if occupant.occupant == BOT else f"{occupant.occupant} seat")
                    name = _bot_name(level)
                    self.fail(at, "bot", f"a {name} bot's move at seat {seat}, which no {name} "
                              "bot plays", f"a {name} bot", found)
            made_by = request_ids.bot_move(at)
            if e.request_id != made_by:
                self.fail(at, "bot", "a bot's move is appended by the server's bot loop under the "
                          "request id named after the sequence its event gets", made_by,
                          e.request_id or "(none)")
        if self.recompute and state.game is not None and state.to_act() == seat:
            self._recompute(state, e, seat, action, bot)     # else the legality check says so

    def _timer_move(self, state: TableState, e: Entry, bot: epb.BotMove) -> None:
        """The deadline sweep asks the table's takeover bot level to move for the human seat
        (whether the seat was late is the ``legal`` check's)."""
        at, level = e.position, bot.level
        takeover = state.takeover_level()
        if level != takeover:
            name, made = BOT_LEVEL_NAMES.get(takeover, takeover), _bot_name(level)
            self.fail(at, "bot", f"a timer move is made by the table's takeover bot ({name}), not "
                      f"by a {made} bot", f"a {name} bot", f"a {made} bot")
        made_by = request_ids.deadline(request_ids.TIMER, at - 1)
        if e.request_id != made_by:
            self.fail(at, "bot", "a timer move is appended by the server's deadline sweep under the "
                      "request id named after the table's version it was judged on (the sequence "
                      "before it)", made_by, e.request_id or "(none)")

    def _recompute(self, state: TableState, e: Entry, seat: int, action, bot: epb.BotMove) -> None:
        """The move the bot of that level, seed and version makes from the seat's view."""
        self.counts["bot"] += 1
        at, level = e.position, bot.level
        try:
            chosen = bots.choose(level, seat_view(state, seat), bot.seed, bot.version)
        except Exception as err:                       # noqa: BLE001 - a failing bot is a finding
            self.fail(at, "bot", f"the {_bot_name(level)} bot fails on this position with seed "
                      f"{bot.seed}: {type(err).__name__}: {err}", text.action(action, seat),
                      "an error")
            return
        if type(chosen) is not type(action) or tuple(chosen) != tuple(action):
            self.fail(at, "bot", f"the {_bot_name(level)} bot of seat {seat} with seed {bot.seed} "
                      f"{MOVE_DIFFERS}", text.action(chosen, seat), text.action(action, seat))


def _bot_name(level: int) -> str:
    """A bot level's name in a finding ("level 7" for an unknown level)."""
    return BOT_LEVEL_NAMES.get(level) or f"level {level}"
