"""Bots whose turn it is move on within seconds whatever died: the replica that played them
(SIGKILL), or every connection to the database (cut by a proxy, as in a restart). Nobody calls
GetTable or GetLegalActions here (those would kick the bots of the replica asked): only streams
watch, as a spectator's front-end does."""

from __future__ import annotations

import asyncio
import time

import psycopg
import pytest
from clients import Client, Cluster, create_table
from tcp_proxy import TcpProxy
from test_replicas import check_every_move_was_legal, check_log, stored_log

pytestmark = pytest.mark.timeout(180)
MOVED_WITHIN_S = 6.0      # the aim is 2 s; this leaves room for a loaded test machine


async def watch_until_end(client: Client, table_id: str, arrivals: list, on_event=None,
                          max_gap_s: float = 15.0):
    """client.watch(table_id) to GameEnded, noting (arrival time, sequence) of each event; fails
    as soon as no event came for ``max_gap_s`` (a stalled table, rather than the test's timeout)."""
    async def noted(event):
        arrivals.append((time.monotonic(), event.sequence))
        if on_event is not None:
            await on_event(event)
    started = time.monotonic()
    task = asyncio.create_task(client.watch(table_id, on_event=noted))
    while not task.done():
        await asyncio.wait({task}, timeout=0.5)
        last = arrivals[-1][0] if arrivals else started
        if not task.done() and time.monotonic() - last > max_gap_s:
            task.cancel()
            raise AssertionError(f"no event for {max_gap_s} s after sequence "
                                 f"{arrivals[-1][1] if arrivals else 0}: the bots stalled")
    return task.result()


async def test_bots_of_a_killed_replica_move_on_within_seconds_on_another(replicas, database):
    group = replicas(3)
    cluster = Cluster([r.address for r in group])
    arrivals: list[tuple[float, int]] = []
    killed: dict[str, float] = {}

    async def kill_a(event):
        if event.sequence >= 60 and not killed:
            killed["at"] = time.monotonic()
            await asyncio.to_thread(group[0].kill)

    try:
        # A seats the bots, so A plays them; B and C only see the table through one stream.
        table_id, _ = await create_table(Client(cluster, 0), humans=(), bots=(0, 1, 2, 3),
                                         target="1000")
        watchers = [Client(cluster, 1, name="watcher1"), Client(cluster, 2, name="watcher2")]
        streams = await asyncio.gather(
            watch_until_end(watchers[0], table_id, arrivals, on_event=kill_a),
            watch_until_end(watchers[1], table_id, []))
    finally:
        await cluster.close()
    assert killed and not group[0].alive, "the game ended before A was killed"
    after = [t for t, _ in arrivals if t > killed["at"]]
    gaps = [b - a for a, b in zip([killed["at"], *after], after)]
    print(f"killed at sequence ~60; longest wait for an event after: {max(gaps):.2f} s")
    assert len(after) > 50 and max(gaps) < MOVED_WITHIN_S, max(gaps)
    n = await check_log(database, table_id, *streams)
    log, _ = await stored_log(database, table_id)
    moves = check_every_move_was_legal(log)
    assert len({e.request_id for e in log if e.request_id.startswith("bot-")}) == moves > 50
    assert n == len(log)


def _versions(url: str, table_ids: list[str]) -> dict[str, int]:
    with psycopg.connect(url) as c:
        rows = c.execute("SELECT table_id, version FROM table_heads WHERE table_id = ANY(%s)",
                         (table_ids,)).fetchall()
    return dict(rows)


async def _versions_now(url: str, table_ids: list[str]) -> dict[str, int]:
    return await asyncio.to_thread(_versions, url, table_ids)


async def test_bots_play_on_after_every_database_connection_was_cut(replicas, database):
    info = psycopg.conninfo.conninfo_to_dict(database)
    proxy = TcpProxy(info.get("host", "127.0.0.1"), int(info.get("port", 5432)))
    await proxy.start()
    password = f":{info['password']}" if info.get("password") else ""
    through_proxy = (f"postgresql://{info.get('user', 'postgres')}{password}@127.0.0.1:"
                     f"{proxy.port}/{info['dbname']}")
    try:
        # The replicas reach the database through the proxy, which runs in this event loop.
        group = await asyncio.to_thread(replicas, 2, through_proxy)
        cluster = Cluster([r.address for r in group])
        try:
            tables = [(await create_table(Client(cluster, i % 2), humans=(), bots=(0, 1, 2, 3),
                                          target="3000"))[0] for i in range(4)]
        finally:
            await cluster.close()
        deadline = time.monotonic() + 30
        while min((await _versions_now(database, tables)).values()) < 30:
            assert time.monotonic() < deadline, "the bots did not start"
            await asyncio.sleep(0.1)
        # The "restart": every connection dropped, new ones refused, for 4 s.
        proxy.cut()
        await asyncio.sleep(1.0)
        during = await _versions_now(database, tables)
        await asyncio.sleep(3.0)
        assert await _versions_now(database, tables) == during, "the cut did not stop the bots"
        assert proxy.refused > 0
        proxy.restore()
        restored = time.monotonic()
        # Every table's bots play on, without anybody calling the server.
        moved_after: dict[str, float] = {}
        while len(moved_after) < len(tables):
            now = await _versions_now(database, tables)
            for t in tables:
                if t not in moved_after and now[t] >= during[t] + 10:
                    moved_after[t] = time.monotonic() - restored
            assert time.monotonic() - restored < 30, f"bots stalled after the cut: {now} vs {during}"
            await asyncio.sleep(0.1)
        print(f"10 moves on each table after the cut within {max(moved_after.values()):.2f} s")
        assert max(moved_after.values()) < 3 * MOVED_WITHIN_S
        for t in tables:
            log, _ = await stored_log(database, t)
            moves = check_every_move_was_legal(log)       # so none was appended twice
            assert len({e.request_id for e in log if e.request_id.startswith("bot-")}) == moves > 30
        assert any("postgresql unreachable" in r.output() for r in group)
    finally:
        await proxy.close()
