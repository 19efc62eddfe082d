"""Ratings (SPEC §10): Elo per rule family and month, teams rated by their players' mean."""

from __future__ import annotations

RATING_START = 1500.0        # every player's rating on the 1st of each month
K = 32


def expected_score(rating: float, other: float) -> float:
    return 1 / (1 + 10 ** ((other - rating) / 400))


def team_rating(player: float, partner: float) -> float:
    """A team's rating: the mean of its two players'."""
    return (player + partner) / 2


def team_changes(ratings: tuple[float, float], winning_team: int) -> tuple[float, float]:
    """What each player of team 0 and of team 1 gains (2 decimals), from the teams' ratings."""
    def change(team: int) -> float:
        won = 1 if team == winning_team else 0
        return round(K * (won - expected_score(ratings[team], ratings[1 - team])), 2)
    return change(0), change(1)
