"""Per-caller limits on two `belote serve` replicas of one PostgreSQL database: a stranger (from
127.0.0.2, through tests/api/peers.py) who tries wrong passwords or floods the chat on both
replicas is held back on both, and nobody else is."""

from __future__ import annotations

import sys
import uuid
from pathlib import Path

import grpc
import pytest
from belote.v1 import table_service_pb2 as pb
from clients import Cluster

sys.path.append(str(Path(__file__).resolve().parents[1] / "api"))
from peers import caller_from  # noqa: E402
from test_errors import reason_of  # noqa: E402

pytestmark = pytest.mark.timeout(150)
C = grpc.StatusCode


async def _refusal(call) -> tuple:
    with pytest.raises(grpc.aio.AioRpcError) as caught:
        await call
    return caught.value.code(), reason_of(caught.value)


def _say(stub, table_id: str, text: str, name: str):
    return stub.PostChat(pb.PostChatRequest(table_id=table_id, text=text, display_name=name,
                                            password="sesame", request_id=uuid.uuid4().hex))


async def test_a_stranger_is_held_back_on_every_replica_and_nobody_else(replicas, database):
    group = replicas(2)
    cluster = Cluster([r.address for r in group])
    try:
        async with caller_from("127.0.0.2", group[0].address) as far0, \
                caller_from("127.0.0.2", group[1].address) as far1:
            strangers = (far0, far1)
            table_id = (await cluster.stubs[0].CreateTable(pb.CreateTableRequest(
                is_private=True, password="sesame", request_id=uuid.uuid4().hex))).table_id
            for i in range(5):
                assert await _refusal(strangers[i % 2].GetTable(pb.GetTableRequest(
                    table_id=table_id, password=f"guess {i}"))) == (C.PERMISSION_DENIED, "WRONG_PASSWORD")
            for far in strangers:
                assert await _refusal(far.GetTable(pb.GetTableRequest(
                    table_id=table_id, password="sesame"))) == (C.RESOURCE_EXHAUSTED, "TOO_MANY_WRONG_PASSWORDS")
            for stub in cluster.stubs:
                assert (await stub.GetTable(pb.GetTableRequest(table_id=table_id, password="sesame"))).is_private
            # Chat: this test's five messages under five names across the replicas, then none on
            # either...
            for i in range(5):
                await _say(cluster.stubs[i % 2], table_id, f"message {i}", f"name {i}")
            for stub in cluster.stubs:
                assert await _refusal(_say(stub, table_id, "one more", "new name")) == (
                    C.RESOURCE_EXHAUSTED, "CHAT_TOO_FAST")
            # ...while another caller still talks, under one of those names too.
            async with caller_from("127.0.0.3", group[1].address) as third:
                await _say(third, table_id, "hello", "name 0")
    finally:
        await cluster.close()
