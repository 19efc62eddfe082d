"""The per-table hash chain that makes an exported log tamper-evident.

The chain is unkeyed (anyone can check it, so anyone who edits a log can recompute it): an
export ends with its last hash signed by the server (app/export_signing.py), and that signature
is what a recomputed chain, or a log cut short, no longer matches. Every field of an export's
event is hashed here (its envelope and its body's stored bytes), so the signature covers all.
The byte layout is ``event_hash``'s; ``LogHasher`` hashes a whole log with it.
"""

from __future__ import annotations

import hashlib
import struct
from collections.abc import Iterable, Iterator, Sequence
from typing import Any

from .base import NewEvent, StoredEvent

GENESIS_HASH = bytes(32)


_U32, _U64 = struct.Struct(">I").pack, struct.Struct(">Q").pack
_I64_U32 = struct.Struct(">qI").pack        # I64(recorded_at_us), then the payload's U32(length)


def _str(s: str) -> bytes:
    b = s.encode("utf-8")
    return _U32(len(b)) + b


def event_hash(
    prev_hash: bytes,
    table_id: str,
    sequence: int,
    type: str,
    schema_version: int,
    request_id: str,
    recorded_at_us: int,
    payload: bytes,
) -> bytes:
    """The 32-byte hash of one event.

    Byte layout (every backend and any external verifier must match it exactly)::

        hash = SHA-256(
            prev_hash                 32 bytes: the previous event's hash,
                                      or GENESIS_HASH (32 zero bytes) for sequence 1
            || STR(table_id)
            || U64(sequence)
            || STR(type)
            || U32(schema_version)
            || STR(request_id)
            || I64(recorded_at_us)
            || BYTES(payload)
        )

        U32(n), U64(n)  n as a 4 / 8 byte unsigned big-endian integer
        I64(n)          n as an 8 byte two's-complement big-endian integer
        BYTES(b)        U32(len(b)) || b
        STR(s)          BYTES(UTF-8 encoding of s)

    Each variable-length field carries its length and each number has a fixed
    width, so two different events can never produce the same hashed bytes.

    Example (lets a re-implementation check itself)::

        event_hash(GENESIS_HASH, "t1", 1, "card_played", 1, "r1",
                   1700000000000000, b"\\x01\\x02").hex()
        == "75223434ed2c3dd7b6df8f28f46654d5e874bd150d97244006a13e299ae5e251"
    """
    event = StoredEvent(table_id, sequence, type, schema_version, payload, request_id,
                        recorded_at_us, prev_hash, b"")
    h = next(LogHasher().hashes((event,)))
    if isinstance(h, ValueError):
        raise h
    return h


class LogHasher:
    """``event_hash`` over the events of a log, which repeat their table id, types and schema
    versions: those pieces of the layout are encoded once per hasher."""

    __slots__ = ("_heads", "_tables")

    def __init__(self) -> None:
        self._tables: dict[str, bytes] = {}             # table_id -> STR(table_id)
        self._heads: dict[str, tuple[int, bytes]] = {}  # type -> (version, STR(type) || U32(version))

    def hashes(self, events: Iterable[Any]) -> Iterator[bytes | ValueError]:
        """The hash of each event (anything with StoredEvent's fields), in order; in place of
        the hash of an event whose fields cannot be hashed, the ValueError that says why."""
        tables, heads = self._tables, self._heads
        for e in events:
            try:
                prev_hash = e.prev_hash
                if len(prev_hash) != 32:
                    raise ValueError("prev_hash must be 32 bytes")
                tid = tables.get(e.table_id)
                if tid is None:
                    tid = tables[e.table_id] = _str(e.table_id)
                head = heads.get(e.type)
                if head is None or head[0] != e.schema_version:
                    head = heads[e.type] = (e.schema_version, _str(e.type) + _U32(e.schema_version))
                rid = e.request_id.encode()
                payload = e.payload
                data = b"".join((prev_hash, tid, _U64(e.sequence), head[1], _U32(len(rid)), rid,
                                 _I64_U32(e.recorded_at_us, len(payload)), payload))
            except struct.error as err:       # a number out of its field's range
                yield ValueError(f"event field out of range: {err}")
                continue
            except ValueError as err:         # UnicodeEncodeError: a string that is not text
                yield err
                continue
            yield hashlib.sha256(data).digest()


def chain_events(table_id: str, expected_version: int, prev_hash: bytes,
                 events: Sequence[NewEvent], request_id: str,
                 recorded_at_us: int) -> list[StoredEvent]:
    """An append's events as stored: sequences from expected_version + 1, each chained onto
    the one before, the first onto `prev_hash` (the hash of event `expected_version`)."""
    stored = []
    for seq, e in enumerate(events, start=expected_version + 1):
        payload = bytes(e.payload)
        h = event_hash(prev_hash, table_id, seq, e.type, e.schema_version, request_id,
                       recorded_at_us, payload)
        stored.append(StoredEvent(table_id, seq, e.type, e.schema_version, payload, request_id,
                                  recorded_at_us, prev_hash, h))
        prev_hash = h
    return stored


def verify_chain(
    events: Iterable[StoredEvent],
    *,
    prev_hash: bytes = GENESIS_HASH,
    after_sequence: int = 0,
) -> int | None:
    """Return the sequence of the first event that breaks the chain, else None.

    An event breaks it if its sequence is not the previous one + 1 (a gap, a
    duplicate, an out-of-order or a deleted event), its table_id differs from
    the first event's, its prev_hash is not the previous event's hash, or its
    hash does not match its fields (a changed field). `events` should be a
    whole log from sequence 1; to check a later slice pass the hash and the
    sequence of the event just before it.
    """
    table_id: str | None = None
    expected_seq = after_sequence + 1
    for e in events:
        if table_id is None:
            table_id = e.table_id
        if e.sequence != expected_seq or e.table_id != table_id or e.prev_hash != prev_hash:
            return e.sequence
        try:
            h = event_hash(e.prev_hash, e.table_id, e.sequence, e.type, e.schema_version,
                           e.request_id, e.recorded_at_us, e.payload)
        except ValueError:
            return e.sequence
        if h != e.hash:
            return e.sequence
        prev_hash = e.hash
        expected_seq += 1
    return None
