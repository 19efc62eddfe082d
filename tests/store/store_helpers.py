"""What the store's contract suites share: a time, and appends of one "e" event per payload."""

from __future__ import annotations

from belote.store import NewEvent

T0 = 1_700_000_000_000_000  # a recorded_at_us


async def append(store, table_id, expected, *payloads, request_id, at=T0, index=None):
    """Append one "e" event per payload."""
    return await store.events.append(table_id, expected, [NewEvent("e", p) for p in payloads],
                                     request_id=request_id, recorded_at_us=at, index=index)


async def filled(store, table_id="t", n=5):
    """A table with n events, one per request; returns its read."""
    for i in range(n):
        await append(store, table_id, i, f"p{i + 1}".encode(), request_id=f"r{i + 1}", at=T0 + i)
    return await store.events.read(table_id)

