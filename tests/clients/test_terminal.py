"""`belote play`'s Textual app, driven key by key with Textual's pilot against a real server:
a game against bots, a refused card with the server's message, a game with a friend, chat,
and a table that does not exist."""

from __future__ import annotations

import asyncio
import random
import time

import grpc
import pytest
from belote.play.app import PlayApp
from belote.v1 import table_service_pb2 as pb
from belote_client import BeloteClient, BeloteError
from client_helpers import play_turn, rpcs_handled, rpcs_since
from rich.text import Text

SIZE = (120, 40)
GAME_TIMEOUT = 30.0


async def until(pilot, predicate, timeout: float = 10.0, what: str = "") -> None:
    deadline = time.monotonic() + timeout
    while not predicate():
        assert time.monotonic() < deadline, f"timed out waiting for {what or predicate}:\n" + (
            pilot.app.screen_text() if pilot.app.model else "")
        await pilot.pause(0.02)


async def press_and_wait(pilot, key: str) -> None:
    """Press a key that acts, and wait for the screen to show the table after it (a newer
    version of it), or the server's refusal."""
    app = pilot.app
    version = app.model.legal.version
    app.model.message = Text()
    await pilot.press(key)
    await until(pilot, lambda: not app._acting and (app.model.legal.version != version
                                                     or "refused" in app.model.message.plain),
                what=f"the answer to {key!r}")


def game_over(app: PlayApp) -> bool:
    return app.model is not None and app.model.table.status == pb.TABLE_STATUS_FINISHED


async def play_to_the_end(pilot, rng: random.Random, between=None) -> set[str]:
    """Press legal keys whenever it is our turn, until the game is over. Returns every screen
    line seen that tells the state (for checks)."""
    app = pilot.app
    seen: set[str] = set()
    deadline = time.monotonic() + GAME_TIMEOUT
    while not game_over(app):
        assert time.monotonic() < deadline, app.screen_text()
        seen.update(line.strip() for line in app.screen_text().splitlines())
        if between is not None:
            await between()
        keys = app.model.legal_keys()
        if keys and not app._acting:
            await press_and_wait(pilot, rng.choice(sorted(keys)))
        else:
            await pilot.pause(0.02)
    seen.update(line.strip() for line in app.screen_text().splitlines())
    return seen


async def test_a_game_against_three_bots(server):
    rng = random.Random(3)
    app = PlayApp(server.address, options={"target": "1"}, name="Ana")
    refused: list[tuple[str, str]] = []
    async with app.run_test(size=SIZE) as pilot:
        await until(pilot, app.ready.is_set, what="the first view")
        assert app.seat == 0
        # The first view may be drawn before the stream's first events reach the log.
        await until(pilot, lambda: "Table created" in app.screen_text(), what="the log's first lines")
        text = app.screen_text()
        assert f"Table {app.table_id}" in text and "to 1 points" in text
        assert "North (partner): normal bot; East: normal bot; West: normal bot" in text

        async def refuse_one_card():
            """Once, in the card play, press a card the rules forbid: the server's own
            message must be on screen."""
            model = app.model
            keys = model.legal_keys()
            cards = [k for k, a in keys.items() if a.HasField("card")]
            illegal = [str(i) for i in range(1, len(model.hand()) + 1) if str(i) not in cards]
            if refused or not cards or not illegal or app._acting:
                return
            action = model.action_for_key(illegal[0])
            async with BeloteClient(server.address) as client:  # what the server says to it
                with pytest.raises(BeloteError) as info:
                    await client.act(app.table_id, app.token, action)
            await press_and_wait(pilot, illegal[0])
            refused.append((info.value.message, app.model.message.plain))

        seen = await play_to_the_end(pilot, rng, between=refuse_one_card)
        final = app.screen_text()
        await pilot.press("q")
    assert app.return_code == 0
    # The refused card: the server's message, word for word. Which rule refused it depends on
    # the deal (the server shuffles): "you must follow...", "you cannot follow...: you must trump".
    assert refused, "no chance to play a forbidden card in this game"
    server_message, on_screen = refused[0]
    assert "you must" in server_message and on_screen.endswith(server_message)
    assert "refused" in on_screen
    # What the screen showed along the way.
    lines = "\n".join(seen)
    assert "Your hand:" in lines and "Your turn" in lines
    assert "Trump: " in lines and ", taken by " in lines and "Score: you & partner" in lines
    assert "Last trick:" in lines
    assert "Game over:" in final and "Press" in final
    log = "\n".join(app.log_lines)
    assert "took:" in log and " won trick " in log and "scored" in log and "Game over" in log


async def test_a_game_asks_for_no_legal_actions(own_server):
    """The seat's moves come with its stream (your_turn) and its view is folded from the
    stream: a whole game through the terminal makes no GetLegalActions call and one GetTable
    (the first view), and acts."""
    server = own_server()
    before = await asyncio.to_thread(rpcs_handled, server.metrics_url)
    app = PlayApp(server.address, options={"target": "1"}, name="Ana")
    async with app.run_test(size=SIZE) as pilot:
        await until(pilot, app.ready.is_set, what="the first view")
        await play_to_the_end(pilot, random.Random(4))
        await pilot.press("q")
    handled = await asyncio.to_thread(rpcs_since, before, server.metrics_url)
    assert sorted(handled) == ["Act", "AddBot", "CreateTable", "GetTable", "JoinTable"]
    assert (handled["CreateTable"], handled["JoinTable"], handled["AddBot"], handled["GetTable"]) \
        == (1, 1, 3, 1)
    assert handled["Act"] >= 1


async def test_a_game_with_a_friend(server):
    """The terminal joins a friend's table (--table): it waits for players and shows how to
    join, then plays a game with the friend (driven through the client library) and two bots."""
    rng = random.Random(5)
    async with BeloteClient(server.address) as client:
        table = await client.create_table("classic", {"target": "1"})
        bob = await table.join("Bob", seat=1)
        app = PlayApp(server.address, table_id=table.table_id, name="Ana")
        async with app.run_test(size=SIZE) as pilot:
            await until(pilot, app.ready.is_set, what="the first view")
            assert app.seat == 0  # the lowest free seat
            text = app.screen_text()
            assert "Waiting for players: 2/4" in text
            assert f"belote play --target {server.address} --table {table.table_id}" in text
            await table.add_bot()
            await table.add_bot()

            async def bob_plays():
                await play_turn(bob, rng)

            seen = await play_to_the_end(pilot, rng, between=bob_plays)
            await pilot.press("q")
    lines = "\n".join(seen)
    assert "East: Bob" in lines  # seat 1 sits at the right of seat 0 (counter-clockwise)
    assert "Bob sat down East" in app.log_lines
    assert any(line.startswith("East: ") for line in app.log_lines)  # Bob's bids and cards


async def test_chat_both_ways(server):
    async with BeloteClient(server.address) as client:
        table = await client.create_table("classic", {"target": "1"})
        bob = await table.join("Bob", seat=2)
        app = PlayApp(server.address, table_id=table.table_id, name="Ana")
        async with app.run_test(size=SIZE) as pilot:
            await until(pilot, app.ready.is_set, what="the first view")
            try:
                await bob.post_chat("hello Ana")
            except BeloteError as err:
                if err.code == grpc.StatusCode.UNIMPLEMENTED:
                    pytest.skip("this server does not serve PostChat yet")
                raise
            await until(pilot, lambda: "» Bob (North): hello Ana" in app.log_lines,
                        what="Bob's message")
            await pilot.press("m")
            await pilot.press(*"hi Bob")
            await pilot.press("enter")
            await until(pilot, lambda: any(line.startswith("» Ana (You): hi Bob")
                                           for line in app.log_lines), what="Ana's message")
            await pilot.press("q")
        seen = []
        async for event in bob.watch():
            if event.HasField("chat_posted"):
                seen.append((event.chat_posted.seat, event.chat_posted.text))
            if event.sequence >= (await bob.view()).version:
                break
    assert (0, "hi Bob") in seen


async def test_a_table_that_does_not_exist(server):
    app = PlayApp(server.address, table_id="no-such-table", name="Ana")
    async with app.run_test(size=SIZE) as pilot:
        await until(pilot, lambda: app.return_code is not None, what="the app to exit")
    assert app.return_code == 1


async def test_keys_that_name_nothing(server):
    app = PlayApp(server.address, options={"target": "1"}, name="Ana")
    async with app.run_test(size=SIZE) as pilot:
        await until(pilot, app.ready.is_set, what="the first view")
        await until(pilot, lambda: len(app.model.hand()) in (5, 8), what="a hand")
        await pilot.press("9")  # there is no 9th card
        await pilot.pause(0.05)
        assert app.model.message.plain == "No card 9 in your hand"
        await pilot.press("q")
    await asyncio.sleep(0)
    assert app.return_code == 0


async def test_a_rematch_with_r(server):
    """After the game, `r` votes for a rematch: the only human voted, so game 2 starts."""
    rng = random.Random(9)
    app = PlayApp(server.address, options={"target": "1"}, name="Ana")
    async with app.run_test(size=SIZE) as pilot:
        await until(pilot, app.ready.is_set, what="the first view")
        await play_to_the_end(pilot, rng)
        assert "Press r for a rematch, q to quit." in app.screen_text()
        await pilot.press("r")
        await until(pilot, lambda: app.model.table.game.game_number == 2
                    and app.model.table.status == pb.TABLE_STATUS_PLAYING, what="game 2")
        assert "Game 2 starts" in app.log_lines
        await pilot.press("q")
    assert app.return_code == 0
