"""The api layer alone, in process, over a stand-in app: AppError -> status code and rich details,
bugs -> a bare INTERNAL, bearer tokens read from metadata. The real app is tested over a real
server process in the other files of this folder."""

from __future__ import annotations

import grpc
import pytest
from belote.api.errors import STATUS_OF_REASON
from belote.api.server import start
from belote.app import errors as app_errors
from belote.app.errors import AppError
from belote.v1 import cards_pb2, events_pb2, table_service_pb2_grpc
from belote.v1 import table_service_pb2 as pb
from google.rpc import error_details_pb2
from grpc_health.v1 import health_pb2, health_pb2_grpc
from grpc_status import rpc_status


class StandInApp:
    """Raises whatever `error` holds; remembers the tokens and the callers it was given."""

    def __init__(self):
        self.error: BaseException | None = None
        self.tokens: list[str | None] = []
        self.peers: list[str | None] = []
        self.callers: list = []
        self.closed = False
        self.requests = self          # the callers a request's key is derived for

    def key(self, rpc, req, token, caller):
        self.callers.append(caller)
        return f"{rpc}:{req.request_id}"

    async def resume(self):
        pass

    async def ready(self):
        return True

    def shutdown(self):
        pass

    async def close(self):
        self.closed = True

    async def act(self, ask):
        self.tokens.append(ask.token)
        if self.error:
            raise self.error
        return pb.ActResponse(version=7)

    async def get_table(self, ask):
        self.peers.append(ask.caller.peer)
        return pb.Table(table_id=ask.table_id)

    async def watch_table(self, ask):
        self.tokens.append(ask.token)
        self.peers.append(ask.caller.peer)
        yield events_pb2.TableEvent(sequence=1, table_id=ask.table_id)
        if self.error:
            raise self.error


@pytest.fixture
async def served():
    app = StandInApp()
    running = await start("127.0.0.1:0", app)
    async with grpc.aio.insecure_channel(running.address) as channel:
        yield app, table_service_pb2_grpc.TableServiceStub(channel), channel
    await running.stop(grace=0)
    assert app.closed


def details_of(err: grpc.aio.AioRpcError):
    status = rpc_status.from_call(err)  # the sync helper reads an AioRpcError's fields as well
    info, bad = error_details_pb2.ErrorInfo(), error_details_pb2.BadRequest()
    found_bad = False
    for any_ in status.details:
        if any_.Is(info.DESCRIPTOR):
            any_.Unpack(info)
        elif any_.Is(bad.DESCRIPTOR):
            any_.Unpack(bad)
            found_bad = True
    return info, (bad if found_bad else None)


ACT = pb.ActRequest(table_id="t1", request_id="3f2b8c1e-9d4a-4e7b-a1c5-0b6d2e8f9a73",
                    action=cards_pb2.Action(bid=cards_pb2.Bid(passed=True)))
BEARER = (("authorization", "Bearer tok-123"),)


# One reason of each status code, and the code it must come with.
ONE_REASON_PER_CODE = {
    "INVALID_FIELD": grpc.StatusCode.INVALID_ARGUMENT, "TABLE_NOT_FOUND": grpc.StatusCode.NOT_FOUND,
    "UNAUTHENTICATED": grpc.StatusCode.UNAUTHENTICATED,
    "WRONG_PASSWORD": grpc.StatusCode.PERMISSION_DENIED,
    "CHAT_TOO_FAST": grpc.StatusCode.RESOURCE_EXHAUSTED, "VERSION_CONFLICT": grpc.StatusCode.ABORTED,
    "SEQUENCE_AHEAD": grpc.StatusCode.OUT_OF_RANGE, "REQUEST_ID_REUSED": grpc.StatusCode.ALREADY_EXISTS,
    "STORE_UNAVAILABLE": grpc.StatusCode.UNAVAILABLE, "SEAT_TAKEN": grpc.StatusCode.FAILED_PRECONDITION,
    "MUST_FOLLOW_SUIT": grpc.StatusCode.FAILED_PRECONDITION, "INTERNAL": grpc.StatusCode.INTERNAL,
}


def test_each_status_code_has_a_reason_here():
    assert set(ONE_REASON_PER_CODE.values()) == set(STATUS_OF_REASON.values())


@pytest.mark.parametrize("reason", sorted(ONE_REASON_PER_CODE))
async def test_a_reason_comes_with_its_status_code_and_error_info(served, reason):
    app, stub, _ = served
    code = ONE_REASON_PER_CODE[reason]
    field = "action.card" if code == grpc.StatusCode.INVALID_ARGUMENT else None
    app.error = AppError(reason, "you must follow hearts", field)
    with pytest.raises(grpc.aio.AioRpcError) as caught:
        await stub.Act(ACT, metadata=BEARER)
    err = caught.value
    assert err.code() == code
    assert err.details() == "you must follow hearts"
    info, bad = details_of(err)
    assert (info.reason, info.domain) == (reason, "belote.v1")
    if code == grpc.StatusCode.INVALID_ARGUMENT:
        assert [v.field for v in bad.field_violations] == ["action.card"]
    else:
        assert bad is None


async def test_a_bug_is_a_bare_internal_without_its_text(served):
    app, stub, _ = served
    app.error = RuntimeError("secret-ish detail at line 42")
    with pytest.raises(grpc.aio.AioRpcError) as caught:
        await stub.Act(ACT)
    err = caught.value
    assert err.code() == grpc.StatusCode.INTERNAL
    assert err.details() == "internal error"
    assert "secret" not in repr(err.trailing_metadata()) and "Traceback" not in err.details()
    assert details_of(err)[0].reason == "INTERNAL"


async def test_an_undeclared_reason_is_internal(served):
    app, stub, _ = served
    app.error = AppError("TEAPOT", "short and stout")
    with pytest.raises(grpc.aio.AioRpcError) as caught:
        await stub.Act(ACT)
    assert caught.value.code() == grpc.StatusCode.INTERNAL


async def test_bearer_token_reaches_the_app_and_its_absence_is_none(served):
    app, stub, _ = served
    assert (await stub.Act(ACT, metadata=BEARER)).version == 7
    await stub.Act(ACT, metadata=(("authorization", "bearer   tok-456 "),))
    await stub.Act(ACT)
    assert app.tokens == ["tok-123", "tok-456", None]
    # The caller its request ids are scoped to: token, player token, peer host.
    await stub.Act(ACT, metadata=(("x-player-token", "jwt-1"),))
    assert [(c.token, c.player_token, c.peer) for c in app.callers] == [
        ("tok-123", None, "127.0.0.1"), ("tok-456", None, "127.0.0.1"),
        (None, None, "127.0.0.1"), (None, "jwt-1", "127.0.0.1")]


async def test_the_caller_s_host_reaches_the_app_as_its_peer(served):
    app, stub, _ = served
    await stub.GetTable(pb.GetTableRequest(table_id="t1"))
    async for _ in stub.WatchTable(pb.WatchTableRequest(table_id="t1")):
        pass
    assert app.peers == ["127.0.0.1", "127.0.0.1"]      # no port: a reconnect is the same caller


@pytest.mark.parametrize("value", ["tok-123", "Basic abc", "Bearer", "Bearer  "])
async def test_malformed_authorization_is_unauthenticated(served, value):
    app, stub, _ = served
    with pytest.raises(grpc.aio.AioRpcError) as caught:
        await stub.Act(ACT, metadata=(("authorization", value),))
    assert caught.value.code() == grpc.StatusCode.UNAUTHENTICATED
    assert app.tokens == []  # refused before the app is asked


async def test_a_stream_error_after_events_keeps_the_events_and_maps_the_code(served):
    app, stub, _ = served
    app.error = app_errors.AppError("READS_TOO_SLOWLY", "reconnect")
    call = stub.WatchTable(pb.WatchTableRequest(table_id="t9"), metadata=BEARER)
    got = []
    with pytest.raises(grpc.aio.AioRpcError) as caught:
        async for event in call:
            got.append(event.sequence)
    assert got == [1]
    assert caught.value.code() == grpc.StatusCode.RESOURCE_EXHAUSTED
    assert details_of(caught.value)[0].reason == "READS_TOO_SLOWLY"
    assert app.tokens == ["tok-123"]


async def test_health_serves_both_names(served):
    _, _, channel = served
    health = health_pb2_grpc.HealthStub(channel)
    for service in ("", "belote.v1.TableService"):
        reply = await health.Check(health_pb2.HealthCheckRequest(service=service))
        assert reply.status == health_pb2.HealthCheckResponse.SERVING
