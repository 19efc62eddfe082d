"""Rules engine figures: random complete deals per second, legal-card generations per second."""

from __future__ import annotations

import random
import time
from dataclasses import replace

from belote.rules import DEALING, OVER, Game, rules_for
from belote.rules.cards import cards_of
from belote.rules.options import MAX_STORED_TARGET


def random_deals(preset: str = "classic", seconds: float = 3.0, seed: int = 1) -> float:
    """Complete deals per second: shuffle, auction, 32 cards with legal-move generation, scoring,
    every action drawn uniformly from the legal ones (redeals are shuffled again, not counted)."""
    rules = replace(rules_for(preset), target=MAX_STORED_TARGET)
    rng = random.Random(seed)
    rand = rng.random
    game = Game(rules)
    deals = 0
    start = time.perf_counter()
    deadline = start + seconds
    while True:
        if game.phase == OVER:
            game = Game(rules)
        deck = list(range(32))
        rng.shuffle(deck)
        game.start_deal(deck)
        while game.phase == "auction":
            calls = game.auction.legal_calls()
            game.auction.call(calls[int(rand() * len(calls))])
            if game.auction.finished:
                game.apply  # noqa: B018 - the settle below goes through the Game
                if game.auction.all_passed:
                    game._next_dealer()
                else:
                    game._settle(game.auction.best_seat, game.auction.best, game.auction.forced)
        if game.phase == DEALING:
            continue
        play = game.play
        while play.trick_number < 8:
            legal = play.legal_cards()
            k = int(rand() * legal.bit_count())
            while k:
                legal &= legal - 1
                k -= 1
            play.play((legal & -legal).bit_length() - 1)
        game._finish_deal()
        deals += 1
        if deals % 256 == 0 and time.perf_counter() > deadline:
            break
    return deals / (time.perf_counter() - start)


def legal_cards_rate(seconds: float = 2.0, seed: int = 2) -> float:
    """legal_cards() calls per second over positions of random classic deals."""
    rules = rules_for("classic")
    rng = random.Random(seed)
    positions = []
    while len(positions) < 3000:
        game = Game(rules)
        while game.phase != "playing":
            if game.phase == DEALING:
                deck = list(range(32))
                rng.shuffle(deck)
                game.start_deal(deck)
            else:
                game.apply(game.to_act(), rng.choice(game.legal_actions()))
        play = game.play
        while not play.over:
            positions.append(play.copy())
            play.play(rng.choice(cards_of(play.legal_cards())))
    calls = 0
    start = time.perf_counter()
    while time.perf_counter() - start < seconds:
        for p in positions:
            p.legal_cards()
        calls += len(positions)
    return calls / (time.perf_counter() - start)


def run() -> list[tuple[str, float, str]]:
    return [("rules_random_deals_per_s", random_deals(), "deals/s"),
            ("legal_cards_per_s", legal_cards_rate(), "calls/s")]


if __name__ == "__main__":
    for name, value, unit in run():
        print(f"bench: {name} {value:.0f} {unit}")
