"""What an operator relies on: health, reflection, the export, and secrets kept out of logs."""

from __future__ import annotations

import asyncio
import itertools
import random
import re
import subprocess
import time
import urllib.error
import urllib.request

import grpc
import pytest
from belote.api.server import LIVENESS, start
from belote.app.tables import TableApp
from belote.store import SqliteStore, StoreUnavailable
from belote.v1 import cards_pb2, table_service_pb2_grpc
from belote.v1 import table_service_pb2 as pb
from google.protobuf import json_format
from grpc_health.v1 import health_pb2, health_pb2_grpc
from grpc_reflection.v1alpha import reflection_pb2, reflection_pb2_grpc
from players import REVIEWER_TOKEN, bearer, new_table, rid, rpc_error, watch
from prometheus_client.parser import text_string_to_metric_families
from servers import BELOTE

pytestmark = pytest.mark.timeout(60)
PASS = cards_pb2.Action(bid=cards_pb2.Bid(passed=True))


async def test_health_is_serving(server):
    async with grpc.aio.insecure_channel(server.address) as channel:
        health = health_pb2_grpc.HealthStub(channel)
        for service in ("", "belote.v1.TableService"):
            reply = await health.Check(health_pb2.HealthCheckRequest(service=service))
            assert reply.status == health_pb2.HealthCheckResponse.SERVING
        err = await rpc_error(health.Check(health_pb2.HealthCheckRequest(service="nope.Service")))
        assert err.code() == grpc.StatusCode.NOT_FOUND


async def test_liveness_stays_serving_while_the_store_is_unreachable(tmp_path):
    # A database outage makes the server unready (no calls for it), not dead: a liveness probe
    # that followed the store would restart every replica at once, for nothing.
    store = SqliteStore(str(tmp_path / "belote.db"))
    app = TableApp(store)
    running = await start("127.0.0.1:0", app, store_check_s=0.05)
    try:
        async with grpc.aio.insecure_channel(running.address) as channel:
            health = health_pb2_grpc.HealthStub(channel)
            assert await _statuses(health) == ["SERVING"] * 3

            async def unreachable():
                raise StoreUnavailable("the database does not answer")

            store.ping = unreachable
            assert await _statuses_become(health, ["SERVING", "NOT_SERVING", "NOT_SERVING"])
            live, ready = await asyncio.gather(
                asyncio.to_thread(_belote, "health", "--target", running.address, "--live"),
                asyncio.to_thread(_belote, "health", "--target", running.address, "--ready"))
            assert (live.returncode, live.stdout.strip()) == (0, f"{running.address}: SERVING")
            assert (ready.returncode, ready.stdout.strip()) == (
                1, f"{running.address}: NOT_SERVING")

            del store.ping  # the store answers again: ready again
            assert await _statuses_become(health, ["SERVING"] * 3)
    finally:
        await running.stop(0)


HEALTH_ASKED = (LIVENESS, "", "belote.v1.TableService")


async def _statuses(health) -> list[str]:
    replies = [await health.Check(health_pb2.HealthCheckRequest(service=name))
               for name in HEALTH_ASKED]
    return [health_pb2.HealthCheckResponse.ServingStatus.Name(r.status) for r in replies]


async def _statuses_become(health, wanted: list[str], within_s: float = 10) -> bool:
    deadline = time.monotonic() + within_s
    while (seen := await _statuses(health)) != wanted:
        assert time.monotonic() < deadline, seen
        await asyncio.sleep(0.05)
    return True


def _belote(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([*BELOTE, *args], capture_output=True, text=True, timeout=30,
                          stdin=subprocess.DEVNULL, check=False)


async def test_reflection_lists_the_service(server):
    async with grpc.aio.insecure_channel(server.address) as channel:
        reflection = reflection_pb2_grpc.ServerReflectionStub(channel)
        request = reflection_pb2.ServerReflectionRequest(list_services="")
        replies = [r async for r in reflection.ServerReflectionInfo(iter([request]))]
        names = {s.name for s in replies[0].list_services_response.service}
        assert {"belote.v1.TableService", "grpc.health.v1.Health"} <= names
        # ...and can describe it (what grpcurl does next).
        request = reflection_pb2.ServerReflectionRequest(
            file_containing_symbol="belote.v1.TableService")
        replies = [r async for r in reflection.ServerReflectionInfo(iter([request]))]
        assert replies[0].file_descriptor_response.file_descriptor_proto


async def test_tokens_stay_out_of_logs_and_exports(server_factory):
    proc = server_factory()
    async with grpc.aio.insecure_channel(proc.address) as channel:
        stub = table_service_pb2_grpc.TableServiceStub(channel)
        table = await new_table(stub, "classic", {"target": "200"}, humans=(0, 2),
                                is_private=True, password="hunter2-password")
        # A few refusals too: error paths are where secrets slip into logs.
        for token in (*table.tokens.values(), table.host_token, "made-up-token"):
            await rpc_error(stub.Act(pb.ActRequest(table_id="no-such-table", request_id=rid()),
                                     metadata=bearer(token)))
        await table.play(random.Random("secrets"))

        export = stub.ExportLog(pb.ExportLogRequest(table_id=table.table_id),
                                metadata=bearer(REVIEWER_TOKEN))
        *lines, end = [line async for line in export]
        assert end.head.last_sequence == lines[-1].sequence      # the signed head comes last
        for token in (None, table.host_token, table.tokens[0]):
            err = await rpc_error(_drain(stub.ExportLog(
                pb.ExportLogRequest(table_id=table.table_id),
                metadata=bearer(token) if token else None)))
            expected = grpc.StatusCode.UNAUTHENTICATED if token is None else \
                grpc.StatusCode.PERMISSION_DENIED
            assert err.code() == expected

    assert proc.terminate() == 0
    version = (lines[-1].sequence if lines else 0)
    assert [line.sequence for line in lines] == list(range(1, version + 1))
    assert lines[-1].event.HasField("game_ended")
    # The export is complete (nothing redacted): decks, salts and hashes are all there.
    deals = [line.event.deal_started for line in lines if line.event.HasField("deal_started")]
    assert deals and all(len(d.deck) == 32 and d.salt for d in deals)
    assert lines[0].event.table_created.password_hash
    assert all(line.hash and line.prev_hash for line in lines)
    assert all(line.prev_hash == before.hash for before, line in itertools.pairwise(lines))

    exported = "\n".join(json_format.MessageToJson(line) for line in lines)
    raw = b"".join(line.SerializeToString() for line in lines)
    logs = proc.output()
    assert "listening on" in logs
    secrets = [*table.tokens.values(), table.host_token, REVIEWER_TOKEN, "hunter2-password"]
    for secret in secrets:
        assert secret not in exported and secret.encode() not in raw
        assert secret not in logs
        # Nor the part after the table id (tokens are "<table id>.<secret>").
        tail = secret.rsplit(".", 1)[-1]
        assert tail not in logs and tail not in exported


async def _drain(call):
    return [item async for item in call]



async def test_metrics_count_rpcs_by_method_and_code(server, stub):
    table = await new_table(stub, "classic", {"target": "200"})
    await rpc_error(table.act((await table.view()).game.to_act ^ 1, PASS))  # not your turn
    await rpc_error(stub.GetTable(pb.GetTableRequest(table_id="no-such-table")))
    await watch(stub, table.table_id, count=3)
    samples = await asyncio.to_thread(_scrape, server.metrics_url)
    rpc = {"grpc_service": "belote.v1.TableService"}
    for method, code in (("Act", "FAILED_PRECONDITION"), ("GetTable", "NOT_FOUND"),
                         ("GetTable", "OK"), ("JoinTable", "OK"), ("WatchTable", "CANCELLED")):
        kind = "server_stream" if method == "WatchTable" else "unary"
        labels = {**rpc, "grpc_type": kind, "grpc_method": method, "grpc_code": code}
        assert _value(samples, "grpc_server_handled_total", labels) >= 1, (method, code)
    stream = {**rpc, "grpc_type": "server_stream", "grpc_method": "WatchTable"}
    assert _value(samples, "grpc_server_msg_sent_total", stream) >= 3
    assert _value(samples, "belote_store_up", {}) == 1
    assert _value(samples, "belote_events_appended_total", {"type": "seat_joined"}) >= 4


def _value(samples, name: str, labels: dict) -> float:
    found = [s.value for s in samples if s.name == name and labels.items() <= s.labels.items()]
    assert found, f"no {name} {labels}"
    return sum(found)


def _scrape(url: str) -> list:
    with urllib.request.urlopen(url, timeout=5) as reply:
        text = reply.read().decode()
    return [s for family in text_string_to_metric_families(text) for s in family.samples]


def test_metrics_port_serves_only_metrics_and_no_created_series(server):
    # Only /metrics: a probe or a person pointed at / or /healthz must not take the metrics page
    # for a health answer.
    base = server.metrics_url.removesuffix("/metrics")
    for path in ("/", "/healthz", "/metrics/", "/favicon.ico"):
        with pytest.raises(urllib.error.HTTPError) as caught:
            urllib.request.urlopen(base + path, timeout=5)
        assert caught.value.code == 404, path
    with urllib.request.urlopen(server.metrics_url, timeout=5) as reply:
        assert reply.status == 200
        text = reply.read().decode()
    names = {s.name for family in text_string_to_metric_families(text) for s in family.samples}
    assert {"grpc_server_started_total", "belote_store_up"} <= names
    # prometheus-client's `_created` twin of every counter and histogram is switched off.
    assert not [name for name in names if name.endswith("_created")]
    assert not re.search(r"^\w+_created\b", text, re.MULTILINE)
