"""evolve_body(..., move_game=False): the fold of a move whose game was moved in place already."""

from __future__ import annotations

import dataclasses

from belote.bots import choose
from belote.table.decide import Act, action_event, decide, game_over_events, outcome_events
from belote.table.state import MOVES_GAME, evolve, evolve_body
from belote.table.views import seat_view, table_view
from belote.v1 import events_pb2 as epb
from table_log import Log, next_deal


def _all_of(state) -> tuple:
    fields = {f.name: getattr(state, f.name) for f in dataclasses.fields(state)
              if f.name not in ("game", "rules")}
    return fields, [table_view(state, viewer) for viewer in (-1, 0, 1, 2, 3)]


def test_a_whole_game_moved_in_place_folds_as_the_log():
    log = Log().seat_all()
    folded = log.state       # the server's way: decide on a copy of the game, evolve moves it
    in_place = log.state     # the review's: decide's steps move the game, evolve leaves it
    moves = 0
    while folded.to_act() is not None:
        seat = folded.to_act()
        action = choose(epb.BOT_LEVEL_EASY, seat_view(folded, seat), moves)
        events = decide(folded, Act(seat, action), next_deal())
        game = in_place.game
        outcomes = game.apply(seat, action)
        made = [action_event(game, seat, action, outcomes, None),
                *outcome_events(game, outcomes, in_place.deal_started, next_deal())]
        if made[-1].HasField("game_ended"):
            made += game_over_events(in_place, made[-1].game_ended)
        assert [m.SerializeToString(deterministic=True) for m in made] == \
            [e.SerializeToString(deterministic=True) for e in events]
        for sequence, e in enumerate(events, folded.version + 1):
            e.append_time.FromMicroseconds(1_000_000 * sequence)
            e.sequence = sequence
            evolve(folded, e)
            kind = e.WhichOneof("body")
            evolve_body(in_place, kind, getattr(e, kind), sequence, 1_000_000 * sequence,
                        move_game=False)
        moves += 1
        if moves % 7 == 0:
            assert _all_of(in_place) == _all_of(folded), moves
    assert _all_of(in_place) == _all_of(folded)
    assert folded.status == "finished" and moves > 100
    assert {"deal_started", "bid_made", "card_played"} <= MOVES_GAME
