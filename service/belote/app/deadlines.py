"""The tables' soonest deadlines (disconnect grace, turn timer, rematch vote), soonest first.

A sweep takes only the tables whose deadline has come, from a heap, instead of loading every
table. Deadlines written by another replica are learnt from the store's index: a table whose
version there is the one its deadline was noted at has not changed, so it is not loaded again.
"""

from __future__ import annotations

import heapq
from collections.abc import Iterable


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
