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
        partner = await opened(two, table, 1)       # seat 1 watches all along
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
        partner.cancel()


async def test_streams_opened_and_closed_in_a_loop_append_a_bounded_number_of_presence_events(tmp_path):
    async with embedded_server(tmp_path) as (app, stub):
        quick_presence(app, call_present_s=0.2)     # the seat's join keeps it present no longer
        table = await new_table(stub, "classic", {"target": "2000"}, humans=(0, 1))
        partner = await opened(stub, table, 1)
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
        partner.cancel()


def quick_presence(app, call_present_s: float = 1.0) -> None:
    """Presence judged in seconds instead of tens of seconds: calls keep a seat present for
    ``call_present_s``, and a look comes every third of a 1.5 s lease."""
    present = app.watching.seats_present
    present.call_present_s, present.lease_s = call_present_s, 1.5


async def test_a_seat_that_never_watches_nor_calls_is_away_once_its_game_plays(tmp_path):
    async with embedded_server(tmp_path) as (app, stub):
        quick_presence(app)
        table = await new_table(stub, "classic", {"target": "2000"}, humans=(0, 1))
        watching = await opened(stub, table, 0)
        # Seat 1 joined (a call: present for a second) and never came back.
        assert await until(lambda: presence_events(table), timeout=10) == [("seat_disconnected", 1)]
        assert (await table.view(0)).seats[1].occupant == pb.SEAT_OCCUPANT_HUMAN   # the grace runs
        watching.cancel()


async def test_a_seat_that_only_polls_is_present_and_is_away_once_it_stops(tmp_path):
    async with embedded_server(tmp_path) as (app, stub):
        quick_presence(app)
        table = await new_table(stub, "classic", {"target": "2000"}, humans=(0, 1))
        watching = await opened(stub, table, 0)
        polled_until = time.monotonic() + 4.0          # four times the call presence
        while time.monotonic() < polled_until:
            await table.view(1)                        # GetTable with its seat token
            await asyncio.sleep(0.2)
        assert await presence_events(table) == []
        # It stops polling: away a call presence and a look later.
        assert await until(lambda: presence_events(table), timeout=10) == [("seat_disconnected", 1)]
        # Its next call brings it back, as a stream would.
        await table.legal(1)
        assert await until(lambda: presence_events(table), timeout=10) == \
            [("seat_disconnected", 1), ("seat_connected", 1)]
        watching.cancel()
