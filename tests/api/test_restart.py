"""A server is only a process: killed or stopped and started again on the same store, its
tables go on exactly where they were."""

from __future__ import annotations

import asyncio
import os
import random
import subprocess
import sys
import time

import grpc
import pytest
from belote.v1 import table_service_pb2 as pb
from belote.v1 import table_service_pb2_grpc
from players import Table, check_game_end, check_stream, new_table, watch

pytestmark = pytest.mark.timeout(90)


def stub_for(address: str, channels: list):
    channel = grpc.aio.insecure_channel(address)
    channels.append(channel)
    return table_service_pb2_grpc.TableServiceStub(channel)


@pytest.fixture
async def channels():
    made: list[grpc.aio.Channel] = []
    yield made
    for channel in made:
        await channel.close()


async def snapshot(table: Table):
    """What each human sees and may do now."""
    return {seat: (await table.view(seat), await table.legal(seat)) for seat in table.tokens}


def mid_deal(t: pb.Table) -> bool:
    return t.game.phase == pb.DEAL_PHASE_CARD_PLAY and t.game.trick_number >= 3 and t.game.to_act in (0, 2)


async def test_sigkill_mid_deal_then_restart_goes_on_exactly(server_factory, channels):
    proc = server_factory()
    table = await new_table(stub_for(proc.address, channels), "classic", {"target": "300"},
                            humans=(0, 2))
    rng = random.Random("kill")
    await table.play(rng, until=mid_deal)
    before, version = await snapshot(table), await table.version()

    proc.kill()
    table.stub = stub_for(proc.start(), channels)

    assert await table.version() == version
    after = await snapshot(table)
    for seat in table.tokens:
        view, legal = after[seat]
        assert view == before[seat][0]  # same version, hand, trick, scores
        assert legal == before[seat][1]  # same turn, same legal actions
        assert len(view.game.your_hand) > 0
    assert any(legal.your_turn and legal.actions for _, legal in after.values())

    await table.play(rng)
    events = await watch(table.stub, table.table_id, table.tokens[0])
    check_game_end(events, table.target)
    check_stream(events, 0)


async def test_bots_interrupted_by_a_crash_finish_after_the_restart(server_factory, channels):
    proc = server_factory()
    stub = stub_for(proc.address, channels)
    # Four bots play a long game on their own; kill the server while they do.
    table = await new_table(stub, "classic", {"target": "3000"}, humans=())
    await watch(stub, table.table_id, count=40)
    proc.kill()
    killed_at = time.time()

    stub = stub_for(proc.start(), channels)
    # Only the restart's resume can move them on: a stream asks nothing of the bots.
    events = await watch(stub, table.table_id)
    check_game_end(events, table.target)
    assert events[-1].append_time.ToMicroseconds() > killed_at * 1e6, "the game ended before the kill"
    assert [e.sequence for e in events] == list(range(1, len(events) + 1))


async def test_sigterm_ends_streams_cleanly_and_exits_0(server_factory, channels):
    proc = server_factory()
    stub = stub_for(proc.address, channels)
    table = await new_table(stub, "classic", {"target": "300"}, humans=(0,))
    rng = random.Random("term")
    await table.play(rng, until=lambda t: t.version >= 12 and t.game.to_act == 0)
    version = await table.version()

    call = stub.WatchTable(pb.WatchTableRequest(table_id=table.table_id, from_sequence=1),
                           metadata=(("authorization", f"Bearer {table.tokens[0]}"),))
    seen = []

    async def read():
        async for event in call:
            seen.append(event)

    reader = asyncio.create_task(read())
    while len(seen) < version:
        await asyncio.sleep(0.01)
    assert await asyncio.to_thread(proc.terminate) == 0
    try:
        await asyncio.wait_for(reader, 5)
    except grpc.aio.AioRpcError as err:  # the stream may end OK or UNAVAILABLE
        assert err.code() == grpc.StatusCode.UNAVAILABLE
    assert [e.sequence for e in seen] == list(range(1, version + 1))
    out = proc.output()
    assert "Traceback" not in out, out

    # The client resumes from its last sequence + 1 on a new server and misses nothing.
    table.stub = stub = stub_for(proc.start(), channels)
    stream = asyncio.create_task(watch(stub, table.table_id, table.tokens[0],
                                       from_sequence=seen[-1].sequence + 1))
    await table.play(rng)
    check_stream(seen + await stream, 0)


FLOODED_SIGTERM = """
import asyncio, os, signal, sys, threading
from belote.api.server import serve

async def main():
    loop = asyncio.get_running_loop()
    served = asyncio.create_task(serve("127.0.0.1:0", sys.argv[1], grace=0.5))
    await asyncio.sleep(1.5)                        # listening

    def busy_while_threads_queue_work():
        # The loop is busy; another thread queues many callbacks (as the store's writer does
        # with its commits), filling asyncio's self-pipe, then the SIGTERM comes.
        def flood():
            for _ in range(20_000):
                loop.call_soon_threadsafe(lambda: None)
            os.kill(os.getpid(), signal.SIGTERM)
        thread = threading.Thread(target=flood)
        thread.start()
        thread.join()

    loop.call_soon(busy_while_threads_queue_work)
    print("exit code", await asyncio.wait_for(served, 20), flush=True)

asyncio.run(main())
"""


def test_sigterm_stops_the_server_even_when_its_loop_was_flooded_with_wakeups(tmp_path):
    proc = subprocess.run([sys.executable, "-c", FLOODED_SIGTERM, f"sqlite:///{tmp_path}/s.db"],
                          capture_output=True, text=True, timeout=60,
                          env={**os.environ, "BELOTE_LOG_LEVEL": "warning"})
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert "exit code 0" in proc.stdout
