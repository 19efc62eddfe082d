"""QuickPlay over a real server: callers of one preset sit together at the table with the most
players waiting, a new table's empty seats get bots after the wait, and callers at once never
make a fifth player or a seat for two."""

from __future__ import annotations

import asyncio
import random
import time
from collections import Counter

import grpc
import pytest
from belote.v1 import table_service_pb2 as pb
from belote.v1 import table_service_pb2_grpc
from google.rpc import error_details_pb2
from grpc_status import rpc_status
from belote.app.presence import CALL_PRESENT_S
from embedded import AUTH_SECRET, as_player
from players import Table, rid, rpc_error

WAIT_S = 1.0


def quick(preset: str = "classic", name: str = "q", **kw) -> pb.QuickPlayRequest:
    return pb.QuickPlayRequest(preset=preset, display_name=name, request_id=kw.pop("request_id", rid()),
                               **kw)


class Callers:
    """The server's stub, each call as a caller of its own: a registered player named after the
    display name (every test calls from 127.0.0.1, one caller for the server's limits)."""

    def __init__(self, stub) -> None:
        self.stub = stub

    def __getattr__(self, rpc: str):
        return getattr(self.stub, rpc)

    def QuickPlay(self, request: pb.QuickPlayRequest, **kw):
        return self.stub.QuickPlay(request, metadata=as_player(request.display_name or "nameless"), **kw)


@pytest.fixture
async def quick_stub(server_factory):
    proc = server_factory(extra_args=("--quick-play-wait", str(WAIT_S)),
                          env={"BELOTE_AUTH_SECRET": AUTH_SECRET})
    async with grpc.aio.insecure_channel(proc.address) as channel:
        yield Callers(table_service_pb2_grpc.TableServiceStub(channel))


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


async def test_a_retry_with_a_renewed_player_token_gets_the_first_answer(quick_stub):
    request = quick(name="Eve")
    first = await quick_stub.stub.QuickPlay(request, metadata=as_player("eve"))
    # The site renewed the player's token meanwhile: the same player, another token.
    again = await quick_stub.stub.QuickPlay(request, metadata=as_player("eve", expires_in=7200))
    assert (again.table.table_id, again.seat, again.seat_token) == \
        (first.table.table_id, first.seat, first.seat_token)


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


def reason_of(err: grpc.aio.AioRpcError) -> str:
    info = error_details_pb2.ErrorInfo()
    return next(d for d in rpc_status.from_call(err).details if d.Unpack(info)) and info.reason


HOG_GRACE_S = 2.0


async def test_a_guest_firing_quick_play_holds_its_limit_and_a_strangers_game_moves_on(server_factory):
    """The attack: 30 QuickPlay calls from one guest at once took 30 seats on 8 tables, and the
    next caller sat behind seats that never watched: its game stalled for good."""
    proc = server_factory(extra_args=("--quick-play-wait", str(WAIT_S),
                                      "--disconnect-grace", str(HOG_GRACE_S)),
                          env={"BELOTE_AUTH_SECRET": AUTH_SECRET})
    async with grpc.aio.insecure_channel(proc.address) as channel:
        stub = table_service_pb2_grpc.TableServiceStub(channel)
        answers = await asyncio.gather(*(stub.QuickPlay(quick(name=f"hog{i}")) for i in range(30)),
                                       return_exceptions=True)
        seated = [a for a in answers if isinstance(a, pb.QuickPlayResponse)]
        refused = [a for a in answers if not isinstance(a, pb.QuickPlayResponse)]
        # The default limit: two seats, at two tables.
        assert len(seated) == 2 and len({a.table.table_id for a in seated}) == 2, seated
        assert {(e.code(), reason_of(e)) for e in refused} == \
            {(grpc.StatusCode.RESOURCE_EXHAUSTED, "TOO_MANY_SEATS")}
        humans = 0
        for table_id in {a.table.table_id for a in seated}:
            table = await stub.GetTable(pb.GetTableRequest(table_id=table_id))
            humans += sum(s.occupant == pb.SEAT_OCCUPANT_HUMAN for s in table.seats)
        assert humans == 2

        # A stranger comes right after, and plays its turns; the guest never shows up.
        bob = await stub.QuickPlay(quick(name="Bob"), metadata=as_player("bob"))
        table = Table(stub, bob.table.table_id, "", int(bob.table.options["target"]),
                      tokens={bob.seat: bob.seat_token})
        started, rng = time.monotonic(), random.Random(7)
        # The fill wait, the guest's seat present for CALL_PRESENT_S after its call, then the
        # disconnect grace: a takeover bot plays it, and the game moves on.
        bound = WAIT_S + CALL_PRESENT_S + HOG_GRACE_S + 10
        taken_over_at = None
        while True:
            view = await table.view(bob.seat)
            if taken_over_at is None and any(s.bot_takeover for s in view.seats):
                taken_over_at = view.version
            if taken_over_at is not None and view.version >= taken_over_at + 12:
                break
            assert time.monotonic() - started < bound, view
            if not await table.step(rng):
                await asyncio.sleep(0.2)
        assert view.status == pb.TABLE_STATUS_PLAYING
        guests = [s for s in view.seats if s.display_name.startswith("hog")]
        assert len(guests) == 1 and guests[0].bot_takeover, view.seats
