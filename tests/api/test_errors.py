"""Every status code a client can get on purpose, with its ErrorInfo reason or BadRequest field,
and nothing appended by a refused request."""

from __future__ import annotations

import random

import grpc
import pytest
from belote.v1 import cards_pb2
from belote.v1 import table_service_pb2 as pb
from google.protobuf.duration_pb2 import Duration
from google.rpc import error_details_pb2
from grpc_status import rpc_status
from players import Table, bearer, new_table, rid, rpc_error, watch

pytestmark = pytest.mark.timeout(60)

C = grpc.StatusCode
PASS = cards_pb2.Action(bid=cards_pb2.Bid(passed=True))
A_UUID = "3f2b8c1e-9d4a-4e7b-a1c5-0b6d2e8f9a73"  # a well-formed id, for requests refused before any write


def reason_of(err: grpc.aio.AioRpcError) -> str:
    info = error_details_pb2.ErrorInfo()
    for detail in rpc_status.from_call(err).details:
        if detail.Unpack(info):
            assert info.domain == "belote.v1"
            return info.reason
    raise AssertionError(f"no ErrorInfo in {err}")


def field_of(err: grpc.aio.AioRpcError) -> str:
    bad = error_details_pb2.BadRequest()
    for detail in rpc_status.from_call(err).details:
        if detail.Unpack(bad):
            return ",".join(v.field for v in bad.field_violations)
    raise AssertionError(f"no BadRequest in {err}")


async def refused(table, call, code: grpc.StatusCode, reason: str | None = None) -> grpc.aio.AioRpcError:
    """`call` fails with `code` (and `reason`), and the table's log does not grow."""
    version = await table.version()
    err = await rpc_error(call)
    assert err.code() == code, (err.code(), err.details())
    if reason is not None:
        assert reason_of(err) == reason, err.details()
    assert await table.version() == version
    return err


@pytest.fixture
async def four(stub):
    """Four humans in the auction of a classic game."""
    return await new_table(stub, "classic", {"target": "200"})


async def to_act(table) -> int:
    return (await table.view()).game.to_act


# NOT_FOUND ---------------------------------------------------------------------------------
async def test_unknown_table_is_not_found(stub, four):
    token = bearer(four.tokens[0])
    for call in (
        stub.GetTable(pb.GetTableRequest(table_id="no-such-table")),
        stub.JoinTable(pb.JoinTableRequest(table_id="no-such-table", display_name="x",
                                           request_id=rid())),
        stub.AddBot(pb.AddBotRequest(table_id="no-such-table", request_id=rid()), metadata=token),
        stub.GetLegalActions(pb.GetLegalActionsRequest(table_id="no-such-table"), metadata=token),
        stub.Act(pb.ActRequest(table_id="no-such-table", action=PASS, request_id=rid()),
                 metadata=token),
        stub.LeaveTable(pb.LeaveTableRequest(table_id="no-such-table", request_id=rid()),
                        metadata=token),
        watch(stub, "no-such-table", count=1),
    ):
        err = await rpc_error(call)
        assert err.code() == C.NOT_FOUND, err
        assert reason_of(err) == "TABLE_NOT_FOUND"


# INVALID_ARGUMENT, naming the field ----------------------------------------------------------
@pytest.mark.parametrize("request_, field", [
    (pb.CreateTableRequest(preset="whist", request_id=A_UUID), "preset"),
    (pb.CreateTableRequest(options={"target": "many"}, request_id=A_UUID), "options[target]"),
    (pb.CreateTableRequest(options={"trumps": "yes"}, request_id=A_UUID), "options[trumps]"),
    (pb.CreateTableRequest(options={"play": "belgian"}, request_id=A_UUID), "options[undertrump]"),
    (pb.CreateTableRequest(stake=-1, request_id=A_UUID), "stake"),
    (pb.CreateTableRequest(is_private=True, request_id=A_UUID), "password"),
    (pb.CreateTableRequest(name="n" * 65, request_id=A_UUID), "name"),
    (pb.CreateTableRequest(turn_timer=Duration(seconds=3601), request_id=A_UUID), "turn_timer"),
    (pb.CreateTableRequest(turn_timer=Duration(seconds=-1), request_id=A_UUID), "turn_timer"),
    (pb.CreateTableRequest(turn_timer=Duration(seconds=30, nanos=500_000_000), request_id=A_UUID),
     "turn_timer"),
    (pb.CreateTableRequest(request_id=""), "request_id"),
    (pb.CreateTableRequest(request_id="r" * 65), "request_id"),
    (pb.CreateTableRequest(request_id="game-42"), "request_id"),
    (pb.CreateTableRequest(request_id="00000000-0000-0000-0000-000000000001"), "request_id"),
    (pb.CreateTableRequest(request_id="{" + A_UUID + "}"), "request_id"),
    (pb.CreateTableRequest(request_id=A_UUID[:-1]), "request_id"),
])
async def test_bad_create_is_invalid_argument_naming_the_field(stub, request_, field):
    err = await rpc_error(stub.CreateTable(request_))
    assert err.code() == C.INVALID_ARGUMENT, err.details()
    assert field_of(err) == field


async def test_bad_seat_name_and_page_size_are_invalid_argument(stub):
    table = await _one_human(stub)
    for seat, name, field in ((4, "x", "seat"), (-1, "x", "seat"), (0, "", "display_name"),
                              (0, "x" * 33, "display_name")):
        err = await refused(table, stub.JoinTable(pb.JoinTableRequest(
            table_id=table.table_id, seat=seat, display_name=name, request_id=rid())),
            C.INVALID_ARGUMENT)
        assert field_of(err) == field
    err = await refused(table, stub.AddBot(pb.AddBotRequest(
        table_id=table.table_id, seat=7, request_id=rid()), metadata=bearer(table.host_token)),
        C.INVALID_ARGUMENT)
    assert field_of(err) == "seat"
    err = await rpc_error(stub.ListTables(pb.ListTablesRequest(page_size=-1)))
    assert err.code() == C.INVALID_ARGUMENT and field_of(err) == "page_size"


@pytest.mark.parametrize("action, field", [
    (cards_pb2.Action(), "action"),
    (cards_pb2.Action(card=cards_pb2.Card(rank=cards_pb2.RANK_ACE)), "action.card"),
    (cards_pb2.Action(card=cards_pb2.Card(suit=cards_pb2.SUIT_HEARTS, rank=99)), "action.card"),
    (cards_pb2.Action(bid=cards_pb2.Bid()), "action.bid.contract"),
    (cards_pb2.Action(bid=cards_pb2.Bid(passed=False)), "action.bid.passed"),
    (cards_pb2.Action(announce=cards_pb2.Announcement()), "action.announce.kind"),
])
async def test_malformed_action_is_invalid_argument_naming_the_field(four, action, field):
    seat = await to_act(four)
    err = await refused(four, four.act(seat, action), C.INVALID_ARGUMENT)
    assert field_of(err) == field


async def test_act_without_request_id_is_invalid_argument(four):
    seat = await to_act(four)
    err = await refused(four, four.act(seat, PASS, request_id=""), C.INVALID_ARGUMENT)
    assert field_of(err) == "request_id"


# FAILED_PRECONDITION, with the rule's reason ---------------------------------------------------
async def test_not_your_turn(four):
    seat = await to_act(four)
    await refused(four, four.act((seat + 1) % 4, PASS), C.FAILED_PRECONDITION, "NOT_YOUR_TURN")


async def test_illegal_bid(four):
    view = await four.view()
    other = cards_pb2.Contract.CONTRACT_CLUBS + (view.game.turned_card.suit % 4)  # not turned suit
    bid = cards_pb2.Action(bid=cards_pb2.Bid(contract=other))
    await refused(four, four.act(view.game.to_act, bid), C.FAILED_PRECONDITION,
                  "FIRST_ROUND_TURNED_SUIT")


async def test_must_follow_suit(four):
    rng = random.Random("follow")
    for _ in range(400):
        view = await four.view()
        game = view.game
        if game.phase == pb.DEAL_PHASE_CARD_PLAY and game.current_trick:
            seat = game.to_act
            led = game.current_trick[0].card.suit
            hand = (await four.view(seat)).game.your_hand
            off = [c for c in hand if c.suit != led]
            if off and any(c.suit == led for c in hand):
                await refused(four, four.act(seat, cards_pb2.Action(card=off[0])),
                              C.FAILED_PRECONDITION, "MUST_FOLLOW_SUIT")
                return
        await four.step(rng)
    pytest.fail("never had to follow suit")


async def test_card_not_in_hand(four):
    rng = random.Random("notheld")
    view = await four.play(rng, until=lambda t: t.game.phase == pb.DEAL_PHASE_CARD_PLAY)
    seat = view.game.to_act
    other = (await four.view((seat + 1) % 4)).game.your_hand[0]
    await refused(four, four.act(seat, cards_pb2.Action(card=other)), C.FAILED_PRECONDITION,
                  "CARD_NOT_IN_HAND")


async def test_game_not_started(stub):
    table = await _one_human(stub)
    await refused(table, table.act(0, PASS), C.FAILED_PRECONDITION, "GAME_NOT_STARTED")


async def _one_human(stub) -> Table:
    """A table waiting for players, with one human at seat 0 (new_table would add bots)."""
    created = await stub.CreateTable(pb.CreateTableRequest(preset="classic", request_id=rid()))
    table = Table(stub, created.table_id, created.host_token, 1000)
    await table.join(0)
    return table


async def test_seat_taken_and_table_full(stub, four):
    half = await _one_human(stub)
    await refused(half, half.join(0), C.FAILED_PRECONDITION, "SEAT_TAKEN")
    await refused(half, half.add_bot(0), C.FAILED_PRECONDITION, "SEAT_TAKEN")
    await refused(four, four.join(), C.FAILED_PRECONDITION, "TABLE_FULL")
    await refused(four, four.join(1), C.FAILED_PRECONDITION, "SEAT_TAKEN")
    await refused(four, four.add_bot(), C.FAILED_PRECONDITION, "TABLE_FULL")


async def test_game_over(stub):
    table = await new_table(stub, "classic", {"target": "100"}, humans=(0, 1))
    await table.play(random.Random("over"))
    await refused(table, table.act(0, PASS), C.FAILED_PRECONDITION, "GAME_OVER")
    await refused(table, table.join(), C.FAILED_PRECONDITION, "GAME_OVER")
    legal = await table.legal(0)
    assert not legal.your_turn and not legal.actions


# Who may do what -----------------------------------------------------------------------------
async def test_wrong_or_missing_password_is_permission_denied(stub):
    created = await stub.CreateTable(pb.CreateTableRequest(
        preset="classic", is_private=True, password="open sesame", request_id=rid()))
    table = Table(stub, created.table_id, created.host_token, 1000, password="open sesame")
    await refused(table, table.join(password="open says me"), C.PERMISSION_DENIED, "WRONG_PASSWORD")
    await refused(table, table.join(), C.PERMISSION_DENIED, "WRONG_PASSWORD")
    assert (await table.join(password="open sesame")).seat == 0
    listed = await stub.ListTables(pb.ListTablesRequest(page_size=200))
    assert table.table_id not in [t.table_id for t in listed.tables]


async def test_missing_or_unknown_token_is_unauthenticated(stub, four):
    seat = await to_act(four)
    act = pb.ActRequest(table_id=four.table_id, action=PASS, request_id=rid())
    await refused(four, stub.Act(act), C.UNAUTHENTICATED)
    await refused(four, stub.GetLegalActions(pb.GetLegalActionsRequest(table_id=four.table_id)),
                  C.UNAUTHENTICATED)
    await refused(four, stub.AddBot(pb.AddBotRequest(table_id=four.table_id, request_id=rid())),
                  C.UNAUTHENTICATED)
    forged = four.tokens[seat][:-4] + "AAAA"  # this table's prefix, a wrong secret
    await refused(four, stub.Act(act, metadata=bearer(forged)), C.UNAUTHENTICATED)
    await refused(four, stub.GetTable(pb.GetTableRequest(table_id=four.table_id),
                                      metadata=bearer(forged)), C.UNAUTHENTICATED)
    # proto: "a token the server does not know" is UNAUTHENTICATED, whatever it looks like.
    await refused(four, stub.Act(act, metadata=bearer("made-up-token")), C.UNAUTHENTICATED)


async def test_another_tables_token_is_permission_denied(stub, four):
    other = await _one_human(stub)
    seat = await to_act(four)
    act = pb.ActRequest(table_id=four.table_id, action=PASS, request_id=rid())
    await refused(four, stub.Act(act, metadata=bearer(other.tokens[0])), C.PERMISSION_DENIED)
    await refused(four, stub.GetTable(pb.GetTableRequest(table_id=four.table_id),
                                      metadata=bearer(other.tokens[0])), C.PERMISSION_DENIED)
    await refused(four, stub.Act(act, metadata=bearer(other.host_token)), C.PERMISSION_DENIED)
    assert seat >= 0


async def test_host_token_sees_the_spectator_view(four):
    # proto GetTable: "anyone else (no token, or a host token) gets the spectator view".
    view = await four.stub.GetTable(pb.GetTableRequest(table_id=four.table_id),
                                    metadata=bearer(four.host_token))
    assert view.your_seat == -1 and not view.game.your_hand


async def test_stale_expected_version_is_aborted(four):
    legal = await four.legal(await to_act(four))
    seat = legal.seat
    await refused(four, four.act(seat, legal.actions[0], expected_version=legal.version - 1),
                  C.ABORTED, "VERSION_CONFLICT")
    await refused(four, four.act(seat, legal.actions[0], expected_version=legal.version + 1),
                  C.ABORTED, "VERSION_CONFLICT")
    done = await four.act(seat, legal.actions[0], expected_version=legal.version)
    assert done.version == legal.version + len(done.events)
