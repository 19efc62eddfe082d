"""`belote fuzz` against a live server: random and hostile calls of every RPC, answered with a
status a client can act on (never UNKNOWN or INTERNAL). The 100,000-call run is the command's
own (`belote fuzz --calls 100000`); this one keeps every commit honest."""

from __future__ import annotations

from belote.fuzz import SERVICE, fuzz


async def test_two_thousand_random_calls_get_no_server_fault(server):
    report = await fuzz(server.address, 2000, seed=7, concurrency=8)
    assert report.faults == []
    assert report.calls >= 2000
    # The fuzz reached every RPC, and past the checks of identity into the game's own.
    assert {rpc for rpc, _code in report.codes} == {m.name for m in SERVICE.methods}
    codes = {code for _rpc, code in report.codes}
    assert {"OK", "INVALID_ARGUMENT", "NOT_FOUND", "PERMISSION_DENIED"} <= codes

