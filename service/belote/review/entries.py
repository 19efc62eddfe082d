"""A log's events as the review reads them: :class:`Entry` values, from an export or a store.

Also which events start a command (``COMMANDS``) and which follow from one (``DERIVED``).
"""

from __future__ import annotations

from dataclasses import dataclass

from belote.table.codec import decode_stored, encode_body
from belote.v1 import events_pb2 as epb

from .head import ExportEnd

# The events a command starts with; every other event follows from one of them (a takeover
# BotSeated follows a SeatLeft, a TableClosed NO_HUMANS the end of a game: see ``is_command``).
COMMANDS = frozenset({"table_created", "seat_joined", "bot_seated", "seat_left", "seat_reclaimed",
                      "seat_disconnected", "seat_connected", "chat_posted", "rematch_voted",
                      "table_closed", "bid_made", "announcement_declared", "card_played"})
# The events a command may produce after its first one, each checked against decide's.
DERIVED = frozenset({"bot_seated", "game_started", "deal_started", "all_passed", "contract_settled",
                     "announcements_revealed", "trick_won", "deal_scored", "deck_revealed",
                     "game_ended", "table_closed"})
ACTIONS = frozenset({"bid_made", "announcement_declared", "card_played"})
_MIN_TIME_S, _MAX_TIME_S = -62_135_596_800, 253_402_300_799     # a Timestamp's range: years 1..9999


@dataclass(slots=True)
class Entry:
    """One event of a log as exported (a ``LoggedEvent``), with its stored payload."""

    position: int           # 1-based place in the log (in a whole log: the sequence it must have)
    table_id: str
    sequence: int
    type: str
    schema_version: int
    request_id: str
    recorded_at_us: int     # the time the chain hashes (microseconds)
    prev_hash: bytes
    hash: bytes
    payload: bytes          # the stored body: encode_body(event)
    kind: str | None        # the body set in ``event`` (None: none)
    event: epb.TableEvent
    envelope_ok: bool = True
    command: bool = False   # the first event of a command (see is_command)
    time_ok: bool = True    # ``time`` is a valid Timestamp (else an ``envelope`` finding)
    at_us: int = 0          # the time the replay gives the event (deadlines count from it):
                            # recorded_at_us, or 0 when that is not a valid time

    @classmethod
    def from_logged(cls, msg: epb.LoggedEvent, position: int) -> Entry:
        event = msg.event
        kind = event.WhichOneof("body")
        # As Timestamp.ToMicroseconds, without its range check (a bad time is the hash's finding,
        # and the envelope's).
        t = msg.append_time
        seconds, nanos = t.seconds, t.nanos
        time_us = seconds * 1_000_000 + nanos // 1000
        time_ok = 0 <= nanos < 1_000_000_000 and _MIN_TIME_S <= seconds <= _MAX_TIME_S
        # The chain hashes the time in microseconds, as the server writes it: a finer time would
        # show what the hash does not cover.
        envelope_ok = (time_ok and event.sequence == msg.sequence and event.table_id == msg.table_id
                       and event.append_time == t and not nanos % 1000)
        entry = cls(position, msg.table_id, msg.sequence, msg.event_type, msg.schema_version, msg.request_id,
                    time_us, msg.prev_hash, msg.hash, encode_body(event) if kind else b"", kind, event,
                    envelope_ok, False, time_ok, time_us if time_ok else 0)
        entry.command = is_command(entry)
        return entry


def entries_of(messages) -> list[Entry]:
    """Entries of LoggedEvents (an export's events), in log order."""
    return [Entry.from_logged(m, i) for i, m in enumerate(messages, 1)]


def export_of(messages, key: bytes | None = None,
              trusted: frozenset[bytes] = frozenset()) -> tuple[list[Entry], ExportEnd]:
    """The entries of a whole export's lines (``messages``: any iterable, read once, so a file is
    never held whole) and its end: the head lines, for ``review(..., end=)``. ``key``: the
    server's public key the head must be signed by; else ``trusted``: the keys the reviewer
    pinned (a good head by another key: ``Review.unknown_key``)."""
    entries: list[Entry] = []
    end = ExportEnd(key=key, trusted=trusted)
    for m in messages:
        if m.HasField("head"):
            end.heads.append((len(entries), m))
        else:
            entries.append(Entry.from_logged(m, len(entries) + 1))
    return entries, end


def entries_of_stored(stored) -> list[Entry]:
    """Entries of a store's StoredEvents, hashed over the very bytes the store holds; a payload
    that does not decode is an event without a body (an ``envelope`` violation)."""
    out = []
    for i, s in enumerate(stored, 1):
        try:
            event = decode_stored(s)
            kind = event.WhichOneof("body")
        except Exception:  # noqa: BLE001 - any decoding error: the bytes are not an event
            event, kind = epb.TableEvent(sequence=s.sequence, table_id=s.table_id), None
        entry = Entry(i, s.table_id, s.sequence, s.type, s.schema_version, s.request_id,
                      s.recorded_at_us, s.prev_hash, s.hash, bytes(s.payload), kind, event,
                      at_us=s.recorded_at_us if kind else 0)
        entry.command = is_command(entry)
        out.append(entry)
    return out


def is_command(e: Entry) -> bool:
    """True for the first event of a command; a takeover BotSeated follows a SeatLeft, and a
    TableClosed NO_HUMANS the end of a game (a closing for NO_REMATCH is the deadline sweep's
    command)."""
    kind = e.kind
    if kind == "bot_seated":
        return not e.event.bot_seated.takeover
    if kind == "table_closed":
        return e.event.table_closed.reason != epb.TABLE_CLOSED_REASON_NO_HUMANS
    return kind in COMMANDS


__all__ = ["ACTIONS", "COMMANDS", "DERIVED", "Entry", "entries_of", "entries_of_stored", "export_of",
           "is_command"]
