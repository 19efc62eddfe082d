"""A seat watching on two replicas stays connected while either stream is open: seat
presence is counted in the store, by every replica alike."""

from __future__ import annotations

import asyncio
import time

import pytest
from belote.store import open_store
from belote.table.codec import decode_stored
from belote.v1 import table_service_pb2 as pb
from clients import Client, Cluster, bearer, create_table

pytestmark = pytest.mark.timeout(120)


async def _seat_events(url: str, table_id: str) -> list[tuple[str, int]]:
    async with open_store(url) as store:
        events = [decode_stored(e) for e in await store.events.read(table_id)]
    kinds = ("seat_disconnected", "seat_connected")
    return [(k, getattr(e, k).seat) for e in events for k in kinds if e.HasField(k)]


async def _opened(stub, table_id: str, token: str):
    call = stub.WatchTable(pb.WatchTableRequest(table_id=table_id), metadata=bearer(token))
    await anext(aiter(call))
    return call


async def test_a_stream_closed_on_one_replica_leaves_the_seat_connected_while_another_is_open(
        replicas, database):
    group = replicas(2)
    cluster = Cluster([r.address for r in group])
    try:
        table_id, tokens = await create_table(Client(cluster, 0), humans=(0, 1), bots=(2, 3),
                                              target="2000")
        on_a = await _opened(cluster.stubs[0], table_id, tokens[0])
        on_b = await _opened(cluster.stubs[1], table_id, tokens[0])
        on_a.cancel()
        await asyncio.sleep(3.0)        # well past the debounce
        assert await _seat_events(database, table_id) == []
        on_b.cancel()
        deadline = time.monotonic() + 20
        while not await _seat_events(database, table_id):
            assert time.monotonic() < deadline, "the seat was never disconnected"
            await asyncio.sleep(0.2)
        await asyncio.sleep(2.0)
        assert await _seat_events(database, table_id) == [("seat_disconnected", 0)]
    finally:
        await cluster.close()
