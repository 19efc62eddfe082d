"""A bare grpc.aio TableService: the same RPCs, carrying the same messages as a real table, with
no rules, no store and no redaction done while serving.

Before it serves, it plays one classic game as the load's players do (each seat takes its last
legal action) and keeps, for every command, the events it appended as each seat sees them and
the legal actions of the seat whose turn it was. Each table then replays that script: JoinTable
and Act append the next command's events (a fresh sequence and time), GetLegalActions answers
from it, and every watch stream gets its seat's copy. The load's client therefore does the same
work against both servers (1.4 events per card, each to four seats, and 1.03 actions per card:
the deals, bids, tricks and scores around the cards), and the difference in throughput is our
server's own work: the gRPC ceiling for this very traffic.
"""

from __future__ import annotations

import asyncio
import itertools
import random
from dataclasses import dataclass, replace

import grpc

from belote.rules import rules_for
from belote.rules.options import MAX_STORED_TARGET
from belote.table.codec import action_to_pb
from belote.table.decide import Act, CreateTable, JoinSeat, NextDeal, decide
from belote.table.state import TableState, evolve
from belote.table.views import Redactor
from belote.v1 import events_pb2 as epb
from belote.v1 import table_service_pb2 as pb
from belote.v1 import table_service_pb2_grpc as tgrpc

SCRIPT_ACTIONS = 4000      # actions per table before the script starts over (~100 deals)


@dataclass(frozen=True)
class Step:
    """One command of the script: who acts (None for a join), what it could do, and the events
    it appended as each seat sees them (the same message when nothing is hidden)."""
    seat: int | None
    legal: tuple
    seen: tuple[tuple[epb.TableEvent, ...], ...]     # per event: the four seats' views


def play_script(actions: int = SCRIPT_ACTIONS, seed: int = 1) -> tuple[Step, list[Step], list[Step]]:
    """(the creation, the four joins, the actions) of a classic game that never reaches its
    target."""
    rng = random.Random(seed)
    rules = replace(rules_for("classic"), target=MAX_STORED_TARGET)
    state = TableState("bare")
    redactors = [Redactor(seat) for seat in range(4)]

    def run(command, seat=None, legal=()) -> Step:
        deal = NextDeal(tuple(rng.sample(range(32), 32)), rng.randbytes(16))
        events = decide(state, command, deal)
        for event in events:
            event.sequence = state.version + 1
            evolve(state, event)
        return Step(seat, legal, tuple(_shared(tuple(r.see(e) for r in redactors)) for e in events))

    created = run(CreateTable(epb.TableCreated(name="bare", preset="classic", options=rules.as_strings())))
    joins = [run(JoinSeat(seat, f"load{seat}", bytes([seat]) * 32)) for seat in range(4)]
    steps = []
    for _ in range(actions):
        seat = state.to_act()
        legal = state.game.legal_actions(seat)
        steps.append(run(Act(seat, legal[-1]), seat, tuple(action_to_pb(a) for a in legal)))
    return created, joins, steps


def _shared(views: tuple[epb.TableEvent, ...]) -> tuple[epb.TableEvent, ...]:
    """The four views, one message for the seats that see the same."""
    by_bytes: dict[bytes, epb.TableEvent] = {}
    return tuple(by_bytes.setdefault(v.SerializeToString(deterministic=True), v) for v in views)


class BareTable:
    def __init__(self, table_id: str) -> None:
        self.table_id = table_id
        self.events: list[tuple[epb.TableEvent, ...]] = []    # per event: the four seats' copies
        self.joined = 0
        self.step = 0
        self.changed = asyncio.Condition()

    async def append(self, step: Step) -> None:
        for seen in step.seen:
            copies: dict[int, epb.TableEvent] = {}
            stamped = []
            for view in seen:
                copy = copies.get(id(view))
                if copy is None:
                    copy = copies[id(view)] = epb.TableEvent()
                    copy.CopyFrom(view)
                    copy.sequence = len(self.events) + 1
                    copy.table_id = self.table_id
                    copy.append_time.GetCurrentTime()
                stamped.append(copy)
            self.events.append(tuple(stamped))
        async with self.changed:
            self.changed.notify_all()


class BareService(tgrpc.TableServiceServicer):
    def __init__(self, created: Step, joins: list[Step], steps: list[Step]) -> None:
        self.created, self.joins, self.steps = created, joins, steps
        self.tables: dict[str, BareTable] = {}
        self.ids = itertools.count(1)

    def _seat(self, context) -> int:
        token = dict(context.invocation_metadata()).get("authorization", "")
        return int(token.rsplit(":", 1)[-1])

    def _step(self, table: BareTable) -> Step:
        return self.steps[table.step % len(self.steps)]

    async def CreateTable(self, request, context):
        table_id = f"bare{next(self.ids)}"
        table = self.tables[table_id] = BareTable(table_id)
        await table.append(self.created)
        return pb.CreateTableResponse(table_id=table_id, host_token="host")

    async def JoinTable(self, request, context):
        table = self.tables[request.table_id]
        await table.append(self.joins[table.joined % 4])
        table.joined += 1
        return pb.JoinTableResponse(seat=request.seat, seat_token=f"t:{request.seat}")

    async def GetLegalActions(self, request, context):
        table = self.tables[request.table_id]
        seat = self._seat(context)
        step = self._step(table)
        mine = step.seat == seat
        return pb.GetLegalActionsResponse(version=len(table.events), seat=seat, your_turn=mine,
                                          actions=step.legal if mine else ())

    async def Act(self, request, context):
        table = self.tables[request.table_id]
        seat = self._seat(context)
        first = len(table.events)
        await table.append(self._step(table))
        table.step += 1
        return pb.ActResponse(version=len(table.events),
                              events=[seen[seat] for seen in table.events[first:]])

    async def WatchTable(self, request, context):
        table = self.tables[request.table_id]
        seat = self._seat(context)
        sent = max(request.from_sequence, 1) - 1
        while True:
            while sent < len(table.events):
                yield table.events[sent][seat]
                sent += 1
            async with table.changed:
                await table.changed.wait_for(lambda n=sent: len(table.events) > n)


async def serve_bare(listen: str = "127.0.0.1:0") -> tuple[grpc.aio.Server, int]:
    server = grpc.aio.server()
    tgrpc.add_TableServiceServicer_to_server(BareService(*play_script()), server)
    port = server.add_insecure_port(listen)
    await server.start()
    return server, port


async def _main(listen: str) -> None:
    server, port = await serve_bare(listen)
    print(f"listening on 127.0.0.1:{port}", flush=True)
    await server.wait_for_termination()


if __name__ == "__main__":
    import sys
    asyncio.run(_main(sys.argv[1] if len(sys.argv) > 1 else "127.0.0.1:0"))
