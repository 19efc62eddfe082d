"""The web page never loses its player (issue 30): a seat left to a takeover bot while the page
was away is taken back by the page itself, a private table's spectator follows the game once
its password is right, a table id that does not exist leads back to the lobby, and a server
that goes down and comes back is waited for with nothing clickable meanwhile."""

from __future__ import annotations

import random
import socket
import time

import grpc
import pytest
from belote.v1 import events_pb2
from belote.v1 import table_service_pb2 as pb
from belote.v1 import table_service_pb2_grpc
from browser import MOVE_READY, PHONE, create_with_bots, play_one, require_browser, version
from players import bearer, rid

CONTROLS = "#hand .card, #bids button, #announce button"


def stub_of(server):
    return table_service_pb2_grpc.TableServiceStub(grpc.insecure_channel(server.address))


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def wait_until(check, timeout_s: float = 60.0, what: str = "the condition"):
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        found = check()
        if found:
            return found
        time.sleep(0.1)
    raise AssertionError(f"timed out waiting for {what}")


@pytest.fixture
def own_server(tmp_path):
    """A server of the test's own, started with `args`, on a web port that stays the same across
    a restart (the page keeps its address)."""
    from servers import ServerProcess

    started = []

    def start(*args: str):
        proc = ServerProcess(tmp_path / f"server{len(started)}",
                             extra_args=("--web-listen", f"127.0.0.1:{free_port()}", *args))
        proc.workdir.mkdir()
        proc.start()
        started.append(proc)
        return proc

    yield start
    for proc in started:
        proc.kill()


@pytest.fixture
def context(browser):
    require_browser()
    ctx = browser.new_context(viewport=PHONE)
    errors: list[str] = []
    ctx.on("weberror", lambda e: errors.append(str(e.error)))
    yield ctx
    ctx.close()
    assert not errors, f"the page threw: {errors}"


def test_a_seat_taken_over_while_away_is_taken_back_by_the_page(own_server, context, tmp_path):
    server = own_server("--disconnect-grace", "2")
    stub = stub_of(server)
    page = context.new_page()
    tid = create_with_bots(page, server.web_url, target="3000")
    page.wait_for_selector("#hand .card")

    # Away longer than the grace: the page is gone, a takeover bot plays the seat.
    page.goto("about:blank")
    wait_until(lambda: (s := stub.GetTable(pb.GetTableRequest(table_id=tid)).seats[0]).occupant
               == pb.SEAT_OCCUPANT_BOT and s.bot_takeover, what="the takeover bot")

    page.goto(f"{server.web_url}/#/table/{tid}")
    page.wait_for_function("() => document.querySelector('#message')?.textContent "
                           "=== 'You are back in your seat'", timeout=30_000)
    assert page.get_attribute("#message", "data-reason") == ""
    seat = stub.GetTable(pb.GetTableRequest(table_id=tid)).seats[0]
    assert (seat.occupant, seat.bot_takeover) == (pb.SEAT_OCCUPANT_HUMAN, False)
    page.wait_for_function("() => !document.querySelector('.seat[data-seat=\"0\"] .badge')?"
                           ".textContent.includes('took over')")
    assert page.get_attribute("#table", "data-your-seat") == "0"
    assert "password" not in page.inner_text("#app").lower()
    # And the page plays on: its own moves, accepted.
    rng = random.Random(30)
    for _ in range(3):
        before = version(page)
        assert play_one(page, rng, timeout_s=60)
        assert version(page) != before
    seat = stub.GetTable(pb.GetTableRequest(table_id=tid)).seats[0]
    assert (seat.occupant, seat.bot_takeover) == (pb.SEAT_OCCUPANT_HUMAN, False)
    page.screenshot(path=str(tmp_path / "reclaimed.png"))


def test_a_private_tables_spectator_follows_the_game_after_its_password(own_server, context, tmp_path):
    server = own_server()
    stub = stub_of(server)
    created = stub.CreateTable(pb.CreateTableRequest(preset="classic", options={"target": "3000"},
                                                     is_private=True, password="s3cret",
                                                     request_id=rid()))
    tid = created.table_id
    page = context.new_page()
    page.goto(f"{server.web_url}/#/table/{tid}?watch")
    page.wait_for_selector("#table-password")
    assert page.is_hidden("#message")      # asked, not yet refused
    assert "private" in page.inner_text("#table").lower()

    page.fill("#table-password", "wrong")
    page.press("#table-password", "Enter")
    page.wait_for_selector("#message:not([hidden])")
    assert page.get_attribute("#message", "data-reason") == "WRONG_PASSWORD"
    page.wait_for_selector("#table-password")   # asked again
    assert page.input_value("#table-password") == ""

    page.fill("#table-password", "s3cret")
    page.press("#table-password", "Enter")
    page.wait_for_selector("#table[data-version]")
    assert page.is_hidden("#message")
    for seat in range(4):
        stub.AddBot(pb.AddBotRequest(table_id=tid, seat=seat, level=events_pb2.BOT_LEVEL_EASY,
                                     request_id=rid()), metadata=bearer(created.host_token))
    # Live: the page reaches the table's version, again and again while the bots play.
    for _ in range(3):
        now = stub.GetTable(pb.GetTableRequest(table_id=tid, password="s3cret")).version
        page.wait_for_function(f"() => Number(document.querySelector('#table')?.dataset.version) >= {now}",
                               timeout=30_000)
        wait_until(lambda now=now: stub.GetTable(pb.GetTableRequest(
            table_id=tid, password="s3cret")).version > now + 5, what="the bots to play on")
    assert page.get_attribute("#table", "data-your-seat") == "-1"
    page.screenshot(path=str(tmp_path / "spectator.png"))


def test_a_table_id_that_does_not_exist_leads_back_to_the_lobby(server, context, tmp_path):
    page = context.new_page()
    page.goto(f"{server.web_url}/#/table/no-such-table")
    page.wait_for_selector("#message:not([hidden])")
    assert page.get_attribute("#message", "data-reason") == "TABLE_NOT_FOUND"
    assert "Loading" not in page.inner_text("#app")
    assert "no-such-table" in page.inner_text("#app")
    page.screenshot(path=str(tmp_path / "not-found.png"))
    page.click("#to-lobby")
    page.wait_for_selector("#lobby")
    assert page.is_hidden("#message")


def test_a_server_down_and_back_is_waited_for_and_the_game_goes_on(own_server, context, tmp_path):
    server = own_server()
    page = context.new_page()
    acts: list[str] = []
    page.on("request", lambda r: acts.append(r.url) if r.url.endswith("/Act") else None)
    tid = create_with_bots(page, server.web_url, target="3000")
    page.wait_for_function("() => document.querySelector('#bids button') "
                           "|| document.querySelector('#hand .card.playable')", timeout=60_000)
    before = version(page)

    server.kill()
    page.wait_for_function("() => document.querySelector('#connection')?.textContent === 'Reconnecting…'",
                           timeout=30_000)
    assert page.is_hidden("#message")              # no raw "Failed to fetch"
    assert page.locator(CONTROLS).count() > 0
    assert page.eval_on_selector_all(CONTROLS, "bs => bs.every(b => b.disabled)")
    page.screenshot(path=str(tmp_path / "down.png"))
    sent = len(acts)
    page.locator(CONTROLS).first.click(force=True)
    page.keyboard.press("Enter")
    page.wait_for_timeout(500)   # a click that did something would have sent Act by now
    assert len(acts) == sent and version(page) == before

    server.start()
    page.wait_for_function("() => document.querySelector('#connection')?.dataset.connected === 'true'",
                           timeout=30_000)
    assert page.inner_text("#connection") != "Reconnecting…"
    assert page.is_hidden("#message")
    page.wait_for_function(MOVE_READY, timeout=30_000)
    assert not page.eval_on_selector_all(CONTROLS, "bs => bs.some(b => b.disabled && b.matches('.playable, #bids button'))")
    rng = random.Random(31)
    for _ in range(3):
        was = version(page)
        assert play_one(page, rng, timeout_s=60)
        assert version(page) != was
    table = stub_of(server).GetTable(pb.GetTableRequest(table_id=tid))
    assert table.seats[0].occupant == pb.SEAT_OCCUPANT_HUMAN
    assert table.version > int(before) and int(version(page)) <= table.version


IN_PLAY = "() => !!document.activeElement?.closest('#hand, #bids, #announce')"


def test_the_keyboard_plays_a_deal_and_the_focus_stays_in_play(server, context):
    page = context.new_page()
    create_with_bots(page, server.web_url, target="3000")
    assert "P passes" in page.inner_text("#shortcuts")
    # The auction by keys: P passes, until the contract is settled (or all pass: a new deal).
    for _ in range(40):
        page.wait_for_function("() => document.querySelector('#bids button') "
                               "|| document.querySelector('#hand .card.playable')", timeout=60_000)
        if not page.query_selector("#bids button"):
            break
        before = version(page)
        assert page.query_selector("#bids button:text-is('pass')"), "pass is always a bid (classic)"
        page.keyboard.press("p")
        page.wait_for_function(f"() => document.querySelector('#table').dataset.version !== '{before}'")
        page.wait_for_timeout(50)   # the redraw after the events that came together
        assert page.evaluate(IN_PLAY), "the focus dropped after a bid"
    else:
        raise AssertionError("no card play reached")
    # Cards by their number: each played, the focus still on the hand.
    for _ in range(3):
        page.wait_for_function("() => document.querySelector('#hand .card.playable')", timeout=60_000)
        cards = page.eval_on_selector_all("#hand .card", "cs => cs.map(c => c.dataset.playable)")
        if len(cards) < 2:
            break
        page.keyboard.press(str(cards.index("true") + 1))
        page.wait_for_function(f"() => document.querySelectorAll('#hand .card').length === {len(cards) - 1}")
        page.wait_for_timeout(50)
        assert page.evaluate(IN_PLAY), "the focus dropped after a card"
        assert page.evaluate("() => document.activeElement.closest('#hand') !== null")
