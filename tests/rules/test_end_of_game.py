"""SPEC §8: end of game (and the litige reserve left waiting at the end, §7)."""

from __future__ import annotations

import pytest
from belote.rules import GameOver, IllegalAction, Play, rules_for
from belote.rules.game import Game
from belote.rules.scoring import game_winner
from rules_helpers import (
    SUIT_PER_SEAT,
    H,
    bid,
    card,
    deal_score,
    deck_for,
    play_capot_against_deal,
    play_first_legal,
    play_litige_deal,
)


def deal_252_20(game: Game) -> list:
    """A deal scored (252, 20): seat 1 takes spades and is made capot, keeping its belote."""
    return play_capot_against_deal(game)


def deal_272_0(game: Game) -> list:
    """One suit per seat, seat 2 takes hearts: capot with the belote, (272, 0)."""
    game.start_deal(deck_for(SUIT_PER_SEAT, dealer=game.dealer, taker=2, turned="JH"))
    while game.phase == "auction":
        bid(game, H if game.to_act() == 2 else "pass")
    return play_first_legal(game)


@pytest.mark.parametrize("totals, target, winner", [
    ((999, 0), 1000, None), ((1000, 0), 1000, 0), ((0, 1001), 1000, 1), ((1010, 1005), 1000, 0),
    ((1005, 1010), 1000, 1), ((1000, 1000), 1000, None), ((1200, 1200), 1000, None), ((100, 99), 101, None),
    ((101, 99), 101, 0),
])
def test_game_winner(totals, target, winner):
    """SPEC §8 «A game ends only at the end of a deal, once a team has reached target.»
    SPEC §8 «If both have, the higher total wins; if they are tied, deals go on until one team is
    ahead.»
    """
    assert game_winner(totals, target) == winner


def test_the_game_ends_at_the_end_of_the_deal_that_reaches_the_target():
    """SPEC §8 «A game ends only at the end of a deal, once a team has reached target.»

    Target 100: team 0 has won more than 100 trick points after 7 tricks, but the game ends
    only with the deal.
    """
    game = Game(rules_for("classic", {"target": 100}))
    game.start_deal(deck_for(SUIT_PER_SEAT, dealer=0, taker=2, turned="JH"))
    bid(game, "pass", H)
    while game.play.trick_number < 7:
        game.apply(game.to_act(), game.legal_actions()[0])
    assert game.play.trick_points[0] >= 100 and game.phase == "playing" and game.totals == [0, 0]
    out = play_first_legal(game)
    assert out[-1] == GameOver(0, (272, 0))
    assert (game.phase, game.winner, game.totals, game.to_act(), game.legal_actions()) == (
        "over", 0, [272, 0], None, [])
    for attempt in (lambda: game.start_deal(list(range(32))), lambda: game.apply(0, Play(card("7C")))):
        with pytest.raises(IllegalAction) as err:
            attempt()
        assert (err.value.reason, str(err.value)) == ("GAME_OVER", "the game is over")


def test_a_deal_below_the_target_does_not_end_the_game():
    """SPEC §8 «A game ends only at the end of a deal, once a team has reached target.»"""
    game = Game(rules_for("classic", {"target": 273}))
    out = deal_272_0(game)
    assert not any(isinstance(o, GameOver) for o in out)
    assert (game.phase, game.totals, game.dealer) == ("dealing", [272, 0], 1)


def test_both_reached_the_higher_total_wins():
    """SPEC §8 «If both have, the higher total wins; if they are tied, deals go on until one team
    is ahead.»

    Given 800 - 990, a deal scored (252, 20): 1052 - 1010, both over 1000, team 0 wins.
    """
    game = Game(rules_for("classic", {"first_dealer": 3}))
    game.totals = [800, 990]
    out = deal_252_20(game)
    assert deal_score(out).deal_score == (252, 20)
    assert out[-1] == GameOver(0, (1052, 1010))


def test_tied_over_the_target_the_game_goes_on():
    """SPEC §8 «If both have, the higher total wins; if they are tied, deals go on until one team
    is ahead.»

    Given 758 - 990, a deal scored (252, 20): 1010 - 1010, tied over the target: one more deal.
    """
    game = Game(rules_for("classic", {"first_dealer": 3}))
    game.totals = [758, 990]
    out = deal_252_20(game)
    assert not any(isinstance(o, GameOver) for o in out)
    assert (game.phase, game.totals, game.winner, game.dealer) == ("dealing", [1010, 1010], None, 0)
    out = deal_272_0(game)
    assert out[-1] == GameOver(0, (1282, 1010))


def test_a_reserve_still_waiting_when_the_game_ends_is_lost():
    """SPEC §7 «A reserve still waiting when the game ends is lost.»

    online-classic with target 50: the litige deal (81 = 81) gives team 0 its 81 and ends the
    game; the taker's 81 in the reserve are never scored.
    """
    game = Game(rules_for("online-classic", {"target": 50}))
    out = play_litige_deal(game)
    score = deal_score(out)
    assert (score.outcome, score.deal_score, score.reserve_pending) == ("litige_reserve", (81, 0), 81)
    assert out[-1] == GameOver(0, (81, 0))
    assert game.totals == [81, 0]
