"""Deadlines: a disconnected player's grace, a seat's turn timer, a finished game's rematch vote.

Each is the time of an event of the log plus a delay (a SeatDisconnected plus the grace, the
event that made it a seat's turn plus the turn timer, a GameEnded plus the rematch vote), so
any replica, before or after a restart, enforces it the same way; the expected version makes
sure only the first one to look acts. The sweep (:class:`DeadlineSweep`) takes only the tables
whose deadline has come, from a heap (:class:`Deadlines`), instead of loading every table.
Deadlines written by another replica are learnt from the store's index: a table whose version
there is the one its deadline was noted at has not changed, so it is not loaded again.
"""

from __future__ import annotations

import asyncio
import heapq
import time
from collections.abc import Callable, Iterable

import structlog

from belote.store import StoreError
from belote.table import request_ids
from belote.table.decide import CloseTable, LeaveSeat
from belote.table.state import FINISHED, HUMAN, PLAYING, TableState
from belote.v1 import events_pb2 as epb

from . import errors as err
from .deals import deciding

log = structlog.get_logger("belote.app")

SWEEP_MAX_S = 15.0     # a deadline another replica wrote is enforced at most this late here
SWEEP_MIN_S = 0.1
SWEEP_RETRY_S = 1.0    # a look at the index that failed (the store) is tried again this soon


class Deadlines:
    """At most one live deadline per table (its soonest); a heap with lazy deletion: a table
    noted again pushes a new entry and its old one is skipped when it comes up."""

    def __init__(self) -> None:
        self._heap: list[tuple[int, str]] = []
        self._due: dict[str, int] = {}        # table -> its live deadline (unix microseconds)
        self._noted_at: dict[str, int] = {}   # table -> the version its deadline was noted at

    def __len__(self) -> int:
        return len(self._due)

    def note(self, table_id: str, due_us: int | None, version: int) -> None:
        """The table's soonest deadline as of ``version`` (None: it has none)."""
        self._noted_at[table_id] = version
        if due_us is None:
            self._due.pop(table_id, None)
        elif self._due.get(table_id) != due_us:
            self._due[table_id] = due_us
            heapq.heappush(self._heap, (due_us, table_id))
            if len(self._heap) > 2 * len(self._due) + 64:      # mostly dead entries: rebuild
                self._heap = [(d, t) for t, d in self._due.items()]
                heapq.heapify(self._heap)

    def soonest(self) -> int | None:
        while self._heap and self._due.get(self._heap[0][1]) != self._heap[0][0]:
            heapq.heappop(self._heap)
        return self._heap[0][0] if self._heap else None

    def pop_due(self, now_us: int) -> list[str]:
        """The tables whose deadline is ``now_us`` or earlier, soonest first; taken out (a
        table looked at is noted again)."""
        due = []
        while self._heap and self._heap[0][0] <= now_us:
            deadline, table_id = heapq.heappop(self._heap)
            if self._due.get(table_id) == deadline:
                del self._due[table_id]
                due.append(table_id)
        return due

    def changed(self, tables: Iterable[tuple[str, int]]) -> list[str]:
        """Of (table, version) pairs (the store's index), the tables not noted at that version;
        the others, and the tables no longer listed, are forgotten unless they have a deadline."""
        listed, changed = {}, []
        for table_id, version in tables:
            listed[table_id] = version
            if self._noted_at.get(table_id) != version:
                changed.append(table_id)
        self._noted_at = {t: v for t, v in self._noted_at.items() if t in listed or t in self._due}
        return changed

    def look_again(self, table_id: str) -> None:
        """Load the table at the next look at the index even if it has not changed (something
        it needs, such as a settlement, failed)."""
        self._noted_at.pop(table_id, None)


class DeadlineSweep:
    """Enforces the tables' deadlines: a takeover bot for a player past its grace, a timer move
    for a seat past its turn timer, the close of a table whose rematch vote ran out."""

    def __init__(self, tables, clock: Callable[[], int], disconnect_grace_s: float, stakes,
                 bot_runner, closing: asyncio.Event) -> None:
        self._tables = tables                 # the tables' Repository
        self.clock = clock
        self.disconnect_grace_s = disconnect_grace_s
        self._stakes = stakes
        self._bots = bot_runner
        self._closing = closing
        self._next_sweep_us = 0             # when the deadline sweep wakes next
        self._deadline_sooner = asyncio.Event()
        self._deadlines = Deadlines()       # the tables' soonest deadlines known to this process

    async def enforce(self, now_us: int | None = None, *, refresh: bool = True) -> int:
        """Act on every deadline passed by ``now_us`` (default: now); returns how many.

        A disconnected player past its grace gets a takeover bot; a human seat past its turn
        timer gets a timer move; a table whose rematch vote ran out closes. Only the tables
        whose deadline has come are loaded (they are kept soonest first). ``refresh``: first
        learn, from the store's index, the deadlines of the tables changed since this process
        last looked (by another replica, or before a restart); only those are loaded, and the
        ledgers of their games started or ended are settled, if this process has not yet.
        """
        now_us = now_us or self.clock()
        store = self._tables.store
        if refresh:
            listed = [*await store.lobby.list_tables(status=PLAYING, limit=100_000),
                      *await store.lobby.list_tables(status=FINISHED, limit=100_000)]
            for table_id in self._deadlines.changed((t, v) for t, _entry, v in listed):
                state = await self._tables.load(table_id)
                self.note(state)
                step = "end" if state.status == FINISHED else "stake" if state.pot else None
                if step is not None:
                    await self._stakes.settle(state, step)
                    if not self._stakes.ledgers.settled(state, step):
                        self._deadlines.look_again(table_id)
        done = 0
        for table_id in self._deadlines.pop_due(now_us):
            try:
                state = await self._tables.load(table_id)
                for seat, s in enumerate(state.seats):
                    if state.status == PLAYING and s.occupant == HUMAN and s.disconnected_at_us and \
                            now_us - s.disconnected_at_us >= self.disconnect_grace_s * 1e6:
                        level = state.takeover_level()
                        done += await self._on_deadline(state, request_ids.grace(seat),
                                                        LeaveSeat(seat, level, epb.SEAT_LEFT_REASON_DISCONNECTED))
                state = await self._tables.load(table_id)
                deadline = state.turn_deadline_us()
                if deadline is not None and now_us >= deadline:
                    done += await self._on_deadline(state, request_ids.TIMER,
                                                    await self._bots.timer_move(state, now_us))
                state = await self._tables.load(table_id)
                deadline = state.rematch_deadline_us()
                if deadline is not None and now_us >= deadline:
                    done += await self._on_deadline(state, request_ids.CLOSE, CloseTable(now_us))
                self.note(await self._tables.load(table_id), judged_at_us=now_us)
            except (StoreError, err.AppError) as e:
                # Not lost: looked at again in a second, and loaded again at the next refresh.
                self._deadlines.note(table_id, self.clock() + 1_000_000, -1)
                log.warning("deadline not enforced yet", table_id=table_id, error=str(e))
        return done

    def note(self, state: TableState, judged_at_us: int | None = None) -> None:
        """Keep the table's soonest deadline (grace, turn timer or rematch vote), and wake the
        sweep if it is sooner than the sweep's next round. ``judged_at_us``: the time the
        table was just judged at; a deadline still passed then (nobody could act) is looked
        at again in a second."""
        deadlines = [state.turn_deadline_us(), state.rematch_deadline_us()]
        if state.status == PLAYING:
            deadlines += [s.disconnected_at_us + int(self.disconnect_grace_s * 1e6)
                          for s in state.seats if s.occupant == HUMAN and s.disconnected_at_us]
        soonest = min((d for d in deadlines if d is not None), default=None)
        if soonest is not None and judged_at_us is not None and soonest <= judged_at_us:
            soonest = max(soonest, self.clock() + 1_000_000)
        self._deadlines.note(state.table_id, soonest, state.version)
        if soonest is not None and soonest < self._next_sweep_us:
            self._next_sweep_us = soonest
            self._deadline_sooner.set()

    async def _on_deadline(self, state: TableState, what: str, command) -> int:
        try:
            await self._tables.execute(state.table_id, request_ids.deadline(what, state.version),
                                       deciding(command), state.version,
                                       at_us=getattr(command, "now_us", None))
            return 1
        except err.AppError:
            return 0      # another replica (or the player) moved first; the next sweep looks again

    async def run(self) -> None:
        """Act on the deadlines as they come, sleeping until the soonest (one its own appends
        set wakes it earlier); look at the store's index every SWEEP_MAX_S for the deadlines
        other replicas wrote."""
        next_refresh = 0.0              # time.monotonic()
        while not self._closing.is_set():
            refresh = time.monotonic() >= next_refresh
            try:
                await self.enforce(refresh=refresh)
                if refresh:
                    next_refresh = time.monotonic() + SWEEP_MAX_S
            except (StoreError, err.AppError) as e:
                log.warning("deadline sweep failed", error=str(e))
                next_refresh = time.monotonic() + SWEEP_RETRY_S
            await asyncio.sleep(SWEEP_MIN_S)
            soonest = self._deadlines.soonest()
            self._next_sweep_us = self.clock() + int((next_refresh - time.monotonic()) * 1e6)
            if soonest is not None:
                self._next_sweep_us = min(self._next_sweep_us, soonest)
            while (wait_s := (self._next_sweep_us - self.clock()) / 1e6) > 0:
                self._deadline_sooner.clear()
                try:
                    await asyncio.wait_for(self._deadline_sooner.wait(), wait_s)
                except TimeoutError:
                    break
