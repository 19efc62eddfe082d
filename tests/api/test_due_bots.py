"""The sweep of due bots, on a store of its own with a clock the test drives: one replica at a
time looks (the lease), a table is looked at once its version has stood still for STALL_S, and
not again at that version once found waiting for a human."""

from __future__ import annotations

from belote.app.due_bots import DueBots
from belote.store import NewEvent, SqliteStore, TableIndexEntry

S = 1_000_000


class Clock:
    def __init__(self) -> None:
        self.now = 1_700_000_000 * S

    def __call__(self) -> int:
        return self.now


async def _move(store, table_id: str) -> None:
    await store.events.append(table_id, await store.events.version(table_id), [NewEvent("x", b"")],
                       request_id=f"r{await store.events.version(table_id)}", recorded_at_us=0,
                       index=TableIndexEntry("playing", False, b""))


async def test_one_replica_looks_at_tables_that_stood_still_and_not_again_once_seen_waiting(tmp_path):
    store = SqliteStore(str(tmp_path / "due.db"))
    clock = Clock()
    try:
        a, b = DueBots(store, clock, "playing"), DueBots(store, clock, "playing")
        for t in ("t1", "t2"):
            await _move(store, t)
        # A takes the lease: right after, every table in play is looked at (its holder may
        # have died with bots to play); B, without the lease, looks at none.
        assert sorted(await a.stalled()) == ["t1", "t2"]
        assert await b.stalled() == []
        a.looked("t1", 1, bot_due=False)           # a human to act: not again at version 1
        a.looked("t2", 1, bot_due=True)            # kicked: again later, if it still stands still
        clock.now += S // 10
        await _move(store, "t2")                   # t2 moved (its bots play)
        assert await a.stalled() == []
        clock.now += int(0.6 * S)                  # t2 stood still at version 2 for STALL_S
        assert await a.stalled() == ["t2"]
        a.looked("t2", 2, bot_due=True)
        clock.now += int(0.3 * S)
        assert await a.stalled() == []             # kicked STALL_S ago at most: not yet
        clock.now += int(0.3 * S)
        assert await a.stalled() == ["t2"]         # still stuck: once more, then less often
        a.looked("t2", 2, bot_due=True)
        clock.now += int(0.6 * S)
        assert await a.stalled() == []
        clock.now += int(0.5 * S)
        assert await a.stalled() == ["t2"]
        # A stops looking (it died): its lease runs out, and B takes over, looking at all.
        clock.now += 3 * S
        assert sorted(await b.stalled()) == ["t1", "t2"]
        assert await a.stalled() == []
    finally:
        await store.close()
