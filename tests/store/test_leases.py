"""The Leases contract (store.leases): counted places that expire, on every replica.

`store` is a fresh store on a fresh database, run once per backend (conftest.py); `backend`
opens more stores on that same database and does the few raw operations below the interface.
"""

from __future__ import annotations

import asyncio

from store_helpers import T0


# --- leases ----------------------------------------------------------------

async def test_a_lease_scope_gives_at_most_limit_places_until_they_end(store):
    for holder in ("a", "b", "c"):
        assert await store.leases.take("s", holder, 3, now_us=T0, until_us=T0 + 100)
    assert not await store.leases.take("s", "d", 3, now_us=T0, until_us=T0 + 100)
    assert await store.leases.take("s", "a", 3, now_us=T0, until_us=T0 + 200)   # a holder extends its own
    assert await store.leases.take("other", "d", 3, now_us=T0, until_us=T0 + 100)  # scopes are apart
    assert await store.leases.count("s", T0) == 3
    await store.leases.drop("s", "b")
    await store.leases.drop("s", "never there")
    assert await store.leases.count("s", T0) == 2
    assert await store.leases.take("s", "d", 3, now_us=T0, until_us=T0 + 100)
    assert not await store.leases.take("s", "e", 3, now_us=T0 + 99, until_us=T0 + 200)
    # At T0 + 100 the leases of c and d have ended; a's (extended) and e's remain.
    assert await store.leases.take("s", "e", 3, now_us=T0 + 100, until_us=T0 + 200)
    assert await store.leases.count("s", T0 + 100) == 2
    await store.leases.extend([("s", "a"), ("s", "e"), ("s", "gone")], until_us=T0 + 500)
    assert await store.leases.count("s", T0 + 300) == 2
    assert await store.leases.count("s", T0 + 500) == 0


async def test_a_scope_names_the_holders_whose_leases_still_run(store):
    for holder, until in (("b", T0 + 100), ("a", T0 + 300), ("c", T0 + 200)):
        assert await store.leases.take("s", holder, 5, now_us=T0, until_us=until)
    assert await store.leases.take("other", "d", 5, now_us=T0, until_us=T0 + 300)
    assert await store.leases.holders("s", T0) == ["a", "b", "c"]
    assert await store.leases.holders("s", T0 + 100) == ["a", "c"]       # b's ended
    await store.leases.drop("s", "a")
    assert await store.leases.holders("s", T0 + 100) == ["c"]
    assert await store.leases.holders("nobody", T0) == []


async def test_ended_leases_of_every_scope_are_forgotten_at_once(store):
    # Scopes never taken again (one per caller) keep no rows: an ended lease, once dropped, is
    # not there to extend.
    for scope in ("caller-1", "caller-2"):
        assert await store.leases.take(scope, "a", 5, now_us=T0, until_us=T0 + 100)
    assert await store.leases.take("caller-3", "a", 5, now_us=T0, until_us=T0 + 300)
    await store.leases.drop_ended(T0 + 100)
    await store.leases.extend([("caller-1", "a"), ("caller-2", "a"), ("caller-3", "a")], T0 + 500)
    assert [await store.leases.count(s, T0 + 200) for s in ("caller-1", "caller-2", "caller-3")] == [0, 0, 1]


async def test_leases_taken_at_once_through_many_stores_never_exceed_the_limit(store, backend):
    # As 6 replicas would, each with 5 viewers arriving at the same moment, for 12 places.
    stores = [store, *(backend.open() for _ in range(5))]
    try:
        taken = await asyncio.gather(*(
            s.leases.take("spectators", f"{i}-{j}", 12, now_us=T0, until_us=T0 + 10**6)
            for i, s in enumerate(stores) for j in range(5)))
        assert sum(taken) == 12
        for s in stores:
            assert await s.leases.count("spectators", T0) == 12
    finally:
        await asyncio.gather(*(s.close() for s in stores[1:]))
