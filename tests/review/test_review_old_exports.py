"""Exports made before belote.v1 was frozen (by commit b1054cb, whose enum values had no prefix:
"EASY", "CLUBS", "BELOTE", "MADE"...) still replay clean, signed head included.

The fixtures are two whole games of four bots: `belgian` (classic announcements: tierce,
cinquante, cent) and `enhanced` (declared announcements, a carré, belote and rebelote, a capot).
"""

from __future__ import annotations

import argparse
import json
import pathlib

import pytest
from belote.review import cli
from belote.review.load import read_file
from belote.table.codec import upgrade_logged_json
from belote.v1 import cards_pb2, events_pb2

FIXTURES = pathlib.Path(__file__).parent / "fixtures"
KEY = FIXTURES / "v1-before-prefixes.key"


def run(*argv) -> int:
    p = argparse.ArgumentParser(prog="belote")
    cli.add_commands(p.add_subparsers(dest="command", required=True))
    args = p.parse_args(list(argv))
    return args.func(args)


@pytest.mark.parametrize("name", ["belgian", "enhanced"])
def test_an_old_export_replays_clean_with_its_key(name, capsys):
    path = FIXTURES / f"v1-before-prefixes-{name}.jsonl"
    assert '"EASY"' in path.read_text()                 # written with the old names
    assert run("replay", "--file", str(path), "--key", str(KEY)) == 0
    out = capsys.readouterr().out
    assert out.rstrip().endswith("CLEAN: no violation")


def test_old_names_are_read_as_the_new_values():
    events = read_file(str(FIXTURES / "v1-before-prefixes-enhanced.jsonl"))
    bodies = [e.event for e in events if e.HasField("event")]
    levels = {b.bot_seated.level for b in bodies if b.HasField("bot_seated")}
    assert levels == {events_pb2.BOT_LEVEL_EASY}
    calls = [b.card_played.belote for b in bodies if b.HasField("card_played") and b.card_played.belote]
    assert calls == [events_pb2.BELOTE_CALL_BELOTE, events_pb2.BELOTE_CALL_REBELOTE] * 2
    outcomes = {b.deal_scored.outcome for b in bodies if b.HasField("deal_scored")}
    assert events_pb2.DEAL_OUTCOME_CAPOT_MADE in outcomes
    deck = next(b.deal_started.deck for b in bodies if b.HasField("deal_started"))
    assert {c.suit for c in deck} == {cards_pb2.SUIT_CLUBS, cards_pb2.SUIT_DIAMONDS,
                                      cards_pb2.SUIT_HEARTS, cards_pb2.SUIT_SPADES}


def test_the_upgrade_renames_only_what_the_schema_of_now_does_not_know():
    line = {"event": {"cardPlayed": {"seat": 1, "card": {"suit": "HEARTS", "rank": "SUIT_X"},
                                     "belote": "BELOTE_CALL_NONE"},
                      "botSeated": {"level": "BOT_LEVEL_HARD"}}}
    upgraded = upgrade_logged_json(json.loads(json.dumps(line)))
    assert upgraded["event"]["cardPlayed"] == {"seat": 1, "card": {"suit": "SUIT_HEARTS", "rank": "SUIT_X"},
                                               "belote": "BELOTE_CALL_UNSPECIFIED"}
    assert upgraded["event"]["botSeated"] == {"level": "BOT_LEVEL_HARD"}
