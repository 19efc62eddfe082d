"""Chips (SPEC §10): what the pot of a stake table gives each seat at the end of a game."""

from __future__ import annotations


def pot_is_refunded(paying_seats, winning_team: int) -> bool:
    """No human of the winning team paid: every stake goes back to its seat."""
    return not any(s % 2 == winning_team for s in paying_seats)


def share_pot(stake: int, paying_seats, winning_team: int) -> list[int]:
    """SPEC §10: the pot goes to the paying seats of the winning team in equal shares, the
    remainder to the lowest of them; if none of them paid, every stake goes back. Per seat."""
    payouts = [0, 0, 0, 0]
    if pot_is_refunded(paying_seats, winning_team):
        for s in paying_seats:
            payouts[s] = stake
        return payouts
    winners = [s for s in paying_seats if s % 2 == winning_team]
    share, remainder = divmod(stake * len(paying_seats), len(winners))
    for s in winners:
        payouts[s] = share
    payouts[min(winners)] += remainder
    return payouts
