"""Rules engine figures: random complete deals per second (on the deal state, and through the
public Game API), legal-card generations per second.

Seconds are the process's CPU seconds (``time.process_time``), as in issue 17's comparison: on
a machine shared with other work, wall-clock figures would measure the neighbours too.
"""

from __future__ import annotations

import random
import time
from dataclasses import replace

from belote.rules import DEALING, OVER, PLAYING, Game, rules_for
from belote.rules.cards import cards_of
from belote.rules.options import MAX_STORED_TARGET
from belote.rules.play import legal_mask


def random_deck(rand) -> list[int]:
    """A uniformly random deck order (32 distinct random keys sorted)."""
    return sorted(range(32), key=lambda _: rand())


def deals_per_cpu_second(deal, preset: str, seconds: float, seed: int) -> float:
    """Complete deals per CPU second, ``deal(game, rand)`` playing each (it returns False for a
    redeal: those are shuffled again, not counted)."""
    rules = replace(rules_for(preset), target=MAX_STORED_TARGET)
    rand = random.Random(seed).random
    game = Game(rules)
    deals = 0
    start = time.process_time()
    deadline = start + seconds
    while True:
        if game.phase == OVER:
            game = Game(rules)
        if deal(game, rand):
            deals += 1
            if deals % 256 == 0 and time.process_time() > deadline:
                break
    return deals / (time.process_time() - start)


def on_the_deal_state(game: Game, rand) -> bool:
    """Shuffle, bid, then 32 cards on ``CardPlay`` (legal_cards, play), and the deal's score."""
    game.start_deal(random_deck(rand))
    while game.phase != PLAYING:
        if game.phase == DEALING:
            game.start_deal(random_deck(rand))
            continue
        calls = game.legal_actions()
        game.apply(game.to_act(), calls[int(rand() * len(calls))])
    play = game.play
    legal_cards, play_card = play.legal_cards, play.play
    for _ in range(32):
        legal = legal_cards()
        k = int(rand() * legal.bit_count())
        while k:
            legal &= legal - 1
            k -= 1
        play_card((legal & -legal).bit_length() - 1)
    game._finish_deal()
    return True


def through_the_game(game: Game, rand) -> bool:
    """Shuffle, then every action through the public Game API: legal_actions and apply."""
    game.start_deal(random_deck(rand))
    while (seat := game.to_act()) is not None:
        actions = game.legal_actions()
        game.apply(seat, actions[int(rand() * len(actions))])
    return not game.last_result.redeal


def random_deals(preset: str = "classic", seconds: float = 3.0, seed: int = 1) -> float:
    """Complete deals per second on the deal state (``CardPlay``): shuffle, auction, 32 cards
    with legal-move generation, scoring, every action drawn uniformly from the legal ones."""
    return deals_per_cpu_second(on_the_deal_state, preset, seconds, seed)


def game_random_deals(preset: str = "classic", seconds: float = 3.0, seed: int = 1) -> float:
    """Complete deals per second through the public ``Game`` API only: ``legal_actions``,
    ``apply`` and the deal's result, every action drawn uniformly from the legal ones."""
    return deals_per_cpu_second(through_the_game, preset, seconds, seed)


def legal_cards_rate(seconds: float = 2.0, seed: int = 2) -> float:
    """Legal-card masks computed per second (``legal_mask``, what ``CardPlay.legal_cards`` and
    the bots' search compute; ``legal_cards`` keeps its mask until the next card) over
    positions of random classic deals."""
    rules = rules_for("classic")
    rng = random.Random(seed)
    positions = []
    while len(positions) < 3000:
        game = Game(rules)
        while game.phase != PLAYING:
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
    situations = [(p.hands[p.turn], p.led_mask, p.best_card, p.best_seat == p.turn ^ 2, p)
                  for p in positions]
    calls = 0
    start = time.process_time()
    while time.process_time() - start < seconds:
        for hand, led, best, partner_wins, rules_of_play in situations:
            legal_mask(hand, led, best, partner_wins, rules_of_play)
        calls += len(situations)
    return calls / (time.process_time() - start)


def run() -> list[tuple[str, float, str]]:
    return [("rules_random_deals_per_s", random_deals(), "deals/s"),
            ("game_random_deals_per_s", game_random_deals(), "deals/s"),
            ("legal_cards_per_s", legal_cards_rate(), "calls/s")]


if __name__ == "__main__":
    for name, value, unit in run():
        print(f"bench: {name} {value:.0f} {unit}")
