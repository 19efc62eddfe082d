"""The Python client library (clients/python/belote_client) against a real server: a whole game,
refused actions with the server's words, retries that reuse the request id, and a watch stream
resumed from the last sequence + 1 across cut connections and a server restart."""

from __future__ import annotations

import asyncio
import random
import time

import grpc
import pytest
from belote.v1 import cards_pb2 as c
from belote.v1 import events_pb2 as ev
from belote.v1 import table_service_pb2 as pb
from belote_client import (
    BeloteClient,
    BeloteError,
    RetryPolicy,
    TableWatch,
    card_action,
    parse_card,
    sort_hand,
)
from belote_client.cards import card_text
from client_helpers import CuttableProxy, FailAfterSending, play_turn, rpcs_handled, rpcs_since

FAST = RetryPolicy(attempts=30, call_timeout=5.0, backoff=0.05, max_backoff=0.5,
                   give_up_after=30.0)


async def play_game(client: BeloteClient, options: dict[str, str], *, on_event=None,
                    timeout: float = 30.0) -> tuple[list[ev.TableEvent], TableWatch]:
    """Seat 0 is ours (random legal actions), three NORMAL bots; follow the watch stream to
    GameEnded. Returns every event seen and the watch."""
    table = await client.create_table("classic", options)
    me = await table.join("tester")
    for _ in range(3):
        await table.add_bot(ev.BOT_LEVEL_NORMAL)
    rng = random.Random(7)
    events: list[ev.TableEvent] = []
    watch = me.watch()
    deadline = time.monotonic() + timeout
    async for event in watch:
        events.append(event)
        assert time.monotonic() < deadline, f"no end of game at sequence {event.sequence}"
        if event.HasField("game_ended"):
            break
        if on_event is not None:
            await on_event(event, me)
        await play_turn(me, rng)
    return events, watch


def assert_each_once_in_order(events: list[ev.TableEvent]) -> None:
    assert [e.sequence for e in events] == list(range(1, len(events) + 1))


async def test_a_whole_game(server):
    async with BeloteClient(server.address) as client:
        events, watch = await play_game(client, {"target": "501"})
    assert_each_once_in_order(events)
    assert watch.reconnects == 0
    ended = events[-1].game_ended
    assert max(ended.totals) >= 501
    kinds = {e.WhichOneof("body") for e in events}
    assert {"table_created", "deal_started", "bid_made", "contract_settled", "card_played",
            "trick_won", "deal_scored", "game_ended"} <= kinds


async def test_a_whole_game_from_the_stream_alone_asks_nothing_else(own_server):
    """Acting on the watch's your_turn, a whole game takes the stream and Act only: the server
    counts no GetLegalActions and no GetTable while it is played."""
    server = own_server()
    async with BeloteClient(server.address) as client:
        table = await client.create_table("classic", {"target": "501"})
        me = await table.join("tester")
        for _ in range(3):
            await table.add_bot(ev.BOT_LEVEL_NORMAL)
        before = await asyncio.to_thread(rpcs_handled, server.metrics_url)
        rng = random.Random(8)
        acts = 0
        watch = me.watch()
        async for event in watch:
            if event.HasField("game_ended"):
                break
            turn = watch.your_turn
            assert (turn is not None) == event.HasField("your_turn")
            if turn is not None:
                assert turn.version == event.sequence
                await me.act(rng.choice(turn.actions), expected_version=turn.version)
                acts += 1
        await watch.close()
        assert acts > 0 and max(event.game_ended.totals) >= 501
        assert await asyncio.to_thread(rpcs_since, before, server.metrics_url) == {"Act": acts}


async def test_a_refused_action_carries_the_servers_rule(server):
    """A card the rules forbid: FAILED_PRECONDITION, the server's sentence and reason."""
    async with BeloteClient(server.address) as client:
        refused: list[BeloteError] = []

        async def try_an_illegal_card(event, me):
            if refused:
                return
            legal = await me.legal_actions()
            cards = {(a.card.suit, a.card.rank) for a in legal.actions if a.HasField("card")}
            if not legal.your_turn or not cards:
                return
            hand = (await me.view()).game.your_hand
            illegal = [x for x in hand if (x.suit, x.rank) not in cards]
            if illegal:
                with pytest.raises(BeloteError) as info:
                    await me.act(card_action(illegal[0]))
                refused.append(info.value)

        await play_game(client, {"target": "1000"}, on_event=try_an_illegal_card)
    assert refused, "the game never offered a chance to play an illegal card"
    err = refused[0]
    assert err.code == grpc.StatusCode.FAILED_PRECONDITION
    assert err.reason and err.reason.startswith("MUST_"), err  # MUST_FOLLOW_SUIT, MUST_TRUMP...
    assert err.message and str(err) == f"FAILED_PRECONDITION: {err.message}"
    assert err.attempts == 1


@pytest.mark.parametrize("code", [grpc.StatusCode.UNAVAILABLE, grpc.StatusCode.DEADLINE_EXCEEDED])
async def test_retries_send_the_same_request_id(server, code):
    """The first reply of each call is lost after the server did the work: the client sends the
    same request again (same request id) and gets the first answer; nothing is done twice."""
    lost = {rpc: FailAfterSending(rpc, code) for rpc in ("CreateTable", "JoinTable", "Act")}
    async with BeloteClient(server.address, retry=FAST,
                            interceptors=list(lost.values())) as client:
        table = await client.create_table("classic", {"target": "1", "first_dealer": "3"})
        # Same table as the one the lost reply named: the server created only one.
        assert table.table_id == lost["CreateTable"].replies[0].table_id
        me = await table.join("retry")
        assert me.token == lost["JoinTable"].replies[0].seat_token
        for _ in range(3):
            await table.add_bot(ev.BOT_LEVEL_NORMAL)
        # first_dealer 3: seat 0 speaks first, at once.
        legal = await me.legal_actions()
        assert legal.your_turn
        reply = await me.act(legal.actions[0], expected_version=legal.version)
        first = lost["Act"].replies[0]
        assert reply.version == first.version and list(reply.events) == list(first.events)
        # Our bid is in the log once.
        events = [e async for e in _take(me.watch(), reply.version)]
        assert sum(1 for e in events if e.HasField("bid_made") and e.bid_made.seat == 0) == 1
    for interceptor in lost.values():
        ids = [r.request_id for r in interceptor.requests]
        assert len(ids) == 2 and ids[0] == ids[1] and ids[0], (interceptor.method, ids)


async def _take(watch: TableWatch, last_sequence: int):
    async for event in watch:
        yield event
        if event.sequence >= last_sequence:
            break


async def test_only_retryable_codes_are_retried(server):
    async with BeloteClient(server.address, retry=FAST) as client:
        with pytest.raises(BeloteError) as info:
            await client.create_table("no-such-preset")
    assert info.value.code == grpc.StatusCode.INVALID_ARGUMENT
    assert info.value.attempts == 1 and info.value.message


async def test_gives_up_after_its_attempts():
    policy = RetryPolicy(attempts=3, call_timeout=0.5, backoff=0.01, max_backoff=0.02)
    async with BeloteClient("127.0.0.1:1", retry=policy) as client:  # nothing listens there
        with pytest.raises(BeloteError) as info:
            await client.get_table("x")
    assert info.value.code in (grpc.StatusCode.UNAVAILABLE, grpc.StatusCode.DEADLINE_EXCEEDED)
    assert info.value.attempts == 3


async def test_watch_resumes_after_cut_connections(server):
    """The connection is cut three times during a game: the stream resumes each time from the
    last sequence + 1 and the reader sees every event exactly once, in order."""
    proxy = CuttableProxy(server.address)
    await proxy.start()
    cut_at = {15, 60, 110}

    async def maybe_cut(event, me):
        if event.sequence in cut_at:
            proxy.cut()

    try:
        async with BeloteClient(proxy.address, retry=FAST) as client:
            events, watch = await play_game(client, {"target": "501"}, on_event=maybe_cut)
    finally:
        await proxy.close()
    assert_each_once_in_order(events)
    assert len(events) > max(cut_at)
    assert watch.reconnects >= len(cut_at)


async def test_watch_and_calls_survive_a_server_restart(own_server):
    """SIGTERM the server mid-game and start it again on the same store (another port, behind
    the same proxy): the watch resumes where it was, our next action is retried until the
    server is back, and the game goes on to its end."""
    server = own_server()
    proxy = CuttableProxy(server.address)
    await proxy.start()
    restarted: list[asyncio.Task] = []

    async def bring_back():
        await asyncio.sleep(0.5)  # meanwhile our calls fail with UNAVAILABLE and are retried
        proxy.upstream = await asyncio.to_thread(server.start)

    async def restart_once(event, me):
        if restarted or event.sequence < 30:
            return
        await asyncio.to_thread(server.terminate)
        proxy.cut()
        restarted.append(asyncio.create_task(bring_back()))

    try:
        async with BeloteClient(proxy.address, retry=FAST) as client:
            events, watch = await play_game(client, {"target": "501"}, on_event=restart_once)
    finally:
        await proxy.close()
    assert restarted and restarted[0].done() and server.runs == 2
    assert_each_once_in_order(events)
    assert watch.reconnects >= 1


# -- the watch's resume logic, against a scripted stream ---------------------------------------

class _ScriptedCall:
    """A WatchTable call that yields `sequences` then fails with `code` (None: ends)."""

    def __init__(self, sequences, code):
        self.sequences, self.code, self.cancelled = list(sequences), code, False

    def cancel(self):
        self.cancelled = True

    def __aiter__(self):
        return self._run()

    async def _run(self):
        for seq in self.sequences:
            yield ev.TableEvent(sequence=seq, table_id="t")
        if self.code is not None:
            raise grpc.aio.AioRpcError(self.code, grpc.aio.Metadata(), grpc.aio.Metadata(),
                                       details="scripted")


class _ScriptedStub:
    def __init__(self, script):
        self.script = list(script)
        self.requests: list[pb.WatchTableRequest] = []

    def WatchTable(self, request, metadata=None):
        self.requests.append(request)
        return _ScriptedCall(*self.script.pop(0))


async def test_watch_reopens_from_last_sequence_plus_one_and_drops_repeats():
    script = [
        ([1, 2, 3], grpc.StatusCode.UNAVAILABLE),       # broken
        ([3, 4, 5], None),                               # a server that sends 3 again; ends
        ([6], grpc.StatusCode.RESOURCE_EXHAUSTED),      # too slow a reader: reconnect
        ([6, 7, 8, 9], grpc.StatusCode.UNAVAILABLE),
    ]
    client = BeloteClient("127.0.0.1:1", retry=RetryPolicy(backoff=0.001, max_backoff=0.001))
    client.stub = _ScriptedStub(script)
    seen = []
    async for event in client.watch("t", "token", from_sequence=1):
        seen.append(event.sequence)
        if event.sequence == 9:
            break
    await client.close()
    assert seen == [1, 2, 3, 4, 5, 6, 7, 8, 9]
    assert [r.from_sequence for r in client.stub.requests] == [1, 4, 6, 7]


async def test_watch_raises_on_errors_that_a_retry_cannot_fix():
    client = BeloteClient("127.0.0.1:1")
    client.stub = _ScriptedStub([([1], grpc.StatusCode.NOT_FOUND)])
    seen = []
    with pytest.raises(BeloteError) as info:
        async for event in client.watch("t"):
            seen.append(event.sequence)
    await client.close()
    assert seen == [1] and info.value.code == grpc.StatusCode.NOT_FOUND


def test_card_text_round_trips_and_hands_sort_like_a_player_holds_them():
    for text in ("7♣", "10♥", "J♠", "A♦"):
        assert card_text(parse_card(text)) == text
    assert card_text(parse_card("10h")) == "10♥" and card_text(parse_card("qs")) == "Q♠"
    with pytest.raises(ValueError):
        parse_card("1x")
    hand = [parse_card(t) for t in ("7h", "Jh", "As", "9h", "10s", "Kd")]
    plain = [card_text(x) for x in sort_hand(hand)]
    assert plain == ["A♠", "10♠", "J♥", "9♥", "7♥", "K♦"]
    trump = [card_text(x) for x in sort_hand(hand, c.CONTRACT_HEARTS)]
    assert trump == ["J♥", "9♥", "7♥", "A♠", "10♠", "K♦"]
