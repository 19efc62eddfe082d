"""Bot figures: how many points per deal each level is worth over the one below, and how long
a decision takes.

- ``normal_vs_easy_pts_per_deal`` and ``hard_vs_normal_pts_per_deal``: duplicate matches
  (:mod:`belote.bots.match`) of ``DEALS`` decks each played twice, classic preset, with their
  95% confidence interval; targets: >= 20 and >= 15 points per deal (issue 21), interval
  above 0.
- ``bot_<level>_decision_p95_ms``: 95th percentile of one decision's time, measured in one
  process (one core) over every decision of a smaller match of the same kind; targets: hard
  <= 8 ms (issue 21), normal <= 5 ms. Wall time: on a loaded machine it is inflated, so compare
  builds in one session (docs/performance.md, "Bots").

    python -m belote.bench.bots_bench
"""

from __future__ import annotations

import os

from belote.bots.match import percentile, run_match

DEALS = 1000                 # decks per match, each played twice (teams swapped)
SEED = 2024
WORKERS = min(2, os.cpu_count() or 1)
TIMING_DEALS = {"normal_vs_easy": 300, "hard_vs_normal": 60}


def run() -> list[tuple[str, float, str]]:
    out: list[tuple[str, float, str]] = []
    for a, b in (("normal", "easy"), ("hard", "normal")):
        result = run_match(a, b, "classic", deals=DEALS, seed=SEED, workers=WORKERS)
        name = f"{a}_vs_{b}"
        out += [(f"{name}_pts_per_deal", round(result.mean, 2), "points"),
                (f"{name}_ci95_low", round(result.ci_low, 2), "points"),
                (f"{name}_ci95_high", round(result.ci_high, 2), "points"),
                (f"{name}_match_seconds", round(result.seconds, 1), "s")]
    timings: dict[str, list[float]] = {}
    for a, b in (("normal", "easy"), ("hard", "normal")):
        sample = run_match(a, b, "classic", deals=TIMING_DEALS[f"{a}_vs_{b}"], seed=SEED + 1,
                           workers=1)
        for level, ms in sample.decision_ms.items():
            timings.setdefault(level, []).extend(ms)
    for level in ("easy", "normal", "hard"):
        out.append((f"bot_{level}_decision_p95_ms", round(percentile(timings[level], 0.95), 3),
                    "ms"))
    return out


if __name__ == "__main__":
    for name, value, unit in run():
        print(f"bench: {name} {value} {unit}", flush=True)
