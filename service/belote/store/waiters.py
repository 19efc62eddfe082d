"""One waiter registry for `wait_for_append`, shared by both backends: per-table wake-ups, set
by this process's appends and by the backend's news of other processes' (a notification, or a
poll of the waited tables' versions every `poll_interval`)."""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections.abc import Awaitable, Callable

from .base import StoreUnavailable


class Waiters:
    def __init__(self, version: Callable[[str], Awaitable[int]],
                 versions: Callable[[list[str]], Awaitable[dict[str, int]]],
                 poll_interval: float) -> None:
        """`version(table)` reads one table's version, `versions(tables)` several at once
        (tables without events may be left out)."""
        self._version = version
        self._versions = versions
        self.poll_interval = poll_interval
        # A wake pops and sets the table's Event, so every waiter registered before it is woken
        # and the next one gets a fresh Event. An entry lives only while someone waits.
        self._signals: dict[str, asyncio.Event] = {}
        self._waiting: dict[str, int] = {}      # table -> waiters, for the shared poller
        self._known: dict[str, int] = {}        # table -> version the waiters last heard of
        self._poller: asyncio.Task[None] | None = None
        self.stopping = False                   # stop() was called
        self.closed = False

    def wake(self, table_id: str, version: int | None) -> None:
        """The table reached `version`; None: it may have, its waiters read it again."""
        if version is None:
            self._known.pop(table_id, None)
        elif table_id in self._waiting or table_id in self._known:
            self._known[table_id] = max(self._known.get(table_id, 0), version)
        signal = self._signals.pop(table_id, None)
        if signal is not None:
            signal.set()

    def wake_all(self) -> None:
        """Every waiter reads its table's version again (news may have been lost)."""
        for table_id in list(self._signals):
            self.wake(table_id, None)

    def stop(self) -> None:
        """Every wait returns now with the version it knows, and later ones at once."""
        self.stopping = True
        for table_id in list(self._signals):
            self.wake(table_id, self._known.get(table_id))

    async def close(self) -> None:
        """Waiters raise StoreUnavailable now, and later ones at once."""
        self.closed = True
        self.wake_all()
        if self._poller is not None:    # not left to notice it at its next round
            self._poller.cancel()
            await asyncio.gather(self._poller, return_exceptions=True)

    async def wait(self, table_id: str, after_sequence: int, timeout: float | None) -> int:
        """EventLog.wait_for_append."""
        deadline = None if timeout is None else time.monotonic() + timeout
        self._waiting[table_id] = self._waiting.get(table_id, 0) + 1
        self._start_poller()
        try:
            while True:
                # Take the signal BEFORE reading the version: a wake after the read sets this
                # very Event, so it cannot be missed.
                signal = self._signals.get(table_id)
                if signal is None:
                    signal = self._signals[table_id] = asyncio.Event()
                if self.closed:
                    raise StoreUnavailable("the store is closed")
                # Read once, unless other waiters keep the table's version known already:
                # after that, whoever wakes us says the new version (or to read it again).
                if table_id not in self._known:
                    version = await self._version(table_id)
                    if signal.is_set():
                        continue        # woken while reading: what woke us may be newer
                    self._known[table_id] = version
                version = self._known[table_id]
                if version > after_sequence or self.stopping:
                    return version
                remaining = None if deadline is None else deadline - time.monotonic()
                if remaining is not None and remaining <= 0:
                    return version
                if remaining is None:
                    await signal.wait()
                else:
                    with contextlib.suppress(TimeoutError):
                        async with asyncio.timeout(remaining):
                            await signal.wait()
        finally:
            self._waiting[table_id] -= 1
            if not self._waiting[table_id]:
                # The known version stays until the poller's next round: a table's watchers
                # leave and come back between any two events, and need not read it again.
                del self._waiting[table_id]
                self._signals.pop(table_id, None)

    def _start_poller(self) -> None:
        if self._poller is None or self._poller.done():
            self._poller = asyncio.get_running_loop().create_task(self._poll())

    async def _poll(self) -> None:
        """One query per interval for every waited-on table (not one per waiter), should news
        of another process's append be lost. Ends when nobody waits."""
        while self._waiting and not self.closed:
            await asyncio.sleep(self.poll_interval)
            self._forget_unwaited()
            tables = list(self._waiting)
            try:
                versions = await self._versions(tables)
            except StoreUnavailable:
                versions = {}
            for table_id in tables:
                if versions.get(table_id, 0) > self._known.get(table_id, 0):
                    self.wake(table_id, versions[table_id])
        self._forget_unwaited()

    def _forget_unwaited(self) -> None:
        """Versions are known only while waited on: the poller follows waited tables alone."""
        for table_id in [t for t in self._known if t not in self._waiting]:
            del self._known[table_id]
