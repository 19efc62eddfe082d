"""What only the PostgreSQL store has to do: share one database between replicas and live
through lost connections and outages. (The contract suite runs against it too.)

Each test gets its own database; outages are made on that database only (terminated
backends, refused connections), never by stopping the server -- tests/replicas does that.
"""

from __future__ import annotations

import asyncio
import os
import threading
import time

import psycopg
import pytest
from belote.store import NewEvent, StoreUnavailable, VersionConflict, open_store, verify_chain
from belote.store.postgres import CHANNEL, MIGRATIONS, PostgresStore

pytestmark = [pytest.mark.postgres, pytest.mark.timeout(60)]

T0 = 1_700_000_000_000_000
# As in conftest (not imported from it: tests/replicas has a conftest module too).
ADMIN_URL = os.environ.get("BELOTE_TEST_POSTGRES",
                           "postgresql://postgres@127.0.0.1:5432/postgres")


def admin(sql: str, *params) -> list:
    with psycopg.connect(ADMIN_URL, autocommit=True) as c:
        cur = c.execute(sql, params)
        return cur.fetchall() if cur.description else []


def terminate(database: str, where: str = "true") -> int:
    """Kill the database's server processes (and wait until they are gone)."""
    return len(admin(f"SELECT pg_terminate_backend(pid, 5000) FROM pg_stat_activity"
                     f" WHERE datname = %s AND pid <> pg_backend_pid() AND {where}", database))


async def append(store, table_id, expected, *payloads, request_id):
    return await store.events.append(table_id, expected, [NewEvent("e", p) for p in payloads],
                              request_id=request_id, recorded_at_us=T0)


async def eventually(check, timeout: float = 10.0):
    """Await check() until it returns without StoreUnavailable; returns its result."""
    deadline = time.monotonic() + timeout
    while True:
        try:
            return await check()
        except StoreUnavailable:
            if time.monotonic() > deadline:
                raise
            await asyncio.sleep(0.05)


async def test_appends_are_notified_as_table_and_last_sequence_after_commit(pg):
    async with await psycopg.AsyncConnection.connect(pg.url, autocommit=True) as listener:
        await listener.execute(f"LISTEN {CHANNEL}")
        async with pg.open() as store:
            await append(store, "t", 0, b"a", request_id="r1")
            await append(store, "t", 1, b"b", b"c", request_id="r2")
            await append(store, "t:with:colons", 0, b"x", request_id="r1")
            with pytest.raises(VersionConflict):  # a conflict announces nothing
                await append(store, "t", 1, b"late", request_id="r3")
            async with asyncio.timeout(5):
                got = []
                async for note in listener.notifies():
                    got.append(note.payload)
                    if {"t:3", "t:with:colons:1"} <= set(got):
                        break
    # Batched: a table's appends made meanwhile may come as one notification of the last.
    assert set(got) <= {"t:1", "t:3", "t:with:colons:1"}
    assert got.index("t:3") > (got.index("t:1") if "t:1" in got else -1)


def test_replicas_starting_together_migrate_the_schema_once(pg):
    stores, errors = [], []

    def start():
        try:
            stores.append(open_store(pg.url))
        except Exception as e:  # noqa: BLE001 - collected for the assert below
            errors.append(e)

    threads = [threading.Thread(target=start) for _ in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert errors == []
    assert pg.schema_version() == [len(MIGRATIONS)]

    async def use_and_close():
        await append(stores[0], "t", 0, b"a", request_id="r")
        for s in stores:
            assert await s.events.version("t") == 1
            await s.close()

    asyncio.run(use_and_close())


async def test_killed_connections_are_replaced_without_failing_calls(pg):
    async with pg.open() as a, pg.open() as b:
        await append(a, "t", 0, b"1", request_id="r1")
        await b.events.version("t")
        assert terminate(pg.database) >= 4  # both pools and both listeners
        # The pooled connections died while idle: calls retry on fresh ones.
        assert await a.events.version("t") == 1
        assert await b.events.read("t") == await a.events.read("t")
        # b's listener comes back and wakes its waiters for a's appends again.
        waiter = asyncio.create_task(b.events.wait_for_append("t", 1, timeout=20))
        await asyncio.sleep(0.3)
        await append(a, "t", 1, b"2", request_id="r2")
        async with asyncio.timeout(1.5):
            assert await waiter == 2


async def test_a_lost_listen_connection_wakes_every_waiter_when_it_is_back(pg):
    # poll_interval 60: only a notification or the listener's comeback can wake the waiter.
    store = PostgresStore(pg.url, poll_interval=60)
    other = pg.open()
    try:
        await append(store, "t", 0, b"1", request_id="r1")
        waiter = asyncio.create_task(store.events.wait_for_append("t", 1, timeout=30))
        await asyncio.sleep(0.2)
        # Kill the listener and append at once: the notification is sent to nobody.
        assert terminate(pg.database, f"query = 'LISTEN {CHANNEL}'"
                                      f" AND application_name = 'belote'") == 1
        await append(other, "t", 1, b"2", request_id="r2")
        async with asyncio.timeout(3):
            assert await waiter == 2
    finally:
        await other.close()
        await store.close()


async def test_a_database_refusing_connections_is_unavailable_then_recovers_by_itself(pg):
    async with pg.open() as store:
        await append(store, "t", 0, b"1", request_id="r1")
        waiter = asyncio.create_task(store.events.wait_for_append("t", 1, timeout=30))
        await asyncio.sleep(0.1)
        admin(f'ALTER DATABASE "{pg.database}" ALLOW_CONNECTIONS false')
        try:
            terminate(pg.database)
            # The waiter's next re-read fails: watchers see the outage (and resume later).
            with pytest.raises(StoreUnavailable):
                async with asyncio.timeout(10):
                    await waiter
            for call in (store.ping(), store.events.version("t"), store.events.read("t"),
                         append(store, "t", 1, b"2", request_id="r2")):
                started = time.monotonic()
                with pytest.raises(StoreUnavailable):
                    await call
                assert time.monotonic() - started < 1.0, "calls fail fast during an outage"
            assert not store.healthy
        finally:
            admin(f'ALTER DATABASE "{pg.database}" ALLOW_CONNECTIONS true')
        # The same store object serves again, with nothing written while it was down.
        await eventually(store.ping)
        assert store.healthy
        assert [e.payload for e in await store.events.read("t")] == [b"1"]
        await append(store, "t", 1, b"2", request_id="r2")
        assert verify_chain(await store.events.read("t")) is None


async def test_an_append_cut_off_before_commit_writes_nothing_and_is_retried_once(pg):
    async with pg.open() as store:
        await append(store, "t", 0, b"1", request_id="r1")
        # A test trigger holds the first "slow" append in the server for a while; its server
        # process is killed meanwhile, so that transaction never commits.
        with psycopg.connect(pg.url, autocommit=True) as c:
            c.execute("CREATE SEQUENCE slow_once")
            c.execute("""CREATE FUNCTION slow() RETURNS trigger LANGUAGE plpgsql AS $$
                BEGIN
                  IF NEW.request_id = 'slow' AND nextval('slow_once') = 1 THEN
                    PERFORM pg_sleep(5);
                  END IF;
                  RETURN NEW;
                END $$""")
            c.execute("CREATE TRIGGER slow AFTER INSERT ON events FOR EACH ROW"
                      " EXECUTE FUNCTION slow()")

        async def kill_the_sleeper():
            while not (pids := admin("SELECT pid FROM pg_stat_activity WHERE datname = %s"
                                     " AND wait_event = 'PgSleep'", pg.database)):
                await asyncio.sleep(0.02)
            admin("SELECT pg_terminate_backend(%s, 5000)", pids[0][0])

        killer = asyncio.create_task(kill_the_sleeper())
        started = time.monotonic()
        result = await append(store, "t", 1, b"2", b"3", request_id="slow")
        await killer
        assert time.monotonic() - started < 4, "the append waited for the sleep"
        assert not result.duplicate
        events = await store.events.read("t")
        assert [e.payload for e in events] == [b"1", b"2", b"3"]
        assert verify_chain(events) is None


async def test_an_append_whose_answer_is_lost_after_commit_is_reported_once(pg, monkeypatch):
    import belote.store.postgres.events as impl

    async with pg.open() as store:
        await append(store, "t", 0, b"1", request_id="r1")
        real = impl._call_append
        lost = []

        async def commit_then_lose_the_connection(conn, args):
            row = await real(conn, args)  # committed
            if not lost:
                lost.append(row)
                await conn.close()  # as if the server vanished before its answer arrived
                raise psycopg.OperationalError("server closed the connection unexpectedly")
            return row

        monkeypatch.setattr(impl, "_call_append", commit_then_lose_the_connection)
        first = await append(store, "t", 1, b"2", request_id="r2")
        assert lost and lost[0][0] == "appended"
        # The retry found its own events under its request id: an append, not a duplicate.
        assert not first.duplicate and [e.sequence for e in first.events] == [2]
        # A later retry by the caller (same request id) is a duplicate, as ever.
        again = await append(store, "t", 1, b"2", request_id="r2")
        assert again.duplicate and again.events == first.events
        events = await store.events.read("t")
        assert [e.payload for e in events] == [b"1", b"2"]
        assert verify_chain(events) is None


async def test_an_append_with_an_unknown_head_hash_is_hashed_again(pg):
    async with pg.open() as a, pg.open() as b:
        await append(a, "t", 0, b"1", request_id="r1")
        await append(a, "t", 1, b"2", request_id="r2")
        # b never read the table: it does not know event 2's hash, and asks the database.
        r = await append(b, "t", 2, b"3", request_id="r3")
        assert [e.sequence for e in r.events] == [3]
        assert verify_chain(await a.events.read("t")) is None


async def test_the_database_checks_every_hash(pg):
    async with pg.open() as store:
        first = (await append(store, "t", 0, b"1", request_id="r1")).events[0]
    from belote.store import event_hash

    good = event_hash(first.hash, "t", 2, "e", 1, "raw", 0, b"x")
    with psycopg.connect(pg.url, autocommit=True) as c:
        insert = ("INSERT INTO events (table_id, sequence, type, schema_version, payload,"
                  " request_id, recorded_at_us, prev_hash, hash) VALUES (%s,2,'e',1,%s,'raw',0,%s,%s)")
        with pytest.raises(psycopg.IntegrityError, match="wrong hash"):
            c.execute(insert, ("t", b"forged", first.hash, good))
        with pytest.raises(psycopg.IntegrityError, match="does not chain"):
            c.execute(insert, ("t", b"x", bytes(32), good))
        c.execute(insert, ("t", b"x", first.hash, good))  # a right one is accepted
    async with pg.open() as store:
        assert await store.events.version("t") == 2
        assert verify_chain(await store.events.read("t")) is None


async def test_nul_characters_are_refused_or_not_found(pg):
    async with pg.open() as store:
        with pytest.raises(ValueError):
            await append(store, "t", 0, b"1", request_id="r\x00")
        with pytest.raises(ValueError):
            await append(store, "t\x00", 0, b"1", request_id="r")
        assert await store.events.read("t\x00") == []
        assert await store.events.version("t\x00") == 0
        assert await store.events.request_events("t", "r\x00") is None
        assert await store.lobby.count_tables("x\x00") == 0
