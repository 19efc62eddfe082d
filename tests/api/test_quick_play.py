"""QuickPlay over a real server: callers of one preset sit together at the table with the most
players waiting, a new table's empty seats get bots after the wait, and callers at once never
make a fifth player or a seat for two."""

from __future__ import annotations

import asyncio
import time
from collections import Counter

import grpc
import pytest
from belote.v1 import table_service_pb2 as pb
from belote.v1 import table_service_pb2_grpc
from google.rpc import error_details_pb2
from grpc_status import rpc_status
from players import rid, rpc_error

WAIT_S = 1.0


def quick(preset: str = "classic", name: str = "q", **kw) -> pb.QuickPlayRequest:
    return pb.QuickPlayRequest(preset=preset, display_name=name, request_id=kw.pop("request_id", rid()),
                               **kw)


@pytest.fixture
async def quick_stub(server_factory):
    proc = server_factory(extra_args=("--quick-play-wait", str(WAIT_S)))
    async with grpc.aio.insecure_channel(proc.address) as channel:
        yield table_service_pb2_grpc.TableServiceStub(channel)


async def playing_soon(stub, table_id: str, timeout: float = 15.0) -> pb.Table:
    deadline = time.monotonic() + timeout
    while True:
        table = await stub.GetTable(pb.GetTableRequest(table_id=table_id))
        if table.status != pb.TABLE_STATUS_WAITING_FOR_PLAYERS or time.monotonic() > deadline:
            return table
        await asyncio.sleep(0.1)


async def test_callers_of_a_preset_sit_together_and_bots_fill_the_rest(quick_stub):
    first = await quick_stub.QuickPlay(quick(name="Ada"))
    second = await quick_stub.QuickPlay(quick(name="Bob"))
    other = await quick_stub.QuickPlay(quick("belgian", name="Cy"))
    assert second.table.table_id == first.table.table_id != other.table.table_id
    assert {first.seat, second.seat} == {0, 1}
    assert first.seat_token != second.seat_token
    waiting = await quick_stub.GetTable(pb.GetTableRequest(table_id=first.table.table_id))
    assert waiting.status == pb.TABLE_STATUS_WAITING_FOR_PLAYERS and waiting.name == "quick play"

    started = time.monotonic()
    table = await playing_soon(quick_stub, first.table.table_id)
    assert table.status == pb.TABLE_STATUS_PLAYING
    assert time.monotonic() - started < WAIT_S + 5
    kinds = [s.occupant for s in table.seats]
    assert kinds == [pb.SEAT_OCCUPANT_HUMAN, pb.SEAT_OCCUPANT_HUMAN, pb.SEAT_OCCUPANT_BOT, pb.SEAT_OCCUPANT_BOT]
    assert [s.display_name for s in table.seats[:2]] == ["Ada", "Bob"]


async def test_a_retry_gets_the_first_answer(quick_stub):
    request = quick(name="Dee")
    first = await quick_stub.QuickPlay(request)
    again = await quick_stub.QuickPlay(request)
    assert (again.table.table_id, again.seat, again.seat_token) == \
        (first.table.table_id, first.seat, first.seat_token)
    table = await quick_stub.GetTable(pb.GetTableRequest(table_id=first.table.table_id))
    assert sum(s.occupant == pb.SEAT_OCCUPANT_HUMAN for s in table.seats) == 1


async def test_many_callers_at_once_never_make_five_and_nobody_waits_forever(quick_stub):
    answers = await asyncio.gather(*(quick_stub.QuickPlay(quick(name=f"p{i}")) for i in range(11)))
    per_table = Counter(a.table.table_id for a in answers)
    assert all(n <= 4 for n in per_table.values()), per_table
    assert len({(a.table.table_id, a.seat) for a in answers}) == 11   # no seat given twice
    assert len({a.seat_token for a in answers}) == 11
    for table_id, humans in per_table.items():
        table = await playing_soon(quick_stub, table_id)
        assert table.status == pb.TABLE_STATUS_PLAYING, table_id                     # full, or filled by bots
        assert sum(s.occupant == pb.SEAT_OCCUPANT_HUMAN for s in table.seats) == humans
        assert sum(s.occupant == pb.SEAT_OCCUPANT_BOT for s in table.seats) == 4 - humans


@pytest.mark.parametrize("request_, field", [
    (quick("no-such-preset"), "preset"),
    (quick(name=""), "display_name"),
    (quick(options={"target": "lots"}), "options[target]"),
    (pb.QuickPlayRequest(preset="classic", display_name="x", request_id="not-a-uuid"), "request_id"),
])
async def test_bad_quick_play_is_invalid_argument_and_opens_nothing(quick_stub, request_, field):
    before = await quick_stub.ListTables(pb.ListTablesRequest())
    err = await rpc_error(quick_stub.QuickPlay(request_))
    assert err.code() == grpc.StatusCode.INVALID_ARGUMENT, err.details()
    bad = error_details_pb2.BadRequest()
    assert any(d.Unpack(bad) for d in rpc_status.from_call(err).details)
    assert [v.field for v in bad.field_violations] == [field]
    assert await quick_stub.ListTables(pb.ListTablesRequest()) == before
