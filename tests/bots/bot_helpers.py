"""Helpers for the bot tests: deal chosen hands, play scripted tricks, take a seat's view, and
run whole deals with bots, as the server does (each bot sees only its seat's view).

Cards are written as on a score sheet (``"10H"``, ``"JS"``).
"""

from __future__ import annotations

import random
from dataclasses import replace

from belote import bots
from belote.bots.search import Position, SearchRules
from belote.rules import Bid, Game, Play, parse_card, rules_for
from belote.rules.auction import PASS
from belote.rules.play import CardPlay
from belote.table.state import TableState
from belote.table.views import seat_view
from belote.v1 import events_pb2 as epb

EASY, NORMAL, HARD = epb.BOT_LEVEL_EASY, epb.BOT_LEVEL_NORMAL, epb.BOT_LEVEL_HARD
PRESETS = ("classic", "classic-501", "belgian", "belgian-open", "online-classic", "modern",
           "kamikaze", "enhanced")
C, D, H, S = 0, 1, 2, 3


def card(name: str) -> int:
    return parse_card(name)


def cards(text: str) -> list[int]:
    return [parse_card(t) for t in text.split()]


def mask(text: str) -> int:
    return sum(1 << c for c in cards(text))


def deck_for(hands: dict[int, str], dealer: int, taker: int, turned: str) -> list[int]:
    """The deck order giving each seat ``hands[seat]`` (SPEC §1: 3 then 2 from the eldest, the
    turned card d[20], then the taker gets it and 2 more, every other seat 3)."""
    eldest = (dealer + 1) % 4
    by_seat = {s: cards(hands[s]) for s in range(4)}
    by_seat[taker].remove(card(turned))
    taken = {s: 0 for s in range(4)}
    deck: list[int] = []

    def give(seat, n):
        deck.extend(by_seat[seat][taken[seat]:taken[seat] + n])
        taken[seat] += n

    for packet in (3, 2):
        for k in range(4):
            give((eldest + k) % 4, packet)
    deck.append(card(turned))
    for k in range(4):
        seat = (eldest + k) % 4
        give(seat, 2 if seat == taker else 3)
    assert sorted(deck) == list(range(32))
    return deck


def table(game: Game) -> TableState:
    return TableState(table_id="bots", rules=game.rules, game=game, status="playing")


def view_of(game: Game, seat: int | None = None):
    return seat_view(table(game), game.to_act() if seat is None else seat)


def scripted_game(hands: dict[int, str], *, preset: str = "classic", dealer: int = 3,
                  taker: int = 0, turned: str, calls=(), plays: str = "", **options) -> Game:
    """A deal of the chosen hands: the calls in turn (a suit, ``"pass"``), then the plays."""
    game = Game(rules_for(preset, {"first_dealer": dealer, **options}))
    game.start_deal(deck_for(hands, dealer, taker, turned))
    for call in calls:
        game.apply(game.to_act(), Bid(PASS if call == "pass" else call))
    for c in cards(plays):
        game.apply(game.to_act(), Play(c))
    return game


def random_deals(preset: str, levels, deals: int, seed: int, on_decision=None):
    """Play ``deals`` deals with bots of ``levels[seat]`` from random decks; call
    ``on_decision(game, seat, view, action)`` before each action is applied (the view is the
    one the bot received). Returns the deal scores."""
    rules = replace(rules_for(preset), target=10**5)
    rng = random.Random(f"{preset}:{seed}")
    scores = []
    for d in range(deals):
        game = Game(replace(rules, first_dealer=d % 4))
        state = table(game)
        while not game.scores:
            deck = list(range(32))
            rng.shuffle(deck)
            game.start_deal(deck)
            while game.to_act() is not None:
                seat = game.to_act()
                view = seat_view(state, seat)
                action = bots.choose(levels[seat], view, rng.getrandbits(63))
                if on_decision is not None:
                    on_decision(game, seat, view, action)
                game.apply(seat, action)
        scores.append(game.scores[-1])
    return scores


def position_of(play: CardPlay, rules) -> Position:
    """The deal state ``play`` as the hard bot's search sees it, from the seat to play's team."""
    team = play.turn & 1
    won = (play.tricks_won[team], play.tricks_won[1 - team])
    return Position(SearchRules.of(rules, play.table), play.hands, team, play.leader,
                    list(play.trick), play.trick_points[team], won, 8 - play.trick_number)
