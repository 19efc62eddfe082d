"""The bare server of the load bench: the same RPCs carrying the same messages as a real table,
so the load's client does the same work against both servers."""

from __future__ import annotations

import grpc
import pytest
from belote.load.bare import play_script, serve_bare
from belote.load.players import run_tables
from belote.v1 import table_service_pb2 as pb
from belote.v1 import table_service_pb2_grpc as tgrpc

pytestmark = pytest.mark.timeout(60)


async def test_a_bare_table_shows_each_seat_the_scripted_game_as_that_seat_sees_it():
    created, joins, steps = play_script(actions=40)
    server, port = await serve_bare()
    try:
        async with grpc.aio.insecure_channel(f"127.0.0.1:{port}") as channel:
            stub = tgrpc.TableServiceStub(channel)
            table = (await stub.CreateTable(pb.CreateTableRequest())).table_id
            tokens = [(await stub.JoinTable(pb.JoinTableRequest(table_id=table, seat=s))).seat_token
                      for s in range(4)]
            seat = 2
            mine = (("authorization", f"Bearer {tokens[seat]}"),)
            first = steps[0]
            legal = await stub.GetLegalActions(pb.GetLegalActionsRequest(table_id=table),
                                               metadata=(("authorization", f"Bearer {tokens[first.seat]}"),))
            assert legal.your_turn and list(legal.actions) == list(first.legal)
            assert first.seat != seat and not (await stub.GetLegalActions(
                pb.GetLegalActionsRequest(table_id=table), metadata=mine)).your_turn
            acted = await stub.Act(pb.ActRequest(table_id=table, action=legal.actions[-1]),
                                   metadata=(("authorization", f"Bearer {tokens[first.seat]}"),))
            call = stub.WatchTable(pb.WatchTableRequest(table_id=table), metadata=mine)
            expected = [seen[seat] for step in (created, *joins, first) for seen in step.seen]
            got = [await call.read() for _ in expected]
            call.cancel()
    finally:
        await server.stop(0)
    assert [e.sequence for e in got] == list(range(1, len(expected) + 1))
    assert [e.WhichOneof("body") for e in got] == [e.WhichOneof("body") for e in expected]
    dealt = next(e.deal_started for e in got if e.HasField("deal_started"))
    assert len(dealt.hand) == 5 and not dealt.deck          # seat 2's hand, not the deck
    assert acted.version == len(expected)


async def test_the_load_client_gets_as_many_events_per_card_from_both_servers(server):
    bare, port = await serve_bare()
    try:
        on_bare = await run_tables(f"127.0.0.1:{port}", tables=3, duration=1.5, warmup=0.5)
    finally:
        await bare.stop(0)
    on_ours = await run_tables(server.address, tables=3, duration=1.5, warmup=0.5)
    assert on_bare.errors == on_ours.errors == 0
    assert on_bare.cards > 20 and on_ours.cards > 20
    # Events seen per card played: ~1.4 in both (the deals, bids, tricks and scores around it).
    per_card = [len(s.arrivals) / s.cards for s in (on_bare, on_ours)]
    assert 1.2 < per_card[0] < 1.6 and 1.2 < per_card[1] < 1.6, per_card
