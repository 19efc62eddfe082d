"""Whether a seat's player is present: it has a watch stream open on some replica, or it called
with its seat token lately (a client that polls GetTable instead of watching).

Each open stream of a seat holds a lease in the store (``presence:<table>:<seat>``), renewed
while it stays open, so every replica counts the streams of all. A call by the seat's token
(joining, GetTable, GetLegalActions, Act, chat, a rematch vote) holds the seat's call lease
(``called:<table>:<seat>``) for CALL_PRESENT_S: a polling client is present while it polls at
least that often. A seat is away when it holds neither, and is then marked disconnected
(SeatDisconnected: its grace runs, then a takeover bot plays) once its table is playing. Who
looks:
- a stream that closes: DEBOUNCE_S later, so a client opening and closing streams in a loop
  appends at most one SeatDisconnected and one SeatConnected per DEBOUNCE_S; then only streams
  count (a watching client whose stream dropped is away, whatever it called just before);
- a call: when its lease could have run out, so a seat that joins and never opens a stream
  counts as away from then on;
- a game that starts: every human seat without a stream is looked at (a seat that waited
  absent at a waiting table, which nothing marks disconnected, is then).
A seat marked disconnected comes back (SeatConnected) when a stream of it opens, or when it
calls again. A replica that dies leaves leases that run out by themselves within LEASE_S.
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
CALL_PRESENT_S = 10.0  # a seat's call keeps it present this long (its lease written every third)
CALLER = "call"       # the one holder of a seat's call lease: every replica renews the same
MANY = 2**31          # a seat may have any number of streams: leases counted, never refused

log = structlog.get_logger("belote.presence")


def _us(seconds: float) -> int:
    return int(seconds * 1_000_000)


def _scope(table_id: str, seat: int) -> str:
    return f"presence:{table_id}:{seat}"


def _called_scope(table_id: str, seat: int) -> str:
    return f"called:{table_id}:{seat}"


class SeatPresence:
    """``load(table_id)``: the table's state; ``append(table_id, seat, command)``: append a
    Disconnect / Reconnect if the table still wants it, True if it did; ``spawn``: run a
    background coroutine (cancelled when the app closes)."""

    def __init__(self, store, clock: Callable[[], int], load: Callable[[str], Awaitable],
                 append: Callable[[str, int, object], Awaitable[bool]],
                 spawn: Callable[[Awaitable], None], *, debounce_s: float = DEBOUNCE_S,
                 lease_s: float = LEASE_S, call_present_s: float = CALL_PRESENT_S):
        self.store, self.clock, self.load, self.append, self.spawn = store, clock, load, append, spawn
        self.debounce_s, self.lease_s, self.call_present_s = debounce_s, lease_s, call_present_s
        self._here: dict[tuple[str, int], set[str]] = {}     # (table, seat) -> open streams here
        self._checking: dict[tuple[str, int, bool], int] = {}   # a look on its way: its time
        self._called: dict[tuple[str, int], int] = {}        # (table, seat) -> its lease written at
        self._renewing = False

    async def present(self, table_id: str, seat: int) -> bool:
        """Whether the seat has a stream open on some replica or called lately."""
        if (table_id, seat) in self._here:
            return True
        now = self.clock()
        return bool(await self.store.leases.count(_scope(table_id, seat), now)
                    or await self.store.leases.count(_called_scope(table_id, seat), now))

    async def called(self, table_id: str, seat: int) -> None:
        """A call by the seat's own token: present for call_present_s more (recorded before the
        call answers, so a quick play right after a join finds its player present). The lease
        is written at most once per third of that by this process; a look follows unless one is
        on its way or a stream is open here."""
        key, now = (table_id, seat), self.clock()
        if now - self._called.get(key, -(1 << 62)) < _us(self.call_present_s / 3):
            return
        if len(self._called) > 4096:        # forget the seats whose last call is long past
            old = now - _us(self.call_present_s)
            self._called = {k: at for k, at in self._called.items() if at > old}
        self._called[key] = now
        try:
            await self.store.leases.take(_called_scope(table_id, seat), CALLER, MANY, now,
                                         now + _us(self.call_present_s))
        except StoreError as e:            # counted as away sooner: its next call writes again
            log.warning("seat call not recorded", table_id=table_id, seat=seat, error=str(e))
            self._called.pop((table_id, seat), None)
        try:
            if (await self.load(table_id)).seats[seat].disconnected_at_us:
                await self.append(table_id, seat, Reconnect(seat))    # back, polling
        except StoreError as e:
            log.warning("seat presence not read", table_id=table_id, seat=seat, error=str(e))
        self._look_at(table_id, seat, self.call_present_s, until_streamed=True)

    def game_started(self, table_id: str, seats: list[int]) -> None:
        """A game of the table started with humans on ``seats``: those away are marked so."""
        for seat in seats:
            self._look_at(table_id, seat, self.debounce_s, until_streamed=True)

    def _look_at(self, table_id: str, seat: int, after_s: float, *, until_streamed: bool) -> None:
        """A look at the seat ``after_s`` from now, unless a stream open here (its close looks)
        or a look as soon or sooner will see the same."""
        # A stream's close and a call's look judge apart (the first counts streams only), so
        # one of each kind may be on its way.
        key, at = (table_id, seat, until_streamed), self.clock() + _us(after_s)
        if (table_id, seat) in self._here or self._checking.get(key, at + 1) <= at:
            return
        self._checking[key] = at

        async def look() -> None:
            try:
                await self._look_later(table_id, seat, after_s, until_streamed=until_streamed)
            finally:
                if self._checking.get(key) == at:
                    del self._checking[key]
        self.spawn(look())

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
        self._look_at(table_id, seat, self.debounce_s, until_streamed=False)

    async def _look_later(self, table_id: str, seat: int, after_s: float, *,
                          until_streamed: bool) -> None:
        """``after_s`` from now: the seat away, a SeatDisconnected if its table is playing.
        After a stream closed here: away with no stream open anywhere; while one is open on
        another replica, look again every third of a lease (its replica may die without
        closing it). ``until_streamed`` (a call's or a game start's look): away with neither a
        stream nor a recent call; look again while it calls, until a stream opens anywhere,
        whose replica then looks at its close."""
        scope, called = _scope(table_id, seat), _called_scope(table_id, seat)
        await asyncio.sleep(after_s)
        while (table_id, seat) not in self._here:       # one open here: its own close looks
            try:
                now = self.clock()
                streams = await self.store.leases.count(scope, now)
                if streams and until_streamed:
                    return
                # After a stream closed, only streams count: a watching client whose stream
                # dropped is away, whatever it called just before.
                if not streams and not (until_streamed and await self.store.leases.count(called, now)):
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
