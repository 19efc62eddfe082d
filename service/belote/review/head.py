"""The end of an export: its signed head (ExportHead, app/export_signing.py) against the log.

The head shows the hash chain was not recomputed and where the log ended; its findings are of
the ``head`` check, at the place of the head line (the sequence after the last event).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import UTC, datetime

from belote.app.export_signing import HEAD_VERSION, key_text, signature_ok
from belote.store.chain import GENESIS_HASH
from belote.v1 import events_pb2 as epb

from .known_keys import fingerprint


@dataclass
class ExportEnd:
    """The head lines of an export, each with the number of events before it, and the public key
    they must be signed by (``key``, the reviewer's --key), else the keys the reviewer pinned
    (``trusted``): a good head by any other key is the head of an unknown key."""

    heads: list[tuple[int, epb.LoggedEvent]] = field(default_factory=list)
    key: bytes | None = None
    trusted: frozenset[bytes] = frozenset()


def check_end(entries, end: ExportEnd, fail, notes: list[str]) -> bytes | None:
    """Report what is wrong with the export's end through ``fail(sequence, "head", message,
    expected, found)``; a good head gets a note saying what was proven. Returns the key of a good
    head that is neither ``end.key`` nor trusted (None otherwise)."""
    n = len(entries)
    at = n + 1
    others, final = end.heads[:-1], (end.heads[-1] if end.heads else None)
    for before, _ in others:
        fail(before + 1, "head", "a head line before the export's last line: the events after it "
             "were added to a finished export, or two exports were joined", "one head, last", "-")
    if final is None or final[0] != n:
        if final is not None:
            fail(final[0] + 1, "head", "the export's head is not its last line: events follow it",
                 "the head last", f"{_events(n - final[0])} after it")
        fail(at, "head", "the export has no signed head at its end: it was cut short (at any "
             "event), or written by a server from before export heads", "an ExportHead line", "-")
        return None
    line = final[1]
    head = line.head
    rest = epb.LoggedEvent()
    rest.CopyFrom(line)
    rest.ClearField("head")
    if rest.ByteSize():
        fail(at, "head", "the head line carries more than the head (event fields beside it)")
    if head.version != HEAD_VERSION:
        fail(at, "head", f"the head is of version {head.version}: this review knows version "
             f"{HEAD_VERSION} only, so its signature cannot be checked", HEAD_VERSION, head.version)
        return None
    last = entries[-1] if entries else None
    table_id = last.table_id if last else head.table_id
    sequence, last_hash = (last.sequence, last.hash) if last else (0, GENESIS_HASH)
    ok = True
    if head.table_id != table_id:
        ok = False
        fail(at, "head", "the head is another table's", table_id, head.table_id)
    if head.last_sequence > sequence:
        ok = False
        fail(at, "head", f"the log was cut: the server's head ends it at seq {head.last_sequence}, "
             f"this export at seq {sequence} ({_events(head.last_sequence - sequence)} removed "
             "from its end)", f"seq {head.last_sequence}", f"seq {sequence}")
    elif head.last_sequence < sequence:
        ok = False
        fail(at, "head", f"events were added after the server's head, which ends the log at seq "
             f"{head.last_sequence}", f"seq {head.last_sequence}", f"seq {sequence}")
    elif head.last_hash != last_hash:
        ok = False
        fail(at, "head", f"the hash of seq {sequence} is not the one the server signed: the log was "
             "changed and its hash chain recomputed", head.last_hash.hex(), last_hash.hex())
    key = end.key if end.key is not None else head.public_key
    if end.key is not None and head.public_key != end.key:
        ok = False
        fail(at, "head", "the head is signed by another key than the server's (--key): not the "
             "server's export, or the log was changed and signed again",
             key_text(end.key), key_text(head.public_key))
    if not signature_ok(head, key):
        ok = False
        fail(at, "head", "the head's signature is not good: the head (or the log it ends) was "
             "changed after the server signed it", "a good signature by " + key_text(key),
             head.signature.hex() or "(none)")
    if not ok:
        return None
    if end.key is None and key not in end.trusted:
        # Signed, but by whoever holds that key: anyone can sign a log they cut or edited.
        notes.append(f"the export ends with its head signed by {key_text(key)}, a key you do not "
                     f"trust (neither --key nor pinned): up to seq {sequence}, the log as whoever "
                     f"holds that key signed it, not proven the server's")
        return key
    notes.append(f"the export ends with its head signed by {key_text(key)}: the log as the server "
                 f"read it at {_when(head.export_time)}, up to seq {sequence}")
    if end.key is None:
        notes.append(f"that key ({fingerprint(key)}) is pinned in your known keys")
    return None


def _events(n: int) -> str:
    return f"{n} event{'s' if n != 1 else ''}"


def _when(t) -> str:
    try:
        return datetime.fromtimestamp(t.seconds, UTC).isoformat().replace("+00:00", "Z")
    except (OverflowError, OSError, ValueError):
        return f"{t.seconds} s"
