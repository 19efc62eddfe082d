"""Whether a seat's player is connected: it has a watch stream open on some replica.

Each open stream of a seat holds a lease in the store (``presence:<table>:<seat>``), renewed
while it stays open, so every replica counts the streams of all. A seat whose last stream closed
is marked disconnected (SeatDisconnected) only if, DEBOUNCE_S later, no replica has a stream of
it open: a client opening and closing streams in a loop appends at most one SeatDisconnected and
one SeatConnected per DEBOUNCE_S, not two events per stream. A replica that dies leaves leases
that run out by themselves within LEASE_S.
"""

from __future__ import annotations

import asyncio
import contextlib
import uuid
from collections.abc import Awaitable, Callable

import structlog

from belote.store import StoreError
from belote.table.decide import Disconnect, Reconnect

DEBOUNCE_S = 1.0
LEASE_S = 10.0        # renewed every third of it
MANY = 2**31          # a seat may have any number of streams: leases counted, never refused

log = structlog.get_logger("belote.presence")


def _us(seconds: float) -> int:
    return int(seconds * 1_000_000)


def _scope(table_id: str, seat: int) -> str:
    return f"presence:{table_id}:{seat}"


class SeatPresence:
    """``load(table_id)``: the table's state; ``append(table_id, seat, command)``: append a
    Disconnect / Reconnect if the table still wants it, True if it did; ``spawn``: run a
    background coroutine (cancelled when the app closes)."""

    def __init__(self, store, clock: Callable[[], int], load: Callable[[str], Awaitable],
                 append: Callable[[str, int, object], Awaitable[bool]],
                 spawn: Callable[[Awaitable], None], *, debounce_s: float = DEBOUNCE_S,
                 lease_s: float = LEASE_S):
        self.store, self.clock, self.load, self.append, self.spawn = store, clock, load, append, spawn
        self.debounce_s, self.lease_s = debounce_s, lease_s
        self._here: dict[tuple[str, int], set[str]] = {}     # (table, seat) -> open streams here
        self._checking: set[tuple[str, int]] = set()         # a debounced look is on its way
        self._renewing = False

    async def arrive(self, table_id: str, seat: int) -> str:
        """A stream of the seat opens: its lease (its holder id is returned), then a
        SeatConnected if the log has the seat disconnected. The lease is taken before the log is
        read, so a SeatDisconnected appended by another replica's look after that read finds
        the lease, and is undone (see _look_later)."""
        holder, now = uuid.uuid4().hex, self.clock()
        self._here.setdefault((table_id, seat), set()).add(holder)
        if not self._renewing:
            self._renewing = True
            self.spawn(self._renew_while_open())
        try:
            try:
                await self.store.leases.take(_scope(table_id, seat), holder, MANY, now,
                                            now + _us(self.lease_s))
            except StoreError as e:            # not counted elsewhere until renewed
                log.warning("seat presence not recorded", table_id=table_id, seat=seat, error=str(e))
            if (await self.load(table_id)).seats[seat].disconnected_at_us:
                await self.append(table_id, seat, Reconnect(seat))
        except BaseException:                  # the stream ends before it started
            self.depart(table_id, seat, holder)
            raise
        return holder

    def depart(self, table_id: str, seat: int, holder: str, *, closing: bool = False) -> None:
        """A stream of the seat closed. ``closing``: this server is shutting down; its clients
        move to another replica, and this lease runs out by itself."""
        key = (table_id, seat)
        open_here = self._here.get(key, set())
        open_here.discard(holder)
        if not open_here:
            self._here.pop(key, None)
        if not closing:
            self.spawn(self._leave(table_id, seat, holder))

    async def _leave(self, table_id: str, seat: int, holder: str) -> None:
        with contextlib.suppress(StoreError):      # unreachable: the lease runs out
            await self.store.leases.drop(_scope(table_id, seat), holder)
        key = (table_id, seat)
        if key in self._checking:                  # the look on its way sees this one gone too
            return
        self._checking.add(key)
        try:
            await self._look_later(table_id, seat)
        finally:
            self._checking.discard(key)

    async def _look_later(self, table_id: str, seat: int) -> None:
        """DEBOUNCE_S after a stream closed: no stream of the seat open anywhere, a
        SeatDisconnected. While a stream is open on another replica, look again every third of
        a lease (its replica may die without closing it)."""
        scope = _scope(table_id, seat)
        await asyncio.sleep(self.debounce_s)
        while (table_id, seat) not in self._here:       # one open here: its own close looks
            try:
                if not await self.store.leases.count(scope, self.clock()):
                    if await self.append(table_id, seat, Disconnect(seat)) and \
                            await self.store.leases.count(scope, self.clock()):
                        # A stream opened while ours was appended, and read the log before.
                        await self.append(table_id, seat, Reconnect(seat))
                    return
            except StoreError as e:
                log.warning("seat presence not counted", table_id=table_id, seat=seat, error=str(e))
            await asyncio.sleep(self.lease_s / 3)

    async def _renew_while_open(self) -> None:
        try:
            while self._here:
                await asyncio.sleep(self.lease_s / 3)
                leases = [(_scope(t, s), h) for (t, s), holders in self._here.items() for h in holders]
                try:
                    await self.store.leases.extend(leases, self.clock() + _us(self.lease_s))
                except StoreError as e:
                    log.warning("seat presence not renewed", error=str(e))
        finally:
            self._renewing = False
