"""Retries with the same request_id do nothing more; racing requests append once; a request id is
one caller's key for one request (another RPC, other fields, another table: REQUEST_ID_REUSED)."""

from __future__ import annotations

import asyncio
import random
import uuid

import grpc
import pytest
from belote.v1 import table_service_pb2 as pb
from embedded import as_player, embedded_server
from google.rpc import error_details_pb2
from grpc_status import rpc_status
from players import Table, bearer, cards_in, new_table, rid, rpc_error, watch

pytestmark = pytest.mark.timeout(60)


async def test_the_same_act_twice_answers_the_same_and_appends_nothing(stub):
    table = await new_table(stub, "classic", {"target": "200"})
    rng = random.Random("dup-act")
    # Once in the auction, once in the card play.
    for until in (lambda t: True, lambda t: t.game.phase == pb.DEAL_PHASE_CARD_PLAY):
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
    assert [s.occupant for s in view.seats] == [pb.SEAT_OCCUPANT_HUMAN, pb.SEAT_OCCUPANT_EMPTY, pb.SEAT_OCCUPANT_EMPTY, pb.SEAT_OCCUPANT_EMPTY]
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
        if view.status == pb.TABLE_STATUS_FINISHED:
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


# A request id is one caller's key for one operation (issue 16) ------------------------------
def _reason(e: grpc.aio.AioRpcError) -> str:
    info = error_details_pb2.ErrorInfo()
    return next((info.reason for d in rpc_status.from_call(e).details if d.Unpack(info)), "")


async def _reused(call) -> grpc.aio.AioRpcError:
    err = await rpc_error(call)
    assert (err.code(), _reason(err)) == (grpc.StatusCode.ALREADY_EXISTS, "REQUEST_ID_REUSED"), \
        (err.code(), err.details())
    assert "fresh request_id" in err.details()
    return err


async def test_a_spectators_chat_then_a_join_with_the_same_id_is_refused_and_writes_nothing(stub):
    created = await stub.CreateTable(pb.CreateTableRequest(preset="classic", request_id=rid()))
    same = rid()
    await stub.PostChat(pb.PostChatRequest(table_id=created.table_id, text="hello",
                                           display_name="spec", request_id=same))
    await _reused(stub.JoinTable(pb.JoinTableRequest(table_id=created.table_id,
                                                     display_name="ann", request_id=same)))
    view = await stub.GetTable(pb.GetTableRequest(table_id=created.table_id))
    assert view.version == 2 and [s.occupant for s in view.seats] == [pb.SEAT_OCCUPANT_EMPTY] * 4


async def test_a_join_then_a_spectators_chat_with_the_same_id_is_refused(stub):
    created = await stub.CreateTable(pb.CreateTableRequest(preset="classic", request_id=rid()))
    same = rid()
    await stub.JoinTable(pb.JoinTableRequest(table_id=created.table_id, display_name="ann",
                                             request_id=same))
    await _reused(stub.PostChat(pb.PostChatRequest(table_id=created.table_id, text="hello",
                                                   display_name="spec", request_id=same)))
    assert (await stub.GetTable(pb.GetTableRequest(table_id=created.table_id))).version == 2


async def test_a_seats_chat_then_its_act_with_the_same_id_is_refused_and_nothing_is_played(stub):
    table = await new_table(stub, "classic", {"target": "200"})
    view = await table.view()
    seat, version = view.game.to_act, view.version
    same = rid()
    await stub.PostChat(pb.PostChatRequest(table_id=table.table_id, text="my turn",
                                           request_id=same), metadata=bearer(table.tokens[seat]))
    legal = await table.legal(seat)
    await _reused(table.act(seat, legal.actions[0], request_id=same))
    assert await table.version() == version + 1          # the chat only
    assert (await table.legal(seat)).your_turn
    # The same act under a fresh id is played.
    played = await table.act(seat, legal.actions[0])
    assert played.version > version + 1


async def test_the_same_id_for_another_request_of_the_same_rpc_is_refused(stub):
    same = rid()
    first = await stub.CreateTable(pb.CreateTableRequest(preset="classic", request_id=same))
    await _reused(stub.CreateTable(pb.CreateTableRequest(preset="belgian", request_id=same)))
    again = await stub.CreateTable(pb.CreateTableRequest(preset="classic", request_id=same))
    assert (again.table_id, again.host_token) == (first.table_id, first.host_token)


async def test_create_table_with_another_callers_request_id_gets_a_table_of_its_own(tmp_path):
    # Alice (registered) creates a private table with id X; Mallory (anonymous, and then as a
    # registered player) sends X too, with the very same fields: she gets tables of her own,
    # whose host tokens open nothing of Alice's.
    async with embedded_server(tmp_path) as (_app, stub):
        same = rid()
        create = pb.CreateTableRequest(preset="classic", is_private=True, password="alice-only",
                                       request_id=same)
        alice = await stub.CreateTable(create, metadata=as_player("alice"))
        for who in (None, as_player("mallory")):
            mallory = await stub.CreateTable(create, metadata=who)
            assert mallory.table_id != alice.table_id
            assert mallory.host_token != alice.host_token
            err = await rpc_error(stub.GetTable(pb.GetTableRequest(table_id=alice.table_id),
                                                metadata=bearer(mallory.host_token)))
            assert err.code() == grpc.StatusCode.PERMISSION_DENIED
            err = await rpc_error(stub.AddBot(pb.AddBotRequest(table_id=alice.table_id,
                                                               request_id=rid()),
                                              metadata=bearer(mallory.host_token)))
            assert err.code() == grpc.StatusCode.PERMISSION_DENIED
        # Alice's own retry still gets her table.
        again = await stub.CreateTable(create, metadata=as_player("alice"))
        assert (again.table_id, again.host_token) == (alice.table_id, alice.host_token)


async def test_a_retried_join_shows_no_hand_once_another_player_holds_the_seat(stub):
    created = await stub.CreateTable(pb.CreateTableRequest(preset="classic", request_id=rid()))
    table = Table(stub, created.table_id, created.host_token, 1000)
    alice_join = pb.JoinTableRequest(table_id=table.table_id, seat=0, display_name="alice",
                                     request_id=rid())
    alice = await stub.JoinTable(alice_join)
    await stub.LeaveTable(pb.LeaveTableRequest(table_id=table.table_id, request_id=rid()),
                          metadata=bearer(alice.seat_token))
    bob = await table.join(0, name="bob")
    for seat in (1, 2, 3):
        await table.add_bot(seat)
    assert len((await table.view(0)).game.your_hand) in (5, 8)      # Bob's cards
    for _ in range(3):
        again = await stub.JoinTable(alice_join)
        assert (again.seat, again.seat_token) == (0, alice.seat_token)
        assert again.table.your_seat == -1 and not again.table.game.your_hand, again.table
        assert not any(path for path, _ in cards_in(again.table) if path.endswith("your_hand"))
    assert bob.seat_token != alice.seat_token


async def test_leaving_answers_the_spectator_view_and_a_retry_the_same(stub):
    table = await new_table(stub, "classic", {"target": "1000"}, humans=(0,))
    leave = pb.LeaveTableRequest(table_id=table.table_id, request_id=rid())
    first = await stub.LeaveTable(leave, metadata=bearer(table.tokens[0]))
    again = await stub.LeaveTable(leave, metadata=bearer(table.tokens[0]))
    for reply in (first, again):
        assert reply.table.your_seat == -1 and not reply.table.game.your_hand
        assert reply.table.seats[0].occupant == pb.SEAT_OCCUPANT_BOT
    # Before the game too, where the left seat's token is no longer known.
    created = await stub.CreateTable(pb.CreateTableRequest(preset="classic", request_id=rid()))
    waiting = Table(stub, created.table_id, created.host_token, 1000)
    await waiting.join(2)
    leave = pb.LeaveTableRequest(table_id=waiting.table_id, request_id=rid())
    first = await stub.LeaveTable(leave, metadata=bearer(waiting.tokens[2]))
    again = await stub.LeaveTable(leave, metadata=bearer(waiting.tokens[2]))
    assert first == again and first.table.seats[2].occupant == pb.SEAT_OCCUPANT_EMPTY
    # A new leave under a fresh id is refused as before.
    err = await rpc_error(stub.LeaveTable(pb.LeaveTableRequest(table_id=waiting.table_id,
                                                               request_id=rid()),
                                          metadata=bearer(waiting.tokens[2])))
    assert err.code() == grpc.StatusCode.UNAUTHENTICATED


async def test_export_log_with_an_unknown_token_is_unauthenticated(stub):
    table = await new_table(stub, "classic", {"target": "1000"}, humans=(0,))

    async def export(token):
        return await rpc_error(_drain(stub.ExportLog(pb.ExportLogRequest(table_id=table.table_id),
                                                     metadata=bearer(token))))
    assert (await export("made-up-token")).code() == grpc.StatusCode.UNAUTHENTICATED
    assert (await export(f"{table.table_id}.forged")).code() == grpc.StatusCode.UNAUTHENTICATED
    for known in (table.tokens[0], table.host_token):
        assert (await export(known)).code() == grpc.StatusCode.PERMISSION_DENIED


async def _drain(call):
    return [m async for m in call]


@pytest.mark.parametrize("request_id", [str(uuid.uuid4()), uuid.uuid4().hex,
                                        str(uuid.uuid4()).upper()])
async def test_a_uuid_in_either_form_is_a_request_id_and_both_forms_are_one_id(stub, request_id):
    first = await stub.CreateTable(pb.CreateTableRequest(preset="classic", request_id=request_id))
    other_form = request_id.replace("-", "") if "-" in request_id else str(uuid.UUID(request_id))
    again = await stub.CreateTable(pb.CreateTableRequest(preset="classic", request_id=other_form))
    assert again.table_id == first.table_id


@pytest.mark.parametrize("request_id", ["game-42", "r1", "1" * 32, "0" * 32,
                                        "00000000-0000-0000-0000-000000000000",
                                        "12121212-1212-1212-1212-121212121212",
                                        "urn:uuid:" + str(uuid.uuid4()), uuid.uuid4().hex + "0"])
async def test_a_short_or_guessable_request_id_is_invalid_argument_saying_what_is_wanted(
        stub, request_id):
    err = await rpc_error(stub.CreateTable(pb.CreateTableRequest(preset="classic",
                                                                 request_id=request_id)))
    assert err.code() == grpc.StatusCode.INVALID_ARGUMENT
    assert "request_id" in err.details() and "random UUID" in err.details()


async def test_the_same_id_on_another_table_is_another_request_and_refused(stub):
    first = await stub.CreateTable(pb.CreateTableRequest(preset="classic", request_id=rid()))
    second = await stub.CreateTable(pb.CreateTableRequest(preset="classic", request_id=rid()))
    same = rid()
    await stub.PostChat(pb.PostChatRequest(table_id=first.table_id, text="hi",
                                           display_name="spec", request_id=same))
    await _reused(stub.PostChat(pb.PostChatRequest(table_id=second.table_id, text="hi",
                                                   display_name="spec", request_id=same)))
    await _reused(stub.CreateTable(pb.CreateTableRequest(preset="classic", request_id=same)))
    assert (await stub.GetTable(pb.GetTableRequest(table_id=second.table_id))).version == 1
