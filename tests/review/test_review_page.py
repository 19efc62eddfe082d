"""`belote replay --html` in a real browser: Debian's headless Chromium, driven by Playwright.

The page of real sample games is opened from a file, as a reviewer would; its DOM is checked
against the log itself: the legend of the trick marks, the seats named as the players saw them,
the list of deals that jumps to each, chat and lost connections where they happened among the
tricks, and every total labelled with its team. A screenshot is taken too (to look at by hand;
never committed). Without Chromium the tests skip, except under CI (env CI set), where they fail:
`make tools` installs it.
"""

from __future__ import annotations

import os
import re
import struct

import pytest
from belote.review import report
from belote.review.verify import entries_of, review
from belote.v1 import events_pb2 as epb
from review_helpers import clone, index_of, rechain

CHROMIUM = "/usr/bin/chromium"
# Never the network, never a browser download of Playwright's own: the system's Chromium, alone.
CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                 "--disable-background-networking", "--disable-component-update", "--disable-sync"]
WIDTH = 1200


@pytest.fixture(scope="module")
def browser():
    if not os.path.exists(CHROMIUM):
        message = (f"{CHROMIUM} is not installed (Debian's chromium package: `make tools`, or "
                   "apt-get install --no-install-recommends chromium)")
        if os.environ.get("CI"):
            pytest.fail(message)
        pytest.skip(message)
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        chromium = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        yield chromium
        chromium.close()


def open_page(browser, samples, preset: str, tmp_path):
    """The review page of a sample game, opened from its file; with the log and the review."""
    log = samples.logs[preset]
    result = review(entries_of(log), check_bots=False)
    path = tmp_path / f"{preset}.html"
    path.write_text(report.as_html(result), encoding="utf-8")
    page = browser.new_page(viewport={"width": WIDTH, "height": 900})
    requests: list[str] = []
    page.on("request", lambda request: requests.append(request.url))
    page.goto(path.as_uri())
    assert requests == [path.as_uri()]  # one self-contained page: nothing else is fetched
    return page, log, result


def deal_of(log, seq: int) -> int:
    """The sequence number of the DealStarted the event at ``seq`` follows (0: none)."""
    return max((m.sequence for m in log if m.event_type == "deal_started" and m.sequence < seq), default=0)


def in_a_deal(log, seq: int) -> bool:
    """Whether the event at ``seq`` came after a deal started, before its game ended."""
    ended = max((m.sequence for m in log if m.event_type == "game_ended" and m.sequence < seq), default=0)
    return deal_of(log, seq) > ended


def trick_place(log, seq: int) -> str:
    """Where the event at ``seq`` fell among the tricks, counted from the log's cards."""
    start = deal_of(log, seq)
    cards = sum(1 for m in log if m.event_type == "card_played" and start < m.sequence < seq)
    return f"during trick {cards // 4 + 1}" if cards % 4 else f"after trick {cards // 4}"


def test_the_legend_and_the_seats(browser, samples, tmp_path):
    page, log, result = open_page(browser, samples, "modern", tmp_path)
    legend = page.locator("#legend")
    assert legend.is_visible()
    text = legend.inner_text()
    assert "a gold border: the card that won the trick" in text
    assert "an underlined seat: the one that led the trick" in text
    assert "a red border: the card (or trick) at a sequence number with a finding" in text
    # The legend's marks look like those of the tricks.
    style = "(e, p) => getComputedStyle(e)[p]"
    for mark, prop in ((".card.win", "borderTopColor"), (".lead", "textDecorationLine")):
        shown = page.locator(f"#legend {mark}").evaluate(style, prop)
        assert shown == page.locator(f".trick {mark}").first.evaluate(style, prop)
    assert page.locator("#legend .card.win").evaluate(style, "borderTopColor") == "rgb(255, 213, 79)"
    # Seats by position, as the players saw them (the modern preset plays counter-clockwise).
    rows = page.locator("#seats tr").all_inner_texts()[1:]
    assert [row.split("\t") for row in rows] == [
        [str(seat), where, who, team] for seat, where, who, team in zip(
            range(4), ("South", "East", "North", "West"), result.story.seats,
            ("South & North", "East & West") * 2)]
    # Each trick names its seats by position (and number): the leader underlined.
    first = page.locator(".trick").first
    leader = log[[m.event_type for m in log].index("card_played")].event.card_played.seat
    assert first.locator(".lead").inner_text() == {0: "South", 1: "East", 2: "North", 3: "West"}[leader]


def test_the_list_of_deals_jumps_to_each(browser, samples, tmp_path):
    page, log, result = open_page(browser, samples, "classic", tmp_path)
    deals = [d for g in result.story.games for d in g.deals]
    links = page.locator("nav#deals a")
    assert links.count() == len(deals) == sum(m.event_type == "deal_started" for m in log) > 3
    assert links.all_inner_texts() == [f"Deal {d.number}" for d in deals]
    target = deals[-2]
    links.nth(len(deals) - 2).click()
    page.wait_for_function(f"location.hash === '#deal-{target.seq}'")
    box = page.locator(f"#deal-{target.seq}").bounding_box()
    assert abs(box["y"]) < 5, box  # scrolled to the top of the window
    assert page.evaluate("window.scrollY") > 2000
    assert f"Game 1 · deal {target.number} · dealer " in page.locator(f"#deal-{target.seq} h3").inner_text()
    # And back to the list.
    page.locator(f"#deal-{target.seq} h3 a").click()
    page.wait_for_function("location.hash === '#deals'")
    assert abs(page.locator("nav#deals").bounding_box()["y"]) < 5


def test_chat_and_lost_connections_are_where_they_happened(browser, samples, tmp_path):
    for preset, kind, words in (("classic", "chat_posted", "says “"),
                                ("modern", "seat_disconnected", "loses the connection")):
        page, log, result = open_page(browser, samples, preset, tmp_path)
        # Everything that has a sequence number comes in the log's order, deal by deal.
        for seqs in page.locator(".deal").evaluate_all(
                "ds => ds.map(d => [...d.querySelectorAll('[data-seq]')].map(e => +e.dataset.seq))"):
            assert seqs == sorted(seqs)
        events = [m for m in log if m.event_type == kind and in_a_deal(log, m.sequence)]
        assert events, f"no {kind} during a deal in the {preset} sample"
        for m in events:
            note = page.locator(f".note[data-seq='{m.sequence}']")
            assert note.count() == 1
            text = note.inner_text()
            assert words in text and text.endswith(f" · #{m.sequence}")
            # In the deal it happened in, among its calls or tricks, not after them.
            deal = note.evaluate("e => e.closest('.deal').id")
            assert deal == f"deal-{deal_of(log, m.sequence)}"
            cards = [c.sequence for c in log if c.event_type == "card_played"
                     and deal_of(log, c.sequence) == deal_of(log, m.sequence)]
            if cards and cards[0] < m.sequence < cards[-1]:
                assert note.evaluate("e => e.parentElement.className") == "tricks"
                assert f" · {trick_place(log, m.sequence)} · " in text
                # A trick follows it in the row.
                assert note.evaluate("e => !!e.nextElementSibling && "
                                     "e.nextElementSibling.className.startsWith('trick')") or \
                    note.evaluate("e => !!e.nextElementSibling && "
                                  "e.nextElementSibling.classList.contains('note')")
    page, log, _ = open_page(browser, samples, "classic", tmp_path)
    page_text = page.locator("body").inner_text()
    spectator = next(m for m in log if m.event_type == "chat_posted" and m.event.chat_posted.seat < 0)
    assert f"chat a spectator: 'kibitzer' says “what a lead!” · {trick_place(log, spectator.sequence)}" \
        in page_text


def test_totals_are_labelled_with_teams(browser, samples, tmp_path):
    page, log, _ = open_page(browser, samples, "kamikaze", tmp_path)  # two games
    scored = [m.event.deal_scored for m in log if m.event_type == "deal_scored"]
    assert page.locator(".totals").all_inner_texts() == [
        f"totals: South & North {s.totals[0]} · East & West {s.totals[1]}" for s in scored]
    deal_scores = page.locator(".score").all_inner_texts()
    assert [next(line for line in text.splitlines() if line.startswith("deal score"))
            for text in deal_scores] == [
        f"deal score: South & North {s.deal_score[0]} · East & West {s.deal_score[1]}" for s in scored]
    ended = [m.event.game_ended for m in log if m.event_type == "game_ended"]
    teams = ("South & North (seats 0 and 2)", "East & West (seats 1 and 3)")
    assert [text.split(" · #")[0] for text in page.locator(".result").all_inner_texts()] == [
        f"Result: {teams[e.winning_team]} win, South & North {e.totals[0]} · East & West {e.totals[1]}"
        for e in ended]


def test_a_screenshot_of_the_page(browser, samples, tmp_path):
    page, _, _ = open_page(browser, samples, "modern", tmp_path)
    shot = tmp_path / "review.png"  # to look at by hand; not committed
    page.screenshot(path=str(shot), full_page=True)
    png = shot.read_bytes()
    assert png[:8] == b"\x89PNG\r\n\x1a\n"
    width, height = struct.unpack(">II", png[16:24])
    # The page is laid out in the window's width, and long: the deals, their tricks, the legend.
    assert width == WIDTH and height > 2 * 900
    assert page.evaluate("document.documentElement.scrollWidth") <= WIDTH  # no sideways scroll


def test_each_note_is_placed_where_it_came(samples):
    """Spectator chat put into a deal of a real log, at each kind of place: its note comes
    where it happened, said so, in the log's order (the page's HTML, no browser)."""
    log = clone(samples.logs["classic"])
    template = next(m for m in log if m.event_type == "chat_posted" and m.event.chat_posted.seat < 0)

    def calls(i: int) -> list[str]:
        """The events of the auction of the deal started at index ``i``, and what ended it."""
        end = next(j for j in range(i + 1, len(log)) if log[j].event_type in ("contract_settled", "all_passed"))
        return [m.event_type for m in log[i + 1:end + 1]]

    # The first deal whose auction has two calls in a row and ends in a contract.
    start = next(i for i, m in enumerate(log) if m.event_type == "deal_started"
                 and calls(i)[-1] == "contract_settled" and calls(i).count("bid_made") >= 2)
    won = index_of(log, "trick_won", start=start)
    # Each before a command (a call or a card), never between a command and what follows from it.
    places = {"during the auction": index_of(log, "bid_made", lambda m: log[log.index(m) + 1].event_type
                                             == "bid_made", start=start) + 1,
              "before the first card": index_of(log, "card_played", start=start),
              "during trick 2": index_of(log, "card_played", start=index_of(log, "card_played", start=won) + 1),
              "after trick 2": index_of(log, "card_played", start=index_of(log, "trick_won", start=won + 1))}
    for where, i in sorted(places.items(), key=lambda p: -p[1]):
        chat = epb.LoggedEvent()
        chat.CopyFrom(template)
        chat.event.chat_posted.text = where
        log.insert(i, chat)
    for seq, m in enumerate(log, 1):  # the bot loop names its moves after their sequence
        if m.request_id.startswith("bot-"):
            m.request_id = f"bot-{seq}"
    result = review(entries_of(rechain(log, renumber=True)), check_bots=False)
    assert result.clean, "\n".join(map(str, result.violations))
    page = report.as_html(result)
    deal = page[page.index(f"<div class='deal' id='deal-{start + 1}'"):]
    deal = re.split(r"\n<div class='deal'|\n<p class='result'", deal)[0]
    seqs = [int(s) for s in re.findall(r"data-seq='?\"?(\d+)", deal)]
    assert seqs == sorted(seqs)
    for where in places:
        seq = next(m.sequence for m in log if m.event_type == "chat_posted" and m.event.chat_posted.text == where)
        assert f"a spectator: &#x27;kibitzer&#x27; says “{where}” · {where} · #{seq}<" in deal
    # Inline among the calls of the auction; in the row of tricks during and after one.
    auction = deal[deal.index("<p class='auction'>"):]
    assert "says “during the auction”" in auction[:auction.index("</p>")]
    tricks = deal[deal.index("<div class='tricks'>"):]
    assert "says “during trick 2”" in tricks and "says “after trick 2”" in tricks
    assert "says “before the first card”" not in tricks
