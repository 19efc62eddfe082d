"""A table log whose events carry times, and finished games, for the tests of what happens
around the table (chat, pot, rematch, timer) and of the ledgers."""

from __future__ import annotations

import random

import pytest
from belote.rules import rules_for
from belote.table.decide import Act, CreateTable, JoinSeat, Refused, SeatBot, decide
from belote.table.state import PLAYING
from belote.v1 import events_pb2 as epb
from table_log import DECK, Log, next_deal

T0 = 1_767_225_600_000_000          # 2026-01-01T00:00:00Z, in microseconds
S = 1_000_000


class TimedLog(Log):
    """A Log whose events carry times: `now_us` is the clock of the next command."""

    def __init__(self, preset="classic", stake=0, turn_timer_s=0, **options):
        self.now_us = T0
        self.events = []
        rules = rules_for(preset, options)
        self.when(CreateTable(epb.TableCreated(
            name="t", preset=preset, options=rules.as_strings(), stake=stake,
            turn_timer_seconds=turn_timer_s, takeover_bot_level=epb.BOT_LEVEL_NORMAL, host_token_hash=b"h" * 32)))

    def when(self, command, deck=DECK):
        new = super().when(command, deck)
        for e in new:
            e.append_time.FromMicroseconds(self.now_us)
        return new

    def refused(self, command) -> str:
        with pytest.raises(Refused) as refused:
            decide(self.state, command, next_deal())
        return refused.value.reason

    def seat(self, humans=(0, 1, 2, 3), players=None):
        """Humans on `humans` (registered as players[seat] when given), bots elsewhere."""
        for seat in range(4):
            if seat in humans:
                player = players[seat] if players else ""
                self.when(JoinSeat(seat, f"p{seat}", bytes([seat]) * 32, player))
            else:
                self.when(SeatBot(seat, epb.BOT_LEVEL_EASY))
        return self

    def play_out(self, seed=0):
        """Random legal actions until the game is over; returns the GameEnded event."""
        rng = random.Random(seed)
        while self.state.status == PLAYING:
            state = self.state
            seat = state.to_act()
            self.now_us += S
            self.when(Act(seat, rng.choice(state.game.legal_actions(seat))))
        return next(e.game_ended for e in reversed(self.events) if e.HasField("game_ended"))


def game_won_by(team: int, **table):
    """A finished one-deal game (target 1) that `team` won: the first seed that gives it."""
    for seed in range(50):
        log = TimedLog("classic", target="1", stake=table.get("stake", 0))
        log.seat(table.get("humans", (0, 1, 2, 3)), table.get("players"))
        if log.play_out(seed).winning_team == team:
            return log
    raise AssertionError("no seed gave that winner")
