"""TableEvent.your_turn on a seat's own WatchTable stream: set exactly on the events after which
the table waits for that seat, with what GetLegalActions answers then and GetTable's deadline;
never for spectators or other seats, never in Act's or PostChat's answers or an export."""

from __future__ import annotations

import asyncio
import random

import pytest
from belote.load.pages import run_pages
from belote.v1 import cards_pb2, events_pb2
from belote.v1 import table_service_pb2 as pb
from google.protobuf.duration_pb2 import Duration
from embedded import embedded_server
from players import REVIEWER_TOKEN, Table, bearer, check_stream, new_table, rid, watch

pytestmark = pytest.mark.timeout(90)
PASS = cards_pb2.Action(bid=cards_pb2.Bid(passed=True))
MOVES = ("bid_made", "announcement_declared", "card_played")


def turns(events: list[events_pb2.TableEvent]) -> list[int]:
    """The sequences of the events that carry your_turn."""
    return [e.sequence for e in events if e.HasField("your_turn")]


def own_moves(events: list[events_pb2.TableEvent], seat: int) -> list[int]:
    """The sequences of the moves `seat` made (a human's: no bot set)."""
    return [e.sequence for e in events
            if (kind := e.WhichOneof("body")) in MOVES and getattr(e, kind).seat == seat
            and not getattr(e, kind).HasField("bot")]


async def exported(stub, table_id: str) -> list[pb.LoggedEvent]:
    return [line async for line in stub.ExportLog(pb.ExportLogRequest(table_id=table_id),
                                                  metadata=bearer(REVIEWER_TOKEN))]


async def test_each_seat_learns_its_turns_from_its_stream_alone(stub):
    """Two humans (seats 0 and 2) play a whole game acting only on their streams' your_turn,
    checked each time against GetLegalActions and GetTable at that very version."""
    table = await new_table(stub, "classic", {"target": "200"}, humans=(0, 2),
                            turn_timer=Duration(seconds=600))
    logs: dict[int, list[events_pb2.TableEvent]] = {0: [], 2: []}
    checked: dict[int, list] = {0: [], 2: []}
    replies: list[pb.ActResponse] = []

    async def play(seat: int) -> None:
        rng = random.Random(f"your-turn-{seat}")
        call = stub.WatchTable(pb.WatchTableRequest(table_id=table.table_id),
                               metadata=bearer(table.tokens[seat]))
        try:
            async for event in call:
                logs[seat].append(event)
                if event.HasField("game_ended"):
                    return
                if event.HasField("your_turn"):
                    turn = event.your_turn
                    # The table waits for this seat: nothing moves until it acts.
                    checked[seat].append((event.sequence, turn, await table.legal(seat),
                                          await table.view(seat)))
                    replies.append(await table.act(seat, rng.choice(turn.actions),
                                                   expected_version=turn.version))
        finally:
            call.cancel()

    spectator = asyncio.create_task(watch(stub, table.table_id))
    try:
        # Without your_turn nobody acts, and the game never ends.
        await asyncio.wait_for(asyncio.gather(play(0), play(2)), 45)
        seen_by_spectator = await asyncio.wait_for(spectator, 10)
    finally:
        spectator.cancel()

    for seat in (0, 2):
        events = logs[seat]
        assert events[-1].HasField("game_ended")
        # Exactly the events that start its turns: each right before one of its moves.
        assert turns(events) == [s - 1 for s in own_moves(events, seat)]
        assert any(e.HasField("card_played") and e.card_played.seat == seat for e in events)
        for sequence, turn, legal, view in checked[seat]:
            assert turn.version == sequence == legal.version == view.version
            assert legal.your_turn and legal.seat == seat and view.game.to_act == seat
            assert list(turn.actions) == list(legal.actions) and turn.actions
            assert view.HasField("turn_deadline_time")
            assert turn.deadline_time == view.turn_deadline_time
        assert len(checked[seat]) == len(turns(events))
    assert turns(seen_by_spectator) == []
    assert [e.sequence for e in seen_by_spectator] == [e.sequence for e in logs[0]]
    assert all(not e.HasField("your_turn") for reply in replies for e in reply.events)
    assert all(not line.event.HasField("your_turn") for line in await exported(stub, table.table_id))


async def test_a_resumed_stream_gets_the_turn_on_the_last_event_it_sends(stub):
    """Four humans pass the auction's first round: the eldest is to act again. Its stream,
    resumed from any sequence, carries your_turn on its last event only (the turn it had at the
    deal has passed); the other seats' and a spectator's never do."""
    table = await new_table(stub, "classic", {"target": "1000"})
    view = await table.view()
    eldest, dealt = view.game.to_act, view.version
    first = await watch(stub, table.table_id, table.tokens[eldest], count=dealt)
    assert turns(first) == [dealt] and first[-1].HasField("deal_started")
    assert not first[-1].your_turn.HasField("deadline_time")          # no turn timer

    replies = []
    for i in range(4):
        seat = (eldest + i) % 4
        legal = await table.legal(seat)
        assert legal.your_turn
        replies.append(await table.act(seat, PASS, expected_version=legal.version))
    version = await table.version()
    legal = await table.legal(eldest)
    assert legal.your_turn and legal.version == version == dealt + 4

    for start in (1, dealt, dealt + 1, version):
        events = await watch(stub, table.table_id, table.tokens[eldest], from_sequence=start,
                             count=version - start + 1)
        assert [e.sequence for e in events] == list(range(start, version + 1))
        assert turns(events) == [version], f"from {start}"
        turn = events[-1].your_turn
        assert turn.version == version and list(turn.actions) == list(legal.actions)
        assert not turn.HasField("deadline_time")
    for token in (table.tokens[(eldest + 1) % 4], table.tokens[(eldest + 2) % 4], None):
        events = await watch(stub, table.table_id, token, count=version)
        assert turns(events) == []

    # A chat while the eldest is to act: the table's version moves, the turn does not; the
    # chat's event carries the turn at its own version (the one Act's expected_version needs).
    chat = await stub.PostChat(pb.PostChatRequest(table_id=table.table_id, text="hurry up",
                                                  request_id=rid()),
                               metadata=bearer(table.tokens[(eldest + 1) % 4]))
    assert not chat.event.HasField("your_turn")
    events = await watch(stub, table.table_id, table.tokens[eldest], from_sequence=version + 1,
                         count=1)
    assert events[0].HasField("chat_posted") and turns(events) == [version + 1]
    assert events[0].your_turn.version == version + 1
    assert list(events[0].your_turn.actions) == list(legal.actions)
    assert list((await table.legal(eldest)).actions) == list(legal.actions)
    assert turns(await watch(stub, table.table_id, table.tokens[(eldest + 1) % 4],
                             from_sequence=version + 1, count=1)) == []

    # The eldest leaves: a takeover bot plays its seat, and its token's stream gets no turn.
    await stub.LeaveTable(pb.LeaveTableRequest(table_id=table.table_id, request_id=rid()),
                          metadata=bearer(table.tokens[eldest]))
    events = await watch(stub, table.table_id, table.tokens[eldest], from_sequence=version + 2,
                         count=2)
    assert [e.WhichOneof("body") for e in events] == ["seat_left", "bot_seated"]
    assert turns(events) == []

    assert all(not e.HasField("your_turn") for reply in replies for e in reply.events)
    assert all(not line.event.HasField("your_turn") for line in await exported(stub, table.table_id))


async def test_streams_on_a_replica_that_did_not_append_still_tell_the_turns(tmp_path):
    """Every action lands on replica `one`; the seats watch on replica `two`, whose streams the
    store's poller wakes while its cached state is behind the log."""
    moves = 12
    async with embedded_server(tmp_path) as (_, one), embedded_server(tmp_path) as (_, two):
        created = await one.CreateTable(pb.CreateTableRequest(preset="classic", request_id=rid()))
        table = Table(one, created.table_id, created.host_token, 1000)
        for seat in range(4):
            await table.join(seat, f"p{seat}")
        logs: dict[int, list[events_pb2.TableEvent]] = {s: [] for s in range(4)}
        made: list[int] = []          # the versions acted at, in order
        done = asyncio.Event()

        async def play(seat: int) -> None:
            rng = random.Random(f"replica-{seat}")
            call = two.WatchTable(pb.WatchTableRequest(table_id=table.table_id),
                                  metadata=bearer(table.tokens[seat]))
            try:
                async for event in call:
                    logs[seat].append(event)
                    if done.is_set():
                        return
                    if event.HasField("your_turn"):
                        turn = event.your_turn
                        legal = await table.legal(seat)            # asked of `one`
                        assert (legal.version, list(legal.actions)) == (turn.version, list(turn.actions))
                        await table.act(seat, rng.choice(turn.actions), expected_version=turn.version)
                        made.append(turn.version)
                        if len(made) == moves:
                            done.set()
            finally:
                call.cancel()

        await asyncio.wait_for(asyncio.gather(*(play(s) for s in range(4))), 45)
    assert len(made) == moves
    assert made == sorted(s - 1 for seat in range(4) for s in own_moves(logs[seat], seat))
    for seat in range(4):
        events = logs[seat]
        before_moves = [s - 1 for s in own_moves(events, seat)]
        # The turn a seat was given as the test stopped, not acted on, comes last.
        assert turns(events) in (before_moves, [*before_moves, events[-1].sequence])


# check_stream (tests/api/players.py) also checks the cards a turn offers: it must be able to fail.
ACE = cards_pb2.Card(suit=cards_pb2.SUIT_HEARTS, rank=cards_pb2.RANK_ACE)
SEVEN = cards_pb2.Card(suit=cards_pb2.SUIT_CLUBS, rank=cards_pb2.RANK_SEVEN)


def _dealt(*offered: cards_pb2.Card) -> events_pb2.TableEvent:
    event = events_pb2.TableEvent(sequence=1, deal_started=events_pb2.DealStarted(
        deal_number=1, deck_commitment=b"c", hand=[ACE] * 5))
    if offered:
        event.your_turn.actions.extend(cards_pb2.Action(card=c) for c in offered)
    return event


def test_the_leak_checks_know_the_cards_a_turn_offers():
    check_stream([_dealt(ACE)], 0)                     # its own card: fine
    with pytest.raises(AssertionError, match="does not hold"):
        check_stream([_dealt(SEVEN)], 0)               # a card it was not dealt
    with pytest.raises(AssertionError, match="spectator got a turn"):
        check_stream([_dealt(ACE)], None)


@pytest.mark.parametrize("kind, rpcs", [("streaming", ["Act"]),
                                        ("polling", ["Act", "GetLegalActions", "GetTable"])])
async def test_the_web_client_bench_pages_call_what_they_should(server, kind, rpcs):
    """bench/web_client_bench.py's pages (load/pages.py) on the web port: the streaming ones play
    on your_turn with Act alone; the polling ones as clients/web did."""
    report = await run_pages(server.web_url, kind, tables=1, duration=2.0, warmup=0.5,
                             think_s=0.0)
    assert report.cards > 0 and not report.errors
    assert sorted(report.calls) == rpcs
    if kind == "polling":
        # GetLegalActions only after a GetTable that shows the game being played: at most one
        # per page (four) more, for a GetTable sent before the counting started.
        assert report.calls["GetLegalActions"] <= report.calls["GetTable"] + 4, report.calls
