"""WatchTable: resuming from any sequence gives exactly the rest of the log; viewers see only
what they may (the leak checks themselves are checked here too, on forged events)."""

from __future__ import annotations

import asyncio
import random

import grpc
import pytest
from belote.v1 import cards_pb2, events_pb2
from belote.v1 import table_service_pb2 as pb
from players import Table, bearer, check_game_end, check_stream, new_table, rid, rpc_error, watch

pytestmark = pytest.mark.timeout(90)


@pytest.fixture
async def finished(stub):
    """A finished game with one human (seat 1) and three bots."""
    table = await new_table(stub, "classic", {"target": "200"}, humans=(1,))
    await table.play(random.Random("finished"))
    return table


async def test_resuming_from_every_sequence_gives_exactly_the_rest(stub, finished):
    table = finished
    version = await table.version()
    for token in (None, table.tokens[1]):  # a spectator, then the human's seat
        full = await watch(stub, table.table_id, token)
        assert [e.sequence for e in full] == list(range(1, version + 1))
        check_game_end(full, table.target)
        check_stream(full, None if token is None else 1)
        assert await watch(stub, table.table_id, token, from_sequence=0) == full

        # A few streams at a time, not hundreds (and within one caller's 10 spectator streams).
        gate = asyncio.Semaphore(5)

        async def rest(start, token=token, gate=gate):
            async with gate:
                return start, await watch(stub, table.table_id, token, from_sequence=start,
                                          count=version - start + 1, timeout=10)

        for start, events in await asyncio.gather(*(rest(s) for s in range(1, version + 1))):
            assert events == full[start - 1:], f"resumed from {start}"


async def test_from_the_next_sequence_the_stream_waits_and_past_it_is_out_of_range(stub, finished):
    version = await finished.version()
    with pytest.raises(asyncio.TimeoutError):  # nothing yet, but the stream is open
        await watch(stub, finished.table_id, from_sequence=version + 1, count=1, timeout=0.5)
    err = await rpc_error(watch(stub, finished.table_id, from_sequence=version + 2, count=1))
    assert err.code() == grpc.StatusCode.OUT_OF_RANGE


async def test_live_events_follow_the_past_ones(stub):
    table = await new_table(stub, "classic", {"target": "200"}, humans=(0, 2))
    first = await watch(stub, table.table_id, count=3)  # the game starts only once all are seated
    stream = asyncio.create_task(watch(stub, table.table_id, table.tokens[0], from_sequence=4))
    await table.play(random.Random("live"))
    events = await stream
    assert events[0].sequence == 4 and events[-1].sequence == await table.version()
    check_stream(first + events, 0)


# The checker must be able to fail: forge the leaks it is there to catch.
def _deal(hand=(), **kw):
    return events_pb2.TableEvent(sequence=1, deal_started=events_pb2.DealStarted(
        deal_number=1, deck_commitment=b"c", hand=list(hand), **kw))


CARD = cards_pb2.Card(suit=cards_pb2.SUIT_HEARTS, rank=cards_pb2.RANK_ACE)


@pytest.mark.parametrize("events, seat", [
    ([_deal([CARD] * 5)], None),                         # a spectator with a hand
    ([_deal([CARD] * 5, deck=[CARD] * 32)], 0),          # a deck before its deal ends
    ([_deal([CARD] * 5, salt=b"s")], 0),                 # its salt
    ([_deal([CARD] * 5), events_pb2.TableEvent(sequence=2, card_played=events_pb2.CardPlayed(
        seat=0, card=cards_pb2.Card(suit=cards_pb2.SUIT_CLUBS, rank=cards_pb2.RANK_ACE)))], 0),  # not held
    ([events_pb2.TableEvent(sequence=1, seat_joined=events_pb2.SeatJoined(token_hash=b"h"))], 0),
    ([_deal(), _deal()], None),                          # a repeated sequence
])
def test_the_leak_checks_catch_leaks(events, seat):
    with pytest.raises(AssertionError):
        check_stream(events, seat)


async def test_unknown_table_and_negative_sequence(stub, finished):
    err = await rpc_error(watch(stub, "no-such-table", count=1))
    assert err.code() == grpc.StatusCode.NOT_FOUND
    err = await rpc_error(watch(stub, finished.table_id, from_sequence=-1, count=1))
    assert err.code() == grpc.StatusCode.INVALID_ARGUMENT  # proto: negative from_sequence


async def test_get_table_shows_a_seat_its_hand_and_a_spectator_none(stub):
    table = await new_table(stub, "classic", humans=(0, 1, 2, 3))
    hands = [{(c.suit, c.rank) for c in (await table.view(s)).game.your_hand} for s in range(4)]
    assert [len(h) for h in hands] == [5, 5, 5, 5]
    assert len(set().union(*hands)) == 20  # four different hands
    spectator = await table.view()
    assert spectator.your_seat == -1 and not spectator.game.your_hand
    assert (await table.view(2)).your_seat == 2


async def test_a_stream_of_a_seat_left_ends_before_the_next_players_cards(stub):
    """The seat's holder opens its stream, leaves before the game starts and keeps the stream
    open; another player sits there and the game starts: the old stream never shows the new
    player's hand. It ends right after its own SeatLeft, PERMISSION_DENIED SEAT_LEFT."""
    created = await stub.CreateTable(pb.CreateTableRequest(preset="classic", request_id=rid()))
    table = Table(stub, created.table_id, created.host_token, 1000)
    await table.join(0, name="Ann")
    old_token = table.tokens[0]
    call = stub.WatchTable(pb.WatchTableRequest(table_id=table.table_id), metadata=bearer(old_token))
    seen: list = []

    async def read():
        async for event in call:
            seen.append(event)

    reading = asyncio.create_task(read())
    while not seen:
        await asyncio.sleep(0.05)
    await stub.LeaveTable(pb.LeaveTableRequest(table_id=table.table_id, request_id=rid()),
                          metadata=bearer(old_token))
    await table.join(0, name="Bea")
    for seat in (1, 2, 3):
        await table.add_bot(seat)
    await asyncio.sleep(1.0)       # the game has started: DealStarted is in the log
    with pytest.raises(grpc.aio.AioRpcError) as ended:
        await asyncio.wait_for(reading, 10)
    assert ended.value.code() == grpc.StatusCode.PERMISSION_DENIED
    kinds = [e.WhichOneof("body") for e in seen]
    assert kinds[-1] == "seat_left" and "deal_started" not in kinds, kinds
    log = await watch(stub, table.table_id, count=(await table.version()), until_game_ended=False)
    assert any(e.HasField("deal_started") for e in log)
