"""QuickPlay on two PostgreSQL replicas at once: many callers, one preset, both replicas seating
at the same tables; no table ever seats five, no seat is given twice, and every table a caller
got ends up playing (full, or filled with bots after the wait)."""

from __future__ import annotations

import asyncio
import time
import uuid
from collections import Counter

import grpc
from belote.v1 import table_service_pb2 as pb
from belote.v1 import table_service_pb2_grpc


async def test_callers_on_two_replicas_never_make_five_and_all_get_a_game(replicas):
    group = replicas(2, extra_args=("--quick-play-wait", "1"))
    channels = [grpc.aio.insecure_channel(r.address) for r in group]
    try:
        stubs = [table_service_pb2_grpc.TableServiceStub(c) for c in channels]
        # A first caller opens a table; then 13 at once, alternating replicas.
        first = await stubs[0].QuickPlay(pb.QuickPlayRequest(
            preset="classic", display_name="first", request_id=uuid.uuid4().hex))
        answers = [first] + list(await asyncio.gather(*(
            stubs[i % 2].QuickPlay(pb.QuickPlayRequest(preset="classic", display_name=f"p{i}",
                                                       request_id=uuid.uuid4().hex))
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
