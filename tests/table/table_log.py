"""Given events / when command: a table log built through the decider, for the table tests."""

from __future__ import annotations

from belote.rules import rules_for
from belote.table.decide import CreateTable, JoinSeat, NextDeal, decide
from belote.table.state import fold
from belote.v1 import events_pb2 as epb

DECK = tuple(range(32))          # d[20] = 20 = the jack of hearts is turned
SALT = b"s" * 16


def next_deal(deck=DECK):
    return NextDeal(deck, SALT)


def created(preset="classic", **options):
    rules = rules_for(preset, options)
    return epb.TableCreated(name="t", preset=preset, options=rules.as_strings(),
                            takeover_bot_level=epb.BOT_LEVEL_NORMAL, host_token_hash=b"h" * 32)


class Log:
    """Given events: decide commands in turn and keep every event they produce."""

    def __init__(self, preset="classic", **options):
        self.events = []
        self.when(CreateTable(created(preset, **options)))

    @property
    def state(self):
        return fold("t", self.events)

    def when(self, command, deck=DECK):
        new = decide(self.state, command, next_deal(deck))
        for i, e in enumerate(new, start=len(self.events) + 1):
            e.sequence = i
        self.events += new
        return new

    def seat_all(self):
        for seat in range(4):
            self.when(JoinSeat(seat, f"p{seat}", bytes([seat]) * 32))
        return self


