"""A deal as the web page shows it, in a real Chromium against a live `belote serve`: a trick won
stays on the table (four cards, its winner marked) before it is gathered, others' cards come
one after another, a belote is called out at its seat, and the score sheet has one row per
DealScored of the table's log, each number in its column."""

from __future__ import annotations

import random

import grpc
from belote.v1 import events_pb2
from belote.v1 import table_service_pb2 as pb
from belote.v1 import table_service_pb2_grpc
from browser import create_with_bots, play_one

# Records every change of what the trick on the table shows, and every belote call drawn, with
# the time it was seen (the page redraws the whole table: a MutationObserver sees each draw).
RECORD = """() => {
  window.__trick = []; window.__calls = [];
  const look = () => {
    const trick = document.querySelector('#trick');
    if (trick) {
      const cards = [...trick.querySelectorAll('li')].map(li => ({
        seat: li.dataset.seat, winner: li.classList.contains('winner'),
        card: li.querySelector('.card')?.dataset.card }));
      const seen = {t: performance.now(), phase: trick.dataset.phase || '', winner: trick.dataset.winner || '',
        cards};
      const last = window.__trick[window.__trick.length - 1];
      if (!last || JSON.stringify([last.phase, last.cards]) !== JSON.stringify([seen.phase, seen.cards]))
        window.__trick.push(seen);
    }
    for (const call of document.querySelectorAll('.belote-call')) {
      const seen = call.dataset.seat + ':' + call.textContent;
      if (!window.__calls.includes(seen)) window.__calls.push(seen);
    }
  };
  new MutationObserver(look).observe(document.body, {childList: true, subtree: true});
}"""

OUTCOMES = {events_pb2.DEAL_OUTCOME_MADE: "made", events_pb2.DEAL_OUTCOME_FAILED: "dedans",
            events_pb2.DEAL_OUTCOME_CAPOT_MADE: "capot", events_pb2.DEAL_OUTCOME_CAPOT_AGAINST: "capot against",
            events_pb2.DEAL_OUTCOME_LITIGE_RESERVE: "litige (reserve)",
            events_pb2.DEAL_OUTCOME_LITIGE_DEDANS: "litige (dedans)"}


def log_of(server, tid: str) -> list[events_pb2.TableEvent]:
    """The table's whole log so far, as a spectator's WatchTable over gRPC sends it."""
    with grpc.insecure_channel(server.address) as channel:
        stub = table_service_pb2_grpc.TableServiceStub(channel)
        last = stub.GetTable(pb.GetTableRequest(table_id=tid)).version
        call = stub.WatchTable(pb.WatchTableRequest(table_id=tid, from_sequence=1), timeout=30)
        events = []
        for event in call:
            events.append(event)
            if event.sequence >= last:
                break
        call.cancel()
    return events


def scored(page) -> int:
    return len(page.query_selector_all("#score-sheet tr[data-deal]"))


def test_a_won_trick_stays_on_the_table_with_its_winner_then_is_gathered(server, page):
    tid = create_with_bots(page, server.web_url)
    page.evaluate(RECORD)
    rng = random.Random(7)
    held = None
    for _ in range(60):
        held = next((s for s in page.evaluate("window.__trick") if s["phase"] == "held"), None)
        if held:
            break
        assert play_one(page, rng)
    assert held, "no trick was seen won"
    # Four cards, the last one included, and exactly the winner's marked.
    assert len(held["cards"]) == 4
    assert [c["seat"] for c in held["cards"] if c["winner"]] == [held["winner"]]
    # Then gathered, then gone: fewer cards on the table.
    page.wait_for_function("""() => { const seen = window.__trick; const at = seen.findIndex(s => s.phase === 'held');
      return seen.slice(at).some(s => s.phase === 'gathered' && s.cards.length === 4)
        && seen.slice(at).some(s => !s.phase && s.cards.length < 4); }""", timeout=10_000)
    trick = page.evaluate("window.__trick")
    at = next(i for i, s in enumerate(trick) if s["phase"] == "held")
    gathered = next(s for s in trick[at:] if s["phase"] == "gathered")
    assert 0.9 <= (gathered["t"] - held["t"]) / 1000 <= 2.0   # held about a second

    # The trick shown is the log's: its four cards in order, and the winner of its TrickWon.
    log = log_of(server, tid)
    plays = []
    for event in log:
        if event.HasField("card_played"):
            plays.append(event.card_played)
        elif event.HasField("trick_won"):
            four, plays = plays[-4:], []
            keys = [c["card"] for c in held["cards"]]
            if [str(p.seat) for p in four] == [c["seat"] for c in held["cards"]] and keys == [
                    _key(p.card) for p in four]:
                assert str(event.trick_won.winner) == held["winner"]
                break
    else:
        raise AssertionError(f"the trick shown is not in the log: {held}")



def _key(card) -> str:
    from belote.v1 import cards_pb2

    ranks = {cards_pb2.RANK_SEVEN: "7", cards_pb2.RANK_EIGHT: "8", cards_pb2.RANK_NINE: "9",
             cards_pb2.RANK_TEN: "10", cards_pb2.RANK_JACK: "J", cards_pb2.RANK_QUEEN: "Q",
             cards_pb2.RANK_KING: "K", cards_pb2.RANK_ACE: "A"}
    suits = {cards_pb2.SUIT_CLUBS: "C", cards_pb2.SUIT_DIAMONDS: "D", cards_pb2.SUIT_HEARTS: "H",
             cards_pb2.SUIT_SPADES: "S"}
    return ranks[card.rank] + suits[card.suit]


def test_the_score_sheet_has_the_logs_deals_column_by_column(server, page):
    # Pacing off (?fast): this is about the numbers, not the pace.
    tid = create_with_bots(page, server.web_url + "/?fast", target="3000")
    rng = random.Random(11)
    for _ in range(200):
        if scored(page) >= 2:
            break
        assert play_one(page, rng)
    assert scored(page) >= 2
    deals = [e.deal_scored for e in log_of(server, tid) if e.HasField("deal_scored")]
    page.wait_for_function(f"() => document.querySelectorAll('#score-sheet tr[data-deal]').length === {len(deals)}")
    headers = page.eval_on_selector_all("#score-sheet thead tr", "rows => rows.length")
    assert headers == 1
    assert "Game to 3000" in page.inner_text("#score-sheet caption")
    rows = page.eval_on_selector_all("#score-sheet tr[data-deal]", """rows => rows.map(r => ({deal: r.dataset.deal,
      cells: Object.fromEntries([...r.querySelectorAll('td')].map(td => [td.dataset.col, td.textContent]))}))""")
    assert [r["deal"] for r in rows] == [str(d.deal_number) for d in deals]
    for row, deal in zip(rows, deals):
        cells = row["cells"]
        for col, values in (("trick", deal.trick_points), ("belote", deal.belote),
                            ("announcements", deal.announcements), ("deal", deal.deal_score),
                            ("total", deal.totals)):
            assert [cells[f"{col}-0"], cells[f"{col}-1"]] == [str(v) for v in values], (col, cells, deal)
        assert cells["multiplier"] == str(deal.multiplier)
        assert cells["outcome"] == OUTCOMES[deal.outcome]
        assert cells["deal-number"] == str(deal.deal_number)
    # The last deal's result stays while the next deal is played.
    assert page.query_selector("#table[data-version]")
    assert deals[-1].explanation in page.inner_text("#last-deal")
    us, them = deals[-1].totals
    assert f"us {us}, them {them}" in page.inner_text("#score-sheet caption")


def test_a_belote_is_called_out_at_its_seat(server, page):
    tid = create_with_bots(page, server.web_url + "/?fast", target="3000")
    page.evaluate(RECORD)
    rng = random.Random(3)
    calls: list[str] = []
    for _ in range(12):   # deals, until a seat plays belote and rebelote
        deals = scored(page)
        for _ in range(100):
            if scored(page) > deals:
                break
            assert play_one(page, rng)
        log = log_of(server, tid)
        calls = [f"{e.card_played.seat}:{'Rebelote!' if e.card_played.belote == events_pb2.BELOTE_CALL_REBELOTE else 'Belote!'}"
                 for e in log if e.HasField("card_played") and e.card_played.belote]
        if calls:
            break
    assert calls, "no belote in a dozen deals"
    page.wait_for_timeout(300)
    assert set(calls) <= set(page.evaluate("window.__calls")), (calls, page.evaluate("window.__calls"))
    # Counted in its deal's row: the deal of the rebelote shows its 20 points.
    rebelote_deal = None
    for e in log:
        if e.HasField("deal_started"):
            deal_number = e.deal_started.deal_number
        if e.HasField("card_played") and e.card_played.belote == events_pb2.BELOTE_CALL_REBELOTE:
            rebelote_deal = deal_number
    scored_deal = next((e.deal_scored for e in log if e.HasField("deal_scored")
                        and e.deal_scored.deal_number == rebelote_deal), None)
    if scored_deal is not None:
        team = int(calls[-1].split(":")[0]) % 2
        assert page.inner_text(f'#score-sheet tr[data-deal="{rebelote_deal}"] td[data-col="belote-{team}"]') \
            == str(scored_deal.belote[team])
        assert scored_deal.belote[team] == 20

