"""A seat is connected while it has a watch stream open on any replica (two servers on one
store here), and streams opened and closed in a loop append a bounded number of events."""

from __future__ import annotations

import asyncio
import math
import time

import pytest
from belote.app.presence import DEBOUNCE_S
from belote.v1 import table_service_pb2 as pb
from embedded import embedded_server
from players import Table, bearer, new_table, watch

pytestmark = pytest.mark.timeout(120)
PRESENCE = ("seat_disconnected", "seat_connected")


async def presence_events(table: Table) -> list[tuple[str, int]]:
    log = await watch(table.stub, table.table_id, count=await table.version(), until_game_ended=False)
    return [(kind, getattr(e, kind).seat) for e in log for kind in PRESENCE if e.HasField(kind)]


async def opened(stub, table: Table, seat: int):
    """A stream of the seat, open (its first event read)."""
    call = stub.WatchTable(pb.WatchTableRequest(table_id=table.table_id),
                           metadata=bearer(table.tokens[seat]))
    await anext(aiter(call))
    return call


async def until(check, timeout: float = 15.0):
    deadline = time.monotonic() + timeout
    while not (result := await check()):
        assert time.monotonic() < deadline, "timed out"
        await asyncio.sleep(0.1)
    return result


async def test_a_stream_closing_on_one_replica_does_not_disconnect_a_seat_watching_on_another(tmp_path):
    async with embedded_server(tmp_path) as (_, one), embedded_server(tmp_path) as (_, two):
        table = await new_table(one, "classic", {"target": "2000"}, humans=(0, 1))
        on_one = await opened(one, table, 0)
        on_two = await opened(two, table, 0)
        on_one.cancel()
        await asyncio.sleep(DEBOUNCE_S + 1.5)
        assert await presence_events(table) == []
        assert (await table.view()).seats[0].occupant == pb.SEAT_OCCUPANT_HUMAN
        # The last stream closes: now the seat is disconnected, once.
        on_two.cancel()
        assert await until(lambda: presence_events(table)) == [("seat_disconnected", 0)]
        await asyncio.sleep(DEBOUNCE_S + 0.5)
        assert await presence_events(table) == [("seat_disconnected", 0)]
        # Back on the other replica: connected again, once.
        back = await opened(two, table, 0)
        assert await presence_events(table) == [("seat_disconnected", 0), ("seat_connected", 0)]
        back.cancel()


async def test_streams_opened_and_closed_in_a_loop_append_a_bounded_number_of_presence_events(tmp_path):
    async with embedded_server(tmp_path) as (_, stub):
        table = await new_table(stub, "classic", {"target": "2000"}, humans=(0, 1))
        cycles, started = 60, time.monotonic()
        for _ in range(cycles):
            (await opened(stub, table, 0)).cancel()
            await asyncio.sleep(0.005)
        elapsed = time.monotonic() - started
        await asyncio.sleep(DEBOUNCE_S + 1.0)
        seen = await presence_events(table)
        # At most one disconnect and one reconnect per debounce period, whatever the cycles;
        # after the last close, the seat is disconnected.
        assert 1 <= len(seen) <= 2 * math.ceil(elapsed / DEBOUNCE_S) + 1 < cycles, (elapsed, seen)
        assert seen[-1] == ("seat_disconnected", 0)
        assert all(a != b for a, b in zip(seen, seen[1:])), seen     # alternating
