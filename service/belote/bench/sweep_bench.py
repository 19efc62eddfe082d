"""What the background sweeps cost with many idle games: IDLE_GAMES tables in play (four humans
each, nobody acting, no deadline near) on SQLite, swept by a replica that did not write them
(as after a restart, or another replica's tables).

- ``deadline_sweep_first_ms``: its first deadline sweep (it learns every table's deadlines);
- ``deadline_sweep_ms``: a later sweep, the median of a few (nothing changed meanwhile);
- ``deadline_sweep_loop_block_ms``: the longest the event loop went unserved during those;
- ``due_bots_sweep_ms``: one look of the due-bots sweep (the index's versions) at those tables.
"""

from __future__ import annotations

import asyncio
import os
import statistics
import tempfile
import time
import uuid

from belote.api.commands import ProtoTables
from belote.app.tables import TableApp
from belote.observability import configure_logging
from belote.store import open_store
from belote.v1 import table_service_pb2 as pb

IDLE_GAMES = int(os.environ.get("BELOTE_BENCH_IDLE_GAMES") or 6000)
ROUNDS = 3


async def _idle_game(app: ProtoTables) -> None:
    created = await app.create_table(pb.CreateTableRequest(
        preset="classic", options={"target": "2000"}, request_id=uuid.uuid4().hex))
    await asyncio.gather(*(app.join_table(pb.JoinTableRequest(
        table_id=created.table_id, seat=seat, display_name=f"p{seat}",
        request_id=uuid.uuid4().hex), None) for seat in range(4)))


async def _longest_block(stop: asyncio.Event, blocks: list[float]) -> None:
    """The longest gap between two turns of this ticker, meant to run every millisecond."""
    last = time.perf_counter()
    while not stop.is_set():
        await asyncio.sleep(0.001)
        now = time.perf_counter()
        blocks.append(now - last)
        last = now


async def _timed(coroutine) -> tuple[float, float]:
    """(wall ms, longest event loop block ms) of awaiting ``coroutine``."""
    stop, blocks = asyncio.Event(), []
    ticker = asyncio.create_task(_longest_block(stop, blocks))
    await asyncio.sleep(0.002)
    started = time.perf_counter()
    await coroutine
    wall = time.perf_counter() - started
    stop.set()
    await ticker
    return wall * 1000, max(blocks) * 1000


async def _bench(directory: str) -> list[tuple[str, float, str]]:
    url = f"sqlite:///{os.path.join(directory, 'sweep.db')}"
    writer_store = open_store(url)
    writer = ProtoTables(TableApp(writer_store))
    for i in range(0, IDLE_GAMES, 200):
        await asyncio.gather(*(_idle_game(writer) for _ in range(min(200, IDLE_GAMES - i))))
    await writer.close()
    store = open_store(url)
    app = TableApp(store)
    try:
        first, _ = await _timed(app.enforce_deadlines())
        later = [await _timed(app.enforce_deadlines()) for _ in range(ROUNDS)]
        out = [("deadline_sweep_first_ms", round(first, 1), "ms"),
               ("deadline_sweep_ms", round(statistics.median(w for w, _ in later), 1), "ms"),
               ("deadline_sweep_loop_block_ms", round(max(b for _, b in later), 1), "ms")]
        due_bots = getattr(app, "_due_bots", None)
        if due_bots is not None:
            await due_bots.stalled()              # takes the lease, notes every version
            wall, _ = await _timed(due_bots.stalled())
            out.append(("due_bots_sweep_ms", round(wall, 1), "ms"))
        return out
    finally:
        await app.close()


def run() -> list[tuple[str, float, str]]:
    configure_logging("warning")
    with tempfile.TemporaryDirectory(prefix="belote-sweep-bench-") as directory:
        return asyncio.run(_bench(directory))


if __name__ == "__main__":
    for name, value, unit in run():
        print(f"bench: {name} {value} {unit}")
