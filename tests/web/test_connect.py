"""The web port speaks the same API as the gRPC port: every RPC over Connect (JSON, binary) and
gRPC-Web gives the answer, status code, message and ErrorInfo reason the gRPC port gives, and
WatchTable streams over HTTP/1.1 with the same redaction per viewer."""

from __future__ import annotations

import base64
import json
import random
import struct
import urllib.request

import grpc
import pytest
from belote.v1 import cards_pb2, events_pb2
from belote.v1 import table_service_pb2 as pb
from google.protobuf import json_format, message_factory
from google.rpc import error_details_pb2, status_pb2
from grpc_status import rpc_status
from players import bearer, check_stream, new_table, rid, watch
from web_helpers import PATH, SERVICE, ConnectFailure, envelopes

UNARY = [m.name for m in SERVICE.methods if not m.server_streaming]
# The Connect protocol's HTTP status for each code (connectrpc.com/docs/protocol).
HTTP_STATUS = {"invalid_argument": 400, "not_found": 404, "failed_precondition": 400,
               "permission_denied": 403, "unauthenticated": 401, "aborted": 409,
               "resource_exhausted": 429, "out_of_range": 400, "unavailable": 503,
               "internal": 500}


def grpc_reason(err: grpc.aio.AioRpcError) -> str | None:
    info = error_details_pb2.ErrorInfo()
    for detail in rpc_status.from_call(err).details:
        if detail.Unpack(info):
            return info.reason
    return None


def connect_code(code: grpc.StatusCode) -> str:
    return "canceled" if code is grpc.StatusCode.CANCELLED else code.name.lower()


async def both(stub, web, rpc: str, request, token: str | None = None):
    """Call `rpc` on both ports; assert the same outcome; return the gRPC answer (or error)."""
    try:
        expected = await getattr(stub, rpc)(request, metadata=bearer(token) if token else None)
    except grpc.aio.AioRpcError as err:
        with pytest.raises(ConnectFailure) as failed:
            await web.call(rpc, request, token)
        got = failed.value
        assert (got.code, got.message, got.reason) == \
            (connect_code(err.code()), err.details(), grpc_reason(err)), rpc
        assert got.http_status == HTTP_STATUS[got.code], rpc
        return err
    assert await web.call(rpc, request, token) == expected, rpc
    return expected


def same_operation(retried, first) -> bool:
    """A retry's answer is the first one's, but for the table view it carries: that one shows
    the table as it is now (bots may have moved since)."""
    a, b = type(first)(), type(first)()
    a.CopyFrom(retried)
    b.CopyFrom(first)
    if "table" in type(first).DESCRIPTOR.fields_by_name:
        assert a.table.table_id == b.table.table_id
        a.ClearField("table")
        b.ClearField("table")
    return a == b


async def test_every_unary_rpc_refuses_an_empty_request_alike(stub, web):
    """Each unary RPC of the proto (a new one is covered by itself), with an empty request and
    without a token: the same answer or the same error on both ports."""
    outcomes = {}
    for rpc in UNARY:
        request = message_factory.GetMessageClass(SERVICE.methods_by_name[rpc].input_type)()
        outcome = await both(stub, web, rpc, request)
        outcomes[rpc] = outcome.code().name if isinstance(outcome, grpc.aio.AioRpcError) else "OK"
    assert outcomes["CreateTable"] == "INVALID_ARGUMENT"  # request_id is required
    assert outcomes["GetTable"] == "INVALID_ARGUMENT"  # table_id is required
    assert outcomes["Act"] in ("INVALID_ARGUMENT", "UNAUTHENTICATED")


async def test_a_game_played_over_connect_is_the_one_grpc_sees(stub, web):
    """Commands sent over Connect, then retried over gRPC with the same request_id, get the
    very same answer (one operation, one app); reads and refusals agree call for call."""
    create = pb.CreateTableRequest(preset="classic", options={"target": "200"}, request_id=rid())
    created = await web.call("CreateTable", create)
    assert same_operation(await stub.CreateTable(create), created)
    table_id, host = created.table_id, created.host_token

    listed = await both(stub, web, "ListTables", pb.ListTablesRequest(page_size=50))
    assert table_id in [t.table_id for t in listed.tables]

    join = pb.JoinTableRequest(table_id=table_id, seat=0, display_name="Ada", request_id=rid())
    joined = await web.call("JoinTable", join)
    assert same_operation(await stub.JoinTable(join), joined)
    token = joined.seat_token
    for seat in (1, 2, 3):
        add = pb.AddBotRequest(table_id=table_id, seat=seat, level=events_pb2.BOT_LEVEL_EASY, request_id=rid())
        added = await web.call("AddBot", add, host)
        assert same_operation(await stub.AddBot(add, metadata=bearer(host)), added)

    # A stranger's bot, a wrong seat token: refused alike.
    await both(stub, web, "AddBot", pb.AddBotRequest(table_id=table_id, seat=1, request_id=rid()),
               token)
    await both(stub, web, "GetLegalActions", pb.GetLegalActionsRequest(table_id=table_id),
               "not-a-token")

    rng, refusals = random.Random(20), 0
    for _ in range(12):  # a dozen of seat 0's moves: a bid or two, then cards
        legal = await stub.GetLegalActions(pb.GetLegalActionsRequest(table_id=table_id),
                                           metadata=bearer(token))
        if not legal.your_turn:
            # Bots move by themselves: nothing below is compared while the table changes.
            legal = await _wait_for_turn(stub, table_id, token)
            if legal is None:
                break
        await both(stub, web, "GetLegalActions", pb.GetLegalActionsRequest(table_id=table_id), token)
        mine = await both(stub, web, "GetTable", pb.GetTableRequest(table_id=table_id), token)
        await both(stub, web, "GetTable", pb.GetTableRequest(table_id=table_id))  # a spectator
        refused = _not_legal(legal, mine.game.your_hand)
        if refused is not None:  # the rule's reason and message, alike on both ports
            err = await both(stub, web, "Act", pb.ActRequest(table_id=table_id, action=refused,
                                                             request_id=rid()), token)
            assert err.code() == grpc.StatusCode.FAILED_PRECONDITION and grpc_reason(err)
            refusals += 1
        act = pb.ActRequest(table_id=table_id, action=rng.choice(legal.actions), request_id=rid(),
                            expected_version=legal.version)
        acted = await web.call("Act", act, token)
        assert same_operation(await stub.Act(act, metadata=bearer(token)), acted)

    assert refusals, "no card was refused in a dozen moves"
    chat = pb.PostChatRequest(table_id=table_id, text="bien joué", request_id=rid())
    said = await web.call("PostChat", chat, token)
    assert (said.event.chat_posted.seat, said.event.chat_posted.text) == (0, "bien joué")
    assert await stub.PostChat(chat, metadata=bearer(token)) == said
    await both(stub, web, "VoteRematch", pb.VoteRematchRequest(table_id=table_id, request_id=rid()),
               token)  # the game is not over: refused alike
    leave = pb.LeaveTableRequest(table_id=table_id, request_id=rid())
    left = await web.call("LeaveTable", leave, token)
    assert left.table.table_id == table_id
    # The seat is left (a bot plays it now): leaving again is refused alike.
    err = await both(stub, web, "LeaveTable", pb.LeaveTableRequest(table_id=table_id,
                                                                   request_id=rid()), token)
    assert err.code() == grpc.StatusCode.FAILED_PRECONDITION


async def _wait_for_turn(stub, table_id: str, token: str, tries: int = 500):
    import asyncio

    for _ in range(tries):
        legal = await stub.GetLegalActions(pb.GetLegalActionsRequest(table_id=table_id),
                                           metadata=bearer(token))
        if legal.your_turn:
            return legal
        await asyncio.sleep(0.02)
    return None


def _not_legal(legal: pb.GetLegalActionsResponse, hand) -> cards_pb2.Action | None:
    """A card of the hand that the rules refuse now, if there is one."""
    allowed = {(a.card.suit, a.card.rank) for a in legal.actions if a.HasField("card")}
    refused = [c for c in hand if (c.suit, c.rank) not in allowed]
    return cards_pb2.Action(card=refused[0]) if allowed and refused else None


async def test_binary_connect_and_grpc_web_answer_alike(stub, web):
    created = await stub.CreateTable(pb.CreateTableRequest(preset="belgian", request_id=rid()))
    get = pb.GetTableRequest(table_id=created.table_id)
    expected = await stub.GetTable(get)
    assert await web.call("GetTable", get, binary=True) == expected

    # gRPC-Web, binary: one data frame, then a trailers frame (flag 0x80).
    body = get.SerializeToString()
    status, headers, raw = await web.raw("POST", PATH + "GetTable",
                                         struct.pack(">BI", 0, len(body)) + body,
                                         {"Content-Type": "application/grpc-web+proto",
                                          "X-Grpc-Web": "1"})
    assert status == 200 and headers["content-type"].startswith("application/grpc-web")
    frames = envelopes(raw)
    assert [flags for flags, _ in frames] == [0, 0x80]
    assert pb.Table.FromString(frames[0][1]) == expected
    assert b"grpc-status: 0" in frames[1][1].lower() or b"grpc-status:0" in frames[1][1].lower()

    # A gRPC-Web error carries the gRPC status, message and rich details.
    missing = pb.GetTableRequest(table_id="no-such-table").SerializeToString()
    status, headers, raw = await web.raw("POST", PATH + "GetTable",
                                         struct.pack(">BI", 0, len(missing)) + missing,
                                         {"Content-Type": "application/grpc-web+proto"})
    trailers = headers if "grpc-status" in headers else _trailers(envelopes(raw)[-1][1])
    assert trailers["grpc-status"] == str(grpc.StatusCode.NOT_FOUND.value[0])
    details = status_pb2.Status.FromString(base64.b64decode(
        trailers["grpc-status-details-bin"] + "=" * (-len(trailers["grpc-status-details-bin"]) % 4)))
    info = error_details_pb2.ErrorInfo()
    assert details.details[0].Unpack(info) and info.reason == "TABLE_NOT_FOUND"


def _trailers(block: bytes) -> dict[str, str]:
    lines = block.decode().strip().split("\r\n")
    return {k.strip().lower(): v.strip() for k, _, v in (line.partition(":") for line in lines)}


async def test_watch_table_streams_over_http11_with_each_viewers_redaction(stub, web):
    table = await new_table(stub, "classic", {"target": "200"}, humans=(0, 2))
    view = await table.play(random.Random(7), until=lambda t: t.version >= 40)
    count = view.version
    request = pb.WatchTableRequest(table_id=table.table_id, from_sequence=1)
    for seat in (None, 0, 2):
        token = table.tokens[seat] if seat is not None else None
        events, messages = await web.watch(request, token, count=count)
        assert events == await watch(stub, table.table_id, token, count=count), seat
        check_stream(events, seat)
        hands = [e.deal_started.hand for e in events if e.HasField("deal_started")]
        if seat is None:
            assert all(len(h) == 0 for h in hands)
            assert not any(b'"hand"' in m for m in messages), "a spectator got a hand"
        else:
            assert hands and all(len(h) == 5 for h in hands)

    # Resuming from a sequence: the stream starts there.
    later, _ = await web.watch(pb.WatchTableRequest(table_id=table.table_id, from_sequence=10),
                               count=3)
    assert [e.sequence for e in later] == [10, 11, 12]


async def test_watch_table_error_ends_the_stream_with_the_grpc_status(web):
    with pytest.raises(ConnectFailure) as failed:
        await web.watch(pb.WatchTableRequest(table_id="no-such-table"), count=1)
    assert (failed.value.code, failed.value.reason) == ("not_found", "TABLE_NOT_FOUND")


async def test_cors_answers_listed_origins_only(web):
    path = PATH + "CreateTable"
    preflight = {"Origin": "https://game.example", "Access-Control-Request-Method": "POST",
                 "Access-Control-Request-Headers": "content-type, authorization"}
    status, headers, _ = await web.raw("OPTIONS", path, headers=preflight)
    assert status == 204
    assert headers["access-control-allow-origin"] == "https://game.example"
    assert "POST" in headers["access-control-allow-methods"]
    allowed = {h.strip() for h in headers["access-control-allow-headers"].split(",")}
    assert {"content-type", "authorization", "x-player-token", "connect-protocol-version"} <= allowed

    status, headers, _ = await web.raw("OPTIONS", path, headers={**preflight,
                                                                 "Origin": "https://evil.example"})
    assert status == 403 and "access-control-allow-origin" not in headers

    body = json.dumps({"tableId": "nope"}).encode()
    for origin, allowed_origin in (("http://localhost:5173", True), ("https://evil.example", False)):
        status, headers, _ = await web.raw("POST", PATH + "GetTable", body,
                                           {"Content-Type": "application/json", "Origin": origin})
        assert status == 404
        assert ("access-control-allow-origin" in headers) is allowed_origin
        if allowed_origin:
            assert headers["access-control-allow-origin"] == origin
            assert "grpc-status-details-bin" in headers["access-control-expose-headers"]


async def test_web_calls_are_measured_and_logged_by_protocol(server, web):
    with pytest.raises(ConnectFailure):
        await web.call("GetTable", pb.GetTableRequest(table_id="measured-missing"))
    page = urllib.request.urlopen(server.metrics_url, timeout=10).read().decode()
    line = ('belote_web_rpc_handled_total{grpc_code="NOT_FOUND",grpc_method="GetTable",'
            'grpc_type="unary",protocol="connect"}')
    assert any(row.startswith(line) and float(row.split()[-1]) >= 1 for row in page.splitlines())
    logged = [json.loads(row) for row in server.output().splitlines()
              if row.startswith("{") and '"rpc"' in row and '"protocol"' in row]
    assert any(r["method"] == "GetTable" and r["code"] == "NOT_FOUND" and r["protocol"] == "connect"
               and r.get("table_id") == "measured-missing" for r in logged)


async def test_the_page_and_only_its_files_are_served(web):
    status, headers, body = await web.raw("GET", "/")
    assert status == 200 and headers["content-type"].startswith("text/html")
    assert "default-src 'self'" in headers["content-security-policy"]
    assert b"Belote" in body
    for path in ("/../pyproject.toml", "/%2e%2e/pyproject.toml", "/nope.js"):
        status, _, _ = await web.raw("GET", path)
        assert status == 404, path
    status, _, _ = await web.raw("POST", "/", b"{}")
    assert status == 405


def test_the_json_mapping_is_protobufs(web):
    """What a curl user sends: the proto's JSON mapping, field names in either spelling."""
    assert json_format.Parse('{"table_id": "x", "from_sequence": "3"}', pb.WatchTableRequest()) == \
        pb.WatchTableRequest(table_id="x", from_sequence=3)
