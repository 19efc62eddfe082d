"""Words for cards, calls, actions and proto fields, as a reviewer reads them."""

from __future__ import annotations

from google.protobuf.descriptor import FieldDescriptor

from belote.rules.actions import Bid, Declare, Play
from belote.rules.cards import card_name
from belote.table.codec import CARD_OF_PB
from belote.v1 import cards_pb2 as cpb

SUITS = {1: "clubs", 2: "diamonds", 3: "hearts", 4: "spades"}
RANKS = ("7", "8", "9", "10", "jack", "queen", "king", "ace")
CONTRACTS = {1: "clubs", 2: "diamonds", 3: "hearts", 4: "spades", 5: "no trump", 6: "all trump"}


def card(c) -> str:
    """``"10H"`` for a rules int or a proto Card."""
    if isinstance(c, int):
        return card_name(c)
    found = CARD_OF_PB.get((c.suit, c.rank))
    if found is not None:
        return card_name(found)
    return f"?(suit {c.suit}, rank {c.rank})"


def cards(cs) -> str:
    return " ".join(card(c) for c in cs)


def contract(value: int) -> str:
    """A proto Contract value."""
    return CONTRACTS.get(value, f"contract {value}")


def call(bid) -> str:
    """A proto Bid."""
    return "pass" if bid.passed else contract(bid.contract)


def announcement(a) -> str:
    """A proto Announcement."""
    names = cpb.AnnouncementKind.DESCRIPTOR.values_by_number
    kind = names[a.kind].name.removeprefix("ANNOUNCEMENT_KIND_").lower() if a.kind in names else f"kind {a.kind}"
    if kind == "carre" and 1 <= a.rank <= 8:
        return f"carré of {RANKS[a.rank - 1]}s"
    words = kind.replace("_", " ")
    if a.top and a.suit:
        return f"{words} to the {RANKS[a.top - 1]} of {SUITS.get(a.suit, a.suit)}"
    if a.suit:
        return f"{words} in {SUITS.get(a.suit, a.suit)}"
    return words


def action(act, seat: int) -> str:
    """A rules action (Bid, Declare, Play) taken by ``seat``."""
    if isinstance(act, Play):
        return f"seat {seat} plays {card_name(act.card)}"
    if isinstance(act, Bid):
        return f"seat {seat} " + ("passes" if act.contract < 0 else f"bids {contract(act.contract + 1)}")
    if isinstance(act, Declare):
        return f"seat {seat} {act}"
    return f"seat {seat}: {act!r}"


def _value(fd, value) -> str:
    if fd.type == FieldDescriptor.TYPE_MESSAGE:
        if fd.message_type.full_name == "belote.v1.Card":
            return card(value)
        return "{" + ", ".join(f"{f.name}: {field_value(f, v)}" for f, v in value.ListFields()) + "}"
    if fd.type == FieldDescriptor.TYPE_ENUM:
        named = fd.enum_type.values_by_number.get(value)
        return named.name if named else str(value)
    if fd.type == FieldDescriptor.TYPE_BYTES:
        return value.hex() or '""'
    return str(value)


def field_value(fd, value) -> str:
    """A field's value as text (cards as ``JH``, enums by name, bytes in hex)."""
    is_map = fd.message_type is not None and fd.message_type.GetOptions().map_entry
    if is_map:
        return "{" + ", ".join(f"{k}: {value[k]}" for k in sorted(value)) + "}"
    if fd.is_repeated:
        return "[" + " ".join(_value(fd, v) for v in value) + "]"
    return _value(fd, value)


def diff(expected, found, prefix: str = "") -> list[tuple[str, str, str]]:
    """(field path, expected, found) for each field where two messages of one type differ."""
    out = []
    for fd in expected.DESCRIPTOR.fields:
        a, b = getattr(expected, fd.name), getattr(found, fd.name)
        single = fd.type == FieldDescriptor.TYPE_MESSAGE and not fd.is_repeated
        if a == b and (not single or expected.HasField(fd.name) == found.HasField(fd.name)):
            continue
        if single and fd.message_type.full_name != "belote.v1.Card":
            sub = diff(a, b, f"{prefix}{fd.name}.")
            if sub:
                out += sub
                continue
        shown_a = field_value(fd, a) if not single or expected.HasField(fd.name) else "(unset)"
        shown_b = field_value(fd, b) if not single or found.HasField(fd.name) else "(unset)"
        out.append((prefix + fd.name, shown_a, shown_b))
    return out


def body(event) -> str:
    """A TableEvent's body on one line."""
    kind = event.WhichOneof("body")
    if kind is None:
        return "(no body)"
    msg = getattr(event, kind)
    return f"{kind} {{" + ", ".join(f"{f.name}: {field_value(f, v)}" for f, v in msg.ListFields()) + "}"
