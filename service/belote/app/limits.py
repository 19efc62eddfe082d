"""Limits kept in this process's memory (each replica counts its own).

Wrong passwords of a private table and open spectator streams are not events of the table, so
they are counted here: per table and per process. Chat limits, being events, are the log's.
"""

from __future__ import annotations

import time
from collections import deque

WRONG_PASSWORDS, WRONG_PASSWORDS_WINDOW_S = 5, 60.0
MAX_SPECTATORS = 50


class WrongPasswords:
    """At most ``limit`` wrong passwords per table within ``window_s``; then no more tries."""

    def __init__(self, limit: int = WRONG_PASSWORDS, window_s: float = WRONG_PASSWORDS_WINDOW_S,
                 clock=time.monotonic):
        self.limit, self.window_s, self.clock = limit, window_s, clock
        self._tries: dict[str, deque] = {}

    def blocked(self, table_id: str) -> bool:
        tries = self._tries.get(table_id)
        if not tries:
            return False
        since = self.clock() - self.window_s
        while tries and tries[0] <= since:
            tries.popleft()
        if not tries:
            del self._tries[table_id]
        return len(tries) >= self.limit

    def failed(self, table_id: str) -> None:
        self._tries.setdefault(table_id, deque()).append(self.clock())


class Spectators:
    """Open spectator streams per table, at most ``limit`` each."""

    def __init__(self, limit: int = MAX_SPECTATORS):
        self.limit = limit
        self._open: dict[str, int] = {}

    def enter(self, table_id: str) -> bool:
        if self._open.get(table_id, 0) >= self.limit:
            return False
        self._open[table_id] = self._open.get(table_id, 0) + 1
        return True

    def leave(self, table_id: str) -> None:
        self._open[table_id] -= 1
        if not self._open[table_id]:
            del self._open[table_id]
