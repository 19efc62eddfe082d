"""Retries with the same request_id do nothing more; racing requests append once."""

from __future__ import annotations

import asyncio
import random

import grpc
import pytest
from belote.v1 import table_service_pb2 as pb
from players import new_table, rid, watch

pytestmark = pytest.mark.timeout(60)


async def test_the_same_act_twice_answers_the_same_and_appends_nothing(stub):
    table = await new_table(stub, "classic", {"target": "200"})
    rng = random.Random("dup-act")
    # Once in the auction, once in the card play.
    for until in (lambda t: True, lambda t: t.game.phase == pb.CARD_PLAY):
        view = await table.play(rng, until=until)
        seat = view.game.to_act
        legal = await table.legal(seat)
        request_id = rid()
        first = await table.act(seat, legal.actions[0], request_id=request_id)
        version = await table.version()
        again = await table.act(seat, legal.actions[0], request_id=request_id)
        assert again == first
        assert await table.version() == version == first.version


async def test_the_same_join_twice_gives_the_same_seat_and_token(stub):
    created = await stub.CreateTable(pb.CreateTableRequest(preset="classic", request_id=rid()))
    join = pb.JoinTableRequest(table_id=created.table_id, display_name="ann", request_id=rid())
    first = await stub.JoinTable(join)
    again = await stub.JoinTable(join)
    assert (again.seat, again.seat_token) == (first.seat, first.seat_token)
    view = await stub.GetTable(pb.GetTableRequest(table_id=created.table_id))
    assert [s.occupant for s in view.seats] == [pb.HUMAN, pb.EMPTY, pb.EMPTY, pb.EMPTY]
    assert view.version == 2  # TableCreated, one SeatJoined


async def test_the_same_create_twice_gives_the_same_table(stub):
    create = pb.CreateTableRequest(preset="belgian", request_id=rid())
    first = await stub.CreateTable(create)
    again = await stub.CreateTable(create)
    assert (again.table_id, again.host_token) == (first.table_id, first.host_token)
    assert again.table.version == 1


async def test_two_acts_racing_for_one_turn_append_once(stub):
    table = await new_table(stub, "classic", {"target": "200"})  # four humans: no bot moves
    rng = random.Random("race")
    for round_ in range(12):
        view = await table.view()
        if view.status == pb.FINISHED:
            break
        seat, version = view.game.to_act, view.version
        legal = await table.legal(seat)
        action = rng.choice(legal.actions)
        results = await asyncio.gather(table.act(seat, action), table.act(seat, action),
                                       return_exceptions=True)
        won = [r for r in results if isinstance(r, pb.ActResponse)]
        lost = [r for r in results if not isinstance(r, pb.ActResponse)]
        assert len(won) == 1 and len(lost) == 1, results
        assert isinstance(lost[0], grpc.aio.AioRpcError), lost[0]
        assert lost[0].code() in (grpc.StatusCode.FAILED_PRECONDITION, grpc.StatusCode.ABORTED)
        assert await table.version() == won[0].version == version + len(won[0].events)
        # The log holds that seat's action once, right after `version`.
        logged = await watch(stub, table.table_id, from_sequence=version + 1,
                             count=len(won[0].events))
        mine = [e for e in logged if e.WhichOneof("body") in ("bid_made", "card_played")
                and getattr(e, e.WhichOneof("body")).seat == seat]
        assert len(mine) == 1, (round_, logged)


async def test_a_retry_after_the_deal_is_over_still_answers_the_same(stub):
    # A client may retry long after (e.g. it was offline): the answer must be the first one,
    # hands included, not recomputed from the table as it is now.
    table = await new_table(stub, "classic", {"target": "1000"})
    rng = random.Random("late-retry")
    settled = None
    while settled is None:
        view = await table.view()
        legal = await table.legal(view.game.to_act)
        request_id = rid()
        action = rng.choice(legal.actions)
        first = await table.act(legal.seat, action, request_id=request_id)
        if any(e.HasField("contract_settled") for e in first.events):
            settled = (legal.seat, action, request_id, first)
    seat, action, request_id, first = settled
    deal = (await table.view()).game.deal_number
    await table.play(rng, until=lambda t: t.game.deal_number > deal)
    again = await table.act(seat, action, request_id=request_id)
    assert again == first
