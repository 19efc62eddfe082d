"""Commands on two replicas of one store (two servers on one SQLite file): a replica decides a
command on the state it has cached, which may be behind the log when the other replica wrote
last; the append's expected version tells, and the command is judged again on the log's state.
What a player sees must not depend on which replica took the call."""

from __future__ import annotations

import grpc
import pytest
from belote.v1 import table_service_pb2 as pb
from embedded import embedded_server
from players import Table, rid
from test_errors import refused

pytestmark = pytest.mark.timeout(120)
C = grpc.StatusCode


async def four_humans(one, two) -> tuple[Table, Table]:
    """A table of four humans created and joined on `one`, and the same table seen through
    `two`; both replicas have it cached."""
    created = await one.CreateTable(pb.CreateTableRequest(preset="classic", request_id=rid()))
    on_one = Table(one, created.table_id, created.host_token, int(created.table.options["target"]))
    for seat in range(4):
        await on_one.join(seat, f"p{seat}")
    on_two = Table(two, on_one.table_id, on_one.host_token, on_one.target, dict(on_one.tokens))
    assert (await on_one.view()).version == (await on_two.view()).version == 7
    return on_one, on_two


async def to_act(table: Table) -> tuple[int, pb.GetLegalActionsResponse]:
    for seat in range(4):
        legal = await table.legal(seat)
        if legal.your_turn:
            return seat, legal
    raise AssertionError("nobody's turn")


async def test_turns_taken_on_alternate_replicas_all_land(tmp_path):
    # Each action goes to the replica that did not take the previous one, so the state it has
    # cached is always one action behind: every action must still land, in order, once.
    async with embedded_server(tmp_path) as (_, one), embedded_server(tmp_path) as (_, two):
        tables = await four_humans(one, two)
        version = 7
        for n in range(60):
            acting, asked = tables[n % 2], tables[1 - n % 2]
            seat, legal = await to_act(asked)                  # asked of the other replica
            assert legal.version == version
            reply = await acting.act(seat, legal.actions[0], expected_version=legal.version)
            assert reply.events[0].sequence == version + 1
            version = reply.version
        assert (await tables[0].view()).version == (await tables[1].view()).version == version


async def test_acting_twice_is_refused_alike_on_the_replica_that_is_behind(tmp_path):
    async with embedded_server(tmp_path) as (_, one), embedded_server(tmp_path) as (_, two):
        on_one, on_two = await four_humans(one, two)
        seat, legal = await to_act(on_two)
        await on_one.act(seat, legal.actions[0])
        # `two` still has the table as it was: there the same action looks legal. (The log's
        # version is read through `one`, leaving `two` behind.)
        err = await refused(on_one, on_two.act(seat, legal.actions[0]), C.FAILED_PRECONDITION,
                            "NOT_YOUR_TURN")
        assert f"not seat {seat}'s" in err.details()


async def test_a_seat_left_on_one_replica_cannot_act_on_the_other(tmp_path):
    async with embedded_server(tmp_path) as (_, one), embedded_server(tmp_path) as (_, two):
        on_one, on_two = await four_humans(one, two)
        seat, legal = await to_act(on_one)
        leaver = (seat + 1) % 4                  # not its turn: its takeover bot waits
        await two.LeaveTable(pb.LeaveTableRequest(table_id=on_two.table_id, request_id=rid()),
                             metadata=(("authorization", f"Bearer {on_two.tokens[leaver]}"),))
        # `one` still shows the leaver seated (the version is read through `two`).
        err = await refused(on_two, on_one.act(leaver, legal.actions[0]), C.PERMISSION_DENIED,
                            "SEAT_LEFT")
        assert "a bot plays it" in err.details()
        await on_one.act(seat, legal.actions[0])       # the seat whose turn it is plays on
