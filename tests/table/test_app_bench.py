"""The in-process app bench plays real tables to the card it counts, then lets them go."""

from __future__ import annotations

import asyncio

from belote.bench import app_bench


async def test_the_app_bench_plays_its_tables_to_the_last_card_counted(monkeypatch):
    monkeypatch.setattr(app_bench, "TABLES", 3)
    monkeypatch.setattr(app_bench, "WARMUP_CARDS", 8)
    monkeypatch.setattr(app_bench, "CARDS", 40)
    cpu_us, cards_per_s = await asyncio.wait_for(app_bench.measure(), 60)
    assert cpu_us > 0 and cards_per_s > 0
    # Nothing of the tables' tasks is left behind.
    assert [t for t in asyncio.all_tasks() if t is not asyncio.current_task()] == []
