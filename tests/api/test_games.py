"""Whole games over gRPC, one per preset: humans play random legal actions, bots the rest.

Every viewer's stream is checked for leaks along the way, and the end against the rules.
"""

from __future__ import annotations

import asyncio
import random

import pytest
from belote.rules.options import PRESETS
from belote.v1 import table_service_pb2 as pb
from players import check_game_end, check_stream, new_table, watch

pytestmark = pytest.mark.timeout(90)

# Low targets keep a game to a few deals; belgian counts in tens.
TARGETS = {"belgian": "30"}
HUMANS = {  # varied so each seat, alone or with others, plays humans against bots somewhere
    "classic": (0,), "classic-501": (0, 1), "belgian": (1, 3), "belgian-open": (0, 2),
    "online-classic": (0, 1, 2, 3), "modern": (2,), "kamikaze": (0, 3), "enhanced": (1, 2),
}


def test_every_preset_is_played():
    assert sorted(HUMANS) == sorted(PRESETS)


@pytest.mark.parametrize("preset", list(HUMANS))
async def test_a_game_is_played_to_its_end(stub, preset):
    rng = random.Random(f"game-{preset}")
    table = await new_table(stub, preset, {"target": TARGETS.get(preset, "300")}, HUMANS[preset])
    viewers = [None, *table.tokens]  # a spectator and every human seat
    streams = [asyncio.create_task(watch(stub, table.table_id, table.tokens.get(v)))
               for v in viewers]

    final = await table.play(rng)

    spectator, *seats = await asyncio.gather(*streams)
    assert final.game.phase == pb.DEAL_PHASE_GAME_OVER
    end = check_game_end(spectator, table.target)
    assert final.game.winning_team == end.winning_team
    assert list(final.game.totals) == list(end.totals)
    assert spectator[-1].sequence == final.version
    check_stream(spectator, None)
    for seat, events in zip(table.tokens, seats):
        check_stream(events, seat)
        # Same log for everyone: only the hidden or view-only fields differ.
        assert [e.WhichOneof("body") for e in events] == [e.WhichOneof("body") for e in spectator]
