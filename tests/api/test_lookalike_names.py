"""Display names over a real server: a spectator cannot chat under a name that looks like a
seat's (app/display_names.py: UTS #39 skeletons, NFKC, case and accents), and no name holds an
invisible character."""

from __future__ import annotations

import unicodedata

import grpc
import pytest
from belote.v1 import table_service_pb2 as pb
from players import Table, bearer, rid
from test_errors import field_of, refused

pytestmark = pytest.mark.timeout(60)
C = grpc.StatusCode


def nfc(name: str) -> str:
    return unicodedata.normalize("NFC", name)


async def _alice_and_a_bot(stub) -> Table:
    """Seat 0 "Alice", seat 1 an easy bot ("bot (easy)"); two seats free: no game starts."""
    created = await stub.CreateTable(pb.CreateTableRequest(preset="classic", request_id=rid()))
    table = Table(stub, created.table_id, created.host_token, int(created.table.options["target"]))
    await table.join(0, name="Alice")
    await table.add_bot(1)
    return table


def _chat(table: Table, name: str, token: str | None = None):
    return table.stub.PostChat(pb.PostChatRequest(table_id=table.table_id, text="I am Alice",
                                                  display_name=name, request_id=rid()),
                               metadata=bearer(token) if token else None)


@pytest.mark.parametrize("name", [
    "\u0410lice",                        # Cyrillic capital A
    "\u00c1lice",                        # an accent (precomposed)
    "A\u0301lice",                       # the same accent, decomposed
    "\uff21\uff4c\uff49\uff43\uff45",    # fullwidth
    "AIice",                             # capital I for small l
    "ALICE",                             # case, as before
    "b\u043et (easy)",                   # the bot's shown name, with a Cyrillic o
])
async def test_a_spectator_cannot_chat_as_a_lookalike_of_a_seat(stub, name):
    table = await _alice_and_a_bot(stub)
    for token in (None, table.host_token):          # a spectator, and the host (a spectator too)
        err = await refused(table, _chat(table, name, token), C.INVALID_ARGUMENT, "NAME_OF_A_SEAT")
        assert field_of(err) == "display_name"
        assert err.details() == (f"display_name: {nfc(name)!r} looks like the name of a seat at this "
                                 "table: a spectator posts under a name of its own")


async def test_a_spectator_s_name_is_checked_like_a_seat_s_and_stored_in_nfc(stub):
    table = await _alice_and_a_bot(stub)
    # Zero-width: refused as invisible before it is compared with the seats.
    err = await refused(table, _chat(table, "Al\u200bice"), C.INVALID_ARGUMENT, "INVALID_FIELD")
    assert field_of(err) == "display_name"
    assert err.details() == ("display_name: character 3 is U+200B ZERO WIDTH SPACE, an invisible "
                             "or control character: names may not contain these (except inside "
                             "an emoji)")
    # Names that only resemble a seat's in part are a spectator's own.
    for name in ("Alicia", "Bob"):
        posted = (await _chat(table, name)).event.chat_posted
        assert (posted.display_name, posted.seat, posted.spectator) == (name, -1, True)
    posted = (await _chat(table, " E\u0301mile ")).event.chat_posted
    assert posted.display_name == nfc("E\u0301mile") == "\u00c9mile"       # NFC, without the spaces around


@pytest.mark.parametrize("name, shown", [
    ("Al\u200bice", "character 3 is U+200B ZERO WIDTH SPACE"),
    ("\u202eecilA", "character 1 is U+202E RIGHT-TO-LEFT OVERRIDE"),
    ("\u3164", "character 1 is U+3164 HANGUL FILLER"),
    ("A\ufe0f", "character 2 is U+FE0F VARIATION SELECTOR-16"),
    ("Al\tice", "character 3 is U+0009"),
])
async def test_join_refuses_an_invisible_character_in_the_name(stub, name, shown):
    table = await _alice_and_a_bot(stub)
    err = await refused(table, stub.JoinTable(pb.JoinTableRequest(
        table_id=table.table_id, display_name=name, request_id=rid())),
        C.INVALID_ARGUMENT, "INVALID_FIELD")
    assert field_of(err) == "display_name"
    assert err.details() == (f"display_name: {shown}, an invisible or control character: names "
                             "may not contain these (except inside an emoji)")


async def test_join_stores_the_name_in_nfc_takes_emoji_and_blank_names_are_refused(stub):
    table = await _alice_and_a_bot(stub)
    for name in (" ", "\u3000\u2800"):
        err = await refused(table, stub.JoinTable(pb.JoinTableRequest(
            table_id=table.table_id, display_name=name, request_id=rid())),
            C.INVALID_ARGUMENT, "INVALID_FIELD")
        assert (field_of(err), err.details()) == (
            "display_name", "display_name: only spaces: a name needs a visible character")
    joined = await table.join(2, name=" Jose\u0301 \u2764\ufe0f ")
    assert joined.table.seats[2].display_name == "Jos\u00e9 \u2764\ufe0f"
    # A seat may look like another seat: seats are told apart by their number (a spectator,
    # who has none, may not; app/display_names.py says why).
    joined = await table.join(3, name="\u0410lice")
    assert [s.display_name for s in joined.table.seats] == [
        "Alice", "bot (easy)", "Jos\u00e9 \u2764\ufe0f", "\u0410lice"]
