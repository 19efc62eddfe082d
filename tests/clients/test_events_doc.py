"""docs/events.md against the proto, so that it cannot drift: a section for every event of
TableEvent's oneof (and YourTurn), none for an event the proto does not have, each telling when
it comes, its append, what each viewer sees (naming every field the proto marks redacted or
view-only) and what it changes in the Table; every message, RPC or field the page names exists.
(tests/clients/test_fold_differential.py checks its Append lines against real logs.)"""

from __future__ import annotations

import re
from dataclasses import fields
from pathlib import Path

from belote.v1 import cards_pb2, events_pb2, ledgers_pb2, table_service_pb2
from belote_client.fold import TableState

ROOT = Path(__file__).resolve().parents[2]
PAGE = (ROOT / "docs" / "events.md").read_text()
LINES = ("When", "Append", "Spectator", "Seat", "Reviewer", "Table")
HEADING = re.compile(r"^## (\w+) \(`(\w+)`\)$", re.M)
FILES = (cards_pb2, events_pb2, ledgers_pb2, table_service_pb2)
MESSAGES = {name: d for f in FILES for name, d in f.DESCRIPTOR.message_types_by_name.items()}
NAMES = set(MESSAGES) | {name for f in FILES for name in f.DESCRIPTOR.enum_types_by_name} | {
    m.name for m in table_service_pb2.DESCRIPTOR.services_by_name["TableService"].methods}


def sections() -> dict[str, tuple[str, str]]:
    """Message name -> (its TableEvent field, the section's text)."""
    found = list(HEADING.finditer(PAGE))
    ends = [m.start() for m in found[1:]] + [len(PAGE)]
    return {m[1]: (m[2], PAGE[m.end():end]) for m, end in zip(found, ends)}


def line(text: str, label: str) -> str:
    """The text of a section's ``- **label:**`` item (its continuation lines joined)."""
    found = re.search(rf"^- \*\*{label}:\*\* (.*?)(?=^- \*\*|\Z)", text, re.M | re.S)
    assert found, label
    return " ".join(found[1].split())


def marked_fields() -> dict[str, list[str]]:
    """Message -> its fields whose comment in events.proto says "Redacted" or "View-only"."""
    marked: dict[str, list[str]] = {}
    message, comment = "", ""
    for text in (ROOT / "proto" / "belote" / "v1" / "events.proto").read_text().splitlines():
        text = text.strip()
        if opened := re.match(r"message (\w+) \{", text):
            message, comment = opened[1], ""
        elif text.startswith("//"):
            comment += text[2:] + " "
        elif declared := re.match(r"(?:repeated )?[\w.]+ (\w+) = \d+;", text):
            if re.search(r"\bRedacted\b|\bView-only\b", comment):
                marked.setdefault(message, []).append(declared[1])
            comment = ""
        else:
            comment = ""
    return marked


def test_every_event_and_your_turn_have_a_section_and_nothing_else_does():
    oneof = events_pb2.TableEvent.DESCRIPTOR.oneofs_by_name["body"]
    expected = {f.message_type.name: f.name for f in oneof.fields} | {"YourTurn": "your_turn"}
    assert {name: field for name, (field, _text) in sections().items()} == expected
    # Every "## " heading of the page is either an event's or one of the page's own parts.
    headings = re.findall(r"^## (.*)$", PAGE, re.M)
    assert [h for h in headings if not HEADING.match(f"## {h}")] == ["Versions and appends", "Who sees what"]


def test_each_section_tells_when_where_who_sees_what_and_the_table():
    for name, (_field, text) in sections().items():
        for label in LINES:
            assert line(text, label), (name, label)
        assert re.match(r"(starts an append|follows )", line(text, "Append")), name


def test_each_redacted_or_view_only_field_is_named_where_viewers_are():
    marked = marked_fields()
    assert marked["TableCreated"] == ["password_hash", "password_salt", "host_token_hash"]
    assert marked["DealStarted"] == ["deck", "salt", "hand"]
    for message, names in marked.items():
        _field, text = sections()[message]
        viewers = " ".join(line(text, label) for label in ("Spectator", "Seat", "Reviewer"))
        for name in names:
            assert f"`{name}`" in viewers, (message, name)


def test_every_message_rpc_and_field_the_page_names_exists():
    for name, attribute in re.findall(r"`([A-Z]\w*)(?:\.(\w+))?`", PAGE):
        assert name in NAMES, name
        if attribute:
            assert attribute in MESSAGES[name].fields_by_name, f"{name}.{attribute}"
    # What a section's Table line names: a field of the Table (or of its game, seats, last
    # trick), of the event itself, or of the folds' state.
    table = table_service_pb2.Table.DESCRIPTOR
    game = table_service_pb2.GameView.DESCRIPTOR
    known = {*table.fields_by_name, *game.fields_by_name, *(f"game.{f}" for f in game.fields_by_name),
             *table_service_pb2.SeatInfo.DESCRIPTOR.fields_by_name,
             *table_service_pb2.LastTrick.DESCRIPTOR.fields_by_name, *(f.name for f in fields(TableState))}
    for name, (_field, text) in sections().items():
        own = set(MESSAGES[name].fields_by_name) if name in MESSAGES else set()
        for named in re.findall(r"`([a-z_.]+)`", line(text, "Table")):
            assert named in known | own, (name, named)
