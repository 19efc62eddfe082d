"""The web page in a real Chromium against a live `belote serve`: a player clicks through a
whole game, sees the rule's message on a refused card, reloads mid-deal, and a spectator never
receives a hidden card, in the DOM or on the network."""

from __future__ import annotations

import random

import grpc
from belote.v1 import cards_pb2, events_pb2
from belote.v1 import table_service_pb2 as pb
from belote.v1 import table_service_pb2_grpc
from browser import (BUILT, create_with_bots, hand, play_one, play_until, remembered,
                     require_browser, table_id, version)
from google.rpc import error_details_pb2
from grpc_status import rpc_status
from players import PUBLIC_CARDS, bearer, cards_in, check_stream, rid
from web_helpers import envelopes

RANKS = {"7": cards_pb2.RANK_SEVEN, "8": cards_pb2.RANK_EIGHT, "9": cards_pb2.RANK_NINE, "10": cards_pb2.RANK_TEN,
         "J": cards_pb2.RANK_JACK, "Q": cards_pb2.RANK_QUEEN, "K": cards_pb2.RANK_KING, "A": cards_pb2.RANK_ACE}
SUITS = {"C": cards_pb2.SUIT_CLUBS, "D": cards_pb2.SUIT_DIAMONDS, "H": cards_pb2.SUIT_HEARTS, "S": cards_pb2.SUIT_SPADES}


def card_of(key: str) -> cards_pb2.Card:
    return cards_pb2.Card(rank=RANKS[key[:-1]], suit=SUITS[key[-1]])


def stub_of(server):
    return table_service_pb2_grpc.TableServiceStub(grpc.insecure_channel(server.address))


def test_a_whole_game_against_three_bots_by_clicks_to_the_final_score(server, page):
    calls: list[str] = []
    page.on("request", lambda request: calls.append(request.url.rsplit("/", 1)[-1])
            if "/belote.v1.TableService/" in request.url else None)
    tid = create_with_bots(page, server.web_url)
    assert page.get_attribute("#table", "data-your-seat") == "0"
    assert "partner" in page.inner_text('.seat[data-seat="2"]')
    page.wait_for_selector("#hand .card")
    # A phone's width: nothing sticks out sideways.
    assert page.evaluate("() => document.documentElement.scrollWidth <= window.innerWidth")
    play_until(page, random.Random(1), lambda: page.query_selector("#final") is not None, limit=600)

    table = stub_of(server).GetTable(pb.GetTableRequest(table_id=tid))
    assert table.status == pb.TABLE_STATUS_FINISHED
    us, them = table.game.totals
    final = page.inner_text("#final")
    assert f"us {us}, them {them}" in final
    assert ("You won!" if table.game.winning_team == 0 else "You lost.") in final
    assert max(us, them) >= 200
    assert page.is_visible("#rematch")
    # The page folds its stream and acts on your_turn: no view nor legal actions asked for.
    assert "GetTable" not in calls and "GetLegalActions" not in calls, sorted(set(calls))
    assert calls.count("Act") >= 8 and "WatchTable" in calls


def test_a_refused_card_shows_the_rules_message(server, page):
    tid = create_with_bots(page, server.web_url)
    rng = random.Random(2)
    refused = None
    for _ in range(300):  # until seat 0 holds a card the rules refuse, at its turn in the play
        page.wait_for_function("() => document.querySelector('#final') || "
                               "document.querySelector('#bids button') || "
                               "document.querySelector('#hand .card.playable')", timeout=30000)
        refused = page.query_selector('#hand .card[data-playable="false"]')
        if refused is not None and page.query_selector("#hand .card.playable"):
            break
        refused = None
        assert play_one(page, rng), "the game ended before a card was refused"
    assert refused is not None
    key = refused.get_attribute("data-card")
    before = version(page)
    page.click(f'#hand .card[data-card="{key}"]')
    page.wait_for_selector(f'#hand .card.refused[data-card="{key}"]')
    message = page.inner_text("#message")
    reason = page.get_attribute("#message", "data-reason")
    assert page.get_attribute(f'#hand .card[data-card="{key}"]', "title") == message
    assert version(page) == before  # nothing happened at the table

    # The page shows the server's own words: the same card over gRPC gets the same refusal.
    token = remembered(page, tid)["token"]
    try:
        stub_of(server).Act(pb.ActRequest(table_id=tid, request_id=rid(),
                                          action=cards_pb2.Action(card=card_of(key))),
                            metadata=bearer(token))
        raise AssertionError("the card was accepted over gRPC")
    except grpc.RpcError as err:
        assert err.code() == grpc.StatusCode.FAILED_PRECONDITION
        assert err.details() == message
        info = error_details_pb2.ErrorInfo()
        assert any(d.Unpack(info) for d in rpc_status.from_call(err).details)
        assert info.reason == reason


def test_a_reload_mid_deal_keeps_the_seat_and_the_hand(server, page):
    tid = create_with_bots(page, server.web_url)
    rng = random.Random(3)
    play_until(page, rng, lambda: page.query_selector("#hand .card.playable") is not None
               and len(hand(page)) <= 7)  # card play, a trick or more in
    seat, cards = page.get_attribute("#table", "data-your-seat"), hand(page)
    last = int(remembered(page, tid)["lastSequence"])
    watched: list[bytes] = []
    page.on("request", lambda r: watched.append(r.post_data_buffer)
            if r.url.endswith("/WatchTable") else None)

    page.reload()
    page.wait_for_selector("#hand .card.playable")
    assert page.get_attribute("#table", "data-your-seat") == seat
    assert hand(page) == cards
    # The stream resumed after the last event seen, not from the start.
    requests = [pb.WatchTableRequest.FromString(body[5:]) for body in watched if body]
    assert requests and requests[0].from_sequence == last + 1
    # And the seat still plays, from the keyboard this time.
    page.focus("#hand .card.playable")
    page.keyboard.press("Enter")
    page.wait_for_function(f"() => document.querySelectorAll('#hand .card').length == {len(cards) - 1}")


def test_a_spectator_never_receives_a_hidden_card(tmp_path, browser):
    """Four bots play a game while a page watches it: no card of a hand in its DOM, nor in any
    answer or stream message it received (every payload decoded and checked)."""
    require_browser()
    from servers import ServerProcess

    own = ServerProcess(tmp_path / "spectated")
    own.workdir.mkdir()
    own.start()
    context = browser.new_context()
    try:
        page = context.new_page()
        answers = []
        page.on("response", lambda r: answers.append(r) if "/belote.v1.TableService/" in r.url else None)
        stub = stub_of(own)
        created = stub.CreateTable(pb.CreateTableRequest(preset="classic", options={"target": "200"},
                                                         request_id=rid()))
        tid = created.table_id
        page.goto(f"{own.web_url}/#/table/{tid}?watch")
        page.wait_for_selector("#table[data-version]")
        for seat in range(4):
            stub.AddBot(pb.AddBotRequest(table_id=tid, seat=seat, level=events_pb2.BOT_LEVEL_EASY,
                                         request_id=rid()), metadata=bearer(created.host_token))
        page.wait_for_selector("#final", timeout=120_000)
        assert page.get_attribute("#table", "data-your-seat") == "-1"
        assert page.query_selector_all("#hand .card") == []
        assert not page.query_selector("#bids button, #announce button")
        shown = set(page.eval_on_selector_all("[data-card]", "cs => cs.map(c => c.dataset.card)"))

        # A graceful stop ends the streams, so every body the page received can be read whole.
        assert own.terminate() == 0
        events, tables = [], []
        for answer in answers:
            assert "authorization" not in answer.request.headers
            body = answer.body()
            if answer.url.endswith("/WatchTable"):
                events += [events_pb2.TableEvent.FromString(m) for f, m in envelopes(body) if not f & 2]
            elif answer.url.endswith("/GetTable"):
                tables.append(pb.Table.FromString(body))
        assert events
        assert not tables        # the page folds its stream: it never asks for the view
        events = sorted({e.sequence: e for e in events}.values(), key=lambda e: e.sequence)
        check_stream(events, None)
        assert any(e.HasField("game_ended") for e in events)
        for table in tables:
            assert not table.game.your_hand
            assert all("hand" not in path for path, _ in cards_in(table)), table
        public = {f"{next(k for k, v in RANKS.items() if v == c.rank)}"
                  f"{next(k for k, v in SUITS.items() if v == c.suit)}"
                  for e in events for path, c in cards_in(e) if path in PUBLIC_CARDS}
        assert shown <= public, f"the page shows cards never made public: {shown - public}"
    finally:
        context.close()
        own.kill()


def test_two_browser_contexts_play_at_one_table(server, browser):
    require_browser()
    from browser import PHONE

    host_context, guest_context = browser.new_context(viewport=PHONE), browser.new_context()
    try:
        host, guest = host_context.new_page(), guest_context.new_page()
        host.goto(server.web_url + "/")
        host.fill("#create-name", "Ada")
        host.fill("#create-target", "200")
        host.uncheck("#create-bots")
        host.click("#create")
        tid = table_id(host)

        guest.on("dialog", lambda dialog: dialog.accept("Bob"))
        guest.goto(f"{server.web_url}/#/table/{tid}")
        guest.click('.seat[data-seat="1"] .sit')
        guest.wait_for_selector('#table[data-your-seat="1"]')
        for seat in (2, 3):
            host.click(f'.seat[data-seat="{seat}"] .add-bot')
            host.wait_for_selector(f'.seat[data-seat="{seat}"] .badge')
        host.wait_for_selector('#table[data-status="PLAYING"]')
        assert "Bob" in host.inner_text('.seat[data-seat="1"]')
        assert "opponent" in host.inner_text('.seat[data-seat="1"]')
        assert "partner" in guest.inner_text('.seat[data-seat="3"]')

        # Each page plays its own seat until the first deal is scored.
        rngs = {host: random.Random(4), guest: random.Random(5)}
        for _ in range(200):
            if host.query_selector("#last-deal") and guest.query_selector("#last-deal"):
                break
            for page in (host, guest):
                if page.query_selector("#bids button, #hand .card.playable"):
                    play_one(page, rngs[page], wait=False)
            host.wait_for_timeout(30)
        assert host.query_selector("#last-deal") and guest.query_selector("#last-deal")
        # The two humans played their own cards (no bot took a seat over).
        table = stub_of(server).GetTable(pb.GetTableRequest(table_id=tid))
        assert [(s.occupant, s.bot_takeover) for s in table.seats[:2]] == [(pb.SEAT_OCCUPANT_HUMAN, False)] * 2
        assert table.game.deal_number >= 2 or table.status == pb.TABLE_STATUS_FINISHED
        assert host.inner_text("#last-deal") == guest.inner_text("#last-deal")
    finally:
        host_context.close()
        guest_context.close()


def test_quick_play_seats_two_pages_together(server, browser):
    require_browser()
    # Two people, two addresses (the server trusts loopback as its proxy).
    contexts = [browser.new_context(extra_http_headers={"x-forwarded-for": f"198.51.100.{n}"})
                for n in (1, 2)]
    try:
        pages = [c.new_page() for c in contexts]
        for page, name in zip(pages, ("Ada", "Bob")):
            page.goto(server.web_url + "/")
            page.fill("#create-name", name)
            page.select_option("#quick-preset", "modern")
            page.click("#quick-play")
            page.wait_for_selector("#table[data-version]")
        tables = {table_id(p) for p in pages}
        assert len(tables) == 1
        assert [p.get_attribute("#table", "data-your-seat") for p in pages] == ["0", "1"]
        pages[0].wait_for_function(
            "() => document.querySelector('.seat[data-seat=\"1\"]').textContent.includes('Bob')")
        assert "opponent" in pages[0].inner_text('.seat[data-seat="1"]')
        assert "modern" in pages[0].inner_text("#table h2")
    finally:
        for context in contexts:
            context.close()


def test_the_page_is_built(server):
    """`make install` built the page that the server serves at /."""
    require_browser()
    import urllib.request

    served = urllib.request.urlopen(server.web_url + "/", timeout=10).read()
    assert served == BUILT.read_bytes()
