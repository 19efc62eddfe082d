"""The bots at the tables: while a bot is to act, ask it (with its seat's view and a fresh seed,
which goes into the event) and append its move; and a timer move for a human seat out of time.

Bots decide through the app's ``BotPool`` (app/bot_pool.py): in worker processes, or in this
one with no workers (tests).
"""

from __future__ import annotations

import asyncio
import secrets

import structlog

from belote import bots
from belote.store import StoreError
from belote.table import request_ids
from belote.table.decide import Act, TimerMove
from belote.table.state import BOT, TableState
from belote.table.views import seat_view

from . import errors as err
from .deals import deciding

log = structlog.get_logger("belote.app")

BOT_RETRY_S = (0.05, 0.1, 0.2, 0.5, 1.0)   # bots paused by the store try again after these, then every 1 s


class BotRunner:
    def __init__(self, tables, bot_pool, closing: asyncio.Event) -> None:
        self._tables = tables                 # the tables' Repository
        self.bot_pool = bot_pool
        self._closing = closing
        self._tasks: dict[str, asyncio.Task] = {}
        self._again: set[str] = set()

    def tasks(self) -> list[asyncio.Task]:
        return list(self._tasks.values())

    def kick_if_due(self, state: TableState) -> bool:
        """Play the table's bots here if one is to act; whether one is."""
        seat = state.to_act()
        if seat is not None and state.seats[seat].occupant == BOT:
            self.kick(state.table_id)
            return True
        return False

    def kick(self, table_id: str) -> None:
        if self._closing.is_set():
            return
        if table_id in self._tasks:
            self._again.add(table_id)
            return
        self._tasks[table_id] = asyncio.get_running_loop().create_task(self._play(table_id))

    async def timer_move(self, state: TableState, now_us: int) -> TimerMove:
        """A bot's move, at the table's takeover level, for the seat whose turn timer ran out."""
        seat = state.to_act()
        level = state.takeover_level()
        seed = secrets.randbits(63)
        action = await self.bot_pool.choose(state.table_id, level, seat_view(state, seat), seed)
        return TimerMove(seat, action, bots.move_record(level, seed), now_us)

    async def _play(self, table_id: str) -> None:
        """While a bot is to act, ask it (with its seat's view) and append its move. A store that
        cannot be reached pauses the bots, which try again (after BOT_RETRY_S) until it can;
        should this process die instead, the sweep of due bots plays them on another replica."""
        failures = 0
        try:
            while not self._closing.is_set():
                self._again.discard(table_id)
                try:
                    state = await self._tables.load(table_id)
                    seat = state.to_act()
                    if seat is None or state.seats[seat].occupant != BOT:
                        if table_id in self._again:
                            continue
                        return
                    level = state.seats[seat].bot_level
                    seed = secrets.randbits(63)
                    action = await self.bot_pool.choose(table_id, level, seat_view(state, seat), seed)
                    command = Act(seat, action, bots.move_record(level, seed))
                    await self._tables.execute(table_id, request_ids.bot_move(state.version + 1),
                                               deciding(command), state.version)
                    failures = 0
                except (StoreError, err.AppError) as e:
                    reason = e.reason if isinstance(e, err.AppError) else err.STORE_UNAVAILABLE
                    if reason in err.RACES:           # someone else moved first: look again
                        continue
                    if reason == "SHUTTING_DOWN":
                        return
                    if reason not in (err.STORE_UNAVAILABLE, "BOT_WORKER_LOST"):
                        log.error("bot move refused", table_id=table_id, reason=e.reason, error=e.message)
                        return
                    if not failures:
                        log.warning("bots paused", table_id=table_id, error=str(e))
                    await asyncio.sleep(BOT_RETRY_S[min(failures, len(BOT_RETRY_S) - 1)])
                    failures += 1
        finally:
            self._tasks.pop(table_id, None)
