"""Our own cost per card, without gRPC: the app (``TableApp``) on SQLite, driven in this process
as the load's players drive a server (each of four seats per table watches its stream and, on
its turn, asks for its legal actions and plays the last one). gRPC's share of a card is the bare
server's (see load_bench); this is the rest, and what a change to the app, the store or the
rules moves.

- ``app_cpu_us_per_card``: this process's CPU (every thread: the SQLite writer's too) per card;
- ``app_cards_per_s``: cards per second of wall time.
"""

from __future__ import annotations

import asyncio
import tempfile
import time
import uuid

from belote.api.commands import ProtoTables
from belote.app.tables import TableApp
from belote.observability import configure_logging
from belote.rules.options import MAX_TARGET
from belote.v1 import table_service_pb2 as pb

TABLES = 100
WARMUP_CARDS = 300
CARDS = 6000


class _Seat:
    """One seat: its stream says whose turn it is; on its own it asks and plays."""

    def __init__(self, app: ProtoTables, table_id: str, seat: int, token: str, counted: _Count):
        self.app, self.table_id, self.seat, self.token, self.count = app, table_id, seat, token, counted
        self.turn = asyncio.Event()
        self.turn.set()

    async def watch(self) -> None:
        dealer = 0
        async for e in self.app.watch_table(pb.WatchTableRequest(table_id=self.table_id), self.token):
            kind, next_seat = e.WhichOneof("body"), None
            if kind == "deal_started":
                dealer = e.deal_started.dealer
                next_seat = (dealer + 1) & 3
            elif kind == "bid_made":
                next_seat = (e.bid_made.seat + 1) & 3
            elif kind == "contract_settled":
                next_seat = (dealer + 1) & 3
            elif kind == "card_played":
                next_seat = (e.card_played.seat + 1) & 3
                if self.seat == 0:
                    self.count.card()
            elif kind == "trick_won":
                next_seat = e.trick_won.winner
            if next_seat == self.seat:
                self.turn.set()

    async def play(self) -> None:
        while True:
            await self.turn.wait()
            self.turn.clear()
            legal = await self.app.get_legal_actions(pb.GetLegalActionsRequest(table_id=self.table_id),
                                                     self.token)
            if legal.your_turn and legal.actions:
                await self.app.act(pb.ActRequest(table_id=self.table_id, action=legal.actions[-1],
                                                  request_id=uuid.uuid4().hex), self.token)


class _Count:
    """Cards played; the clocks start after the warm-up and stop at the last card counted."""

    def __init__(self) -> None:
        self.cards = 0
        self.started: tuple[float, float] | None = None
        self.done = asyncio.Event()
        self.cpu_s = self.wall_s = 0.0

    def card(self) -> None:
        self.cards += 1
        if self.cards == WARMUP_CARDS:
            self.started = (time.process_time(), time.perf_counter())
        elif self.cards == WARMUP_CARDS + CARDS:
            self.cpu_s = time.process_time() - self.started[0]
            self.wall_s = time.perf_counter() - self.started[1]
            self.done.set()


async def measure() -> tuple[float, float]:
    """(CPU microseconds per card, cards per second)."""
    with tempfile.TemporaryDirectory() as tmp:
        app = ProtoTables(await TableApp.open(f"sqlite:///{tmp}/app.db"))
        count, tasks = _Count(), []
        try:
            for _ in range(TABLES):
                created = await app.create_table(pb.CreateTableRequest(
                    preset="classic", options={"target": str(MAX_TARGET)}, request_id=uuid.uuid4().hex))
                for s in range(4):
                    joined = await app.join_table(pb.JoinTableRequest(
                        table_id=created.table_id, seat=s, display_name=f"p{s}",
                        request_id=uuid.uuid4().hex), None)
                    seat = _Seat(app, created.table_id, s, joined.seat_token, count)
                    tasks += [asyncio.create_task(seat.watch()), asyncio.create_task(seat.play())]
            await count.done.wait()
        finally:
            for task in tasks:
                task.cancel()
            await asyncio.gather(*tasks, return_exceptions=True)
            await app.close()
    return count.cpu_s / CARDS * 1e6, CARDS / count.wall_s


def run() -> list[tuple[str, float, str]]:
    configure_logging("warning")
    cpu_us, cards_per_s = asyncio.run(measure())
    return [("app_cpu_us_per_card", cpu_us, "us"), ("app_cards_per_s", cards_per_s, "cards/s")]


if __name__ == "__main__":
    for name, value, unit in run():
        print(f"bench: {name} {value:.2f} {unit}")
