"""Dispute review figures: how fast a log is verified, and what recomputing bot moves costs.

``python -m belote.bench.review_bench`` prints ``replay_verify_events_per_s`` (``review(entries,
check_bots=False)`` over entries built beforehand: every check but the bots'),
``replay_bot_check_s_per_game`` (what recomputing the bots adds for a game with three HARD bots),
``replay_verify_from_messages_events_per_s`` (LoggedEvent messages -> entries -> review) and
``replay_from_json_events_per_s`` (the export's JSON lines -> review). The logs are real games
played by the app in process (``sample``); times are CPU seconds of this single thread
(``time.process_time``), the best of 3 rounds.
"""

from __future__ import annotations

import asyncio
import time

from belote.review.load import parse_lines, to_json_line
from belote.review.sample import sample_logs
from belote.review.verify import export_of, review

PRESET_GAMES = [
    ("classic", ("easy", "human", "normal", "easy")),
    ("classic-501", ("human", "easy", "easy", "normal")),
    ("belgian", ("easy", "normal", "human", "easy")),
    ("belgian-open", ("normal", "easy", "easy", "human")),
    ("online-classic", ("easy", "human", "easy", "easy")),
    ("modern", ("human", "normal", "easy", "easy")),
    ("kamikaze", ("easy", "easy", "human", "easy")),
    ("enhanced", ("easy", "human", "easy", "normal")),
]
HARD_GAME = ("classic", ("hard", "human", "hard", "hard"))


def sample(seed: int = 1):
    """(the logs of one game per preset, the log of the HARD game), as exported."""
    games = [(p, seats, {"seed": seed + i}) for i, (p, seats) in enumerate(PRESET_GAMES)]
    games.append((*HARD_GAME, {"seed": seed + len(games)}))
    logs = asyncio.run(sample_logs(games))
    return logs[:-1], logs[-1]


def _best_rate(work, units: int, seconds: float, rounds: int = 3) -> float:
    """units per second of ``work()``, best round of ``rounds`` of at least ``seconds``."""
    best = 0.0
    for _ in range(rounds):
        done, start = 0, time.process_time()
        while True:
            work()
            done += units
            elapsed = time.process_time() - start
            if elapsed >= seconds:
                break
        best = max(best, done / elapsed)
    return best


def replay_verify_rate(logs, seconds: float = 1.0) -> float:
    """Events per second through review(check_bots=False), entries built beforehand (the head
    line each export ends with is checked, and not counted as an event)."""
    exports = [export_of(log) for log in logs]
    for entries, end in exports:                        # a clean sample, or the figure means nothing
        assert review(entries, check_bots=False, end=end).clean
    return _best_rate(lambda: [review(entries, check_bots=False, end=end) for entries, end in exports],
                      sum(len(entries) for entries, _ in exports), seconds)


def _events(logs) -> int:
    return sum(len(log) - 1 for log in logs)           # each export's last line is its head


def replay_from_messages_rate(logs, seconds: float = 1.0) -> float:
    """Events per second from LoggedEvent messages to the review (bots not recomputed)."""
    def work():
        for log in logs:
            entries, end = export_of(log)
            review(entries, check_bots=False, end=end)
    return _best_rate(work, _events(logs), seconds)


def replay_from_json_rate(logs, seconds: float = 1.0) -> float:
    """Events per second from the export's JSON lines to the review (bots not recomputed)."""
    texts = [[to_json_line(m) + "\n" for m in log] for log in logs]

    def work():
        for t in texts:
            entries, end = export_of(parse_lines(t))
            review(entries, check_bots=False, end=end)
    return _best_rate(work, _events(logs), seconds)


def bot_check_seconds(log, rounds: int = 3) -> float:
    """Seconds the bot recomputation adds to the review of one game."""
    entries, end = export_of(log)

    def best(**kw) -> float:
        times = []
        for _ in range(rounds):
            start = time.process_time()
            result = review(entries, end=end, **kw)
            times.append(time.process_time() - start)
            assert result.clean
        return min(times)

    return max(0.0, best() - best(check_bots=False))


def run(seconds: float = 1.0) -> list[tuple[str, float, str]]:
    logs, hard = sample()
    return [
        ("replay_verify_events_per_s", round(replay_verify_rate(logs, seconds)), "events/s"),
        ("replay_bot_check_s_per_game", round(bot_check_seconds(hard), 3), "s"),
        ("replay_verify_from_messages_events_per_s", round(replay_from_messages_rate(logs, seconds)),
         "events/s"),
        ("replay_from_json_events_per_s", round(replay_from_json_rate(logs, seconds)), "events/s"),
    ]


if __name__ == "__main__":
    from belote.cli import configure_logging

    configure_logging("warning")        # the app's info lines would go to stdout, among the figures
    for name, value, unit in run():
        print(f"bench: {name} {value} {unit}", flush=True)
