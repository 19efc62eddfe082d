"""Streams hold a bounded backlog: WatchTable and ExportLog read the log a page at a time, wait
for the client to read, and end a stream whose client stopped reading with RESOURCE_EXHAUSTED
(READS_TOO_SLOWLY), giving its spectator place back at once."""

from __future__ import annotations

import asyncio
import random

import grpc
import pytest
from prometheus_client import REGISTRY
from belote.api import backpressure
from belote.api.server import start
from belote.app import repository
from belote.app.tables import TableApp
from belote.store import SqliteStore
from belote.v1 import table_service_pb2 as pb
from belote.v1 import table_service_pb2_grpc as tgrpc
from players import REVIEWER_TOKEN, bearer, check_stream, new_table
from test_errors import reason_of

pytestmark = pytest.mark.timeout(90)

STALL_S = 0.5
# A client whose HTTP/2 window stays at 1 KB (no BDP probing): what it does not read, the server
# cannot send, so its writes wait.
SMALL_WINDOW = [("grpc.http2.bdp_probe", 0), ("grpc.http2.lookahead_bytes", 1024)]


class ReadLog:
    """The store reads that returned events, as (after_sequence, limit, how many)."""

    def __init__(self, store):
        self.calls: list[tuple[int, int | None, int]] = []
        real = store.events.read

        async def read(table_id, after_sequence=0, limit=None):
            events = await real(table_id, after_sequence, limit)
            if events:
                self.calls.append((after_sequence, limit, len(events)))
            return events

        store.events.read = read

    def events_read(self) -> int:
        return sum(n for _, _, n in self.calls)

    def check_pages(self, page: int) -> None:
        assert self.calls, "nothing was read"
        for after, limit, n in self.calls:
            assert limit is not None and n <= limit <= page, (after, limit, n)


@pytest.fixture
async def served(tmp_path, monkeypatch):
    """(app, stub, address) of an in-process server whose streams give up after STALL_S."""
    monkeypatch.setattr(backpressure, "STREAM_STALL_S", STALL_S)
    monkeypatch.setattr(backpressure, "CHECK_EVERY_S", 0.1)
    monkeypatch.setattr(backpressure, "STATUS_WAIT_S", 0.2)
    store = SqliteStore(str(tmp_path / "belote.db"))
    app = TableApp(store, reviewer_token=REVIEWER_TOKEN)
    running = await start("127.0.0.1:0", app)
    try:
        async with grpc.aio.insecure_channel(running.address) as channel:
            yield app, tgrpc.TableServiceStub(channel), running.address
    finally:
        await running.stop(0.5)


async def bot_game(stub, target: int = 1000):
    """A finished game of four bots (683 events at target 1000 for this seed's bots, ~700)."""
    table = await new_table(stub, "classic", {"target": str(target)}, humans=())
    await table.play(random.Random(0))
    return table, await table.version()


def spectators_are(app, table_id: str, n: int):
    async def check() -> bool:
        return await app.store.leases.count(f"spectators:{table_id}", app.clock()) == n
    return check


async def until(check, timeout: float = 10.0) -> None:
    async def poll():
        while not await check():
            await asyncio.sleep(0.05)
    await asyncio.wait_for(poll(), timeout)


async def read_to_the_end(call) -> tuple[list, grpc.aio.AioRpcError | None]:
    got = []
    try:
        async for message in call:
            got.append(message)
    except grpc.aio.AioRpcError as e:
        return got, e
    return got, None


def check_cut_short(got: list, error: grpc.aio.AioRpcError | None, reads: ReadLog,
                    version: int) -> None:
    """The client got the log's first messages, in order, then READS_TOO_SLOWLY; the server
    read the log one page at a time, and not all of it."""
    assert 0 < len(got) < version
    assert [e.sequence for e in got] == list(range(1, len(got) + 1))
    reads.check_pages(repository.STREAM_PAGE)
    assert reads.events_read() < version
    assert error is not None, "the stream ended without an error"
    assert error.code() == grpc.StatusCode.RESOURCE_EXHAUSTED
    assert reason_of(error) == "READS_TOO_SLOWLY"
    assert error.details() == (
        f"the client read too slowly: a message waited {STALL_S:g} s for it, so the server "
        "ended the stream; reconnect (WatchTable: with from_sequence = the last sequence seen + 1)")


def handled(method: str, code: str) -> float:
    labels = {"grpc_type": "server_stream", "grpc_service": "belote.v1.TableService",
              "grpc_method": method, "grpc_code": code}
    return REGISTRY.get_sample_value("grpc_server_handled_total", labels) or 0.0


async def test_a_watch_that_is_not_read_ends_with_reads_too_slowly_and_resumes(served):
    app, stub, address = served
    table, version = await bot_game(stub)
    reads = ReadLog(app.store)
    async with grpc.aio.insecure_channel(address, options=SMALL_WINDOW) as ch:
        slow = tgrpc.TableServiceStub(ch)
        call = slow.WatchTable(pb.WatchTableRequest(table_id=table.table_id))
        await until(spectators_are(app, table.table_id, 1))
        # Not read at all: the server gives up on it, and its spectator place, by itself.
        await until(spectators_are(app, table.table_id, 0))
        # The client has what was written before, in order, then the status.
        got, error = await read_to_the_end(call)
    check_cut_short(got, error, reads, version)
    # Resuming from the next sequence gives exactly the rest.
    rest = stub.WatchTable(pb.WatchTableRequest(table_id=table.table_id, from_sequence=len(got) + 1))
    after = [await rest.read() for _ in range(version - len(got))]
    rest.cancel()
    assert [e.sequence for e in after] == list(range(len(got) + 1, version + 1))
    check_stream(got + after, None)


async def test_an_export_that_is_not_read_ends_with_reads_too_slowly(served):
    app, stub, address = served
    table, version = await bot_game(stub)
    reads = ReadLog(app.store)
    ended = handled("ExportLog", "RESOURCE_EXHAUSTED")
    async with grpc.aio.insecure_channel(address, options=SMALL_WINDOW) as ch:
        slow = tgrpc.TableServiceStub(ch)
        call = slow.ExportLog(pb.ExportLogRequest(table_id=table.table_id),
                              metadata=bearer(REVIEWER_TOKEN))

        async def given_up() -> bool:
            return handled("ExportLog", "RESOURCE_EXHAUSTED") == ended + 1
        await until(given_up)    # by the server, while the client has read nothing
        got, error = await read_to_the_end(call)
    check_cut_short(got, error, reads, version)


async def test_clients_gone_while_their_streams_wait_are_cancelled_calls_not_errors(served,
                                                                                    monkeypatch):
    app, stub, address = served
    monkeypatch.setattr(backpressure, "STREAM_STALL_S", 60.0)
    table, _ = await bot_game(stub)
    before = {(m, c): handled(m, c) for m in ("WatchTable", "ExportLog")
              for c in ("CANCELLED", "INTERNAL", "UNKNOWN")}
    channels = [grpc.aio.insecure_channel(address, options=SMALL_WINDOW) for _ in range(20)]
    calls = [tgrpc.TableServiceStub(c).ExportLog(pb.ExportLogRequest(table_id=table.table_id),
                                                 metadata=bearer(REVIEWER_TOKEN))
             for c in channels[:10]]
    calls += [tgrpc.TableServiceStub(c).WatchTable(pb.WatchTableRequest(table_id=table.table_id))
              for c in channels[10:]]
    await asyncio.gather(*(c.initial_metadata() for c in calls))
    await asyncio.sleep(0.5)          # each one's window is full: its next write waits
    for c in channels:
        await c.close()

    async def all_ended() -> bool:
        return sum(handled(m, c) - before[m, c] for (m, c) in before) == 20
    await until(all_ended)
    assert {k: handled(*k) - v for k, v in before.items()} == {
        ("WatchTable", "CANCELLED"): 10, ("WatchTable", "INTERNAL"): 0, ("WatchTable", "UNKNOWN"): 0,
        ("ExportLog", "CANCELLED"): 10, ("ExportLog", "INTERNAL"): 0, ("ExportLog", "UNKNOWN"): 0}
    await until(spectators_are(app, table.table_id, 0))


async def test_paged_streams_give_every_event_once_in_order_live_and_past(served, monkeypatch):
    """Pages of 7 events: every page boundary of a live game and of its export."""
    app, stub, address = served
    monkeypatch.setattr(repository, "STREAM_PAGE", 7)
    table = await new_table(stub, "classic", {"target": "1000"}, humans=())

    async def watch_slowly(from_sequence):
        """Reads with pauses while the bots play on, to the game's end."""
        call = stub.WatchTable(pb.WatchTableRequest(table_id=table.table_id,
                                                    from_sequence=from_sequence))
        got = []
        async for event in call:
            got.append(event)
            if len(got) % 50 == 0:
                await asyncio.sleep(0.02)
            if event.HasField("game_ended"):
                call.cancel()
                return got

    live, late = await asyncio.gather(watch_slowly(1), watch_slowly(5))
    assert [e.sequence for e in live] == list(range(1, len(live) + 1))
    assert live[4:] == late
    check_stream(live, None)
    stored = await app.store.events.read(table.table_id)
    exported = [e async for e in stub.ExportLog(pb.ExportLogRequest(table_id=table.table_id),
                                                metadata=bearer(REVIEWER_TOKEN))]
    *events, head = exported            # an export ends with its signed head
    assert head.HasField("head") and head.head.last_sequence == stored[-1].sequence
    assert [(e.sequence, e.hash) for e in events] == [(s.sequence, s.hash) for s in stored]
