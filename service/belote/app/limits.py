"""Limits kept without logging them: the wrong passwords each caller tried on a private table,
each caller's tables created and spectator chat messages, and a table's open spectator streams.

They are presence, not history, so they are not events of the table; they are leases in the
store (``Leases.take``), which every replica on the store counts alike. A replica that
dies without ending its leases leaves places that run out by themselves. A seat's chat limit,
being events, is the log's.

A caller is the peer's host and the token it shows (a seat, host or player token), so one
stranger's tries are never counted against another caller.
"""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import uuid
from collections.abc import Callable

import structlog

from belote.store import StoreError

WRONG_PASSWORDS, WRONG_PASSWORDS_WINDOW_S = 5, 60.0
TABLES_PER_MINUTE = 30          # CreateTable, per caller
MAX_SPECTATORS = 50
SPECTATORS_PER_CALLER = 10   # of one table: one caller cannot take every place
SPECTATOR_LEASE_S = 30.0     # an open stream's place; renewed every third of it

log = structlog.get_logger("belote.limits")


def _us(seconds: float) -> int:
    return int(seconds * 1_000_000)


def caller_key(peer: str | None, identity: str | None = None) -> str:
    """Who a per-caller limit counts: a peer's host and the token it shows, hashed so that a
    lease names neither an address nor a token."""
    return hashlib.sha256(f"{peer or ''}|{identity or ''}".encode()).hexdigest()[:32]


class Window:
    """At most ``limit`` uses per key within ``window_s`` (a sliding window), on every replica:
    each use is a lease of its own that ends with the window. A use retried under the same
    holder (a request's key) is counted once."""

    def __init__(self, store, clock: Callable[[], int], kind: str, limit: int, window_s: float):
        self.store, self.clock, self.kind = store, clock, kind
        self.limit, self.window_s = limit, window_s
        self._swept_us = 0

    def _scope(self, key: str) -> str:
        return f"{self.kind}:{key}"

    async def full(self, key: str) -> bool:
        return await self.store.leases.count(self._scope(key), self.clock()) >= self.limit

    async def take(self, key: str, holder: str | None = None) -> str | None:
        """Count one use (its holder id), or None when ``key`` has used up its window."""
        holder, now = holder or uuid.uuid4().hex, self.clock()
        taken = await self.store.leases.take(self._scope(key), holder, self.limit, now,
                                            now + _us(self.window_s))
        if now - self._swept_us >= _us(self.window_s):
            # The uses of keys never seen again: each key forgets its own only when it comes back.
            self._swept_us = now
            await self.store.leases.drop_ended(now)
        return holder if taken else None

    async def give_back(self, key: str, holder: str) -> None:
        with contextlib.suppress(StoreError):      # unreachable store: the use runs out
            await self.store.leases.drop(self._scope(key), holder)


class WrongPasswords(Window):
    """At most ``limit`` wrong passwords per caller and table within ``window_s``; then none
    of that caller's tries until the oldest of them is ``window_s`` old. A try is counted
    before its password is hashed (so tries sent at once cannot pass the limit together) and
    given back when it was right."""

    def __init__(self, store, clock: Callable[[], int], limit: int = WRONG_PASSWORDS,
                 window_s: float = WRONG_PASSWORDS_WINDOW_S):
        super().__init__(store, clock, "wrong-password", limit, window_s)


class Spectators:
    """Open spectator streams, at most ``limit`` per table and ``per_caller`` of them from one
    caller, over every replica. This process renews the places of its own open streams while
    they stay open."""

    FULL, CALLER_FULL = "full", "caller_full"

    def __init__(self, store, clock: Callable[[], int], limit: int = MAX_SPECTATORS,
                 lease_s: float = SPECTATOR_LEASE_S, per_caller: int = SPECTATORS_PER_CALLER):
        self.store, self.clock, self.limit, self.lease_s = store, clock, limit, lease_s
        self.per_caller = per_caller
        self._open: set[tuple[str, str]] = set()          # (scope, holder) of our open streams
        self._places: dict[str, tuple[str, ...]] = {}     # holder -> the scopes it holds
        self._renewing: asyncio.Task | None = None

    async def enter(self, table_id: str, caller: str) -> str:
        """A place for one more spectator stream of ``caller`` (its holder id), or FULL /
        CALLER_FULL. The caller's share is taken first, so a full table costs it nothing."""
        holder, now = uuid.uuid4().hex, self.clock()
        ends = now + _us(self.lease_s)
        mine, table = f"spectators:{table_id}:{caller}", f"spectators:{table_id}"
        if not await self.store.leases.take(mine, holder, self.per_caller, now, ends):
            return self.CALLER_FULL
        if not await self.store.leases.take(table, holder, self.limit, now, ends):
            with contextlib.suppress(StoreError):
                await self.store.leases.drop(mine, holder)
            return self.FULL
        self._places[holder] = (mine, table)
        self._open.update((scope, holder) for scope in (mine, table))
        if self._renewing is None or self._renewing.done():
            self._renewing = asyncio.get_running_loop().create_task(self._renew_while_open())
        return holder

    async def leave(self, holder: str) -> None:
        for scope in self._places.pop(holder, ()):
            self._open.discard((scope, holder))
            with contextlib.suppress(StoreError):      # unreachable store: the place runs out
                await self.store.leases.drop(scope, holder)

    async def _renew_while_open(self) -> None:
        while self._open:
            await asyncio.sleep(self.lease_s / 3)
            try:
                await self.store.leases.extend(sorted(self._open), self.clock() + _us(self.lease_s))
            except StoreError as e:
                log.warning("spectator places not renewed", error=str(e))

    async def close(self) -> None:
        if self._renewing is not None:
            self._renewing.cancel()
            await asyncio.gather(self._renewing, return_exceptions=True)
