"""Bots whose turn it is on a table nothing moves: the replica that appended the move before
died, or its bots gave up in a store outage. The replica that holds the ``due-bots`` lease in
the store (one at a time; another takes it over within LEASE_S of its death) looks every
PERIOD_S at the versions of the tables in play in the store's index: a table whose version has
not moved for STALL_S is loaded and, if a bot is to act, its bots play here. A table found
waiting for a human is not loaded again until its version moves. A look that takes long (many
tables in play) is made less often, so that looking takes at most BUSY_SHARE of the time.

Two replicas playing the same bot move cannot both append it (the append's expected version
and its request id ``bot-<sequence>``), so a table kicked here while its own replica still plays
loses nothing: the lease only keeps the replicas from all doing the same sweep.

The same holder fills the quick-play tables whose wait is over (TableCreated.bots_fill_time):
each waiting table is loaded once per version to learn that time, and its empty seats get bots
once it has passed, whichever replica opened it and whether or not that one still runs.
"""

from __future__ import annotations

import asyncio
import time
import uuid
from collections.abc import Awaitable, Callable
from dataclasses import dataclass

import structlog

from belote.store import StoreError
from belote.table.state import WAITING

from . import errors as err

LEASE = "due-bots"
PERIOD_S = 0.25
BUSY_SHARE = 0.1        # with many tables a look takes long: then look less often than PERIOD_S
STALL_S = 0.5
LEASE_S = 1.0
BACKOFF_MAX_S = 30.0    # a table whose due bot still does not move is looked at this seldom
FILL_PERIOD_S = 1.0     # between two looks at the waiting tables (a backstop: the opener fills
                        # its tables on time itself, unless it is gone)
FILL_RETRY_S = 1.0      # a table still waiting after its seats were filled is tried again then

log = structlog.get_logger("belote.due_bots")


def _us(seconds: float) -> int:
    return int(seconds * 1_000_000)


@dataclass
class _Seen:
    version: int
    look_at_us: int | None        # None: looked at this version, no bot was due
    backoff_s: float = STALL_S


def bots_fill_at_us(state) -> int | None:
    """When bots fill the table's empty seats (a quick-play table still waiting for players,
    unix microseconds); None for any other table."""
    created = state.created
    if state.status != WAITING or created is None or not created.HasField("bots_fill_time") \
            or not state.free_seats():
        return None
    return created.bots_fill_time.ToMicroseconds()


class DueBots:
    def __init__(self, store, clock: Callable[[], int], status: str, *, period_s: float = PERIOD_S,
                 stall_s: float = STALL_S, lease_s: float = LEASE_S):
        self.store, self.clock, self.status = store, clock, status
        self.period_s, self.stall_s, self.lease_s = period_s, stall_s, lease_s
        self.holder = uuid.uuid4().hex          # this process, as the lease's holder
        self._seen: dict[str, _Seen] = {}       # empty while another process holds the lease
        self.looked_at = 0                      # tables loaded by the sweep (for tests, benches)
        self._interval_s = period_s             # between two looks (longer with many tables)
        self.holds_lease = False
        self._fills: dict[str, tuple[int, int | None]] = {}   # waiting table -> (version, fill at)
        self._next_fill_us = 0

    async def stalled(self) -> list[str]:
        """The tables to look at now; none unless this process holds (or now takes) the lease.
        Right after taking it, every table in play is one: the last holder may have died."""
        now = self.clock()
        until = now + _us(max(self.lease_s, 2 * self._interval_s))    # held until the next look
        self.holds_lease = await self.store.leases.take(LEASE, self.holder, 1, now, until)
        if not self.holds_lease:
            self._seen.clear()
            self._fills.clear()
            return []
        first = not self._seen
        seen, stalled = {}, []
        for table_id, _entry, version in await self.store.lobby.list_tables(status=self.status, limit=10**7):
            old = self._seen.get(table_id)
            if old is None or old.version != version:
                old = _Seen(version, now if first else now + _us(self.stall_s))
            seen[table_id] = old
            if old.look_at_us is not None and now >= old.look_at_us:
                stalled.append(table_id)
        self._seen = seen
        return stalled

    def looked(self, table_id: str, version: int, bot_due: bool) -> None:
        """What a look at a stalled table found: a bot due (kicked: look again later, less and
        less often while it stays stuck at this version) or not (not until the version moves)."""
        seen = self._seen.get(table_id)
        if seen is None or seen.version != version:
            return
        if not bot_due:
            seen.look_at_us = None
        else:
            seen.look_at_us = self.clock() + _us(seen.backoff_s)
            seen.backoff_s = min(seen.backoff_s * 2, BACKOFF_MAX_S)

    async def fill_due(self, load: Callable[[str], Awaitable],
                       fill: Callable[[str], Awaitable]) -> list[str]:
        """Fill (``fill(table_id)``) the waiting tables whose bots_fill_time has passed; the tables
        filled. Only while this process holds the lease (``stalled`` takes it), at most every
        FILL_PERIOD_S."""
        now = self.clock()
        if not self.holds_lease or now < self._next_fill_us:
            return []
        self._next_fill_us = now + _us(FILL_PERIOD_S)
        known, filled = {}, []
        # Quick play opens public tables only: the listed ones.
        for table_id, _entry, version in await self.store.lobby.list_tables(status=WAITING, listed=True,
                                                                     limit=10**7):
            seen = self._fills.get(table_id)
            if seen is None or seen[0] != version:
                seen = (version, bots_fill_at_us(await load(table_id)))
            if seen[1] is not None and now >= seen[1]:
                await fill(table_id)
                filled.append(table_id)
                seen = (version, now + _us(FILL_RETRY_S))   # filled: its version moves on
            known[table_id] = seen
        self._fills = known
        return filled

    async def run(self, load: Callable[[str], Awaitable], kick_if_due: Callable[[object], bool],
                  closing: asyncio.Event, fill: Callable[[str], Awaitable] | None = None) -> None:
        """Until ``closing``: every period, kick the bots of the stalled tables (``load`` a
        table's state; ``kick_if_due(state)`` plays its bots if one is to act, and says so),
        and ``fill`` the quick-play tables whose wait is over."""
        failing = False
        while not closing.is_set():
            started = time.perf_counter()
            listed_s = 0.0          # the looks at the index (the loads of stalled tables aside)
            try:
                stalled = await self.stalled()
                listed_s = time.perf_counter() - started
                for table_id in stalled:
                    state = await load(table_id)
                    self.looked_at += 1
                    self.looked(table_id, state.version, kick_if_due(state))
                if fill is not None:
                    filling = time.perf_counter()
                    await self.fill_due(load, fill)
                    listed_s += time.perf_counter() - filling
                failing = False
            except (StoreError, err.AppError) as e:
                if not failing:        # once per outage, not every period
                    log.warning("due bots not looked at", error=str(e))
                failing = True
            self._interval_s = max(self.period_s, listed_s / BUSY_SHARE)
            await asyncio.sleep(self._interval_s)
