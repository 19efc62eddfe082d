"""Clients of a group of replicas: a call that fails with UNAVAILABLE is sent again, with the
same request (so the same request_id), to the next replica; a broken stream resumes from its
last sequence + 1 on the next replica. That is all a front-end has to do to survive a replica
crash or a database restart."""

from __future__ import annotations

import asyncio
import random
import time
import uuid
from dataclasses import dataclass, field

import grpc
from belote.v1 import cards_pb2, events_pb2, table_service_pb2_grpc
from belote.v1 import table_service_pb2 as pb

RETRYABLE = (grpc.StatusCode.UNAVAILABLE, grpc.StatusCode.DEADLINE_EXCEEDED)
CALL_TIMEOUT_S = 10.0
GIVE_UP_S = 60.0


def rid() -> str:
    return uuid.uuid4().hex


def bearer(token: str | None):
    return (("authorization", f"Bearer {token}"),) if token else None


class Cluster:
    """One channel per replica address; clients pick a replica by index."""

    def __init__(self, addresses: list[str]):
        self.addresses = addresses
        self.channels = [grpc.aio.insecure_channel(a) for a in addresses]
        self.stubs = [table_service_pb2_grpc.TableServiceStub(c) for c in self.channels]

    async def close(self) -> None:
        for c in self.channels:
            await c.close()


@dataclass
class Client:
    """A front-end talking to one replica at a time (`home`), moving on when it fails."""

    cluster: Cluster
    home: int
    token: str | None = None
    name: str = "client"
    moves: list[tuple[int, int, str]] = field(default_factory=list)  # (from, to, why)
    failures: list[grpc.StatusCode] = field(default_factory=list)

    @property
    def stub(self):
        return self.cluster.stubs[self.home]

    def move_on(self, why: str) -> None:
        to = (self.home + 1) % len(self.cluster.stubs)
        self.moves.append((self.home, to, why))
        self.home = to

    async def call(self, method: str, request, give_up: float = GIVE_UP_S):
        """A unary call, sent again (same request) to the next replica on UNAVAILABLE."""
        deadline = time.monotonic() + give_up
        delay = 0.05
        while True:
            try:
                return await getattr(self.stub, method)(request, metadata=bearer(self.token),
                                                         timeout=CALL_TIMEOUT_S)
            except grpc.aio.AioRpcError as err:
                if err.code() not in RETRYABLE or time.monotonic() > deadline:
                    raise
                self.failures.append(err.code())
                self.move_on(f"{method}: {err.code().name}")
                await asyncio.sleep(delay)
                delay = min(delay * 2, 0.5)

    async def watch(self, table_id: str, on_event=None, from_sequence: int = 1,
                    give_up: float = GIVE_UP_S) -> list[events_pb2.TableEvent]:
        """Every event from `from_sequence` up to GameEnded, resuming after failures."""
        events: list[events_pb2.TableEvent] = []
        next_sequence = from_sequence
        deadline = time.monotonic() + give_up
        delay = 0.05
        while True:
            call = self.stub.WatchTable(
                pb.WatchTableRequest(table_id=table_id, from_sequence=next_sequence),
                metadata=bearer(self.token))
            try:
                async for event in call:
                    events.append(event)
                    next_sequence = event.sequence + 1
                    delay = 0.05
                    deadline = time.monotonic() + give_up
                    if on_event is not None:
                        await on_event(event)
                    if event.HasField("game_ended"):
                        return events
                why = "stream ended"  # e.g. a replica shutting down
            except grpc.aio.AioRpcError as err:
                if err.code() not in RETRYABLE or time.monotonic() > deadline:
                    raise
                self.failures.append(err.code())
                why = f"WatchTable: {err.code().name}"
            finally:
                call.cancel()
            if time.monotonic() > deadline:
                raise TimeoutError(f"{self.name}: no event for {give_up} s")
            self.move_on(why)
            await asyncio.sleep(delay)
            delay = min(delay * 2, 0.5)


@dataclass
class Player(Client):
    """A human seat: acts (random legal action, fresh request_id) whenever it is its turn,
    which it learns from its own stream."""

    seat: int = 0
    rng: random.Random = field(default_factory=random.Random)
    table_id: str = ""
    acts: int = 0
    refused: list[str] = field(default_factory=list)

    async def maybe_act(self, _event=None) -> None:
        legal = await self.call("GetLegalActions", pb.GetLegalActionsRequest(
            table_id=self.table_id))
        if not legal.your_turn or not legal.actions:
            return
        action: cards_pb2.Action = self.rng.choice(list(legal.actions))
        req = pb.ActRequest(table_id=self.table_id, action=action, request_id=rid(),
                            expected_version=legal.version)
        try:
            await self.call("Act", req)  # resent as is (same request_id) after a failure
            self.acts += 1
        except grpc.aio.AioRpcError as err:
            # Someone moved first (a takeover, a retried request that did land): look again.
            if err.code() not in (grpc.StatusCode.ABORTED, grpc.StatusCode.FAILED_PRECONDITION):
                raise
            self.refused.append(f"{err.code().name}: {err.details()}")

    async def play(self) -> list[events_pb2.TableEvent]:
        """Watch the table as this seat and act on every turn until the game ends."""
        return await self.watch(self.table_id, on_event=self.maybe_act)


async def create_table(client: Client, humans=(0, 1, 2, 3), bots=(), target: str = "300",
                       preset: str = "classic") -> tuple[str, dict[int, str]]:
    """A table created through `client`, humans joined, bots seated: (table id, seat tokens)."""
    created = await client.call("CreateTable", pb.CreateTableRequest(
        preset=preset, options={"target": target}, request_id=rid()))
    tokens = {}
    for seat in humans:
        joined = await client.call("JoinTable", pb.JoinTableRequest(
            table_id=created.table_id, seat=seat, display_name=f"human{seat}", request_id=rid()))
        tokens[seat] = joined.seat_token
    host = Client(client.cluster, client.home, created.host_token)
    for seat in bots:
        await host.call("AddBot", pb.AddBotRequest(
            table_id=created.table_id, seat=seat, level=events_pb2.BOT_LEVEL_EASY, request_id=rid()))
    return created.table_id, tokens
