"""The table as a card table in a real Chromium: seats drawn in the table's play direction, the
bots' levels, each other seat's fan of card backs with its count, cards drawn in SVG in their
suit's colour, and the hand sorted by suit and by the contract's rank order."""

from __future__ import annotations

import json

import grpc
import pytest
from belote.v1 import events_pb2
from belote.v1 import table_service_pb2 as pb
from belote.v1 import table_service_pb2_grpc
from players import bearer, rid

RED = {"H", "D"}
PLAIN = ["A", "10", "K", "Q", "J", "9", "8", "7"]   # strongest first
TRUMP = ["J", "9", "A", "10", "K", "Q", "8", "7"]
SYMBOLS = {"C": "♣", "D": "♦", "H": "♥", "S": "♠"}


def stub_of(server):
    return table_service_pb2_grpc.TableServiceStub(grpc.insecure_channel(server.address))


def seated_table(server, direction: str) -> tuple[str, str]:
    """A table of `direction` where seat 0 is a human (its token returned) who bids first
    (seat 3 deals), and bots of three levels on seats 1 (hard), 2 (easy) and 3 (normal)."""
    stub = stub_of(server)
    created = stub.CreateTable(pb.CreateTableRequest(
        preset="classic", request_id=rid(),
        options={"target": "200", "play_direction": direction, "first_dealer": "3"}))
    joined = stub.JoinTable(pb.JoinTableRequest(table_id=created.table_id, seat=0, display_name="Ada",
                                                request_id=rid()))
    for seat, level in ((1, events_pb2.BOT_LEVEL_HARD), (2, events_pb2.BOT_LEVEL_EASY),
                        (3, events_pb2.BOT_LEVEL_NORMAL)):
        stub.AddBot(pb.AddBotRequest(table_id=created.table_id, seat=seat, level=level, request_id=rid()),
                    metadata=bearer(created.host_token))
    return created.table_id, joined.seat_token


def open_as_seat(page, server, tid: str, token: str) -> None:
    """The page holds the seat token as if it had joined seat 0 itself."""
    page.goto(server.web_url + "/")
    memory = json.dumps({"token": token, "seat": 0})
    page.evaluate(f"() => localStorage.setItem('belote.table.{tid}', {json.dumps(memory)})")
    page.goto(f"{server.web_url}/#/table/{tid}")
    page.wait_for_selector('#table[data-your-seat="0"]')


def place_of(page, seat: int) -> str:
    classes = page.get_attribute(f'.seat[data-seat="{seat}"]', "class").split()
    return next(c for c in classes if c in ("south", "east", "north", "west"))


def centre_x(page, seat: int) -> float:
    box = page.locator(f'.seat[data-seat="{seat}"]').bounding_box()
    return box["x"] + box["width"] / 2


def counts(page) -> dict[int, int]:
    return {int(s): int(n) for s, n in page.eval_on_selector_all(
        ".seat[data-seat]", "seats => seats.filter(s => s.querySelector('.backs')).map(s => "
        "[s.dataset.seat, s.querySelector('.backs .count').textContent])")}


def hand_keys(page) -> list[str]:
    return page.eval_on_selector_all("#hand .card", "cards => cards.map(c => c.dataset.card)")


def assert_sorted(keys: list[str], trump: str | None) -> None:
    suits = [k[-1] for k in keys]
    groups = [s for i, s in enumerate(suits) if i == 0 or suits[i - 1] != s]
    assert len(groups) == len(set(groups)), f"a suit is split: {keys}"
    reds = sum(g in RED for g in groups)
    blacks = len(groups) - reds
    same = sum((a in RED) == (b in RED) for a, b in zip(groups, groups[1:]))
    assert same == max(0, abs(reds - blacks) - 1), f"colours do not alternate: {keys}"
    for suit in groups:
        ranks = [k[:-1] for k in keys if k[-1] == suit]
        order = TRUMP if suit == trump else PLAIN
        assert ranks == sorted(ranks, key=order.index), f"{suit} out of order: {keys}"


@pytest.mark.parametrize("direction", ["counter_clockwise", "clockwise"])
def test_the_next_seat_sits_on_the_side_play_goes(server, page, direction):
    tid, token = seated_table(server, direction)
    open_as_seat(page, server, tid, token)
    page.wait_for_selector("#bids button")
    right, left = ("east", "west") if direction == "counter_clockwise" else ("west", "east")
    assert [place_of(page, s) for s in range(4)] == ["south", right, "north", left]
    if direction == "counter_clockwise":   # seat 1 plays after seat 0: on its right
        assert centre_x(page, 1) > centre_x(page, 0) > centre_x(page, 3)
    else:
        assert centre_x(page, 1) < centre_x(page, 0) < centre_x(page, 3)
    assert page.inner_text('.seat[data-seat="1"] .relation').strip() == f"{right} · opponent"


def test_a_spectator_sees_the_seats_in_the_play_direction(server, page):
    tid, _ = seated_table(server, "clockwise")
    page.goto(f"{server.web_url}/#/table/{tid}?watch")
    page.wait_for_selector('.seat[data-seat="0"].to-act')
    assert page.get_attribute("#table", "data-your-seat") == "-1"
    assert [place_of(page, s) for s in range(4)] == ["south", "west", "north", "east"]
    # Each seat's five cards of the auction, seat 0's too (a spectator holds no hand).
    assert counts(page) == {0: 5, 1: 5, 2: 5, 3: 5}


def test_bots_levels_card_backs_svg_faces_and_a_sorted_hand(server, page):
    tid, token = seated_table(server, "counter_clockwise")
    open_as_seat(page, server, tid, token)
    page.wait_for_selector("#bids button")
    badges = {s: page.locator(f'.seat[data-seat="{s}"] .badge').first.inner_text() for s in (1, 2, 3)}
    assert badges == {1: "bot · hard", 2: "bot · easy", 3: "bot · normal"}

    # The auction on the first five cards (5 of 3 + 2): each other seat shows five backs.
    assert counts(page) == {1: 5, 2: 5, 3: 5}
    assert page.locator('.seat[data-seat="1"] .backs svg.card-back').count() == 5
    assert len(hand_keys(page)) == 5
    assert_sorted(hand_keys(page), None)

    # Every card is an SVG picture in its suit's colour, named by what it shows.
    for key in hand_keys(page) + [page.get_attribute("#turned .card", "data-card")]:
        svg = page.locator(f'.card[data-card="{key}"] svg.card-face').first
        assert ("suit-red" if key[-1] in RED else "suit-black") in svg.get_attribute("class").split()
    for card in page.locator("#hand .card").all():   # the visible label starts its name
        key = card.get_attribute("data-card")
        assert card.get_attribute("aria-label").startswith(key[:-1] + SYMBOLS[key[-1]])
    assert page.locator("#hand .card[data-card] .face").count() == 0   # no text faces left

    # Take the turned suit: the contract's trump order sorts the eight cards.
    page.locator("#bids button", has_text="take").first.click()
    page.wait_for_function("() => document.querySelectorAll('#hand .card').length === 8")
    table = stub_of(server).GetTable(pb.GetTableRequest(table_id=tid), metadata=bearer(token))
    trump = "CDHS"[table.game.contract - 1] if 1 <= table.game.contract <= 4 else None
    assert trump is not None
    assert_sorted(hand_keys(page), trump)
    assert counts(page) == {1: 8, 2: 8, 3: 8}

    # Seat 0 leads: after its card, each seat that played shows one fewer until the trick is won.
    page.wait_for_selector("#hand .card.playable")
    page.locator("#hand .card.playable").first.click()
    page.wait_for_function("() => document.querySelectorAll('#hand .card').length === 7")
    page.wait_for_selector("#hand .card.playable", timeout=30_000)   # seat 0's next turn
    table = stub_of(server).GetTable(pb.GetTableRequest(table_id=tid), metadata=bearer(token))
    played = {t.seat for t in table.game.current_trick}
    assert 0 not in played
    expected = {s: 7 - (s in played) for s in (1, 2, 3)}
    page.wait_for_function(f"() => document.querySelector('#table').dataset.version === '{table.version}'")
    assert counts(page) == expected
