"""Real logs to review: play a game with the app in process and return its export.

Used by the review tests and benchmark (and handy to try ``belote replay`` on). Bots play by
themselves through the app's bot loop; human seats play random legal actions drawn from a
seeded RNG, so the logs mix both kinds of moves, exactly as a server would record them.
"""

from __future__ import annotations

import asyncio
import os
import random
import tempfile
import time
import uuid

from belote.app.errors import ABORTED, AppError
from belote.v1 import events_pb2 as epb
from belote.v1 import table_service_pb2 as tpb

REVIEWER_TOKEN = "sample-reviewer"
LEVELS = {"easy": epb.EASY, "normal": epb.NORMAL, "hard": epb.HARD}


async def play_table(app, preset: str, seats=("easy", "easy", "easy", "easy"), *,
                     options: dict[str, str] | None = None, seed: int = 0,
                     leave: tuple[int, int] | None = None, come_back: bool = False,
                     drop: tuple[int, int] | None = None, vanish: tuple[int, int] | None = None,
                     timeout: float = 120.0) -> str:
    """Create a table on ``app``, seat ``seats`` ("human" or a bot level per seat), play it to
    the end and return its id. Each ``(seat, after_moves)`` names a human and when, counted in
    its own moves: ``leave``, it leaves (a takeover bot plays on; with ``come_back`` it
    reclaims its seat some 20 events later); ``drop``, its watch stream closes (SeatDisconnected)
    and opens again 3 moves later (SeatConnected); ``vanish``, its stream closes and it never
    returns, so its grace runs out (SeatLeft DISCONNECTED, then a takeover bot)."""
    rng = random.Random(seed)
    created = await app.create_table(tpb.CreateTableRequest(
        preset=preset, options=options or {}, name=f"sample {preset}", request_id=_rid(rng)))
    table_id, host = created.table_id, created.host_token
    tokens: dict[int, str] = {}
    for seat, who in enumerate(seats):
        if who == "human":
            joined = await app.join_table(tpb.JoinTableRequest(
                table_id=table_id, seat=seat, display_name=f"human {seat}", request_id=_rid(rng)), None)
            tokens[seat] = joined.seat_token
        else:
            await app.add_bot(tpb.AddBotRequest(table_id=table_id, seat=seat, level=LEVELS[who],
                                                request_id=_rid(rng)), host)
    moves = {seat: 0 for seat in tokens}
    away: dict[int, tuple[str, int]] = {}            # seat -> (token, version when it left)
    streams: list = []
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    try:
        while True:
            table = await app.get_table(tpb.GetTableRequest(table_id=table_id), None)
            if table.status == tpb.FINISHED:
                return table_id
            if loop.time() > deadline:
                raise TimeoutError(f"table {table_id} ({preset}) did not finish in {timeout} s")
            for seat, (token, left_at) in list(away.items()):
                if come_back and table.version >= left_at + 20:
                    await app.join_table(tpb.JoinTableRequest(table_id=table_id, request_id=_rid(rng)), token)
                    tokens[seat] = token
                    del away[seat]
            acted = False
            for seat, token in list(tokens.items()):
                legal = await app.get_legal_actions(tpb.GetLegalActionsRequest(table_id=table_id), token)
                if not legal.your_turn:
                    continue
                if leave and leave[0] == seat and moves[seat] == leave[1]:
                    await app.leave_table(tpb.LeaveTableRequest(table_id=table_id, request_id=_rid(rng)), token)
                    away[seat] = (tokens.pop(seat), legal.version)
                    moves[seat] += 1
                    acted = True
                    break
                if drop and drop[0] == seat and moves[seat] in (drop[1], drop[1] + 3):
                    stream = app.watch_table(tpb.WatchTableRequest(table_id=table_id), token)
                    await anext(stream)
                    if moves[seat] == drop[1]:
                        await stream.aclose()             # the connection is lost...
                        await _until(app, table_id, "seat_disconnected")
                    else:
                        streams.append(stream)            # ...and back until the game ends
                    legal = await app.get_legal_actions(tpb.GetLegalActionsRequest(table_id=table_id), token)
                if vanish and vanish[0] == seat and moves[seat] == vanish[1]:
                    stream = app.watch_table(tpb.WatchTableRequest(table_id=table_id), token)
                    await anext(stream)
                    await stream.aclose()
                    await _until(app, table_id, "seat_disconnected")
                    del tokens[seat]
                    await app.enforce_deadlines(now_us=time.time_ns() // 1000 + 10**12)
                    acted = True
                    break
                request = tpb.ActRequest(table_id=table_id, action=rng.choice(list(legal.actions)),
                                         request_id=_rid(rng), expected_version=legal.version)
                try:
                    await app.act(request, token)
                except AppError as e:
                    if e.code != ABORTED:             # the table moved meanwhile: look again
                        raise
                    break
                moves[seat] += 1
                acted = True
                break
            if not acted:
                await asyncio.sleep(0.002)     # a bot is thinking: let its task run
    finally:
        for stream in streams:
            await stream.aclose()


async def _until(app, table_id: str, kind: str) -> None:
    """Wait until the table's log holds an event of ``kind`` (appended by a background task)."""
    for _ in range(500):
        if any(e.type == kind for e in await export(app, table_id)):
            return
        await asyncio.sleep(0.01)
    raise TimeoutError(f"no {kind} on table {table_id}")


async def export(app, table_id: str) -> list[epb.LoggedEvent]:
    return [e async for e in app.export_log(tpb.ExportLogRequest(table_id=table_id), REVIEWER_TOKEN)]


async def sample_logs(games, directory: str | None = None) -> list[list[epb.LoggedEvent]]:
    """Play each ``(preset, seats, kwargs)`` of ``games`` at once on one in-process app and
    return their exports (in order). ``directory``: where to keep the sqlite store
    (``sample.db``); by default a temporary one, removed after."""
    from belote.app.tables import TableApp

    with tempfile.TemporaryDirectory(prefix="belote-review-") as tmp:
        app = await TableApp.open(f"sqlite:///{os.path.join(directory or tmp, 'sample.db')}",
                                  reviewer_token=REVIEWER_TOKEN)
        try:
            ids = await asyncio.gather(*(play_table(app, preset, seats, **kw) for preset, seats, kw in games))
            return [await export(app, table_id) for table_id in ids]
        finally:
            await app.close()


def _rid(rng: random.Random | None = None) -> str:
    """A fresh request id (uuid4: two tables of one app never share one)."""
    return uuid.uuid4().hex
