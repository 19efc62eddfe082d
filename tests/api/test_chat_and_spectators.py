"""Chat in the table's stream, spectators (no hand ever, 50 per table) and private tables
(password for spectators too, wrong passwords rate-limited), over a real server; and the two
limits counted alike by two replicas on one store."""

from __future__ import annotations

import asyncio
import contextlib

import grpc
import pytest
from belote.app.limits import Spectators
from belote.store import SqliteStore
from belote.v1 import table_service_pb2 as pb
from embedded import embedded_server
from peers import caller_from
from players import Table, bearer, check_game_end, check_stream, new_table, rid, rpc_error, watch
from test_errors import field_of, reason_of, refused

pytestmark = pytest.mark.timeout(90)
C = grpc.StatusCode


def chat(table, text: str, seat: int | None = None, name: str = "", password: str = ""):
    return table.stub.PostChat(pb.PostChatRequest(table_id=table.table_id, text=text, display_name=name,
                                                  password=password, request_id=rid()),
                               metadata=bearer(table.tokens[seat]) if seat is not None else None)


async def test_chat_reaches_everyone_within_its_limits(stub):
    table = await new_table(stub, "classic", humans=(0, 1))     # the game waits for the humans
    for text, what in (("", "empty"), (" " * 3, "blank"), ("x" * 501, "501 characters")):
        err = await refused(table, chat(table, text, seat=0), C.INVALID_ARGUMENT)
        assert field_of(err) == "text", what
    err = await refused(table, chat(table, "hi"), C.INVALID_ARGUMENT)    # a spectator needs a name
    assert field_of(err) == "display_name"
    posted = await chat(table, "x" * 500, seat=0)
    assert (posted.event.chat_posted.seat, posted.event.chat_posted.display_name) == (0, "human0")
    for i in range(4):
        await chat(table, f"message {i + 2}", seat=0)
    err = await refused(table, chat(table, "a 6th within 10 s", seat=0), C.RESOURCE_EXHAUSTED, "CHAT_TOO_FAST")
    # Only seat 0 is held back: seat 1 and a spectator still talk.
    await chat(table, "calm down", seat=1)
    await chat(table, "go seat 1!", name="kibitzer")
    seen = {}
    for viewer in (None, 0, 1):
        log = await watch(stub, table.table_id, table.tokens.get(viewer), count=posted.event.sequence + 6)
        seen[viewer] = [(e.chat_posted.seat, e.chat_posted.display_name, e.chat_posted.text)
                        for e in log if e.HasField("chat_posted")]
    assert seen[None] == seen[0] == seen[1]
    assert seen[None][-2:] == [(1, "human1", "calm down"), (-1, "kibitzer", "go seat 1!")]
    assert len(seen[None]) == 7 and seen[None][0][2] == "x" * 500


async def test_a_spectator_sees_no_hand_through_a_whole_game(stub):
    table = await new_table(stub, "classic", {"target": "300"}, humans=())
    events = await watch(stub, table.table_id)
    check_stream(events, None)
    check_game_end(events, table.target)
    assert (await table.view()).closed          # only bots: the table closed at the game's end


async def _first_event(call) -> None:
    async for _ in call:
        return


async def test_fifty_spectators_per_table_ten_per_caller_and_not_one_more(server, stub):
    table = await new_table(stub, "classic", humans=(0, 1))

    def spectate(on):
        return on.WatchTable(pb.WatchTableRequest(table_id=table.table_id))

    async with contextlib.AsyncExitStack() as hosts:
        # Five callers (the test's own address and four others) of ten streams each.
        stubs = [stub, *[await hosts.enter_async_context(caller_from(f"127.0.0.{n}", server.address))
                         for n in range(2, 6)]]
        calls = [spectate(on) for on in stubs for _ in range(10)]
        try:
            await asyncio.gather(*(_first_event(c) for c in calls))     # each one is open
            err = await rpc_error(_first_event(spectate(stubs[1])))      # an 11th of one caller
            assert (err.code(), reason_of(err)) == (C.RESOURCE_EXHAUSTED,
                                                    "TOO_MANY_SPECTATOR_STREAMS")
            late = await hosts.enter_async_context(caller_from("127.0.0.6", server.address))
            err = await rpc_error(_first_event(spectate(late)))          # a 51st of the table
            assert (err.code(), reason_of(err)) == (C.RESOURCE_EXHAUSTED, "TOO_MANY_SPECTATORS")
            # Seats are not spectators; another table has its own 50.
            await watch(stub, table.table_id, table.tokens[0], count=1)
            other = await new_table(stub, "classic", humans=(0, 1))
            await watch(stub, other.table_id, count=1)
            # One spectator leaves: the caller that was refused may come in.
            calls.pop().cancel()

            async def one_more():
                try:
                    await watch(late, table.table_id, count=1)
                    return True
                except grpc.aio.AioRpcError:
                    await asyncio.sleep(0.05)
                    return False
            for _ in range(100):
                if await one_more():
                    break
            else:
                raise AssertionError("a place freed by a spectator was not given to another")
        finally:
            for c in calls:
                c.cancel()


async def test_a_private_table_shows_itself_to_spectators_with_its_password(stub):
    table = await new_table(stub, "classic", humans=(0, 1), is_private=True, password="open sesame")
    for password in ("", "open says me"):
        err = await rpc_error(stub.GetTable(pb.GetTableRequest(table_id=table.table_id, password=password)))
        assert (err.code(), reason_of(err)) == (C.PERMISSION_DENIED, "WRONG_PASSWORD")
    view = await table.view()           # with the password
    assert view.is_private and view.your_seat == -1 and not view.game.your_hand
    call = stub.WatchTable(pb.WatchTableRequest(table_id=table.table_id, password="open sesame"))
    events = []
    async for event in call:
        events.append(event)
        if len(events) == view.version:
            break
    call.cancel()
    check_stream(events, None)
    await refused(table, chat(table, "hello", name="kibitzer"), C.PERMISSION_DENIED, "WRONG_PASSWORD")
    await chat(table, "hello", name="kibitzer", password="open sesame")
    # The host and the seats need no password.
    await stub.GetTable(pb.GetTableRequest(table_id=table.table_id), metadata=bearer(table.host_token))
    await table.view(0)


async def _private_table(stub, password: str) -> Table:
    """A private table waiting for players, seat 0 taken."""
    created = await stub.CreateTable(pb.CreateTableRequest(is_private=True, password=password,
                                                           request_id=rid()))
    table = Table(stub, created.table_id, created.host_token, 1000, password=password)
    await table.join(0, password=password)
    return table


async def test_wrong_passwords_are_limited_per_table(stub):
    table = await _private_table(stub, "right one")
    other = await _private_table(stub, "right one")
    for i in range(5):      # two RPCs, one count per table: 5 wrong tries within a minute
        call = table.join(password=f"wrong {i}") if i % 2 else \
            stub.GetTable(pb.GetTableRequest(table_id=table.table_id, password=f"wrong {i}"))
        assert (await rpc_error(call)).code() == C.PERMISSION_DENIED
    for call in (table.join(password="right one"),
                 stub.GetTable(pb.GetTableRequest(table_id=table.table_id, password="right one"))):
        err = await rpc_error(call)
        assert (err.code(), reason_of(err)) == (C.RESOURCE_EXHAUSTED, "TOO_MANY_WRONG_PASSWORDS")
    # The seated player is not locked out, and another table is not affected.
    await table.view(0)
    assert (await other.join(password="right one")).seat == 1


async def test_two_replicas_share_a_table_s_fifty_spectator_places(tmp_path):
    # One caller here (the test's address) may hold every place: the table's 50 are the point.
    async with embedded_server(tmp_path, spectators_per_caller=100) as (_, one), \
            embedded_server(tmp_path, spectators_per_caller=100) as (_, two):
        table = await new_table(one, "classic", humans=(0, 1))
        calls = [stub.WatchTable(pb.WatchTableRequest(table_id=table.table_id))
                 for stub in (one, two) for _ in range(25)]
        try:
            await asyncio.gather(*(_first_event(c) for c in calls))
            for stub in (one, two):
                err = await rpc_error(_first_event(stub.WatchTable(pb.WatchTableRequest(table_id=table.table_id))))
                assert (err.code(), reason_of(err)) == (C.RESOURCE_EXHAUSTED, "TOO_MANY_SPECTATORS")
            calls.pop(0).cancel()                      # a spectator of replica one leaves...
            for _ in range(100):                       # ...and one of replica two gets its place
                try:
                    await watch(two, table.table_id, count=1)
                    break
                except grpc.aio.AioRpcError:
                    await asyncio.sleep(0.05)
            else:
                raise AssertionError("a place freed on one replica was not given on the other")
        finally:
            for c in calls:
                c.cancel()


async def test_wrong_passwords_tried_on_two_replicas_count_together(tmp_path):
    async with embedded_server(tmp_path) as (_, one), embedded_server(tmp_path) as (_, two):
        table = await _private_table(one, "right one")
        for i in range(5):
            stub = (one, two)[i % 2]
            err = await rpc_error(stub.GetTable(pb.GetTableRequest(table_id=table.table_id,
                                                                   password=f"wrong {i}")))
            assert (err.code(), reason_of(err)) == (C.PERMISSION_DENIED, "WRONG_PASSWORD")
        for stub in (one, two):
            err = await rpc_error(stub.GetTable(pb.GetTableRequest(table_id=table.table_id,
                                                                   password="right one")))
            assert (err.code(), reason_of(err)) == (C.RESOURCE_EXHAUSTED, "TOO_MANY_WRONG_PASSWORDS")


async def test_the_places_of_a_replica_that_died_run_out(tmp_path):
    now = [1_000_000_000_000_000]
    store = SqliteStore(str(tmp_path / "belote.db"))
    try:
        alive = Spectators(store, lambda: now[0], limit=2, lease_s=30)
        dead = Spectators(store, lambda: now[0], limit=2, lease_s=30)
        assert await dead.enter("t", "a") and await dead.enter("t", "b")   # then it dies
        assert await alive.enter("t", "c") == Spectators.FULL
        now[0] += 30_000_000                                     # its places ran out
        first = await alive.enter("t", "c")
        assert first != Spectators.FULL and await alive.enter("t", "d") != Spectators.FULL
        assert await dead.enter("t", "a") == Spectators.FULL
        await alive.leave(first)
        assert await dead.enter("t", "a") != Spectators.FULL
        await alive.close()
        await dead.close()
    finally:
        await store.close()


async def test_one_caller_takes_its_share_of_the_places_and_no_more(tmp_path):
    store = SqliteStore(str(tmp_path / "belote.db"))
    try:
        places = Spectators(store, lambda: 1_000_000_000_000_000, limit=4, per_caller=2)
        mine = [await places.enter("t", "stranger") for _ in range(2)]
        assert Spectators.FULL not in mine and Spectators.CALLER_FULL not in mine
        assert await places.enter("t", "stranger") == Spectators.CALLER_FULL
        assert await places.enter("other table", "stranger") not in (Spectators.FULL,
                                                                     Spectators.CALLER_FULL)
        others = [await places.enter("t", name) for name in ("ana", "bob")]
        assert Spectators.FULL not in others
        assert await places.enter("t", "cy") == Spectators.FULL
        # A caller refused for a full table kept no share of it: once a place frees, it enters.
        await places.leave(others[0])
        assert await places.enter("t", "cy") not in (Spectators.FULL, Spectators.CALLER_FULL)
        await places.close()
    finally:
        await store.close()
