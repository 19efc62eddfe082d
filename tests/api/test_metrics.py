"""Metrics scraped from a real server's /metrics after known RPCs: exact deltas and counts."""

from __future__ import annotations

import asyncio
import os
import shutil
import subprocess
import urllib.request

import grpc
import pytest
from belote.v1 import cards_pb2, events_pb2, table_service_pb2_grpc
from belote.v1 import table_service_pb2 as pb
from players import bearer, new_table, rid, rpc_error, watch
from prometheus_client.parser import text_string_to_metric_families

pytestmark = pytest.mark.timeout(60)
PASS = cards_pb2.Action(bid=cards_pb2.Bid(passed=True))
SERVICE = "belote.v1.TableService"


def scrape(url: str) -> tuple[str, dict]:
    with urllib.request.urlopen(url, timeout=5) as reply:
        text = reply.read().decode()
    values: dict = {}
    for family in text_string_to_metric_families(text):
        for s in family.samples:
            values[(s.name, tuple(sorted(s.labels.items())))] = s.value
    return text, values


def value(values: dict, name: str, **labels) -> float:
    return values.get((name, tuple(sorted(labels.items()))), 0.0)


def rpc(method: str, kind: str = "unary", **more) -> dict:
    return {"grpc_type": kind, "grpc_service": SERVICE, "grpc_method": method, **more}


async def test_rpc_and_game_metrics_move_by_exactly_what_was_done(server_factory):
    proc = server_factory()
    async with grpc.aio.insecure_channel(proc.address) as channel:
        stub = table_service_pb2_grpc.TableServiceStub(channel)
        _, before = await asyncio.to_thread(scrape, proc.metrics_url)

        table = await new_table(stub, "classic", {"target": "1000"})          # 1 create, 4 joins
        view = await table.view()                                              # 1 GetTable OK
        eldest = view.game.to_act
        await table.act(eldest, PASS)                                          # 1 Act OK
        await rpc_error(table.act(eldest, PASS))                               # not its turn now
        await rpc_error(stub.GetTable(pb.GetTableRequest(table_id="nope")))    # 1 GetTable NOT_FOUND
        events = await watch(stub, table.table_id, count=8)                    # exactly 8 sent, cancelled
        version = await table.version()                                        # 1 GetTable OK
        late = stub.WatchTable(pb.WatchTableRequest(table_id=table.table_id, from_sequence=version + 1),
                               timeout=0.3)
        with pytest.raises(grpc.aio.AioRpcError) as timed_out:
            async for _ in late:
                pass
        assert timed_out.value.code() == grpc.StatusCode.DEADLINE_EXCEEDED
        await asyncio.sleep(0.3)   # let the server finish counting the cancelled streams

        text, after = await asyncio.to_thread(scrape, proc.metrics_url)

    def delta(name, **labels):
        return value(after, name, **labels) - value(before, name, **labels)

    assert len(events) == 8
    handled = "grpc_server_handled_total"
    assert delta(handled, **rpc("CreateTable", grpc_code="OK")) == 1
    assert delta(handled, **rpc("JoinTable", grpc_code="OK")) == 4
    assert delta(handled, **rpc("GetTable", grpc_code="OK")) == 2
    assert delta(handled, **rpc("GetTable", grpc_code="NOT_FOUND")) == 1
    assert delta(handled, **rpc("Act", grpc_code="OK")) == 1
    assert delta(handled, **rpc("Act", grpc_code="FAILED_PRECONDITION")) == 1
    assert delta(handled, **rpc("WatchTable", "server_stream", grpc_code="CANCELLED")) == 1
    assert delta(handled, **rpc("WatchTable", "server_stream", grpc_code="DEADLINE_EXCEEDED")) == 1
    assert delta("grpc_server_started_total", **rpc("Act")) == 2
    assert delta("grpc_server_handling_seconds_count", **rpc("Act")) == 2
    assert delta("grpc_server_handling_seconds_count", **rpc("JoinTable")) == 4
    assert delta("grpc_server_msg_sent_total", **rpc("WatchTable", "server_stream")) == 8
    # The game: 4 seats joined, one game started and dealt, one bid; nothing else.
    appended = "belote_events_appended_total"
    assert delta(appended, type="table_created") == 1
    assert delta(appended, type="seat_joined") == 4
    assert delta(appended, type="game_started") == 1
    assert delta(appended, type="deal_started") == 1
    assert delta(appended, type="bid_made") == 1
    assert value(after, "belote_tables_active") == 1
    assert value(after, "belote_watch_streams") == 0
    assert value(after, "belote_store_up") == 1
    # One append per command that wrote: create, 4 joins, 1 act.
    assert delta("belote_store_append_seconds_count") == 6
    assert delta("belote_append_conflicts_total") == 0
    promtool_accepts(text)


async def test_bot_decisions_are_timed_once_per_bot_move(server_factory):
    proc = server_factory()
    async with grpc.aio.insecure_channel(proc.address) as channel:
        stub = table_service_pb2_grpc.TableServiceStub(channel)
        table = await new_table(stub, "classic", {"target": "1000"}, humans=(0,))

        async def human_turn():
            while not (await table.legal(0)).your_turn:
                await asyncio.sleep(0.02)
        await asyncio.wait_for(human_turn(), 20)
        log = await watch(stub, table.table_id, count=await table.version())
        _, values = await asyncio.to_thread(scrape, proc.metrics_url)
    bot_moves = sum(1 for e in log for kind in ("bid_made", "card_played", "announcement_declared")
                    if e.HasField(kind) and getattr(e, kind).HasField("bot"))
    assert value(values, "belote_bot_decision_seconds_count", level="easy") == bot_moves
    assert all(getattr(e, k).bot.level == events_pb2.BOT_LEVEL_EASY for e in log
               for k in ("bid_made", "card_played") if e.HasField(k) and getattr(e, k).HasField("bot"))


def promtool_accepts(text: str) -> None:
    promtool = shutil.which("promtool")
    if promtool is None:
        if os.environ.get("CI"):
            pytest.fail("promtool is missing (make tools installs Debian's prometheus)")
        pytest.skip("promtool not installed: run make tools")
    done = subprocess.run([promtool, "check", "metrics"], input=text, capture_output=True, text=True,
                          timeout=60, check=False)
    assert done.returncode == 0, done.stdout + done.stderr


async def test_the_seat_of_a_request_is_in_its_log_line_and_no_secret_is(server_factory, tmp_path):
    key_file = tmp_path / "server.key"
    key_file.write_text("5e" * 32)
    proc = server_factory(extra_args=("--key-file", str(key_file)))
    async with grpc.aio.insecure_channel(proc.address) as channel:
        stub = table_service_pb2_grpc.TableServiceStub(channel)
        table = await new_table(stub, "classic", {"target": "1000"})
        seat = (await table.view()).game.to_act
        request_id = rid()
        await table.act(seat, PASS, request_id=request_id)
        await stub.GetTable(pb.GetTableRequest(table_id=table.table_id), metadata=bearer(table.tokens[1]))
        await stub.ListTables(pb.ListTablesRequest())
    assert proc.terminate() == 0
    import hashlib
    import hmac
    import json

    from belote.app.server_key import derive
    lines = [json.loads(line) for line in proc.output().splitlines() if line.startswith("{")]
    acts = [line for line in lines if line.get("event") == "rpc" and line.get("method") == "Act"]
    assert len(acts) == 1
    act = acts[0]
    assert (act["code"], act["table_id"], act["seat"]) == ("OK", table.table_id, seat)
    # A hash keyed by the server's key: not the id's plain sha256, which anyone can match.
    log_key = derive(bytes.fromhex("5e" * 32), "log-hash")
    assert act["request_id"] == hmac.new(log_key, request_id.encode(), "sha256").hexdigest()[:16]
    assert act["request_id"] != hashlib.sha256(request_id.encode()).hexdigest()[:16]
    assert act["duration_ms"] >= 0
    assert request_id not in proc.output()
    # Each RPC's line has its own context, nothing of another's.
    get = next(line for line in lines if line.get("event") == "rpc" and line.get("method") == "GetTable")
    assert get["table_id"] == table.table_id and get.get("seat") != seat and get.get("request_id") is None
    listed = next(line for line in lines if line.get("event") == "rpc" and line.get("method") == "ListTables")
    assert {"seat", "table_id", "request_id"}.isdisjoint({k for k, v in listed.items() if v is not None})
    started = [line for line in lines if line.get("event") == "game started"]
    assert started and started[0]["table_id"] == table.table_id
