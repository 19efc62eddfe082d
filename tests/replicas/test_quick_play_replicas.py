"""QuickPlay on two PostgreSQL replicas at once: many callers, one preset, both replicas seating
at the same tables; no table ever seats five, no seat is given twice, and every table a caller
got ends up playing (full, or filled with bots after the wait); and a table whose opening
replica dies before its wait ends is filled by the other one, at the time its log names."""

from __future__ import annotations

import asyncio
import sys
import time
import uuid
from collections import Counter
from pathlib import Path

import grpc
from belote.v1 import events_pb2 as epb
from belote.v1 import table_service_pb2 as pb
from belote.v1 import table_service_pb2_grpc

sys.path.append(str(Path(__file__).resolve().parents[1] / "api"))
# Each caller a registered player of its own: all call from 127.0.0.1, one guest to the limits.
from embedded import as_player  # noqa: E402


async def test_callers_on_two_replicas_never_make_five_and_all_get_a_game(replicas):
    group = replicas(2, extra_args=("--quick-play-wait", "1"))
    channels = [grpc.aio.insecure_channel(r.address) for r in group]
    try:
        stubs = [table_service_pb2_grpc.TableServiceStub(c) for c in channels]
        # A first caller opens a table; then 13 at once, alternating replicas.
        first = await stubs[0].QuickPlay(pb.QuickPlayRequest(
            preset="classic", display_name="first", request_id=uuid.uuid4().hex),
            metadata=as_player("first"))
        answers = [first] + list(await asyncio.gather(*(
            stubs[i % 2].QuickPlay(pb.QuickPlayRequest(preset="classic", display_name=f"p{i}",
                                                       request_id=uuid.uuid4().hex),
                                   metadata=as_player(f"p{i}"))
            for i in range(13))))
        per_table = Counter(a.table.table_id for a in answers)
        assert all(n <= 4 for n in per_table.values()), per_table
        assert len({(a.table.table_id, a.seat) for a in answers}) == len(answers)
        assert per_table[first.table.table_id] >= 2, "callers after the first joined its table"
        deadline = time.monotonic() + 20
        for table_id, humans in per_table.items():
            while True:
                table = await stubs[1].GetTable(pb.GetTableRequest(table_id=table_id))
                if table.status == pb.TABLE_STATUS_PLAYING or time.monotonic() > deadline:
                    break
                await asyncio.sleep(0.1)
            assert table.status == pb.TABLE_STATUS_PLAYING, table_id
            assert sum(s.occupant == pb.SEAT_OCCUPANT_HUMAN for s in table.seats) == humans
            assert sum(s.occupant == pb.SEAT_OCCUPANT_BOT for s in table.seats) == 4 - humans
    finally:
        for channel in channels:
            await channel.close()


FILL_WAIT_S = 3.0


async def _events_until_playing(stub, table_id: str, timeout: float) -> list:
    """The table's events from its first, until its game starts (a spectator's stream)."""
    events = []
    call = stub.WatchTable(pb.WatchTableRequest(table_id=table_id, from_sequence=1))
    try:
        async with asyncio.timeout(timeout):
            async for event in call:
                events.append(event)
                if event.HasField("game_started"):
                    return events
    finally:
        call.cancel()
    raise AssertionError(f"no game started: {[e.WhichOneof('body') for e in events]}")


async def test_the_other_replica_fills_a_table_whose_opener_died_during_the_wait(replicas):
    opener, other = replicas(2, extra_args=("--quick-play-wait", str(FILL_WAIT_S)))
    async with grpc.aio.insecure_channel(opener.address) as first_channel, \
            grpc.aio.insecure_channel(other.address) as channel:
        first_id = uuid.uuid4().hex
        opened = await table_service_pb2_grpc.TableServiceStub(first_channel).QuickPlay(
            pb.QuickPlayRequest(preset="classic", display_name="first", request_id=first_id),
            metadata=as_player("first"))
        opened_at = time.monotonic()
        opener.kill()      # SIGKILL, well before the wait ends: its own timer dies with it
        assert time.monotonic() - opened_at < FILL_WAIT_S / 2
        stub = table_service_pb2_grpc.TableServiceStub(channel)
        table_id = opened.table.table_id
        # A caller who comes during the wait, on the surviving replica, sits at that table and
        # keeps the seat: bots take only the two still empty.
        second = await stub.QuickPlay(pb.QuickPlayRequest(
            preset="classic", display_name="second", request_id=uuid.uuid4().hex),
            metadata=as_player("second"))
        assert second.table.table_id == table_id and second.seat == 1
        # The first caller's retry reaches the surviving replica, which never answered it: the
        # same seat, from the seat's record in the store.
        retried = await stub.QuickPlay(pb.QuickPlayRequest(
            preset="classic", display_name="first", request_id=first_id),
            metadata=as_player("first"))
        assert (retried.table.table_id, retried.seat, retried.seat_token) == \
            (table_id, opened.seat, opened.seat_token)
        assert (await stub.GetTable(pb.GetTableRequest(table_id=table_id))).status == \
            pb.TABLE_STATUS_WAITING_FOR_PLAYERS

        events = await _events_until_playing(stub, table_id, timeout=FILL_WAIT_S + 15)
    created = events[0].table_created
    fill_at_us = created.bots_fill_time.ToMicroseconds()
    opened_us = events[0].append_time.ToMicroseconds()
    # The log names the fill time: the opening plus the opener's wait.
    assert abs(fill_at_us - opened_us - FILL_WAIT_S * 1e6) < 0.5e6, (opened_us, fill_at_us)
    kinds = [e.WhichOneof("body") for e in events]
    assert kinds[:3] == ["table_created", "seat_joined", "seat_joined"], kinds
    bots = [e for e in events if e.HasField("bot_seated")]
    assert sorted(e.bot_seated.seat for e in bots) == [2, 3]
    assert all(e.bot_seated.level == epb.BOT_LEVEL_NORMAL and not e.bot_seated.takeover for e in bots)
    # Seated once the time had passed (not before), by the replica still running.
    assert all(e.append_time.ToMicroseconds() >= fill_at_us for e in bots), \
        [(e.append_time.ToMicroseconds() - fill_at_us) / 1e6 for e in bots]
    table = await _get_table(other.address, table_id)
    assert [s.occupant for s in table.seats] == [pb.SEAT_OCCUPANT_HUMAN, pb.SEAT_OCCUPANT_HUMAN, pb.SEAT_OCCUPANT_BOT, pb.SEAT_OCCUPANT_BOT]
    assert [s.display_name for s in table.seats[:2]] == ["first", "second"]
    assert table.status == pb.TABLE_STATUS_PLAYING


async def _get_table(address: str, table_id: str) -> pb.Table:
    async with grpc.aio.insecure_channel(address) as channel:
        return await table_service_pb2_grpc.TableServiceStub(channel).GetTable(
            pb.GetTableRequest(table_id=table_id))
