"""The Lobby contract (store.lobby): claimed table names and the index of tables.

`store` is a fresh store on a fresh database, run once per backend (conftest.py); `backend`
opens more stores on that same database and does the few raw operations below the interface.
"""

from __future__ import annotations

from belote.store import TableIndexEntry

from store_helpers import T0, append


async def test_a_created_table_is_claimed_once_per_request_on_every_store(store, backend):
    assert await store.lobby.claim_table("k1", "table-a") == "table-a"
    assert await store.lobby.claim_table("k1", "table-b") == "table-a"
    assert await store.lobby.claim_table("k2", "table-b") == "table-b"
    other = backend.open()
    try:
        assert await other.lobby.claim_table("k1", "table-c") == "table-a"
    finally:
        await other.close()


# --- table index -----------------------------------------------------------


async def test_the_index_is_upserted_with_appends_and_listed_newest_first(store):
    waiting = TableIndexEntry("waiting", True, b"w")
    playing = TableIndexEntry("playing", True, b"p")
    private = TableIndexEntry("waiting", False, b"private")
    await append(store, "old", 0, b"1", request_id="r", at=T0, index=waiting)
    await append(store, "mid", 0, b"1", request_id="r", at=T0 + 10, index=private)
    await append(store, "new", 0, b"1", b"2", request_id="r", at=T0 + 20, index=waiting)
    await append(store, "noindex", 0, b"1", request_id="r", at=T0 + 30)

    assert await store.lobby.list_tables() == [
        ("new", waiting, 2), ("mid", private, 1), ("old", waiting, 1)]
    assert await store.lobby.count_tables() == 3
    assert await store.lobby.count_tables("waiting") == 3

    # Update "old": its entry changes, its place (first indexed) does not.
    await append(store, "old", 1, b"2", request_id="r2", at=T0 + 40, index=playing)
    # An append without an entry keeps the entry; the listed version follows.
    await append(store, "old", 2, b"3", request_id="r3", at=T0 + 50)

    assert await store.lobby.list_tables() == [
        ("new", waiting, 2), ("mid", private, 1), ("old", playing, 3)]
    assert await store.lobby.list_tables(status="waiting") == [("new", waiting, 2), ("mid", private, 1)]
    assert await store.lobby.list_tables(status="waiting", listed=True) == [("new", waiting, 2)]
    assert await store.lobby.list_tables(listed=False) == [("mid", private, 1)]
    assert await store.lobby.list_tables(status="finished") == []
    assert await store.lobby.list_tables(limit=2) == [("new", waiting, 2), ("mid", private, 1)]
    assert (await store.lobby.count_tables("waiting"), await store.lobby.count_tables("playing"),
            await store.lobby.count_tables("finished"), await store.lobby.count_tables()) == (2, 1, 0, 3)
