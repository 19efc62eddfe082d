"""The Store contract (the backend object): opening, migrating, closing; open_store's URLs.

`store` is a fresh store on a fresh database, run once per backend (conftest.py); `backend`
opens more stores on that same database and does the few raw operations below the interface.
"""

from __future__ import annotations

import asyncio

import pytest
from belote.store import (
    AppendResult,
    NewEvent,
    StoreConfigError,
    StoreUnavailable,
    TableIndexEntry,
    open_store,
    verify_chain,
)

from store_helpers import T0, append


# --- lifecycle -------------------------------------------------------------


async def test_data_survives_closing_and_reopening(backend):
    s = backend.open()
    await append(s, "t", 0, b"a", b"b", request_id="r1",
                 index=TableIndexEntry("playing", True, b"s"))
    before = await s.events.read("t")
    await s.close()

    async with backend.open() as s:
        assert await s.events.read("t") == before
        assert await s.events.version("t") == 2
        assert verify_chain(await s.events.read("t")) is None
        assert await s.lobby.list_tables() == [("t", TableIndexEntry("playing", True, b"s"), 2)]
        again = await append(s, "t", 0, b"zzz", request_id="r1")  # request ids persist too
        assert again == AppendResult(events=tuple(before), duplicate=True)
        r = await append(s, "t", 2, b"c", request_id="r2")
        assert (r.events[0].sequence, r.events[0].prev_hash) == (3, before[1].hash)


async def test_migrations_are_idempotent_on_reopen(backend):
    async with backend.open() as s:
        await append(s, "t", 0, b"a", request_id="r1")
    latest = backend.schema_version()
    assert len(latest) == 1 and latest[0] >= 1
    for _ in range(2):
        async with backend.open() as s:
            assert [e.payload for e in await s.events.read("t")] == [b"a"]
        assert backend.schema_version() == latest


async def test_a_database_newer_than_the_code_is_refused(backend):
    async with backend.open():
        pass
    backend.force_schema_version(backend.schema_version()[0] + 1)
    with pytest.raises(StoreConfigError):
        backend.open()


async def test_ping_close_and_async_with(backend):
    async with backend.open() as s:
        assert await s.ping() is None
    with pytest.raises(StoreUnavailable):
        await s.ping()
    with pytest.raises(StoreUnavailable):
        await s.events.read("t")
    with pytest.raises(StoreUnavailable):
        await append(s, "t", 0, b"a", request_id="r")
    await s.close()  # idempotent


async def test_close_wakes_waiters_with_store_unavailable(backend):
    s = backend.open()
    waiter = asyncio.create_task(s.events.wait_for_append("t", 0, timeout=30))
    await asyncio.sleep(0.05)
    await s.close()
    with pytest.raises(StoreUnavailable):
        async with asyncio.timeout(1):
            await waiter


# --- open_store URLs (backend independent) -----------------------------------


async def test_open_store_sqlite_urls(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    async with open_store("sqlite:///data/nested/rel.db") as s:  # relative; parents created
        await append(s, "t", 0, b"a", request_id="r")
    assert (tmp_path / "data" / "nested" / "rel.db").is_file()

    absolute = tmp_path / "abs" / "a.db"
    async with open_store(f"sqlite:///{absolute}") as s:  # "sqlite:////..."
        assert await s.events.version("t") == 0
    assert absolute.is_file()


def test_open_store_postgresql_url_of_an_unreachable_server_is_store_unavailable():
    # Port 1: nothing listens there, the connection is refused at once.
    for url in ("postgresql://postgres@127.0.0.1:1/belote", "postgres://u:p@127.0.0.1:1/b"):
        with pytest.raises(StoreUnavailable):
            open_store(url)
    with pytest.raises(StoreConfigError):
        open_store("postgresql://127.0.0.1:1/belote?no_such_parameter=1")


@pytest.mark.parametrize("url", ["", "belote.db", "sqlite://", "sqlite:///", "sqlite:///:memory:",
                                 "sqlite:///x.db?mode=ro", "mysql://localhost/belote",
                                 "SQLITE:///x.db"])
def test_open_store_rejects_other_urls_naming_the_accepted_forms(url):
    with pytest.raises(StoreConfigError) as info:
        open_store(url)
    assert "sqlite:///" in str(info.value) and "postgresql://" in str(info.value)


def test_unopenable_sqlite_path_is_store_unavailable(tmp_path):
    (tmp_path / "a_directory.db").mkdir()
    with pytest.raises(StoreUnavailable):
        open_store(f"sqlite:///{tmp_path}/a_directory.db")

async def test_the_store_keeps_no_server_secret(store, backend):
    # Keys come from outside the store: the settings of a migrated store hold none.
    assert not hasattr(store, "server_secret")
    assert backend.settings() == {}


async def test_migrating_a_store_of_before_deletes_its_secret_and_keeps_its_requests(backend):
    secret = bytes.fromhex("5ec7e7" * 10 + "ab")
    backend.make_old_store(secret, ("t", "r:old"))
    store = backend.open()
    try:
        assert backend.settings() == {}
        assert secret not in backend.raw_bytes()
        # An old request (no fingerprint recorded) is still its own retry.
        again = await store.events.append("t", 0, [NewEvent("e", b"zz")], request_id="r:old",
                                   recorded_at_us=T0, rpc="Act", fingerprint=b"f")
        assert again.duplicate and [e.payload for e in again.events] == [b"\x01"]
    finally:
        await store.close()
