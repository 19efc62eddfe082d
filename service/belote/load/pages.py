"""Tables of four browser pages over the web port, as a page speaks to it (Connect, binary
bodies): each page watches its seat's stream and acts on its turn, asking for what else it
needs. Two kinds of page, to measure what TableEvent.your_turn saves:

- ``polling``: the page as it was (clients/web/src/main.ts of issue 28): after each event of its
  stream, GetTable then GetLegalActions (one refresh at a time: the events that arrive during
  one are folded into one more, and a refresh whose two answers are of different versions asks
  again), and Act when a refresh shows its turn;
- ``streaming``: the stream alone: Act on the event that carries your_turn.

Players think before each action (``think_s``: uniform 0.5 to 1.5 times it), so the figures are
those of tables at a player's pace rather than of a saturated queue, where refreshes would fold
more events together than a real page's do.
"""

from __future__ import annotations

import asyncio
import random
import time
import uuid
from collections import Counter
from dataclasses import dataclass, field

import psutil  # type: ignore[import-untyped]  # no stubs installed (load/report.py's too)
from connectrpc.client import ConnectClient
from connectrpc.compat import google_protobuf_binary_codec
from connectrpc.errors import ConnectError

from belote.api.connect import method_infos
from belote.rules.options import MAX_TARGET
from belote.v1 import events_pb2 as epb
from belote.v1 import table_service_pb2 as pb

METHODS = method_infos()
KINDS = ("polling", "streaming")


@dataclass
class PagesReport:
    kind: str
    tables: int
    seconds: float
    cards: int = 0
    calls: Counter = field(default_factory=Counter)     # unary RPCs by method, while measured
    server_cpu_s: float = 0.0
    errors: Counter = field(default_factory=Counter)

    @property
    def rpcs_per_card(self) -> float:
        return sum(self.calls.values()) / max(1, self.cards)

    @property
    def cpu_us_per_card(self) -> float:
        return self.server_cpu_s * 1e6 / max(1, self.cards)


class Page:
    """One page at one seat: its stream, and the calls its kind makes."""

    def __init__(self, client: ConnectClient, table_id: str, seat: int, token: str,
                 report: PagesReport, measuring: asyncio.Event, think_s: float) -> None:
        self.client, self.table_id, self.seat = client, table_id, seat
        self.headers = {"authorization": f"Bearer {token}"}
        self.report, self.measuring, self.think_s = report, measuring, think_s
        self.rng = random.Random(f"{table_id}/{seat}")
        self.tasks: set[asyncio.Task] = set()
        self.refreshing = self.again = False
        self.acted_at = -1                     # the version of the last Act sent

    async def call(self, rpc: str, request):
        if self.measuring.is_set():
            self.report.calls[rpc] += 1
        return await self.client.execute_unary(request=request, method=METHODS[rpc],
                                               headers=self.headers)

    async def watch(self) -> None:
        stream = self.client.execute_server_stream(
            request=pb.WatchTableRequest(table_id=self.table_id), method=METHODS["WatchTable"],
            headers=self.headers)
        try:
            async for event in stream:
                if self.seat == 0 and self.measuring.is_set() and event.HasField("card_played"):
                    self.report.cards += 1
                self.on_event(event)
        except ConnectError as e:       # CANCELED too, once the measure is over: its end
            self.error(f"watch {e.code.name}")

    def on_event(self, event: epb.TableEvent) -> None:
        if self.report.kind == "streaming":
            if event.HasField("your_turn"):
                turn = event.your_turn
                self._spawn(self.act(turn.actions[-1], turn.version))
        elif self.refreshing:
            self.again = True
        else:
            self._spawn(self.refresh())

    async def refresh(self) -> None:
        """main.ts's refresh: the view, then (playing) the legal actions of the same version."""
        self.refreshing = True
        try:
            while True:
                self.again = False
                view = await self.call("GetTable", pb.GetTableRequest(table_id=self.table_id))
                if view.status == pb.TABLE_STATUS_PLAYING:
                    legal = await self.call("GetLegalActions",
                                            pb.GetLegalActionsRequest(table_id=self.table_id))
                    if legal.version != view.version:
                        continue          # a move came between the two answers: ask again
                    if legal.your_turn and legal.version != self.acted_at:
                        await self.act(legal.actions[-1], legal.version)
                if not self.again:
                    return
        except ConnectError as e:
            self.error(f"refresh {e.code.name}")
        finally:
            self.refreshing = False

    async def act(self, action, version: int) -> None:
        """The last legal action (a take rather than a pass), after thinking."""
        self.acted_at = version
        await asyncio.sleep(self.think_s * self.rng.uniform(0.5, 1.5))
        try:
            await self.call("Act", pb.ActRequest(table_id=self.table_id, action=action,
                                                 request_id=uuid.uuid4().hex,
                                                 expected_version=version))
        except ConnectError as e:
            self.error(f"act {e.code.name}")

    def error(self, what: str) -> None:
        if self.measuring.is_set():      # not the calls cancelled once the measure is over
            self.report.errors[what] += 1

    def _spawn(self, coroutine) -> None:
        task = asyncio.get_running_loop().create_task(coroutine)
        self.tasks.add(task)
        task.add_done_callback(self.tasks.discard)


def _cpu_s(proc: psutil.Process | None) -> float:
    if proc is None:
        return 0.0
    times = proc.cpu_times()
    return times.user + times.system


async def run_pages(web_url: str, kind: str, tables: int, duration: float, *,
                    server_pid: int | None = None, think_s: float = 0.2,
                    warmup: float = 3.0) -> PagesReport:
    """``tables`` tables of four pages of ``kind`` (their games never end: the highest target),
    measured for ``duration`` seconds after ``warmup``: cards played, the unary RPCs the pages
    sent (their streams are opened before) and the server's CPU (``server_pid``)."""
    assert kind in KINDS, kind
    report = PagesReport(kind, tables, duration)
    measuring = asyncio.Event()
    proc = psutil.Process(server_pid) if server_pid else None
    async with ConnectClient(web_url, codec=google_protobuf_binary_codec(), send_compression=None,
                             accept_compression=()) as client:
        pages: list[Page] = []
        for _ in range(tables):
            created = await client.execute_unary(request=pb.CreateTableRequest(
                preset="classic", options={"target": str(MAX_TARGET)},
                request_id=uuid.uuid4().hex), method=METHODS["CreateTable"], headers={})
            for seat in range(4):       # the game starts once the fourth has joined
                joined = await client.execute_unary(request=pb.JoinTableRequest(
                    table_id=created.table_id, seat=seat, display_name=f"page{seat}",
                    request_id=uuid.uuid4().hex), method=METHODS["JoinTable"], headers={})
                pages.append(Page(client, created.table_id, seat, joined.seat_token, report,
                                  measuring, think_s))
        watches = [asyncio.create_task(page.watch()) for page in pages]
        await asyncio.sleep(warmup)
        report.errors.clear()
        cpu, started = _cpu_s(proc), time.perf_counter()
        measuring.set()
        await asyncio.sleep(duration)
        measuring.clear()
        report.server_cpu_s = _cpu_s(proc) - cpu
        report.seconds = time.perf_counter() - started
        for task in watches:
            task.cancel()
        pending = [t for page in pages for t in page.tasks]
        for task in pending:
            task.cancel()
        await asyncio.gather(*watches, *pending, return_exceptions=True)
    return report
