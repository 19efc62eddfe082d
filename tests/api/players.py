"""Test clients of a real server: seats that play random legal actions, streams, leak checks."""

from __future__ import annotations

import asyncio
import random
import time
import uuid
from dataclasses import dataclass, field

import grpc
from belote.v1 import cards_pb2, events_pb2
from belote.v1 import table_service_pb2 as pb

GAME_TIMEOUT_S = 60.0
REVIEWER_TOKEN = "reviewer-7c1f0e2a9b5d4c36"  # what the test servers are started with


def rid() -> str:
    return uuid.uuid4().hex


def bearer(token: str) -> tuple[tuple[str, str], ...]:
    return (("authorization", f"Bearer {token}"),)


@dataclass
class Table:
    """A table a test created: its id, host token and the seat tokens of its humans."""

    stub: object
    table_id: str
    host_token: str
    target: int
    tokens: dict[int, str] = field(default_factory=dict)
    password: str = ""      # a private table's: a spectator view needs it

    async def view(self, seat: int | None = None) -> pb.Table:
        md = bearer(self.tokens[seat]) if seat is not None else None
        return await self.stub.GetTable(pb.GetTableRequest(table_id=self.table_id,
                                                           password=self.password), metadata=md)

    async def version(self) -> int:
        return (await self.view()).version

    async def legal(self, seat: int) -> pb.GetLegalActionsResponse:
        return await self.stub.GetLegalActions(pb.GetLegalActionsRequest(table_id=self.table_id),
                                               metadata=bearer(self.tokens[seat]))

    async def act(self, seat: int, action: cards_pb2.Action, *, request_id: str | None = None,
                  expected_version: int | None = None) -> pb.ActResponse:
        req = pb.ActRequest(table_id=self.table_id, action=action,
                            request_id=rid() if request_id is None else request_id)
        if expected_version is not None:
            req.expected_version = expected_version
        return await self.stub.Act(req, metadata=bearer(self.tokens[seat]))

    async def join(self, seat: int | None = None, name: str = "tester", **kw) -> pb.JoinTableResponse:
        req = pb.JoinTableRequest(table_id=self.table_id, display_name=name,
                                  request_id=kw.pop("request_id", None) or rid(), **kw)
        if seat is not None:
            req.seat = seat
        reply = await self.stub.JoinTable(req)
        self.tokens[reply.seat] = reply.seat_token
        return reply

    async def add_bot(self, seat: int | None = None) -> pb.AddBotResponse:
        req = pb.AddBotRequest(table_id=self.table_id, level=events_pb2.BOT_LEVEL_EASY, request_id=rid())
        if seat is not None:
            req.seat = seat
        return await self.stub.AddBot(req, metadata=bearer(self.host_token))

    async def step(self, rng: random.Random) -> bool:
        """Let the first human whose turn it is play a random legal action; False if none could."""
        for seat in sorted(self.tokens):
            legal = await self.legal(seat)
            if legal.your_turn:
                # expected_version: nobody else may move while it is this seat's turn.
                await self.act(seat, rng.choice(legal.actions), expected_version=legal.version)
                return True
        return False

    async def play(self, rng: random.Random, until=None, timeout: float = GAME_TIMEOUT_S) -> pb.Table:
        """Humans play random legal actions (bots play by themselves) until `until(table)` holds
        on the spectator view; by default until the game is over. Returns that view."""
        until = until or (lambda t: t.status == pb.TABLE_STATUS_FINISHED)
        deadline = time.monotonic() + timeout
        while True:
            table = await self.view()
            if until(table):
                return table
            assert time.monotonic() < deadline, f"table {self.table_id} stuck at {table}"
            if not await self.step(rng):
                await asyncio.sleep(0.01)  # a bot is thinking


async def new_table(stub, preset: str = "classic", options: dict | None = None,
                    humans=(0, 1, 2, 3), **create) -> Table:
    """A table with humans on `humans` (joined first) and EASY bots on the other seats."""
    options = dict(options or {})
    created = await stub.CreateTable(pb.CreateTableRequest(
        preset=preset, options=options, request_id=rid(), **create))
    table = Table(stub, created.table_id, created.host_token,
                  int(created.table.options["target"]), password=create.get("password", ""))
    for seat in humans:
        await table.join(seat, name=f"human{seat}", password=create.get("password", ""))
    for seat in sorted(set(range(4)) - set(humans)):
        await table.add_bot(seat)
    return table


async def rpc_error(awaitable) -> grpc.aio.AioRpcError:
    """The error an RPC ends with (fails the test if it succeeds)."""
    try:
        result = await awaitable
    except grpc.aio.AioRpcError as err:
        return err
    raise AssertionError(f"expected an error, got {result!r}")


# Streams ------------------------------------------------------------------------------------
async def watch(stub, table_id: str, token: str | None = None, from_sequence: int = 1,
                count: int | None = None, until_game_ended: bool = True,
                timeout: float = GAME_TIMEOUT_S) -> list[events_pb2.TableEvent]:
    """Read a WatchTable stream until `count` events, or until GameEnded; then cancel it."""
    call = stub.WatchTable(pb.WatchTableRequest(table_id=table_id, from_sequence=from_sequence),
                           metadata=bearer(token) if token else None)
    events: list[events_pb2.TableEvent] = []

    async def read():
        async for event in call:
            events.append(event)
            if count is not None and len(events) >= count:
                return
            if count is None and until_game_ended and event.HasField("game_ended"):
                return

    try:
        await asyncio.wait_for(read(), timeout)
    finally:
        call.cancel()
    return events


# Leak checks --------------------------------------------------------------------------------
def _card_key(card: cards_pb2.Card) -> tuple[int, int]:
    return card.suit, card.rank


def cards_in(msg, path: str = ""):
    """(path, card) for every Card anywhere in `msg`, e.g. ("deal_started.hand", card)."""
    for fd, value in msg.ListFields():
        if fd.message_type is None or fd.message_type.GetOptions().map_entry:
            continue  # scalars, and maps (all of string -> string)
        for item in (value if fd.is_repeated else [value]):
            here = f"{path}.{fd.name}" if path else fd.name
            if fd.message_type.full_name == "belote.v1.Card":
                yield here, item
            else:
                yield from cards_in(item, here)


# Cards anyone may see when the event comes: played, turned up, shown in announcements (classic
# ones at trick 2; an enhanced one when declared, sheet 004: "se dire et se montrer"), or of a
# deck disclosed once its deal is over.
PUBLIC_CARDS = {"deal_started.turned_card", "card_played.card", "deck_revealed.deck",
                "announcements_revealed.announcements.cards", "announcement_declared.cards"}
OWN_HAND = {"deal_started.hand", "contract_settled.hand"}
OFFERED = "your_turn.actions.card"     # the cards a seat may play now: its own, still held


def check_stream(events: list[events_pb2.TableEvent], seat: int | None) -> None:
    """What one viewer's stream may hold. `seat` None: a spectator, who sees no hand at all.

    A seat sees only its own hand: every card of its DealStarted/ContractSettled hand must be
    one it plays later in that deal (all 8 are played when the deal is played out), and no
    other card appears before it is played; the cards its your_turn offers are ones it still
    holds. Secrets (hashes, deck, salt) are never shown.
    """
    assert [e.sequence for e in events] == list(range(events[0].sequence,
                                                      events[0].sequence + len(events)))
    hand: set = set()
    played: set = set()
    for event in events:
        kind = event.WhichOneof("body")
        body = getattr(event, kind)
        offered = set()
        for path, card in cards_in(event):
            if path == OFFERED:
                assert seat is not None, f"spectator got a turn at {event.sequence}: {event}"
                offered.add(_card_key(card))
            elif path in OWN_HAND:
                assert seat is not None, f"spectator got a hand at {event.sequence}: {event}"
                hand.add(_card_key(card))
            else:
                assert path in PUBLIC_CARDS, f"seat {seat} sees {path} at {event.sequence}"
        if kind == "table_created":
            assert not body.password_hash and not body.password_salt and not body.host_token_hash
        elif kind == "seat_joined":
            assert not body.token_hash
        elif kind == "deal_started":
            assert not body.deck and not body.salt
            assert body.deck_commitment
            hand, played = {_card_key(c) for c in body.hand}, set()
            if seat is not None:
                assert len(body.hand) in (5, 8)
        elif kind == "contract_settled" and seat is not None:
            assert len(body.hand) == 8 and hand <= {_card_key(c) for c in body.hand}
        elif kind == "announcement_declared" and body.seat == seat:
            shown = {_card_key(c) for c in body.cards}
            assert shown <= hand, f"seat {seat} declared cards it was not dealt"
        elif kind == "card_played" and body.seat == seat:
            assert _card_key(body.card) in hand, f"seat {seat} played a card not in its hand"
            played.add(_card_key(body.card))
        elif kind == "deal_scored" and seat is not None:
            assert played == hand, f"seat {seat}: hand {hand} but played {played}"
        assert offered <= hand - played, f"seat {seat} offered cards it does not hold at {event.sequence}"


def check_game_end(events: list[events_pb2.TableEvent], target: int) -> events_pb2.GameEnded:
    """The stream ends the game: GameEnded totals = last DealScored totals, winner >= target."""
    scored = [e.deal_scored for e in events if e.HasField("deal_scored")]
    ended = [e.game_ended for e in events if e.HasField("game_ended")]
    assert len(ended) == 1 and events[-1].HasField("game_ended")
    end = ended[0]
    assert scored, "a game ended without a scored deal"
    assert list(end.totals) == list(scored[-1].totals)
    winner, loser = end.totals[end.winning_team], end.totals[1 - end.winning_team]
    assert winner >= target and winner > loser, (list(end.totals), end.winning_team, target)
    return end
