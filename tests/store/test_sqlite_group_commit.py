"""SQLite commits the appends queued while its writer was busy in one transaction."""

from __future__ import annotations

import asyncio
import sqlite3

import pytest

from belote.store import NewEvent, StoreUnavailable, open_store


class _Connection:
    """The writer's connection as it is, but for what a subclass makes fail."""

    def __init__(self, real: sqlite3.Connection) -> None:
        self.real = real

    def __getattr__(self, name):
        return getattr(self.real, name)


async def test_queued_appends_share_one_commit_and_each_keeps_its_outcome(tmp_path):
    store = open_store(f"sqlite:///{tmp_path}/s.db")
    batches: list[int] = []
    commit = store.events._commit_queued

    def counted(loop):
        batches.append(len(store.events._queued))
        commit(loop)

    store.events._commit_queued = counted
    try:
        results = await asyncio.gather(*(
            store.events.append(f"t{i}", 0, [NewEvent("e", b"x")], request_id="r", recorded_at_us=1)
            for i in range(50)))
        assert [r.events[0].table_id for r in results] == [f"t{i}" for i in range(50)]
        assert sum(batches) == 50 and len(batches) < 50      # some appends shared a commit
        for i in range(50):
            assert [e.sequence for e in await store.events.read(f"t{i}")] == [1]
    finally:
        await store.close()


async def test_a_failed_commit_fails_every_append_of_it_and_writes_none(tmp_path):
    store = open_store(f"sqlite:///{tmp_path}/s.db")
    real = store.database.writer_conn

    class CommitFails(_Connection):
        """COMMIT fails, as a full disk would make it."""
        def execute(self, sql, *args):
            if sql == "COMMIT":
                raise sqlite3.OperationalError("database or disk is full")
            return real.execute(sql, *args)

    store.database.writer_conn = CommitFails(real)
    try:
        results = await asyncio.gather(*(
            store.events.append(f"t{i}", 0, [NewEvent("e", b"x")], request_id="r", recorded_at_us=1)
            for i in range(10)), return_exceptions=True)
        assert all(isinstance(r, StoreUnavailable) and "disk is full" in str(r) for r in results)
        store.database.writer_conn = real
        for i in range(10):
            assert await store.events.read(f"t{i}") == []
    finally:
        store.database.writer_conn = real
        await store.close()


async def test_an_append_whose_caller_is_cancelled_still_wakes_the_tables_waiters(tmp_path):
    # The caller goes away (its RPC is cancelled) once its append is queued: the commit goes on,
    # and the table's waiters hear of it at once, not at the poller's next round.
    store = open_store(f"sqlite:///{tmp_path}/s.db")
    try:
        waiter = asyncio.create_task(store.events.wait_for_append("t", 0, timeout=10))
        await asyncio.sleep(0.05)
        appending = asyncio.create_task(
            store.events.append("t", 0, [NewEvent("e", b"x")], request_id="gone", recorded_at_us=1))
        await asyncio.sleep(0)               # queued for the writer
        appending.cancel()
        async with asyncio.timeout(store.events.waiters.poll_interval / 2):
            assert await waiter == 1
        assert [e.request_id for e in await store.events.read("t")] == ["gone"]
    finally:
        await store.close()


async def _in_one_commit(store, appends):
    """Run ``appends`` (coroutines) so that they all queue behind a busy writer: one commit."""
    import threading
    release = threading.Event()
    store.database.writer.submit(release.wait)            # the writer is busy until released
    tasks = [asyncio.create_task(a) for a in appends]
    await asyncio.sleep(0.05)                     # all queued
    assert len(store.events._queued) == len(appends)
    release.set()
    return await asyncio.gather(*tasks, return_exceptions=True)


async def test_a_conflict_in_a_commit_writes_nothing_of_it_and_its_retry_is_appended(tmp_path):
    from belote.store import VersionConflict
    store = open_store(f"sqlite:///{tmp_path}/s.db")
    try:
        results = await _in_one_commit(store, [
            store.events.append("t", 0, [NewEvent("e", b"first")], request_id="a", recorded_at_us=1),
            store.events.append("t", 0, [NewEvent("e", b"late")], request_id="b", recorded_at_us=1),
            store.events.append("t", 0, [NewEvent("e", b"first")], request_id="a", recorded_at_us=1),
            store.events.append("u", 0, [NewEvent("e", b"other")], request_id="b", recorded_at_us=1)])
        assert [e.payload for e in results[0].events] == [b"first"] and not results[0].duplicate
        assert isinstance(results[1], VersionConflict) and results[1].actual == 1
        assert results[2].duplicate and results[2].events == results[0].events
        assert [e.payload for e in results[3].events] == [b"other"]
        # "b" left no request behind at "t": sent again at the right version, it is appended.
        again = await store.events.append("t", 1, [NewEvent("e", b"late")], request_id="b", recorded_at_us=2)
        assert not again.duplicate and [e.sequence for e in again.events] == [2]
        assert [e.payload for e in await store.events.read("t")] == [b"first", b"late"]
    finally:
        await store.close()


async def test_a_database_error_in_one_append_fails_its_whole_commit(tmp_path):
    store = open_store(f"sqlite:///{tmp_path}/s.db")
    real = store.database.writer_conn

    class FullForOneTable(_Connection):
        """Inserting table "t2"'s events fails, as a full disk would make it."""
        def executemany(self, sql, rows):
            if rows[0][0] == "t2":
                raise sqlite3.OperationalError("database or disk is full")
            return real.executemany(sql, rows)

    store.database.writer_conn = FullForOneTable(real)
    try:
        results = await _in_one_commit(store, [
            store.events.append(f"t{i}", 0, [NewEvent("e", b"x")], request_id="r", recorded_at_us=1)
            for i in range(4)])
        assert all(isinstance(r, StoreUnavailable) and "disk is full" in str(r) for r in results)
        store.database.writer_conn = real
        for i in range(4):
            assert await store.events.read(f"t{i}") == []
        ok = await store.events.append("t0", 0, [NewEvent("e", b"x")], request_id="r", recorded_at_us=1)
        assert not ok.duplicate                  # no request row of the failed commit remains
    finally:
        store.database.writer_conn = real
        await store.close()


async def test_an_append_the_log_constraints_refuse_is_a_conflict_and_leaves_nothing(tmp_path):
    import belote.store.sqlite.events as impl

    # The write lock makes a stale head impossible; were it read stale all the same, the log's
    # primary key refuses the events, and the append is a conflict that wrote nothing.
    from belote.store import VersionConflict
    store = open_store(f"sqlite:///{tmp_path}/s.db")
    await store.events.append("t", 0, [NewEvent("e", b"one")], request_id="a", recorded_at_us=1)
    real = store.database.writer_conn

    class StaleHead(_Connection):
        """The table's head reads as an empty table's."""
        def execute(self, sql, *args):
            if sql == impl._HEAD_AND_REQUEST:
                return real.execute("SELECT NULL, NULL, NULL, NULL, NULL, NULL, NULL")
            return real.execute(sql, *args)

    store.database.writer_conn = StaleHead(real)
    try:
        with pytest.raises(VersionConflict) as refused:
            await store.events.append("t", 0, [NewEvent("e", b"x"), NewEvent("e", b"y")],
                               request_id="b", recorded_at_us=2)
        assert refused.value.actual == 1
        store.database.writer_conn = real
        assert [e.payload for e in await store.events.read("t")] == [b"one"]
        again = await store.events.append("t", 1, [NewEvent("e", b"two")], request_id="b", recorded_at_us=3)
        assert not again.duplicate and [e.sequence for e in again.events] == [2]
    finally:
        store.database.writer_conn = real
        await store.close()
