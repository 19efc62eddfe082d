"""Enhanced announcements (SPEC §6, sheet 004): the best one is declared, and capot annoncé
only by a hand that wins all 8 tricks whatever the others hold."""

from __future__ import annotations

import pytest
from belote import bots
from belote.bots import hard, normal
from belote.bots.announcing import capot_is_certain
from belote.rules import Declare
from belote.rules.announcements import CAPOT_ANNONCE, COULEUR
from belote.rules.scoring import CAPOT_MADE
from bot_helpers import EASY, HARD, NORMAL, H, random_deals, scripted_game, view_of

CAPOT = Declare(CAPOT_ANNONCE)


def hands_with(hand: str, seat: int = 0) -> dict[int, str]:
    """``hand`` for ``seat``, the other 24 cards dealt to the other seats in order."""
    mine = hand.split()
    rest = [f"{r}{s}" for s in "CDHS" for r in ("7", "8", "9", "10", "J", "Q", "K", "A")
            if f"{r}{s}" not in mine]
    others = [s for s in range(4) if s != seat]
    hands = {s: " ".join(rest[8 * i:8 * i + 8]) for i, s in enumerate(others)}
    hands[seat] = hand
    return hands


def first_view(seat0: str, turned="JH"):
    """Seat 0 (eldest: dealer 3) takes hearts and is about to lead the first trick."""
    game = scripted_game(hands_with(seat0), preset="enhanced", turned=turned, calls=[H])
    return game, view_of(game)


@pytest.mark.parametrize("bot", [normal, hard], ids=["normal", "hard"])
def test_capot_announced_by_a_hand_that_cannot_lose_a_trick_and_made(bot):
    """The four top trumps draw every other trump; then each side card is the top of its suit."""
    game, view = first_view("JH 10H AH KH AS KS AC AD")
    assert capot_is_certain(view)
    assert bot.choose(view, 1) == CAPOT
    levels = (NORMAL if bot is normal else HARD, EASY, EASY, EASY)
    game.apply(0, CAPOT)
    while game.phase == "playing":
        seat = game.to_act()
        game.apply(seat, bots.choose(levels[seat], view_of(game, seat), 7))
    score = game.scores[-1]
    assert score.outcome == CAPOT_MADE and score.announcements[0] >= 250


@pytest.mark.parametrize("seat0", [
    "JH 10H AH QH AS KS AC AD",     # the king of trump is out: the queen can lose
    "JH 10H AH KH AS QS AC AD",     # the king of spades is out
    "JH 10H AH AS KS QS AC AD",     # three top trumps against five others: one may ruff
])
@pytest.mark.parametrize("bot", [normal, hard], ids=["normal", "hard"])
def test_no_capot_announced_without_certainty(bot, seat0):
    _game, view = first_view(seat0)
    assert not capot_is_certain(view)
    assert Declare(CAPOT_ANNONCE) in view.legal
    assert bot.choose(view, 1) != CAPOT


def test_only_the_leader_of_the_first_trick_can_be_certain():
    """Seat 1 holds the top four trumps and the side aces, but seat 0 leads first: it could
    start a suit seat 1 cannot win, so seat 1 may not be sure."""
    hands = {0: "9H 7C 8C 9C 10C JC QC KC", 1: "JH 10H AH KH AS KS AC AD",
             2: "7D 8D 9D 10D JD QD KD 7H", 3: "8H QH 7S 8S 9S 10S JS QS"}
    game = scripted_game(hands, preset="enhanced", turned="9H", calls=[H], plays="7C")
    view = view_of(game)
    assert view.seat == 1 and Declare(CAPOT_ANNONCE) in view.legal
    assert not capot_is_certain(view)
    assert normal.choose(view, 0) != CAPOT and hard.choose(view, 0) != CAPOT


def test_the_most_valuable_announcement_is_declared():
    """A couleur (50) and a carré (100) in one hand: the carré."""
    _game, view = first_view("JH 10H AH KH 8H JS JC JD")
    declared = normal.choose(view, 0)
    assert declared.kind == "carre" and declared.rank == 4
    assert any(d.kind == COULEUR for d in view.legal if isinstance(d, Declare))


def test_declared_capots_are_always_made_in_random_deals():
    declared = []

    def check(game, seat, view, action):
        if action == CAPOT:
            declared.append((game, seat & 1))

    random_deals("enhanced", (NORMAL, EASY, NORMAL, EASY), 150, seed=4, on_decision=check)
    for game, team in declared:
        assert game.scores[-1].trick_points[team] == 250, "all 8 tricks"
