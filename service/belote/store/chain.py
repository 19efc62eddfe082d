"""The per-table hash chain that makes an exported log tamper-evident.

The chain is unkeyed (anyone can check it, so anyone who edits a log can recompute it): an
export ends with its last hash signed by the server (app/export_signing.py), and that signature
is what a recomputed chain, or a log cut short, no longer matches. Every field of an export's
event is hashed here (its envelope and its body's stored bytes), so the signature covers all.

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

from __future__ import annotations

import hashlib
import struct
from collections.abc import Iterable

from .base import StoredEvent

GENESIS_HASH = bytes(32)


def _bytes(b: bytes) -> bytes:
    return struct.pack(">I", len(b)) + b


def _str(s: str) -> bytes:
    return _bytes(s.encode("utf-8"))


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
    """The 32-byte hash of one event; see the module docstring for the layout."""
    if len(prev_hash) != 32:
        raise ValueError("prev_hash must be 32 bytes")
    try:
        data = b"".join((
            prev_hash,
            _str(table_id),
            struct.pack(">Q", sequence),
            _str(type),
            struct.pack(">I", schema_version),
            _str(request_id),
            struct.pack(">q", recorded_at_us),
            _bytes(bytes(payload)),
        ))
    except struct.error as e:  # a number out of its field's range
        raise ValueError(f"event field out of range: {e}") from None
    return hashlib.sha256(data).digest()


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
    table_id = None
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
