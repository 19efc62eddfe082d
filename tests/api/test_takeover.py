"""A bot takes the seat of a player who leaves or whose stream is gone past the grace; the player
comes back with its seat token. All through the log, so it survives a restart."""

from __future__ import annotations

import asyncio
import random
import time

import grpc
import pytest
from belote.v1 import events_pb2, table_service_pb2_grpc
from belote.v1 import table_service_pb2 as pb
from players import bearer, new_table, rid, rpc_error, watch

pytestmark = pytest.mark.timeout(90)
GRACE_S = 1.0


async def wait_for(check, timeout: float = 20.0, every: float = 0.05):
    deadline = time.monotonic() + timeout
    while True:
        result = await check()
        if result:
            return result
        assert time.monotonic() < deadline, "timed out"
        await asyncio.sleep(every)


def bodies(events, kind):
    return [getattr(e, kind) for e in events if e.HasField(kind)]


async def test_a_player_who_leaves_is_replaced_at_once_and_takes_the_seat_back(stub):
    table = await new_table(stub, "classic", {"target": "2000"}, humans=(0, 1))
    await table.play(random.Random(1), until=lambda t: t.game.phase == pb.DEAL_PHASE_CARD_PLAY)
    left = await stub.LeaveTable(pb.LeaveTableRequest(table_id=table.table_id, request_id=rid()),
                                 metadata=bearer(table.tokens[1]))
    seat = left.table.seats[1]
    assert (seat.occupant, seat.bot_takeover, seat.bot_level) == (pb.SEAT_OCCUPANT_BOT, True, events_pb2.BOT_LEVEL_NORMAL)
    # The leaver may no longer act or ask for actions: the bot plays for it.
    err = await rpc_error(table.legal(1))
    assert err.code() == grpc.StatusCode.PERMISSION_DENIED
    token = table.tokens.pop(1)
    # The game goes on with the bot (seat 0 plays, bots play) for a while.
    await table.play(random.Random(2), until=lambda t: t.game.trick_number >= 5 or t.game.deal_number > 1)
    back = await stub.JoinTable(pb.JoinTableRequest(table_id=table.table_id, request_id=rid()),
                                metadata=bearer(token))
    table.tokens[1] = token
    assert (back.seat, back.seat_token) == (1, table.tokens[1])
    assert (back.table.seats[1].occupant, back.table.seats[1].bot_takeover) == (pb.SEAT_OCCUPANT_HUMAN, False)
    legal = await table.legal(1)
    assert legal.seat == 1
    log = await watch(stub, table.table_id, count=legal.version, until_game_ended=False)
    assert [(b.seat, b.reason) for b in bodies(log, "seat_left")] == [(1, events_pb2.SEAT_LEFT_REASON_LEFT)]
    assert [(b.seat, b.takeover) for b in bodies(log, "bot_seated")][-1] == (1, True)
    assert [b.seat for b in bodies(log, "seat_reclaimed")] == [1]
    # Reclaiming twice is refused: the seat is held already.
    again = await rpc_error(stub.JoinTable(pb.JoinTableRequest(table_id=table.table_id, request_id=rid()),
                                           metadata=bearer(table.tokens[1])))
    assert again.code() == grpc.StatusCode.FAILED_PRECONDITION


async def test_a_stream_gone_past_the_grace_gets_a_takeover_bot_across_a_restart_then_a_reclaim(server_factory):
    proc = server_factory(extra_args=("--disconnect-grace", str(GRACE_S)))
    channel = grpc.aio.insecure_channel(proc.address)
    stub = table_service_pb2_grpc.TableServiceStub(channel)
    table = await new_table(stub, "classic", {"target": "2000"}, humans=(0, 2))
    # Seat 2 watches for a moment, then its stream is gone.
    await watch(stub, table.table_id, table.tokens[2], count=3)
    await wait_for(lambda: _has(stub, table, "seat_disconnected"))
    # The server dies before the grace runs out; the deadline is in the log, not in memory.
    proc.kill()
    await channel.close()
    proc.start()
    channel = grpc.aio.insecure_channel(proc.address)
    stub = table_service_pb2_grpc.TableServiceStub(channel)
    table.stub = stub

    async def taken():
        view = await table.view()
        return view.seats[2].occupant == pb.SEAT_OCCUPANT_BOT and view.seats[2].bot_takeover
    await wait_for(taken, timeout=GRACE_S + 20)
    log = await watch(stub, table.table_id, count=(await table.version()), until_game_ended=False)
    disconnected = [e for e in log if e.HasField("seat_disconnected")]
    left = [e for e in log if e.HasField("seat_left")]
    assert [e.seat_disconnected.seat for e in disconnected] == [2]
    assert [(e.seat_left.seat, e.seat_left.reason) for e in left] == [(2, events_pb2.SEAT_LEFT_REASON_DISCONNECTED)]
    waited = left[0].append_time.ToMicroseconds() - disconnected[0].append_time.ToMicroseconds()
    assert waited >= GRACE_S * 1e6
    # Seat 0 never watched: no disconnect is recorded for it.
    assert (await table.view()).seats[0].occupant == pb.SEAT_OCCUPANT_HUMAN
    # After the restart too, the player takes its seat back with its token.
    back = await stub.JoinTable(pb.JoinTableRequest(table_id=table.table_id, request_id=rid()),
                                metadata=bearer(table.tokens[2]))
    assert (back.seat, back.table.seats[2].occupant, back.table.seats[2].bot_takeover) == \
        (2, pb.SEAT_OCCUPANT_HUMAN, False)
    assert (await table.legal(2)).seat == 2
    await channel.close()


async def test_coming_back_within_the_grace_keeps_the_seat(server_factory):
    proc = server_factory(extra_args=("--disconnect-grace", "3"))
    async with grpc.aio.insecure_channel(proc.address) as channel:
        stub = table_service_pb2_grpc.TableServiceStub(channel)
        table = await new_table(stub, "classic", {"target": "2000"}, humans=(0, 2))
        await watch(stub, table.table_id, table.tokens[0], count=2)
        await wait_for(lambda: _has(stub, table, "seat_disconnected"))
        # Back within the grace, and staying: the stream stays open past the grace.
        stream = stub.WatchTable(pb.WatchTableRequest(table_id=table.table_id),
                                 metadata=bearer(table.tokens[0]))
        await wait_for(lambda: _has(stub, table, "seat_connected"))
        await asyncio.sleep(3.5)
        view = await table.view()
        stream.cancel()
        assert view.seats[0].occupant == pb.SEAT_OCCUPANT_HUMAN


async def _has(stub, table, kind) -> bool:
    version = await table.version()
    log = await watch(stub, table.table_id, count=version, until_game_ended=False)
    return any(e.HasField(kind) for e in log)
