"""Real games of every preset replay clean, and the replay tells each deal in full."""

from __future__ import annotations

import json
import re

import pytest
from belote.review import report
from belote.review.load import parse_lines, to_json_line
from belote.review.verify import entries_of, review
from belote.store.chain import verify_chain
from belote.table.codec import encode_body
from belote.v1 import events_pb2 as epb
from review_helpers import GAMES

# The events a request (or the server's bot loop, deadline sweep, presence) starts; the rest follow.
COMMAND_TYPES = {"table_created", "seat_joined", "bot_seated", "seat_left", "seat_reclaimed",
                 "seat_disconnected", "seat_connected", "chat_posted", "rematch_voted",
                 "table_closed", "bid_made", "announcement_declared", "card_played"}


def is_command(m) -> bool:
    """A takeover follows a SeatLeft; a table closed for want of humans, the game's end."""
    return m.event_type in COMMAND_TYPES and not (m.event_type == "bot_seated" and m.event.bot_seated.takeover) \
        and not (m.event_type == "table_closed" and m.event.table_closed.reason == epb.TABLE_CLOSED_REASON_NO_HUMANS)


@pytest.mark.parametrize("preset", list(GAMES))
def test_a_real_game_replays_clean(samples, preset):
    log = samples.logs[preset]
    result = review(entries_of(log))
    assert result.violations == [], "\n".join(map(str, result.violations))
    assert result.exit_code == 0
    assert result.notes == []
    assert result.checks["sequence"] == result.checks["hash"] == len(log)
    commands = sum(map(is_command, log))
    assert result.checks["legal"] == commands
    assert result.checks["derived"] == len(log) - commands
    assert result.checks["bot"] == sum(1 for m in log if m.event_type in ("bid_made", "card_played", "announcement_declared")
                                       and getattr(m.event, m.event_type).HasField("bot"))
    assert result.checks["bot"] > 0
    assert result.checks["commitment"] == result.checks["reveal"] == sum(m.event_type == "deal_started" for m in log)


@pytest.mark.parametrize("preset", list(GAMES))
def test_the_story_follows_the_log(samples, preset):
    log = samples.logs[preset]
    story = review(entries_of(log), check_bots=False).story
    started = [(i + 1, m.event.game_started) for i, m in enumerate(log) if m.event_type == "game_started"]
    ended = [(i + 1, m.event.game_ended) for i, m in enumerate(log) if m.event_type == "game_ended"]
    assert [(g.seq, g.number, g.first_dealer, g.pot, g.paying_seats) for g in story.games] == \
        [(seq, s.game_number, s.first_dealer, s.pot, list(s.paying_seats)) for seq, s in started]
    assert len(ended) == len(started)
    for game, (seq, final) in zip(story.games, ended):
        assert game.result is not None and game.result["seq"] == seq
        assert game.result["totals"] == list(final.totals)
        assert (game.result["payouts"], game.result["rated"]) == (list(final.payouts), final.rated)
    # Every table ends closed: at once with no human left, else when its rematch vote ran out.
    closed = log[-1].event.table_closed
    assert log[-1].event_type == "table_closed" and story.closed == {
        "reason": epb.TableClosedReason.Name(closed.reason).removeprefix("TABLE_CLOSED_REASON_").lower(), "seq": len(log)}
    scored = [m.event.deal_scored for m in log if m.event_type == "deal_scored"]
    played = [d for game in story.games for d in game.deals if not d.all_passed]
    assert [d.score["deal_score"] for d in played] == [list(s.deal_score) for s in scored]
    assert all(d.score["explanation"] for d in played)
    for deal in played:
        assert len(deal.tricks) == 8
        assert all(len(t.plays) == 4 and t.winner >= 0 for t in deal.tricks)
        assert sorted(len(h) for h in deal.hands) == [8, 8, 8, 8]
        assert len({c for h in deal.hands for c in h}) == 32
        assert deal.contract is not None and deal.revealed_seq > deal.score["seq"]


def test_export_lines_round_trip_to_the_stored_bytes(samples):
    log = samples.logs["belgian"]
    lines = [to_json_line(m) + "\n" for m in log]
    assert all("\n" not in line[:-1] for line in lines)
    parsed = parse_lines(lines)
    assert parsed == log
    # JSON -> message -> encode_body gives the payload the store hashed: the chain holds.
    from belote.store.base import StoredEvent
    stored = [StoredEvent(m.table_id, m.sequence, m.event_type, m.schema_version, encode_body(m.event),
                          m.request_id, m.append_time.ToMicroseconds(), m.prev_hash, m.hash) for m in parsed]
    assert verify_chain(stored) is None


def test_every_action_and_its_consequences_are_counted(samples):
    text = report.as_text(review(entries_of(samples.logs["classic"])))
    assert "CLEAN: no violation" in text
    assert "Deal 1: dealer seat 0" in text and "trick 8:" in text and "Result: team" in text
    assert "bot moves recomputed" in text


def test_json_report_is_for_tools(samples):
    data = json.loads(report.as_json(review(entries_of(samples.logs["modern"]))))
    assert data["clean"] is True and data["exit_code"] == 0 and data["violations"] == []
    deal = next(d for d in data["games"][0]["deals"] if not d["all_passed"])
    assert set(deal["score"]) >= {"outcome", "explanation", "trick_points", "belote", "announcements",
                                  "multiplier", "deal_score", "totals", "reserve_created", "reserve_paid"}
    assert len(deal["tricks"]) == 8 and len(deal["tricks"][0]["plays"]) == 4


def test_announcements_are_told(samples):
    enhanced = review(entries_of(samples.logs["enhanced"]), check_bots=False).story
    declared = [a for d in enhanced.games[0].deals for a in d.announcements]
    classic = review(entries_of(samples.logs["belgian"]), check_bots=False).story
    shown = [a for d in classic.games[0].deals for a in d.announcements]
    assert declared or shown      # random hands: at least one of the two games has some
    assert all(a.points > 0 or a.text == "capot annonce" for a in declared + shown)


def test_the_samples_go_around_the_table(samples):
    def events(preset, kind):
        return [getattr(m.event, kind) for m in samples.logs[preset] if m.event_type == kind]

    chat = events("classic", "chat_posted")
    assert {c.seat for c in chat} == {1, -1} and len(chat) == 3
    assert [(g.game_number, g.first_dealer, g.pot, list(g.paying_seats))
            for g in events("kamikaze", "game_started")] == [(1, 0, 10, [1]), (2, 1, 10, [1])]
    assert [list(e.payouts) for e in events("kamikaze", "game_ended")] == [[0, 10, 0, 0]] * 2
    assert [v.seat for v in events("kamikaze", "rematch_voted")] == [1]
    timer = [m for m in samples.logs["modern"] if m.event_type in ("bid_made", "card_played", "announcement_declared")
             and getattr(m.event, m.event_type).bot.timer]
    assert len(timer) == 1 and getattr(timer[0].event, timer[0].event_type).seat == 0
    assert timer[0].request_id == f"timer-{timer[0].sequence - 1}"
    assert events("enhanced", "table_closed")[0].reason == epb.TABLE_CLOSED_REASON_NO_HUMANS
    assert events("classic", "table_closed")[0].reason == epb.TABLE_CLOSED_REASON_NO_REMATCH


def test_the_reports_tell_what_happened_around_the_table(samples):
    classic = report.as_text(review(entries_of(samples.logs["classic"]), check_bots=False))
    assert "  seat 1: 'human 1' says “good luck, all” (seq" in classic
    assert "  spectator: 'kibitzer' says “what a lead!” (seq" in classic
    assert "  seat 1: 'human 1' says “gg” (seq" in classic
    assert f"Table closed: the rematch vote ran out before every human had voted (seq {len(samples.logs['classic'])})" \
        in classic
    kamikaze = report.as_text(review(entries_of(samples.logs["kamikaze"]), check_bots=False))
    assert "stake 10 chips per human seat" in kamikaze
    assert "Game 1 (first dealer seat 0, seq 6); pot 10 chips, paid by seat 1" in kamikaze
    assert "Game 2 (first dealer seat 1, seq" in kamikaze
    assert "  payouts: seat 1 gets 10 (" in kamikaze and "  rated: no" in kamikaze
    assert "  seat 1: 'human 1' votes for a rematch (seq" in kamikaze
    modern = report.as_text(review(entries_of(samples.logs["modern"]), check_bots=False))
    assert "turn timer 30 s" in modern and "[timer move: normal bot]" in modern
    enhanced = report.as_text(review(entries_of(samples.logs["enhanced"]), check_bots=False))
    assert "Table closed: the game ended with no human at the table" in enhanced

    data = json.loads(report.as_json(review(entries_of(samples.logs["kamikaze"]), check_bots=False)))
    assert data["table"]["stake"] == 10 and data["closed"]["reason"] == "no_rematch"
    assert [(g["number"], g["pot"], g["result"]["payouts"]) for g in data["games"]] == \
        [(1, 10, [0, 10, 0, 0]), (2, 10, [0, 10, 0, 0])]
    assert [v["seat"] for v in data["games"][0]["rematch_votes"]] == [1]
    data = json.loads(report.as_json(review(entries_of(samples.logs["classic"]), check_bots=False)))
    assert [(c["seat"], c["name"], c["text"]) for c in data["chat"]] == [
        (1, "human 1", "good luck, all"), (-1, "kibitzer", "what a lead!"), (1, "human 1", "gg")]
    data = json.loads(report.as_json(review(entries_of(samples.logs["modern"]), check_bots=False)))
    plays = [p for g in data["games"] for d in g["deals"] for t in d["tricks"] for p in t["plays"]]
    calls = [c for g in data["games"] for d in g["deals"] for c in d["auction"]]
    assert [(p["seat"], p["bot"]["level"]) for p in plays + calls if p["bot"] and p["bot"]["timer"]] == \
        [(0, "normal")]

    page = report.as_html(review(entries_of(samples.logs["classic"]), check_bots=False))
    # In its place among the tricks (the spectator speaks at a human's 6th move).
    assert re.search(r"<b>chat</b> a spectator: &#x27;kibitzer&#x27; says “what a lead!” · (during|after) "
                     r"trick \d · #\d+</div>", page)
    assert "Table closed: the rematch vote ran out" in page
    page = report.as_html(review(entries_of(samples.logs["kamikaze"]), check_bots=False))
    assert "payouts: seat 1 gets 10" in page and "votes for a rematch" in page
