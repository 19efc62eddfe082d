"""Scripted tables: four seats, one connection each, each watching its stream and acting on its
turn (its last legal action: a take rather than a pass). Measures Act latency, stream lag and cards played.
Or fewer scripted humans per table and bots of a level on the other seats: then also each
human's wait, from its Act's answer to its next turn (the bots' moves in between).

A seat acts the moment it is its turn (``think_s`` 0: a closed loop that saturates the server,
for throughput) or after thinking like a player, a uniform 0.5 to 1.5 times ``think_s`` (for
latencies at a given number of tables: a saturated closed loop measures only its own queue)."""

from __future__ import annotations

import asyncio
import random
import time
import uuid
from dataclasses import dataclass, field

import grpc

from belote.rules.options import MAX_TARGET
from belote.v1 import events_pb2 as epb
from belote.v1 import table_service_pb2 as pb
from belote.v1 import table_service_pb2_grpc as tgrpc


@dataclass
class LoadStats:
    act_latencies: list[float] = field(default_factory=list)      # seconds
    waits: list[float] = field(default_factory=list)      # a human's Act answered -> its next turn
    watching: int = 4                                      # seats watching each table
    # (table, sequence) -> arrival times (unix s) at each seat, and the event's time
    arrivals: dict[tuple[str, int], list[float]] = field(default_factory=dict)
    event_times: dict[tuple[str, int], float] = field(default_factory=dict)
    cards: int = 0
    errors: int = 0
    error_kinds: dict[str, int] = field(default_factory=dict)

    def error(self, what: str) -> None:
        self.errors += 1
        self.error_kinds[what] = self.error_kinds.get(what, 0) + 1

    def stream_lags(self) -> list[float]:
        """Per event seen by every seat watching: last arrival minus the time it was appended."""
        return [max(times) - self.event_times[key] for key, times in self.arrivals.items()
                if len(times) == self.watching]


def _rid() -> str:
    return uuid.uuid4().hex


class Seat:
    def __init__(self, target: str, table_id: str, seat: int, stats: LoadStats, stop: asyncio.Event,
                 think_s: float = 0.0):
        self.think_s, self.rng = think_s, random.Random(f"{table_id}/{seat}")
        self.channel = grpc.aio.insecure_channel(target)
        self.stub = tgrpc.TableServiceStub(self.channel)
        self.table_id, self.seat, self.stats, self.stop = table_id, seat, stats, stop
        self.auth: tuple = ()
        self.to_act = -1
        self.dealer = 0
        self.turn_changed = asyncio.Event()
        self.answered_at: float | None = None    # when its last Act was answered (perf_counter)

    async def join(self) -> None:
        reply = await self.stub.JoinTable(pb.JoinTableRequest(
            table_id=self.table_id, seat=self.seat, display_name=f"load{self.seat}", request_id=_rid()))
        self.auth = (("authorization", f"Bearer {reply.seat_token}"),)

    async def watch(self, measuring: dict, ready: asyncio.Event) -> None:
        """The seat's stream; arrivals are recorded only while measuring."""
        call = self.stub.WatchTable(pb.WatchTableRequest(table_id=self.table_id), metadata=self.auth)
        ready.set()
        try:
            async for event in call:
                appended = event.append_time.ToMicroseconds() / 1e6
                # Only events appended while measuring: not the history a stream starts with.
                if measuring["on"] and appended >= measuring["since"]:
                    key = (self.table_id, event.sequence)
                    self.stats.arrivals.setdefault(key, []).append(time.time())
                    self.stats.event_times.setdefault(key, appended)
                    if event.HasField("card_played") and self.seat == 0:
                        self.stats.cards += 1
                self._follow(event)
        except grpc.aio.AioRpcError as e:
            if not self.stop.is_set():
                self.stats.error(f"watch {e.code().name}")
        finally:
            call.cancel()

    def _follow(self, event) -> None:
        """Who acts next, from the stream alone."""
        kind = event.WhichOneof("body")
        if kind == "deal_started":
            self.dealer = event.deal_started.dealer
            self.to_act = (self.dealer + 1) & 3
        elif kind == "bid_made":
            self.to_act = (event.bid_made.seat + 1) & 3
        elif kind == "contract_settled":
            self.to_act = (self.dealer + 1) & 3
        elif kind == "card_played":
            self.to_act = (event.card_played.seat + 1) & 3
        elif kind == "trick_won":
            self.to_act = event.trick_won.winner
        elif kind == "game_ended":
            self.to_act = -1
        self.turn_changed.set()

    async def play(self) -> None:
        while not self.stop.is_set():
            await self.turn_changed.wait()
            self.turn_changed.clear()
            if self.to_act != self.seat:
                continue
            if self.answered_at is not None:
                self.stats.waits.append(time.perf_counter() - self.answered_at)
                self.answered_at = None
            if self.think_s:
                await asyncio.sleep(self.think_s * self.rng.uniform(0.5, 1.5))
            try:
                legal = await self.stub.GetLegalActions(
                    pb.GetLegalActionsRequest(table_id=self.table_id), metadata=self.auth)
                if not legal.your_turn or not legal.actions:
                    continue
                started = time.perf_counter()
                await self.stub.Act(pb.ActRequest(table_id=self.table_id, action=legal.actions[-1],
                                                  request_id=_rid()), metadata=self.auth)
                self.answered_at = time.perf_counter()
                self.stats.act_latencies.append(self.answered_at - started)
            except grpc.aio.AioRpcError as e:
                if not self.stop.is_set():
                    self.stats.error(f"act {e.code().name}")

    async def close(self) -> None:
        await self.channel.close()


async def run_tables(target: str, tables: int, duration: float, preset: str = "classic",
                     warmup: float = 1.0, think_s: float = 0.0, humans_per_table: int = 4,
                     bot_level: int = epb.BOT_LEVEL_NORMAL) -> LoadStats:
    """``tables`` tables of ``humans_per_table`` scripted seats (the first ones) and bots of
    ``bot_level`` on the others, for ``duration`` seconds (after a warm-up)."""
    stats = LoadStats(watching=humans_per_table)
    stop = asyncio.Event()
    async with grpc.aio.insecure_channel(target) as lobby:
        stub = tgrpc.TableServiceStub(lobby)
        ids = []
        for _ in range(tables):
            created = await stub.CreateTable(pb.CreateTableRequest(
                preset=preset, options={"target": str(MAX_TARGET)}, request_id=_rid()))
            ids.append(created.table_id)
        seats = [Seat(target, table_id, s, stats, stop, think_s)
                 for table_id in ids for s in range(humans_per_table)]
        for i in range(0, len(seats), 64):
            await asyncio.gather(*(s.join() for s in seats[i:i + 64]))
        for s in seats:
            if s.seat == 0:       # a seated player may seat the bots; the game starts then
                for bot_seat in range(humans_per_table, 4):
                    await stub.AddBot(pb.AddBotRequest(table_id=s.table_id, seat=bot_seat,
                                                       level=bot_level, request_id=_rid()),
                                      metadata=s.auth)
    measuring = {"on": False, "since": 0.0}
    watchers = []
    for s in seats:
        ready = asyncio.Event()
        watchers.append(asyncio.create_task(s.watch(measuring, ready)))
        await ready.wait()
    players = [asyncio.create_task(s.play()) for s in seats]
    for s in seats:
        s.turn_changed.set()
    await asyncio.sleep(warmup)
    stats.act_latencies.clear()
    stats.waits.clear()
    stats.cards = 0
    stats.errors = 0
    stats.error_kinds.clear()
    measuring["since"] = time.time()
    measuring["on"] = True
    await asyncio.sleep(duration)
    measuring["on"] = False
    stop.set()
    for s in seats:
        s.turn_changed.set()
    for task in watchers + players:
        task.cancel()
    await asyncio.gather(*watchers, *players, return_exceptions=True)
    await asyncio.gather(*(s.close() for s in seats))
    return stats
