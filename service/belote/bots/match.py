"""Duplicate matches between bot levels: how many points per deal one level is worth over another.

Every deck is played twice, with the same deck order and the same dealer, once with level A on
seats 0 and 2 and once with A on seats 1 and 3, so the luck of the cards cancels out. Each deal
is independent: a fresh ``Game`` whose dealer rotates with the deal number; when everybody
passes, the next deck of that deal comes from the same seeded stream, so both plays of a deck
see the same redeals. The result is the mean, per deal, of A's deal score minus B's, with a 95%
confidence interval over the deck pairs.

Each bot decides from its seat's :func:`belote.table.views.seat_view`, exactly as on a server.

    python -m belote.bots.match --a hard --b normal --deals 1000 --workers 2
"""

from __future__ import annotations

import argparse
import math
import multiprocessing
import random
import statistics
import sys
import time
from dataclasses import dataclass, field, replace

from belote.rules import Game, rules_for
from belote.table.state import TableState
from belote.table.views import seat_view
from belote.v1 import events_pb2 as epb

from . import choose

LEVEL_NAMES = {"easy": epb.BOT_LEVEL_EASY, "normal": epb.BOT_LEVEL_NORMAL, "hard": epb.BOT_LEVEL_HARD}


@dataclass
class MatchResult:
    level_a: str
    level_b: str
    preset: str
    deals: int                       # deck pairs (each deck is played twice)
    seed: int
    mean: float                      # points per deal, A minus B
    ci_low: float
    ci_high: float
    seconds: float = 0.0
    pair_means: list[float] = field(default_factory=list, repr=False)
    decision_ms: dict[str, list[float]] = field(default_factory=dict, repr=False)

    def __str__(self) -> str:
        return (f"{self.level_a} vs {self.level_b} ({self.preset}, {self.deals} duplicate deals, "
                f"seed {self.seed}): {self.mean:+.2f} points per deal for {self.level_a}, "
                f"95% CI [{self.ci_low:+.2f}, {self.ci_high:+.2f}] ({self.seconds:.0f} s)")


def level_number(level) -> int:
    if isinstance(level, str) and not level.isdigit():
        return LEVEL_NAMES[level.lower()]
    return int(level)


def level_name(level) -> str:
    number = level_number(level)
    return next(name for name, n in LEVEL_NAMES.items() if n == number)


def deck_order(seed: int, deal: int, attempt: int) -> list[int]:
    """The deck of ``deal`` (its ``attempt``-th after redeals): the same in both plays."""
    deck = list(range(32))
    random.Random(f"deck:{seed}:{deal}:{attempt}").shuffle(deck)
    return deck


def play_deal(rules, levels: tuple[int, int, int, int], deal: int, seed: int,
              timings: dict[int, list[float]] | None = None, bot_stream: str = ""):
    """Play one deal to its score with bots of ``levels[seat]``; return the DealScore."""
    game = Game(replace(rules, first_dealer=deal % 4, target=10**5))
    state = TableState(table_id="match", rules=game.rules, game=game, status="playing")
    seeds = random.Random(f"bots:{seed}:{deal}:{bot_stream}")
    attempt = 0
    while not game.scores:
        game.start_deal(deck_order(seed, deal, attempt))
        attempt += 1
        while game.to_act() is not None:
            seat = game.to_act()
            view = seat_view(state, seat)
            start = time.perf_counter()
            action = choose(levels[seat], view, seeds.getrandbits(63))
            if timings is not None:
                timings.setdefault(levels[seat], []).append((time.perf_counter() - start) * 1000)
            game.apply(seat, action)
    return game.scores[-1]


def play_deck_pair(rules, a: int, b: int, deal: int, seed: int, timings=None) -> float:
    """Mean over the two plays of one deck of A's deal score minus B's."""
    total = 0.0
    for a_team in (0, 1):
        levels = tuple(a if s & 1 == a_team else b for s in range(4))
        score = play_deal(rules, levels, deal, seed, timings, bot_stream=str(a_team))
        total += score.deal_score[a_team] - score.deal_score[1 - a_team]
    return total / 2


def _play_range(job):
    preset, a, b, seed, deals = job
    rules = rules_for(preset)
    timings: dict[int, list[float]] = {}
    return [play_deck_pair(rules, a, b, d, seed, timings) for d in deals], timings


def run_match(level_a, level_b, preset: str = "classic", deals: int = 2000, seed: int = 0,
              workers: int = 1) -> MatchResult:
    """Play ``deals`` decks twice each (teams swapped) and compare the two levels."""
    a, b = level_number(level_a), level_number(level_b)
    start = time.perf_counter()
    chunk = 25
    jobs = [(preset, a, b, seed, range(i, min(i + chunk, deals))) for i in range(0, deals, chunk)]
    if workers > 1:
        with multiprocessing.get_context("fork").Pool(workers) as pool:
            parts = pool.map(_play_range, jobs, chunksize=1)
    else:
        parts = [_play_range(job) for job in jobs]
    pair_means = [m for means, _ in parts for m in means]
    timings: dict[str, list[float]] = {}
    for _, t in parts:
        for level, ms in t.items():
            timings.setdefault(level_name(level), []).extend(ms)
    mean = statistics.fmean(pair_means)
    half = 1.96 * statistics.stdev(pair_means) / math.sqrt(len(pair_means)) if deals > 1 else math.inf
    return MatchResult(level_name(a), level_name(b), preset, deals, seed, mean, mean - half,
                       mean + half, time.perf_counter() - start, pair_means, timings)


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(
        prog="belote bots-match",
        description="Duplicate match between two bot levels (each deck played with teams swapped).")
    parser.add_argument("--a", default="normal", help="level of team A: easy, normal or hard")
    parser.add_argument("--b", default="easy", help="level of team B: easy, normal or hard")
    parser.add_argument("--preset", default="classic")
    parser.add_argument("--deals", type=int, default=2000, help="decks, each played twice")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--workers", type=int, default=1)
    args = parser.parse_args(argv)
    result = run_match(args.a, args.b, args.preset, args.deals, args.seed, args.workers)
    print(result)
    for level, ms in sorted(result.decision_ms.items()):
        print(f"  {level}: {len(ms)} decisions, p50 {percentile(ms, 0.5):.2f} ms, "
              f"p95 {percentile(ms, 0.95):.2f} ms, max {max(ms):.1f} ms")
    return 0


if __name__ == "__main__":
    sys.exit(main())
