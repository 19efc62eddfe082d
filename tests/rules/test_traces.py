"""Differential test: today's engine plays seeded random deals exactly as the engine recorded in
``data/traces.json`` did (every preset, and option sets the presets leave out).

Each step compares the seat to act, its hand, every legal action (cards, bids, declarations),
and what ``apply`` reported: belote calls, tricks (leader, cards, winner, points), revealed
announcements, each deal's result and the game's end. See ``traces.py``.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import pytest
from traces import case_name, trace_deals

RECORDED = json.loads((Path(__file__).parent / "data" / "traces.json").read_text())


@pytest.mark.parametrize("recorded", RECORDED, ids=lambda r: case_name(r["preset"], r["overrides"]))
def test_random_deals_play_as_recorded(recorded):
    digest = hashlib.sha256()
    for n, steps in enumerate(trace_deals(recorded["preset"], recorded["overrides"],
                                          recorded["deals"])):
        plain = json.loads(json.dumps(steps))
        if n < len(recorded["first_deals"]):
            for got, expected in zip(plain, recorded["first_deals"][n], strict=True):
                assert got == expected, f"deal {n + 1}"
        digest.update(json.dumps(steps, separators=(",", ":")).encode())
    assert digest.hexdigest() == recorded["sha256"]


def test_the_traces_cover_every_preset_and_many_deals():
    from belote.rules import PRESETS
    assert {r["preset"] for r in RECORDED} == set(PRESETS)
    assert len(RECORDED) == len(PRESETS) + 12
    assert all(r["deals"] == 600 for r in RECORDED)
