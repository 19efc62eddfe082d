"""Limits a table keeps without logging them: the wrong passwords tried on a private table and
its open spectator streams.

They are presence, not history, so they are not events of the table; they are leases in the
store (``EventStore.take_lease``), which every replica on the store counts alike. A replica that
dies without ending its leases leaves places that run out by themselves. Chat limits, being
events, are the log's.
"""

from __future__ import annotations

import asyncio
import contextlib
import uuid
from collections.abc import Callable

import structlog

from belote.store import StoreError

WRONG_PASSWORDS, WRONG_PASSWORDS_WINDOW_S = 5, 60.0
MAX_SPECTATORS = 50
SPECTATOR_LEASE_S = 30.0     # an open stream's place; renewed every third of it

log = structlog.get_logger("belote.limits")


def _us(seconds: float) -> int:
    return int(seconds * 1_000_000)


class WrongPasswords:
    """At most ``limit`` wrong passwords per table within ``window_s``; then no more tries
    until the oldest of them is ``window_s`` old."""

    def __init__(self, store, clock: Callable[[], int], limit: int = WRONG_PASSWORDS,
                 window_s: float = WRONG_PASSWORDS_WINDOW_S):
        self.store, self.clock, self.limit, self.window_s = store, clock, limit, window_s

    async def blocked(self, table_id: str) -> bool:
        return await self.store.count_leases(f"wrong-password:{table_id}", self.clock()) >= self.limit

    async def failed(self, table_id: str) -> None:
        now = self.clock()
        # Each wrong try is a lease of its own that ends with the window: never refused.
        await self.store.take_lease(f"wrong-password:{table_id}", uuid.uuid4().hex, 2**31,
                                    now, now + _us(self.window_s))


class Spectators:
    """Open spectator streams, at most ``limit`` per table over every replica. This process
    renews the places of its own open streams while they stay open."""

    def __init__(self, store, clock: Callable[[], int], limit: int = MAX_SPECTATORS,
                 lease_s: float = SPECTATOR_LEASE_S):
        self.store, self.clock, self.limit, self.lease_s = store, clock, limit, lease_s
        self._open: set[tuple[str, str]] = set()          # (scope, holder) of our open streams
        self._renewing: asyncio.Task | None = None

    async def enter(self, table_id: str) -> str | None:
        """A place for one more spectator stream (its holder id), or None if the table is full."""
        holder, scope, now = uuid.uuid4().hex, f"spectators:{table_id}", self.clock()
        if not await self.store.take_lease(scope, holder, self.limit, now, now + _us(self.lease_s)):
            return None
        self._open.add((scope, holder))
        if self._renewing is None or self._renewing.done():
            self._renewing = asyncio.get_running_loop().create_task(self._renew_while_open())
        return holder

    async def leave(self, table_id: str, holder: str) -> None:
        scope = f"spectators:{table_id}"
        self._open.discard((scope, holder))
        with contextlib.suppress(StoreError):      # unreachable store: the place runs out
            await self.store.drop_lease(scope, holder)

    async def _renew_while_open(self) -> None:
        while self._open:
            await asyncio.sleep(self.lease_s / 3)
            try:
                await self.store.extend_leases(sorted(self._open), self.clock() + _us(self.lease_s))
            except StoreError as e:
                log.warning("spectator places not renewed", error=str(e))

    async def close(self) -> None:
        if self._renewing is not None:
            self._renewing.cancel()
            await asyncio.gather(self._renewing, return_exceptions=True)
