"""SQLite commits the appends queued while its writer was busy in one transaction."""

from __future__ import annotations

import asyncio
import sqlite3

from belote.store import NewEvent, StoreUnavailable, open_store


async def test_queued_appends_share_one_commit_and_each_keeps_its_outcome(tmp_path):
    store = open_store(f"sqlite:///{tmp_path}/s.db")
    batches: list[int] = []
    commit = store._commit_queued

    def counted(loop):
        batches.append(len(store._queued))
        commit(loop)

    store._commit_queued = counted
    try:
        results = await asyncio.gather(*(
            store.append(f"t{i}", 0, [NewEvent("e", b"x")], request_id="r", recorded_at_us=1)
            for i in range(50)))
        assert [r.events[0].table_id for r in results] == [f"t{i}" for i in range(50)]
        assert sum(batches) == 50 and len(batches) < 50      # some appends shared a commit
        for i in range(50):
            assert [e.sequence for e in await store.read(f"t{i}")] == [1]
    finally:
        await store.close()


async def test_a_failed_commit_fails_every_append_of_it_and_writes_none(tmp_path):
    store = open_store(f"sqlite:///{tmp_path}/s.db")
    real = store._wconn

    class CommitFails:
        """The writer's connection, whose COMMIT fails as a full disk would make it."""
        def __getattr__(self, name):
            return getattr(real, name)

        def execute(self, sql, *args):
            if sql == "COMMIT":
                raise sqlite3.OperationalError("database or disk is full")
            return real.execute(sql, *args)

    store._wconn = CommitFails()
    try:
        results = await asyncio.gather(*(
            store.append(f"t{i}", 0, [NewEvent("e", b"x")], request_id="r", recorded_at_us=1)
            for i in range(10)), return_exceptions=True)
        assert all(isinstance(r, StoreUnavailable) and "disk is full" in str(r) for r in results)
        store._wconn = real
        for i in range(10):
            assert await store.read(f"t{i}") == []
    finally:
        store._wconn = real
        await store.close()


async def test_an_append_whose_caller_is_cancelled_still_wakes_the_tables_waiters(tmp_path):
    # The caller goes away (its RPC is cancelled) once its append is queued: the commit goes on,
    # and the table's waiters hear of it at once, not at the poller's next round.
    store = open_store(f"sqlite:///{tmp_path}/s.db")
    try:
        waiter = asyncio.create_task(store.wait_for_append("t", 0, timeout=10))
        await asyncio.sleep(0.05)
        appending = asyncio.create_task(
            store.append("t", 0, [NewEvent("e", b"x")], request_id="gone", recorded_at_us=1))
        await asyncio.sleep(0)               # queued for the writer
        appending.cancel()
        async with asyncio.timeout(store.poll_interval / 2):
            assert await waiter == 1
        assert [e.request_id for e in await store.read("t")] == ["gone"]
    finally:
        await store.close()
