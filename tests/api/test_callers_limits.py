"""Limits a stranger cannot turn against others: wrong passwords, spectator chat and new tables
are counted per caller (its address, and the token it shows), on every replica of a store; a
caller over its limit gets RESOURCE_EXHAUSTED, everyone else carries on. A stranger here calls
from 127.0.0.2 (tests/api/peers.py), the test itself from 127.0.0.1."""

from __future__ import annotations

import asyncio
import collections

import grpc
import pytest
from belote.v1 import table_service_pb2 as pb
from embedded import as_player, embedded_address, embedded_server
from peers import caller_from
from players import bearer, new_table, rid, rpc_error, watch
from test_errors import field_of, reason_of

pytestmark = pytest.mark.timeout(120)
C = grpc.StatusCode
STRANGER = "127.0.0.2"


async def _private_table(stub, password: str = "right one") -> str:
    created = await stub.CreateTable(pb.CreateTableRequest(is_private=True, password=password,
                                                           request_id=rid()))
    return created.table_id


def _look(stub, table_id: str, password: str):
    return stub.GetTable(pb.GetTableRequest(table_id=table_id, password=password))


async def _status(call) -> tuple:
    try:
        await call
        return ("OK", "")
    except grpc.aio.AioRpcError as err:
        return (err.code(), reason_of(err))


# Wrong passwords -----------------------------------------------------------------------------
async def test_a_stranger_s_wrong_passwords_lock_out_only_the_stranger_on_both_replicas(tmp_path):
    async with embedded_address(tmp_path) as (_, one_at), embedded_address(tmp_path) as (_, two_at), \
            caller_from("127.0.0.1", one_at) as one, caller_from("127.0.0.1", two_at) as two, \
            caller_from(STRANGER, one_at) as far_one, caller_from(STRANGER, two_at) as far_two:
        table_id = await _private_table(one)
        for i in range(5):                     # tried on both replicas: counted together
            err = await rpc_error(_look((far_one, far_two)[i % 2], table_id, f"guess {i}"))
            assert (err.code(), reason_of(err)) == (C.PERMISSION_DENIED, "WRONG_PASSWORD")
        for far in (far_one, far_two):
            err = await rpc_error(_look(far, table_id, "right one"))
            assert (err.code(), reason_of(err)) == (C.RESOURCE_EXHAUSTED, "TOO_MANY_WRONG_PASSWORDS")
        # Everyone else: the right password works, on either replica, to look and to sit.
        for stub in (one, two):
            assert (await _look(stub, table_id, "right one")).is_private
        joined = await one.JoinTable(pb.JoinTableRequest(table_id=table_id, display_name="ann",
                                                         password="right one", request_id=rid()))
        assert joined.seat_token
        # A registered player at the stranger's address is a caller of its own.
        sat = await far_two.JoinTable(pb.JoinTableRequest(
            table_id=table_id, display_name="bo", password="right one", request_id=rid()),
            metadata=as_player("bo"))
        assert sat.seat != joined.seat
        assert err.details() == ("too many wrong passwords from you for this table (5 within 60 "
                                 "seconds): wait a minute")


async def test_a_flood_of_tries_at_once_hashes_five_passwords_and_refuses_the_rest(server, stub):
    table_id = await _private_table(stub)
    async with caller_from(STRANGER, server.address) as far:
        outcomes = await asyncio.gather(*(_status(_look(far, table_id, f"guess {i}"))
                                          for i in range(100)))
    assert collections.Counter(outcomes) == {(C.PERMISSION_DENIED, "WRONG_PASSWORD"): 5,
                                             (C.RESOURCE_EXHAUSTED, "TOO_MANY_WRONG_PASSWORDS"): 95}
    assert (await _look(stub, table_id, "right one")).is_private


async def test_the_right_password_again_and_again_is_never_refused(stub):
    table_id = await _private_table(stub)
    outcomes = await asyncio.gather(*(_status(_look(stub, table_id, "right one")) for _ in range(50)))
    assert set(outcomes) == {("OK", "")}


# Chat ----------------------------------------------------------------------------------------
def _say(stub, table_id: str, text: str, name: str = "", token: str | None = None,
         request_id: str | None = None):
    return stub.PostChat(pb.PostChatRequest(table_id=table_id, text=text, display_name=name,
                                            request_id=request_id or rid()),
                         metadata=bearer(token) if token else None)


async def test_a_spectator_is_limited_whatever_names_it_gives_and_holds_back_no_one(server, stub):
    table = await new_table(stub, "classic", humans=(0, 1))
    async with caller_from(STRANGER, server.address) as far:
        first = rid()
        for i in range(5):
            await _say(far, table.table_id, f"spam {i}", name=f"name {i}",
                       request_id=first if i == 0 else None)
        err = await rpc_error(_say(far, table.table_id, "spam 5", name="a new name"))
        assert (err.code(), reason_of(err)) == (C.RESOURCE_EXHAUSTED, "CHAT_TOO_FAST")
        # A retry of an accepted message is its first answer, not one more message.
        again = await _say(far, table.table_id, "spam 0", name="name 0", request_id=first)
        assert again.event.chat_posted.text == "spam 0"
        # The stranger used "name 0".."name 4": another spectator who calls itself so, the seats
        # and the host still talk.
        await _say(stub, table.table_id, "hello", name="name 0")
        await _say(stub, table.table_id, "hi", token=table.tokens[0])
        await _say(stub, table.table_id, "welcome", name="the host", token=table.host_token)


async def test_spectator_messages_are_counted_together_on_two_replicas(tmp_path):
    async with embedded_server(tmp_path) as (_, one), embedded_server(tmp_path) as (_, two):
        table = await new_table(one, "classic", humans=(0, 1))
        for i in range(5):
            await _say((one, two)[i % 2], table.table_id, f"message {i}", name=f"kibitzer {i}")
        for stub in (one, two):
            err = await rpc_error(_say(stub, table.table_id, "one more", name="kibitzer"))
            assert (err.code(), reason_of(err)) == (C.RESOURCE_EXHAUSTED, "CHAT_TOO_FAST")
        await _say(two, table.table_id, "a seat still talks", token=table.tokens[1])


async def test_a_spectator_s_message_is_marked_and_cannot_take_a_seat_s_name(stub):
    table = await new_table(stub, "classic", humans=(0, 1))          # human0, human1
    for name in ("human0", "HUMAN1 "):
        err = await rpc_error(_say(stub, table.table_id, "I am seat 0", name=name))
        assert (err.code(), reason_of(err), field_of(err)) == (
            C.INVALID_ARGUMENT, "NAME_OF_A_SEAT", "display_name")
    posted = (await _say(stub, table.table_id, "go!", name="kibitzer")).event.chat_posted
    assert (posted.seat, posted.spectator) == (-1, True)
    seat_says = (await _say(stub, table.table_id, "thanks", token=table.tokens[0])).event.chat_posted
    assert (seat_says.seat, seat_says.spectator) == (0, False)
    for viewer in (None, 0):
        events = await watch(stub, table.table_id, table.tokens.get(viewer),
                             count=(await table.view()).version)
        chats = [(e.chat_posted.display_name, e.chat_posted.seat, e.chat_posted.spectator)
                 for e in events if e.HasField("chat_posted")]
        assert chats == [("kibitzer", -1, True), ("human0", 0, False)], viewer


# New tables ----------------------------------------------------------------------------------
def _create(stub, request_id: str | None = None, **kw):
    return stub.CreateTable(pb.CreateTableRequest(request_id=request_id or rid(), **kw))


async def test_each_caller_creates_so_many_tables_a_minute(server_factory):
    server = server_factory(extra_args=("--tables-per-minute", "3"))
    async with caller_from("127.0.0.1", server.address) as near, \
            caller_from(STRANGER, server.address) as far:
        first = rid()
        made = [await _create(far, first if i == 0 else None) for i in range(3)]
        err = await rpc_error(_create(far))
        assert (err.code(), reason_of(err)) == (C.RESOURCE_EXHAUSTED, "TOO_MANY_TABLES")
        assert err.details() == "at most 3 new tables per minute from one caller: retry within a minute"
        # A retry is the first answer, not one more table; another caller has its own quota.
        assert (await _create(far, first)).table_id == made[0].table_id
        assert len({(await _create(near)).table_id for _ in range(3)}) == 3


async def test_the_table_quota_is_counted_on_every_replica_and_per_registered_player(tmp_path):
    async with embedded_server(tmp_path, tables_per_minute=2) as (_, one), \
            embedded_server(tmp_path, tables_per_minute=2) as (_, two):
        await _create(one)
        await _create(two)
        for stub in (one, two):
            err = await rpc_error(_create(stub))
            assert (err.code(), reason_of(err)) == (C.RESOURCE_EXHAUSTED, "TOO_MANY_TABLES")
        # A registered player at the same address counts as itself.
        for stub in (one, two):
            await stub.CreateTable(pb.CreateTableRequest(request_id=rid()), metadata=as_player("cy"))
        err = await rpc_error(one.CreateTable(pb.CreateTableRequest(request_id=rid()),
                                              metadata=as_player("cy")))
        assert reason_of(err) == "TOO_MANY_TABLES"


async def test_a_target_above_10000_is_refused_naming_the_option(stub):
    err = await rpc_error(_create(stub, options={"target": "10001"}))
    assert (err.code(), field_of(err)) == (C.INVALID_ARGUMENT, "options[target]")
    assert err.details() == "option target: must be between 1 and 10000"
    assert (await _create(stub, options={"target": "10000"})).table.options["target"] == "10000"
