"""Real logs to review: games played by the app in process, returned as exported.

For the review tests and benchmark: bots play through the app's bot loop, humans random legal
actions from a seeded RNG, with chat, stakes, a rematch, a turn timer run out and each way a
table closes, on a :class:`SampleClock` that skips to each deadline as a waiting server would.
"""

from __future__ import annotations

import asyncio
import os
import random
import tempfile
import time
import uuid

import jwt
from google.protobuf.duration_pb2 import Duration

from belote.app.errors import RACES, AppError
from belote.table.state import REMATCH_VOTE_S
from belote.v1 import events_pb2 as epb
from belote.v1 import table_service_pb2 as tpb

REVIEWER_TOKEN = "sample-reviewer"
AUTH_SECRET = "sample-auth-secret-0123456789abcdef"    # the key the sample app checks player tokens with
LEVELS = {"easy": epb.BOT_LEVEL_EASY, "normal": epb.BOT_LEVEL_NORMAL, "hard": epb.BOT_LEVEL_HARD}
SPECTATOR_NAME = "kibitzer"


class SampleClock:
    """The app's clock (unix microseconds): real time plus the time skipped so far."""

    def __init__(self) -> None:
        self.skipped_us = 0

    def __call__(self) -> int:
        return time.time_ns() // 1000 + self.skipped_us

    def skip(self, seconds: float) -> None:
        """Move the clock ``seconds`` on at once: every table's (see ``play_table``)."""
        self.skipped_us += int(seconds * 1_000_000)


def player_token(player_id: str) -> str:
    """The x-player-token of a registered player, as the site's identity provider signs it."""
    return jwt.encode({"sub": player_id, "exp": int(time.time()) + 3600}, AUTH_SECRET,
                      algorithm="HS256")


async def play_table(app, preset: str, seats=("easy", "easy", "easy", "easy"), *,
                     options: dict[str, str] | None = None, seed: int = 0,
                     leave: tuple[int, int] | None = None, come_back: bool = False,
                     drop: tuple[int, int] | None = None, vanish: tuple[int, int] | None = None,
                     slow: tuple[int, int] | None = None, turn_timer_s: int = 0, stake: int = 0,
                     chat: bool = False, rematch: bool = False, timeout: float = 120.0) -> str:
    """Create a table on ``app``, seat ``seats`` ("human" or a bot level per seat), play it to
    the end and return its id. Each ``(seat, after_moves)`` names a human and when, counted in
    its own moves: ``leave``, it leaves (a takeover bot plays on; with ``come_back`` it
    reclaims its seat some 20 events later); ``drop``, its watch stream closes (SeatDisconnected)
    and, the client being gone, it calls nothing until its next turn, when its stream opens
    again (SeatConnected); ``vanish``, its stream closes and it never
    returns, so its grace runs out (SeatLeft DISCONNECTED, then a takeover bot); ``slow``, it
    does not act in time once (from that move on, the first with more than one legal action),
    so the table's ``turn_timer_s`` runs out and a bot makes that move for it (BotMove.timer).

    ``stake``: the table's stake, paid by each human, who joins as a registered player. ``chat``:
    the first human greets the table when the game starts and says "gg" when it ends, and a
    spectator comments during the game. ``rematch``: when the game ends, every human votes for a
    rematch, and the second game is played too.

    ``vanish`` and ``slow`` need the app to run on a :class:`SampleClock`: they skip its time
    (the grace, 61 s; the turn timer + 1 s), for every table at once. So give them to one table
    only, the one with lost connections or a turn timer, and keep the skips under the 2 minute
    rematch vote (a rematch is voted at once, but a table that finished earlier would close)."""
    rng = random.Random(seed)
    created = await app.create_table(tpb.CreateTableRequest(
        preset=preset, options=options or {}, name=f"sample {preset}", request_id=_rid(rng),
        stake=stake, turn_timer=Duration(seconds=turn_timer_s)))
    table_id, host = created.table_id, created.host_token
    tokens: dict[int, str] = {}
    for seat, who in enumerate(seats):
        if who == "human":
            joined = await app.join_table(tpb.JoinTableRequest(
                table_id=table_id, seat=seat, display_name=f"human {seat}", request_id=_rid(rng)), None,
                player_token(f"player-{table_id}-{seat}") if stake else None)
            tokens[seat] = joined.seat_token
        else:
            await app.add_bot(tpb.AddBotRequest(table_id=table_id, seat=seat, level=LEVELS[who],
                                                request_id=_rid(rng)), host)
    talker = min(tokens, default=None)               # the human who chats, if any
    if chat and talker is not None:
        await _say(app, table_id, tokens[talker], "good luck, all", rng)
    moves = {seat: 0 for seat in tokens}
    away: dict[int, tuple[str, int]] = {}            # seat -> (token, version when it left)
    offline: dict[int, str] = {}                     # seat -> token: its connection dropped
    dropped = False
    streams: list = []
    rematches = 1 if rematch else 0
    commented = slowed = False                       # the spectator's message, the timer move: once
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    try:
        while True:
            table = await app.get_table(tpb.GetTableRequest(table_id=table_id), None)
            if table.status == tpb.TABLE_STATUS_FINISHED:
                if chat and talker in tokens and not rematches:
                    await _say(app, table_id, tokens[talker], "gg", rng)
                if rematches and tokens and not table.closed:
                    rematches -= 1
                    for token in tokens.values():
                        await app.vote_rematch(tpb.VoteRematchRequest(
                            table_id=table_id, request_id=_rid(rng)), token)
                    continue
                return table_id
            if loop.time() > deadline:
                raise TimeoutError(f"table {table_id} ({preset}) did not finish in {timeout} s")
            for seat, (token, left_at) in list(away.items()):
                if come_back and table.version >= left_at + 20:
                    await app.join_table(tpb.JoinTableRequest(table_id=table_id, request_id=_rid(rng)), token)
                    tokens[seat] = token
                    del away[seat]
            for seat, token in list(offline.items()):
                if table.game.to_act == seat:             # ...and back when it is to play
                    stream = app.watch_table(tpb.WatchTableRequest(table_id=table_id), token)
                    await anext(stream)
                    streams.append(stream)                # until the game ends
                    del offline[seat]
            acted = False
            for seat, token in list(tokens.items()):
                if seat in offline:                       # a client gone calls nothing
                    continue
                legal = await app.get_legal_actions(tpb.GetLegalActionsRequest(table_id=table_id), token)
                if not legal.your_turn:
                    continue
                if chat and seat == talker and moves[seat] == 6 and not commented:
                    commented = True
                    await _say(app, table_id, None, "what a lead!", rng)
                    legal = await app.get_legal_actions(tpb.GetLegalActionsRequest(table_id=table_id), token)
                if leave and leave[0] == seat and moves[seat] == leave[1]:
                    await app.leave_table(tpb.LeaveTableRequest(table_id=table_id, request_id=_rid(rng)), token)
                    away[seat] = (tokens.pop(seat), legal.version)
                    moves[seat] += 1
                    acted = True
                    break
                if drop and drop[0] == seat and moves[seat] == drop[1] and not dropped:
                    dropped = True
                    stream = app.watch_table(tpb.WatchTableRequest(table_id=table_id), token)
                    await anext(stream)
                    await stream.aclose()                 # the connection is lost...
                    await _until(app, table_id, "seat_disconnected", seat, legal.version)
                    offline[seat] = token
                    acted = True
                    break
                if vanish and vanish[0] == seat and moves[seat] == vanish[1]:
                    stream = app.watch_table(tpb.WatchTableRequest(table_id=table_id), token)
                    await anext(stream)
                    await stream.aclose()
                    await _until(app, table_id, "seat_disconnected", seat, legal.version)
                    del tokens[seat]
                    _clock(app).skip(app.disconnect_grace_s + 1)      # its grace runs out
                    if not await app.enforce_deadlines():
                        raise RuntimeError(f"seat {seat} of table {table_id} was not taken over")
                    acted = True
                    break
                if slow and slow[0] == seat and moves[seat] >= slow[1] and not slowed \
                        and len(legal.actions) > 1:              # a move with a choice
                    slowed = True
                    _clock(app).skip(turn_timer_s + 1)                # its turn timer runs out
                    if not await app.enforce_deadlines():
                        raise RuntimeError(f"no timer move for seat {seat} of table {table_id}")
                    moves[seat] += 1
                    acted = True
                    break
                request = tpb.ActRequest(table_id=table_id, action=rng.choice(list(legal.actions)),
                                         request_id=_rid(rng), expected_version=legal.version)
                try:
                    await app.act(request, token)
                except AppError as e:
                    if e.reason not in RACES:             # the table moved meanwhile: look again
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


def _clock(app) -> SampleClock:
    if not isinstance(app.clock, SampleClock):
        raise TypeError("vanish and slow skip time: run the app on a SampleClock (see sample_logs)")
    return app.clock


async def _say(app, table_id: str, token: str | None, text: str, rng: random.Random) -> None:
    """A chat message: a seat's (its token) or, without a token, the spectator's."""
    await app.post_chat(tpb.PostChatRequest(table_id=table_id, text=text, request_id=_rid(rng),
                                            display_name="" if token else SPECTATOR_NAME), token)


async def _until(app, table_id: str, kind: str, seat: int, after: int) -> None:
    """Wait until the table's log holds an event of ``kind`` for ``seat`` after sequence ``after``
    (appended by a background task)."""
    for _ in range(500):
        if any(e.event_type == kind and getattr(e.event, kind).seat == seat
               for e in await export(app, table_id) if e.sequence > after):
            return
        await asyncio.sleep(0.01)
    raise TimeoutError(f"no {kind} on table {table_id}")


async def export(app, table_id: str) -> list[epb.LoggedEvent]:
    return [e async for e in app.export_log(tpb.ExportLogRequest(table_id=table_id), REVIEWER_TOKEN)]


async def sample_logs(games, directory: str | None = None,
                      server_key: bytes | None = None) -> list[list[epb.LoggedEvent]]:
    """Play each ``(preset, seats, kwargs)`` of ``games`` at once on one in-process app, let
    every rematch vote run out (each table still open closes: TableClosed NO_REMATCH) and return
    their exports (in order, each ending with its signed head). ``directory``: where to keep the
    sqlite store (``sample.db``); by default a temporary one, removed after. ``server_key``: the
    app's (its exports are signed with a key derived from it); by default a random one."""
    from belote.api.commands import ProtoTables
    from belote.app.tables import TableApp
    from belote.store import open_store

    with tempfile.TemporaryDirectory(prefix="belote-review-") as tmp:
        store = open_store(f"sqlite:///{os.path.join(directory or tmp, 'sample.db')}")
        clock = SampleClock()
        app = ProtoTables(TableApp(store, REVIEWER_TOKEN, auth_secret=AUTH_SECRET, clock=clock,
                                   server_key=server_key))
        try:
            ids = await asyncio.gather(*(play_table(app, preset, seats, **kw) for preset, seats, kw in games))
            clock.skip(REMATCH_VOTE_S + 1)
            await app.enforce_deadlines()
            return [await export(app, table_id) for table_id in ids]
        finally:
            await app.close()


def _rid(rng: random.Random | None = None) -> str:
    """A fresh request id (uuid4: two tables of one app never share one)."""
    return uuid.uuid4().hex
