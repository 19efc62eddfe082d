"""The EventLog contract's integrity: the hash chain, and what the database itself refuses.

`store` is a fresh store on a fresh database, run once per backend (conftest.py); `backend`
opens more stores on that same database and does the few raw operations below the interface.
"""

from __future__ import annotations

import dataclasses
import hashlib
import struct

import pytest
from belote.store import (
    GENESIS_HASH,
    NewEvent,
    StoredEvent,
    event_hash,
    verify_chain,
)
from hypothesis import given
from hypothesis import strategies as st

from store_helpers import T0, append, filled


async def test_the_database_rejects_a_duplicate_or_gapped_sequence(store, backend):
    await filled(store, n=2)
    for sequence in (1, 2, 4):
        with pytest.raises(backend.integrity_error):
            backend.raw_insert_event("t", sequence)
    assert [e.sequence for e in await store.events.read("t")] == [1, 2]


async def test_the_database_rejects_changing_or_deleting_events(store, backend):
    before = await filled(store, n=2)
    with pytest.raises(backend.integrity_error):
        backend.raw_modify_event("t", 1)
    with pytest.raises(backend.integrity_error):
        backend.raw_delete_event("t", 2)
    assert await store.events.read("t") == before


async def test_the_database_rejects_changing_or_deleting_request_rows(store, backend):
    # A request's row is how its retry finds its first result: it is append-only like events
    # (a refused append writes none, so there is nothing to take back).
    before = await filled(store, n=2)
    with pytest.raises(backend.integrity_error):
        backend.raw_modify_request("t", "r1")
    with pytest.raises(backend.integrity_error):
        backend.raw_delete_request("t", "r2")
    assert (await append(store, "t", 2, b"again", request_id="r1")).events == tuple(before[:1])


async def test_the_database_rejects_an_event_that_does_not_chain_onto_the_last(store, backend):
    before = await filled(store, n=2)
    with pytest.raises(backend.integrity_error):
        backend.raw_insert_event("t", 3, prev_hash=before[0].hash)
    with pytest.raises(backend.integrity_error):
        backend.raw_insert_event("t", 3, prev_hash=GENESIS_HASH)
    assert await store.events.read("t") == before


async def test_an_event_with_a_wrong_hash_is_refused_by_postgresql_and_caught_on_sqlite(
        store, backend):
    # The one difference between the backends' databases: PostgreSQL's trigger recomputes the
    # hash, SQLite's (no sha256 in its SQL) checks the links only, and verify_chain the rest.
    before = await filled(store, n=2)
    wrong = bytes(31) + b"\x01"
    if backend.checks_hashes:
        with pytest.raises(backend.integrity_error):
            backend.raw_insert_event("t", 3, prev_hash=before[-1].hash, hash=wrong)
        assert await store.events.read("t") == before
    else:
        backend.raw_insert_event("t", 3, prev_hash=before[-1].hash, hash=wrong)
        events = await store.events.read("t")
        assert [e.sequence for e in events] == [1, 2, 3] and events[2].hash == wrong
        assert verify_chain(events) == 3


# --- hash chain ------------------------------------------------------------


def documented_hash(prev, table_id, sequence, type_, schema_version, request_id, at, payload):
    """The layout from belote.store.chain's docstring, re-implemented."""
    def blob(b):
        return struct.pack(">I", len(b)) + b
    return hashlib.sha256(
        prev + blob(table_id.encode()) + struct.pack(">Q", sequence) + blob(type_.encode())
        + struct.pack(">I", schema_version) + blob(request_id.encode())
        + struct.pack(">q", at) + blob(payload)).digest()


def test_event_hash_follows_the_documented_layout():
    h = event_hash(GENESIS_HASH, "t1", 1, "card_played", 1, "r1", 1700000000000000, b"\x01\x02")
    assert h.hex() == "75223434ed2c3dd7b6df8f28f46654d5e874bd150d97244006a13e299ae5e251"
    assert h == documented_hash(bytes(32), "t1", 1, "card_played", 1, "r1",
                                1700000000000000, b"\x01\x02")
    assert bytes(32) == GENESIS_HASH


fields = st.tuples(st.text(max_size=6), st.integers(1, 2**64 - 1), st.text(max_size=6),
                   st.integers(0, 2**32 - 1), st.text(max_size=6),
                   st.integers(-(2**63), 2**63 - 1), st.binary(max_size=6))


@given(fields, fields)
def test_different_events_never_hash_alike(a, b):
    # Length prefixes: moving bytes from one field to the next changes the hash.
    assert (event_hash(GENESIS_HASH, *a) == event_hash(GENESIS_HASH, *b)) == (a == b)


async def test_stored_events_form_a_hash_chain(store):
    await append(store, "t", 0, b"a", request_id="r1", at=T0)
    await store.events.append("t", 1, [NewEvent("x", b"b", 2), NewEvent("y", b"c")],
                       request_id="r2", recorded_at_us=T0 + 1)
    events = await store.events.read("t")
    assert events[0].prev_hash == GENESIS_HASH
    for prev, e in zip([None, *events], events, strict=False):
        if prev is not None:
            assert e.prev_hash == prev.hash
        assert len(e.hash) == 32
        assert e.hash == documented_hash(e.prev_hash, e.table_id, e.sequence, e.type,
                                         e.schema_version, e.request_id, e.recorded_at_us,
                                         e.payload)
    assert verify_chain(events) is None
    assert verify_chain([]) is None
    # A slice verifies from the event before it.
    assert verify_chain(events[1:], prev_hash=events[0].hash, after_sequence=1) is None
    assert verify_chain(events[1:]) == 2


@pytest.mark.parametrize("field, value", [
    ("payload", b"forged"), ("type", "forged"), ("schema_version", 9),
    ("request_id", "forged"), ("recorded_at_us", T0 + 1), ("table_id", "other"),
    ("hash", bytes(32)), ("prev_hash", bytes(32)),
])
async def test_verify_chain_catches_a_changed_field(store, field, value):
    events = await filled(store, n=5)
    events[2] = dataclasses.replace(events[2], **{field: value})
    assert verify_chain(events) == 3


async def test_verify_chain_catches_a_rehashed_change_at_the_next_event(store):
    events = await filled(store, n=5)
    e = dataclasses.replace(events[2], payload=b"forged")
    events[2] = dataclasses.replace(e, hash=documented_hash(
        e.prev_hash, e.table_id, e.sequence, e.type, e.schema_version, e.request_id,
        e.recorded_at_us, e.payload))
    assert verify_chain(events) == 4


async def test_verify_chain_catches_a_deleted_event(store):
    events = await filled(store, n=5)
    assert verify_chain(events[:2] + events[3:]) == 4  # gap
    assert verify_chain(events[1:]) == 2  # the first one missing
    # Renumbering the rest does not help: the prev_hash link is broken.
    renumbered = events[:2] + [dataclasses.replace(e, sequence=e.sequence - 1) for e in events[3:]]
    assert verify_chain(renumbered) == 3


async def test_verify_chain_catches_swapped_events(store):
    events = await filled(store, n=5)
    assert verify_chain([events[0], events[1], events[3], events[2], events[4]]) == 4
    # Swapped contents under the original sequence numbers.
    swapped = [events[0], events[1],
               dataclasses.replace(events[3], sequence=3),
               dataclasses.replace(events[2], sequence=4),
               events[4]]
    assert verify_chain(swapped) == 3


async def test_verify_chain_catches_an_inserted_event(store):
    events = await filled(store, n=5)
    p = events[1]
    forged = StoredEvent("t", 3, "e", 1, b"forged", "evil", T0, p.hash,
                         event_hash(p.hash, "t", 3, "e", 1, "evil", T0, b"forged"))
    # A well-formed forged event 3 in front of the real one: duplicate sequence.
    assert verify_chain(events[:2] + [forged] + events[2:]) == 3
    # Renumbering the real ones after it: the next prev_hash no longer links.
    shifted = [dataclasses.replace(e, sequence=e.sequence + 1) for e in events[2:]]
    assert verify_chain(events[:2] + [forged] + shifted) == 4
    # Appended at the end, with a correct link and hash, it verifies: the chain
    # proves order and integrity, not authorship.
    last = events[-1]
    tail = StoredEvent("t", 6, "e", 1, b"x", "evil", T0, last.hash,
                       event_hash(last.hash, "t", 6, "e", 1, "evil", T0, b"x"))
    assert verify_chain(events + [tail]) is None
