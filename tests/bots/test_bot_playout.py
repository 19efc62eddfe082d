"""The hard bot's play-outs from version 4: every seat of a sampled deal plays the normal bot's
rules from what it would see, so a play-out of the real deal ends where normal bots playing
on from the same position end."""

from __future__ import annotations

import copy
import random

import pytest
from belote.bots import normal
from belote.bots.normal import Memory, club_table
from belote.bots.reading import table_of
from belote.bots.rollout import club_playout
from belote.rules import PLAYING, Play, cards_of
from belote.rules.announcements import CAPOT_ANNONCE
from bot_helpers import NORMAL, PRESETS, position_of, random_deals, view_of


def played_on_by_normal_bots(game, seat: int, first: int) -> tuple[int, int]:
    """Play ``first`` for ``seat``, then normal bots to the end of the deal: the team's trick
    points (the capot value for all 8 tricks) and its tricks."""
    deals = len(game.scores)
    game.apply(seat, Play(first))
    while len(game.scores) == deals:
        to_act = game.to_act()
        game.apply(to_act, normal.choose(view_of(game, to_act)))
    result = game.last_result
    return result.trick_points[seat & 1], result.tricks_won[seat & 1]


@pytest.mark.parametrize("preset", PRESETS)
def test_a_playout_of_the_real_deal_ends_where_normal_bots_playing_on_end(preset):
    rng = random.Random(f"playout:{preset}")
    positions = []

    def keep(game, seat, view, action):
        if game.phase == PLAYING and len(view.legal) >= 2 and view.tricks and \
                not any(a.kind == CAPOT_ANNONCE for _s, a in view.announcements) and \
                rng.random() < 0.3:
            positions.append((copy.deepcopy(game), seat, view))

    random_deals(preset, (NORMAL,) * 4, 40, seed=8, on_decision=keep)
    assert len(positions) >= 100
    for game, seat, view in positions:
        first = rng.choice(cards_of(game.play.legal_cards()))    # any legal card, then the rules
        pos = position_of(game.play, game.rules)
        table = table_of(view)
        value = club_playout(pos, club_table(table), Memory.of_view(view, table), first)
        points, tricks = played_on_by_normal_bots(game, seat, first)
        expected = -pos.r.capot_bonus if tricks == 0 else points
        assert value == expected, (preset, view.tricks, view.trick, first)
