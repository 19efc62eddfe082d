"""The EventLog contract (store.events): sequences, conflicts, idempotency, waiting.

`store` is a fresh store on a fresh database, run once per backend (conftest.py); `backend`
opens more stores on that same database and does the few raw operations below the interface.
"""

from __future__ import annotations

import asyncio
import time

import pytest
from belote.store import (
    AppendResult,
    NewEvent,
    RequestReused,
    StoredEvent,
    TableIndexEntry,
    VersionConflict,
    verify_chain,
)

from store_helpers import T0, append, filled


# --- sequences and versions ------------------------------------------------


async def test_a_new_table_is_empty_at_version_zero(store):
    assert await store.events.version("t") == 0
    assert await store.events.read("t") == []


async def test_events_get_gapless_sequences_from_one_with_all_fields(store):
    r1 = await store.events.append("t", 0, [NewEvent("joined", b"\x01")], request_id="a",
                            recorded_at_us=T0)
    r2 = await store.events.append("t", 1, [NewEvent("dealt", b"\x02", 3), NewEvent("bid", b"")],
                            request_id="b", recorded_at_us=T0 + 5)

    events = await store.events.read("t")
    assert [(e.table_id, e.sequence, e.type, e.schema_version, e.payload, e.request_id,
             e.recorded_at_us) for e in events] == [
        ("t", 1, "joined", 1, b"\x01", "a", T0),
        ("t", 2, "dealt", 3, b"\x02", "b", T0 + 5),
        ("t", 3, "bid", 1, b"", "b", T0 + 5),
    ]
    assert r1 == AppendResult(events=(events[0],), duplicate=False)
    assert r2 == AppendResult(events=(events[1], events[2]), duplicate=False)
    assert await store.events.version("t") == 3


async def test_read_after_a_sequence_and_with_a_limit(store):
    events = await filled(store, n=6)
    assert [e.sequence for e in events] == [1, 2, 3, 4, 5, 6]
    assert await store.events.read("t", after_sequence=2, limit=3) == events[2:5]
    assert await store.events.read("t", after_sequence=4) == events[4:]
    assert await store.events.read("t", limit=2) == events[:2]
    assert await store.events.read("t", after_sequence=6) == []
    assert await store.events.read("t", limit=0) == []


async def test_pages_of_a_log_split_requests_and_join_to_the_whole_log(store):
    """What streams rely on: a page ends after ``limit`` events even in the middle of one
    request's events, and reading on from its last sequence misses and repeats nothing, while
    the log grows between pages too."""
    await append(store, "t", 0, b"a1", b"a2", b"a3", request_id="a")
    await append(store, "t", 3, b"b1", b"b2", request_id="b")
    pages, seen = [], 0
    while page := await store.events.read("t", after_sequence=seen, limit=2):
        assert len(page) <= 2
        pages.append([e.payload for e in page])
        seen = page[-1].sequence
        if seen == 4:
            await append(store, "t", 5, b"c1", b"c2", b"c3", request_id="c")
    assert pages == [[b"a1", b"a2"], [b"a3", b"b1"], [b"b2", b"c1"], [b"c2", b"c3"]]
    assert [e for p in pages for e in p] == [e.payload for e in await store.events.read("t")]


async def test_tables_have_independent_sequences(store):
    await append(store, "a", 0, b"a1", b"a2", request_id="r1")
    await append(store, "b", 0, b"b1", request_id="r2")
    assert [(e.sequence, e.payload) for e in await store.events.read("a")] == [(1, b"a1"), (2, b"a2")]
    assert [(e.sequence, e.payload) for e in await store.events.read("b")] == [(1, b"b1")]
    assert (await store.events.version("a"), await store.events.version("b")) == (2, 1)


async def test_an_empty_append_is_a_value_error(store):
    with pytest.raises(ValueError):
        await store.events.append("t", 0, [], request_id="r", recorded_at_us=T0)
    assert await store.events.version("t") == 0


# --- optimistic concurrency ------------------------------------------------


@pytest.mark.parametrize("expected", [0, 1, 3, 7])
async def test_a_wrong_expected_version_conflicts_and_writes_nothing(store, expected):
    before = await filled(store, n=2)
    with pytest.raises(VersionConflict) as info:
        await append(store, "t", expected, b"x", request_id="late",
                     index=TableIndexEntry("playing", True, b"s"))
    assert (info.value.expected, info.value.actual) == (expected, 2)
    assert await store.events.read("t") == before
    assert await store.lobby.list_tables() == []
    # The failed request id was not consumed: it can still be appended.
    r = await append(store, "t", 2, b"x", request_id="late")
    assert (r.duplicate, [e.sequence for e in r.events]) == (False, [3])

async def test_a_writer_with_a_stale_head_gets_a_version_conflict(store, backend, monkeypatch):
    # As if another writer committed between this writer's read and its insert:
    # the database constraint fires, and the store reports a VersionConflict.
    before = await filled(store, n=3)
    backend.make_head_stale(monkeypatch, version=1)
    with pytest.raises(VersionConflict) as info:
        await append(store, "t", 1, b"x", request_id="racer")
    assert (info.value.expected, info.value.actual) == (1, 3)
    assert await store.events.read("t") == before


async def racing_writers(stores, table_id, writers, appends_each):
    """Each writer appends `appends_each` requests of 1-3 events, re-reading the
    version and retrying on conflict. Returns the number of conflicts."""
    conflicts = 0

    async def writer(w):
        nonlocal conflicts
        s = stores[w % len(stores)]
        for k in range(appends_each):
            events = [NewEvent("e", f"{w}:{k}:{i}".encode()) for i in range(1 + (w + k) % 3)]
            while True:
                try:
                    await s.events.append(table_id, await s.events.version(table_id), events,
                                   request_id=f"w{w}-k{k}", recorded_at_us=T0 + k)
                    break
                except VersionConflict:
                    conflicts += 1
                    await asyncio.sleep(0)

    await asyncio.gather(*(writer(w) for w in range(writers)))
    return conflicts


def expected_payloads(writers, appends_each):
    return sorted(f"{w}:{k}:{i}".encode() for w in range(writers)
                  for k in range(appends_each) for i in range(1 + (w + k) % 3))


async def check_race_result(store, table_id, writers, appends_each):
    events = await store.events.read(table_id)
    payloads = expected_payloads(writers, appends_each)
    assert [e.sequence for e in events] == list(range(1, len(payloads) + 1))  # no gap
    assert sorted(e.payload for e in events) == payloads  # each exactly once
    assert verify_chain(events) is None
    # Never half an append: each request's events are contiguous and in order.
    by_request: dict[str, list[StoredEvent]] = {}
    for e in events:
        by_request.setdefault(e.request_id, []).append(e)
    assert len(by_request) == writers * appends_each
    for group in by_request.values():
        seqs = [e.sequence for e in group]
        assert seqs == list(range(seqs[0], seqs[0] + len(seqs)))
        assert [e.payload.split(b":")[2] for e in group] == [
            str(i).encode() for i in range(len(group))]
    # Each writer's appends landed in its own order.
    for w in range(writers):
        mine = [e for e in events if e.payload.startswith(f"{w}:".encode())]
        ks = [int(e.payload.split(b":")[1]) for e in mine]
        assert ks == sorted(ks)


async def test_16_racing_writers_retrying_on_conflict_lose_and_duplicate_nothing(store):
    await racing_writers([store], "t", writers=16, appends_each=10)
    await check_race_result(store, "t", writers=16, appends_each=10)


async def test_racing_writers_through_two_stores_on_one_database(store, backend):
    other = backend.open()
    try:
        await racing_writers([store, other], "t", writers=16, appends_each=5)
        await check_race_result(store, "t", writers=16, appends_each=5)
        assert await other.events.read("t") == await store.events.read("t")
    finally:
        await other.close()


async def test_16_racing_writers_each_through_its_own_store(store, backend):
    # As 16 replicas would: 16 stores (16 pools, 16 listeners) on one database.
    others = [backend.open() for _ in range(15)]
    try:
        await racing_writers([store, *others], "t", writers=16, appends_each=6)
        await check_race_result(store, "t", writers=16, appends_each=6)
        log = await store.events.read("t")
        for other in others:
            assert await other.events.read("t") == log
    finally:
        await asyncio.gather(*(o.close() for o in others))


# --- idempotency -----------------------------------------------------------


async def test_a_duplicate_request_returns_the_first_result_and_writes_nothing(store):
    first = await append(store, "t", 0, b"a", b"b", request_id="r1", at=T0,
                         index=TableIndexEntry("waiting", True, b"first"))
    await append(store, "t", 2, b"c", request_id="r2", at=T0 + 1)
    before = await store.events.read("t")

    # A retry: stale expected version, other events, other time, other index.
    again = await store.events.append("t", 0, [NewEvent("other", b"zzz")], request_id="r1",
                               recorded_at_us=T0 + 99,
                               index=TableIndexEntry("finished", False, b"second"))

    assert again == AppendResult(events=first.events, duplicate=True)
    assert [(e.sequence, e.payload) for e in again.events] == [(1, b"a"), (2, b"b")]
    assert await store.events.read("t") == before
    assert await store.lobby.list_tables() == [("t", TableIndexEntry("waiting", True, b"first"), 3)]
    # Also when the expected version happens to be current.
    again = await append(store, "t", 3, b"x", request_id="r2")
    assert again == AppendResult(events=(before[2],), duplicate=True)
    assert await store.events.version("t") == 3


async def test_a_request_id_recorded_for_another_rpc_or_request_is_refused_and_writes_nothing(store):
    first = await store.events.append("t", 0, [NewEvent("e", b"chat")], request_id="k",
                               recorded_at_us=T0, rpc="PostChat", fingerprint=b"f1")
    before = await store.events.read("t")
    for rpc, fingerprint in (("JoinTable", b"f1"), ("PostChat", b"f2"), ("", b"")):
        with pytest.raises(RequestReused) as refused:
            await store.events.append("t", 1, [NewEvent("e", b"join")], request_id="k",
                               recorded_at_us=T0 + 1, rpc=rpc, fingerprint=fingerprint)
        assert refused.value.rpc == "PostChat"
        with pytest.raises(RequestReused):
            await store.events.request_events("t", "k", rpc=rpc, fingerprint=fingerprint)
    assert await store.events.read("t") == before
    assert await store.events.request_events("t", "nope", rpc="Act", fingerprint=b"f") is None
    # The same RPC and fingerprint is a retry: the first result.
    again = await store.events.append("t", 1, [NewEvent("e", b"other")], request_id="k",
                               recorded_at_us=T0 + 2, rpc="PostChat", fingerprint=b"f1")
    assert again == AppendResult(events=first.events, duplicate=True)
    assert await store.events.request_events("t", "k", rpc="PostChat", fingerprint=b"f1") == first.events
    # A refused reuse in a batch of appends leaves the others alone.
    results = await asyncio.gather(
        store.events.append("t", 1, [NewEvent("e", b"x")], request_id="k", recorded_at_us=T0,
                     rpc="Act", fingerprint=b"f1"),
        append(store, "t", 1, b"next", request_id="k2"), return_exceptions=True)
    assert isinstance(results[0], RequestReused) and results[1].duplicate is False
    assert [e.payload for e in await store.events.read("t")] == [b"chat", b"next"]


async def test_a_clients_request_id_names_a_request_of_one_table_only(store):
    # With an rpc (a client's request); the server's own moves ("bot-3") are per table.
    await store.events.append("a", 0, [NewEvent("e", b"1")], request_id="k", recorded_at_us=T0,
                       rpc="PostChat", fingerprint=b"f")
    with pytest.raises(RequestReused) as refused:
        await store.events.append("b", 0, [NewEvent("e", b"2")], request_id="k", recorded_at_us=T0,
                           rpc="PostChat", fingerprint=b"f")
    assert refused.value.rpc == "PostChat"
    with pytest.raises(RequestReused):
        await store.events.request_events("b", "k", rpc="PostChat", fingerprint=b"f")
    assert await store.events.read("b") == [] and await store.events.version("b") == 0
    assert (await append(store, "b", 0, b"own", request_id="k")).duplicate is False

async def test_request_ids_are_per_table(store):
    a = await append(store, "a", 0, b"1", request_id="same")
    b = await append(store, "b", 0, b"2", request_id="same")
    assert (a.duplicate, b.duplicate) == (False, False)
    assert [e.payload for e in await store.events.read("a")] == [b"1"]
    assert [e.payload for e in await store.events.read("b")] == [b"2"]


# --- waiting for appends ---------------------------------------------------


async def test_wait_for_append_returns_at_once_when_already_past(store):
    await filled(store, n=3)
    start = time.monotonic()
    assert await store.events.wait_for_append("t", 1, timeout=10) == 3
    assert await store.events.wait_for_append("t", 2, timeout=None) == 3
    assert time.monotonic() - start < 0.5


async def test_wait_for_append_times_out_with_the_current_version(store):
    await filled(store, n=2)
    start = time.monotonic()
    assert await store.events.wait_for_append("t", 2, timeout=0.3) == 2
    assert 0.3 <= time.monotonic() - start < 2
    assert await store.events.wait_for_append("empty", 0, timeout=0) == 0


async def test_wait_for_append_wakes_on_an_append(store):
    await filled(store, n=1)
    waiters = [asyncio.create_task(store.events.wait_for_append("t", 1, timeout=30)) for _ in range(3)]
    unlimited = asyncio.create_task(store.events.wait_for_append("t", 1, timeout=None))
    other_table = asyncio.create_task(store.events.wait_for_append("other", 0, timeout=0.5))
    await asyncio.sleep(0.1)
    assert not any(w.done() for w in [*waiters, unlimited, other_table])

    await append(store, "t", 1, b"x", b"y", request_id="wake")
    # Woken by the append itself, well before any periodic re-check.
    async with asyncio.timeout(0.3):
        assert await asyncio.gather(*waiters, unlimited) == [3, 3, 3, 3]
    assert await other_table == 0


async def test_wait_for_append_waits_past_after_sequence(store):
    await filled(store, n=1)
    waiter = asyncio.create_task(store.events.wait_for_append("t", 2, timeout=30))
    await asyncio.sleep(0.05)
    await append(store, "t", 1, b"x", request_id="a")  # version 2: not past 2
    await asyncio.sleep(0.1)
    assert not waiter.done()
    await append(store, "t", 2, b"y", request_id="b")
    async with asyncio.timeout(0.3):
        assert await waiter == 3


async def test_wait_for_append_sees_an_append_right_after_its_version_check(store, monkeypatch):
    # The append lands between the waiter's version check and its wait: it
    # must still wake the waiter at once, not at the next periodic re-check.
    real_version = store.events.version
    calls = 0

    async def version_then_append(table_id):
        nonlocal calls
        calls += 1
        v = await real_version(table_id)
        if calls == 1:
            await append(store, "t", v, b"x", request_id="between")
        return v

    monkeypatch.setattr(store.events, "version", version_then_append)
    start = time.monotonic()
    assert await store.events.wait_for_append("t", 0, timeout=30) == 1
    assert time.monotonic() - start < 0.3


async def test_wait_for_append_sees_appends_through_another_store(store, backend):
    # Another process writing the same database (here: another store object).
    other = backend.open()
    try:
        waiter = asyncio.create_task(store.events.wait_for_append("t", 0, timeout=10))
        await asyncio.sleep(0.05)
        await append(other, "t", 0, b"x", request_id="elsewhere")
        async with asyncio.timeout(2):
            assert await waiter == 1
    finally:
        await other.close()


# --- requests --------------------------------------------------------------------------


async def test_request_events_returns_what_a_request_appended_and_none_for_an_unknown_one(store):
    await append(store, "t", 0, b"a", request_id="r1")
    await append(store, "t", 1, b"b", b"c", request_id="r2")
    found = await store.events.request_events("t", "r2")
    assert [(e.sequence, e.payload) for e in found] == [(2, b"b"), (3, b"c")]
    assert await store.events.request_events("t", "nope") is None
    assert await store.events.request_events("other", "r1") is None

async def test_stop_waits_ends_every_wait_now_and_later_ones_at_once(store):
    await append(store, "t", 0, b"x", request_id="a")
    waiter = asyncio.create_task(store.events.wait_for_append("t", 1, timeout=30))
    await asyncio.sleep(0.05)
    assert not waiter.done()
    store.events.stop_waits()
    async with asyncio.timeout(0.5):
        assert await waiter == 1
        assert await store.events.wait_for_append("t", 1, timeout=30) == 1


async def test_appends_made_at_once_each_get_their_own_outcome(store):
    # However a backend groups concurrent appends (SQLite commits them together), a conflict or
    # a retried request concerns its own append alone.
    await append(store, "busy", 0, b"first", request_id="first")
    results = await asyncio.gather(
        *(append(store, f"t{i}", 0, f"p{i}".encode(), request_id=f"r{i}") for i in range(5)),
        append(store, "busy", 0, b"stale", request_id="stale"),          # expected 0, is at 1
        append(store, "busy", 1, b"second", request_id="second"),
        append(store, "busy", 0, b"again", request_id="first"),          # a retry of "first"
        return_exceptions=True)
    for i in range(5):
        assert [e.payload for e in results[i].events] == [f"p{i}".encode()]
        assert results[i].duplicate is False
    assert isinstance(results[5], VersionConflict)
    assert [(e.sequence, e.payload) for e in results[6].events] == [(2, b"second")]
    assert results[7].duplicate is True and [e.payload for e in results[7].events] == [b"first"]
    assert [e.payload for e in await store.events.read("busy")] == [b"first", b"second"]
    for i in range(5):
        assert [e.payload for e in await store.events.read(f"t{i}")] == [f"p{i}".encode()]
