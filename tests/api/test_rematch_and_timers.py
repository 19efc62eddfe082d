"""Deadlines read from the log's event times, enforced by whoever looks first: the rematch vote
(2 minutes), the turn timer (a bot makes one move for a slow human), also across a restart."""

from __future__ import annotations

import asyncio
import random
import time

import grpc
import pytest
from google.protobuf.duration_pb2 import Duration
from belote.v1 import events_pb2, table_service_pb2_grpc
from belote.v1 import table_service_pb2 as pb
from embedded import embedded_server
from players import bearer, new_table, rid, rpc_error, watch
from test_errors import reason_of

pytestmark = pytest.mark.timeout(90)
C = grpc.StatusCode
S = 1_000_000


def vote(table, seat: int):
    return table.stub.VoteRematch(pb.VoteRematchRequest(table_id=table.table_id, request_id=rid()),
                                  metadata=bearer(table.tokens[seat]))


async def log_of(table) -> list[events_pb2.TableEvent]:
    return await watch(table.stub, table.table_id, count=await table.version(), until_game_ended=False)


async def test_a_rematch_when_every_human_votes(tmp_path):
    async with embedded_server(tmp_path) as (_app, stub):
        table = await new_table(stub, "classic", {"target": "1"}, humans=(0, 1))
        over = await table.play(random.Random(1))
        assert over.rematch_deadline_time.ToMicroseconds() > 0 and not over.closed
        err = await rpc_error(table.stub.VoteRematch(pb.VoteRematchRequest(
            table_id=table.table_id, request_id=rid()), metadata=bearer(table.host_token)))
        assert err.code() == C.PERMISSION_DENIED        # the host is not a seat
        first = await vote(table, 0)
        assert (first.table.status, list(first.table.rematch_votes)) == (pb.TABLE_STATUS_FINISHED, [0])
        err = await rpc_error(vote(table, 0))
        assert (err.code(), reason_of(err)) == (C.FAILED_PRECONDITION, "ALREADY_VOTED")
        second = await vote(table, 1)
        assert (second.table.status, second.table.game.game_number) == (pb.TABLE_STATUS_PLAYING, 2)
        started = [e.game_started for e in await log_of(table) if e.HasField("game_started")]
        assert [(g.game_number, g.first_dealer) for g in started] == [(1, 0), (2, 1)]
        assert [s.occupant for s in second.table.seats] == [pb.SEAT_OCCUPANT_HUMAN, pb.SEAT_OCCUPANT_HUMAN, pb.SEAT_OCCUPANT_BOT, pb.SEAT_OCCUPANT_BOT]


async def test_the_table_closes_when_the_vote_runs_out(tmp_path):
    async with embedded_server(tmp_path) as (app, stub):
        table = await new_table(stub, "classic", {"target": "1"}, humans=(0, 1))
        over = await table.play(random.Random(2))
        await vote(table, 0)
        deadline = over.rematch_deadline_time.ToMicroseconds()
        ended = next(e for e in await log_of(table) if e.HasField("game_ended"))
        assert deadline == ended.append_time.ToMicroseconds() + 120 * S
        assert await app.enforce_deadlines(now_us=deadline - 1) == 0
        assert not (await table.view()).closed
        assert await app.enforce_deadlines(now_us=deadline) == 1
        assert await app.enforce_deadlines(now_us=deadline + S) == 0        # once
        view = await table.view()
        assert (view.status, view.closed) == (pb.TABLE_STATUS_FINISHED, True)
        assert (await log_of(table))[-1].table_closed.reason == events_pb2.TABLE_CLOSED_REASON_NO_REMATCH
        err = await rpc_error(vote(table, 1))
        assert (err.code(), reason_of(err)) == (C.FAILED_PRECONDITION, "TABLE_CLOSED")


async def test_the_turn_timer_plays_one_move_for_a_slow_human(tmp_path):
    async with embedded_server(tmp_path) as (app, stub):
        table = await new_table(stub, "classic", humans=(0, 1, 2, 3), turn_timer=Duration(seconds=30))
        view = await table.view()
        seat, deadline = view.game.to_act, view.turn_deadline_time.ToMicroseconds()
        dealt = next(e for e in await log_of(table) if e.HasField("deal_started"))
        assert deadline == dealt.append_time.ToMicroseconds() + 30 * S
        assert await app.enforce_deadlines(now_us=deadline - 1) == 0
        assert await app.enforce_deadlines(now_us=deadline) == 1
        # The timer's bid (it may have taken: a ContractSettled then follows it).
        made = [e for e in await log_of(table) if e.HasField("bid_made")][-1].bid_made
        assert (made.seat, made.bot.timer, made.bot.level) == (seat, True, events_pb2.BOT_LEVEL_NORMAL)
        view = await table.view()
        # The seat stays human; the turn moves on (to the next seat, or to the eldest's lead if
        # the timer's bid took the contract).
        took = not made.bid.passed
        nxt = (view.game.dealer + 1) % 4 if took else (seat + 1) % 4
        assert view.seats[seat].occupant == pb.SEAT_OCCUPANT_HUMAN and view.game.to_act == nxt
        # The next seat's clock started with that move; it acts in time: the clock starts again.
        legal = await table.legal(nxt)
        acted = (await table.act(nxt, legal.actions[0])).events[0].append_time.ToMicroseconds()
        view = await table.view()
        assert view.turn_deadline_time.ToMicroseconds() == acted + 30 * S
        assert await app.enforce_deadlines(now_us=acted + 30 * S - 1) == 0


async def test_the_turn_timer_fires_after_a_restart(server_factory):
    proc = server_factory()
    channel = grpc.aio.insecure_channel(proc.address)
    stub = table_service_pb2_grpc.TableServiceStub(channel)
    table = await new_table(stub, "classic", humans=(0, 1, 2, 3), turn_timer=Duration(seconds=2))
    seat = (await table.view()).game.to_act
    # The server dies at once; the timer's start is in the log, not in its memory.
    proc.kill()
    await channel.close()
    await asyncio.sleep(2.5)
    restarted_us = time.time_ns() // 1000
    proc.start()
    async with grpc.aio.insecure_channel(proc.address) as channel:
        table.stub = table_service_pb2_grpc.TableServiceStub(channel)
        deadline = time.monotonic() + 20
        while not (moves := [e for e in await log_of(table) if e.HasField("bid_made")]):
            assert time.monotonic() < deadline, "no timer move after the restart"
            await asyncio.sleep(0.1)
        log = await log_of(table)
        dealt = next(e for e in log if e.HasField("deal_started")).append_time.ToMicroseconds()
        first = moves[0]
        assert (first.bid_made.seat, first.bid_made.bot.timer) == (seat, True)
        assert first.append_time.ToMicroseconds() >= max(dealt + 2 * S, restarted_us)
        assert (await table.view()).seats[seat].occupant == pb.SEAT_OCCUPANT_HUMAN
