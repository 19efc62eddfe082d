"""Bots of every level take only legal actions, in every preset, and decide from a view that
holds nothing their seat may not see (ARCHITECTURE: "information hiding lives in one place")."""

from __future__ import annotations


import random
from dataclasses import replace

import pytest
from belote.rules import rules_for
from belote.rules.cards import mask_of
from belote.rules.options import MAX_STORED_TARGET
from belote.table.codec import card_from_pb
from belote.table.decide import Act, CreateTable, JoinSeat, NextDeal, decide
from belote.table.state import TableState, evolve
from belote.table.views import SPECTATOR, Redactor, seat_view
from belote.v1 import cards_pb2 as cpb
from belote.v1 import events_pb2 as epb
from belote.rules import Declare, Play
from belote.rules.announcements import CARRE, CHELEM_COULEUR, COULEUR, QUINTE_FLUSH
from belote.rules.cards import SUIT_MASK
from bot_helpers import EASY, HARD, NORMAL, PRESETS, random_deals

# Deals per preset: easy and normal play hundreds, hard (a search per card) a handful.
DEALS = {EASY: 150, NORMAL: 150, HARD: 6}


def public_cards_of_announcement(a, style: str) -> int:
    """What the table shows of an announcement: its cards, classic (revealed at trick 2) and
    enhanced alike (sheet 004: "l'annonce doit se dire et se montrer"), rebuilt here from the
    announcement's kind so the test does not trust the view's own ``cards``."""
    if style == "classic":
        return a.cards
    if a.kind == CARRE:
        return sum(1 << (s * 8 + a.rank) for s in range(4))
    if a.kind == CHELEM_COULEUR:
        return SUIT_MASK[a.suit]
    if a.kind == QUINTE_FLUSH:
        return ((1 << a.length) - 1) << (a.suit * 8 + a.rank - a.length + 1)
    if a.kind == COULEUR:                     # all the suit's cards the declarer held then
        assert (a.cards & SUIT_MASK[a.suit]) == a.cards and a.cards.bit_count() == a.length
        return a.cards
    return 0                                  # capot annoncé shows no card


def check_view_is_private(game, seat, view):
    """The view's hand is the seat's own; every other card it shows is public: played, turned
    up, or shown with an announcement."""
    assert view.seat == seat
    assert view.hand == game.hand(seat)
    for action in view.legal:
        if isinstance(action, Play):
            assert view.hand >> action.card & 1, "a legal card the seat does not hold"
    public = 0
    if game.play is not None:
        assert [t[:3] for t in view.tricks] == [t[:3] for t in game.play.tricks]
        assert list(view.trick) == list(game.play.trick)
        for _leader, cards, _w, _p in view.tricks:
            for c in cards:
                public |= 1 << c
        for c in view.trick:
            public |= 1 << c
    if view.turned_card >= 0:
        assert view.turned_card == game.turned_card
        public |= 1 << view.turned_card
    style = view.rules.announcements
    shown = 0
    for _seat, a in view.announcements:
        public |= public_cards_of_announcement(a, style)
        shown |= a.cards
    assert not shown & ~public & ~view.hand, "the view shows a card the seat may not see"


@pytest.mark.parametrize("preset", PRESETS)
@pytest.mark.parametrize("level", [EASY, NORMAL, HARD], ids=["easy", "normal", "hard"])
def test_bots_take_only_legal_actions_from_a_private_view(preset, level):
    counts = {"decisions": 0}

    def check(game, seat, view, action):
        counts["decisions"] += 1
        assert action in view.legal, f"{action} is not among the legal actions"
        assert tuple(game.legal_actions(seat)) == view.legal
        check_view_is_private(game, seat, view)

    # Hard plays with normal opponents (a search per card is the expensive part).
    levels = (level, NORMAL, level, NORMAL) if level == HARD else (level,) * 4
    scores = random_deals(preset, levels, DEALS[level], seed=level, on_decision=check)
    assert len(scores) == DEALS[level]
    assert counts["decisions"] >= 32 * DEALS[level]


def test_enhanced_declarations_are_made_and_legal():
    """In ``enhanced`` bots declare their best announcement (it always scores for the team)."""
    declared = []

    def check(game, seat, view, action):
        if isinstance(action, Declare):
            declared.append(action)
            assert action in view.legal

    random_deals("enhanced", (NORMAL, EASY, HARD, EASY), 12, seed=5, on_decision=check)
    assert declared, "some hands of 12 deals hold a couleur or a carré"


def test_a_declared_announcement_shows_the_same_cards_to_bots_and_to_the_stream():
    """Sheet 004: an announcement is said and shown. The stream's AnnouncementDeclared and the
    bots' view carry the same cards, so a bot knows no more than a player watching."""
    rng = random.Random(8)
    state = TableState("t")
    spectator = Redactor(SPECTATOR)
    checked = 0

    def run(command) -> None:
        nonlocal checked
        for e in decide(state, command, NextDeal(tuple(rng.sample(range(32), 32)), b"s" * 16)):
            e.sequence = state.version + 1
            evolve(state, e)
            shown = spectator.see(e)
            if shown.HasField("announcement_declared"):
                declared = shown.announcement_declared
                cards = mask_of(card_from_pb(c) for c in declared.cards)
                other = (declared.seat + 1) & 3
                in_view = dict(seat_view(state, other).announcements)[declared.seat]
                assert in_view.cards == cards
                if declared.announcement.kind == cpb.ANNOUNCEMENT_KIND_CAPOT_ANNONCE:
                    assert cards == 0            # a capot annoncé shows no card
                else:
                    assert cards.bit_count() >= 4
                    checked += 1

    created = epb.TableCreated(name="t", preset="enhanced",
                               options=replace(rules_for("enhanced"), target=MAX_STORED_TARGET).as_strings())
    run(CreateTable(created))
    for seat in range(4):
        run(JoinSeat(seat, "p", bytes([seat]) * 32))
    while checked < 20:
        seat = state.to_act()
        actions = state.game.legal_actions(seat)
        shown = [a for a in actions if isinstance(a, Declare) and a.kind != "capot_annonce"]
        run(Act(seat, shown[0] if shown else rng.choice(actions)))
    assert checked == 20
