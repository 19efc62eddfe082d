"""A table's state, rebuilt from its log: ``fold(events)`` is ``evolve`` over the events.

Only the events that carry a choice (a deal's deck, a bid, a declaration, a card) move the
game; the events that follow from them (contract settled, trick won, deal scored...) are in
the log for readers and are recomputed here, not trusted.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from belote.rules import Game, rules_from_strings
from belote.rules.actions import Bid, Declare, Play
from belote.rules.announcements import CARRE
from belote.rules.options import Rules
from belote.v1 import events_pb2 as epb

from .codec import _KIND_FROM_PB, card_from_pb

EMPTY, HUMAN, BOT = "empty", "human", "bot"
WAITING, PLAYING, FINISHED = "waiting", "playing", "finished"


@dataclass
class Seat:
    occupant: str = EMPTY
    display_name: str = ""
    token_hash: bytes = b""          # the human's seat token (kept while a takeover bot plays)
    player_id: str = ""
    bot_level: int = 0               # BotLevel of the bot playing it, if any
    takeover: bool = False           # a bot plays for a human who left
    disconnected_at_us: int = 0      # when its last watch stream closed (0: connected)


@dataclass
class TableState:
    table_id: str
    version: int = 0
    created: epb.TableCreated | None = None
    rules: Rules | None = None
    seats: list[Seat] = field(default_factory=lambda: [Seat() for _ in range(4)])
    status: str = WAITING
    game: Game | None = None
    game_number: int = 0
    deal_started: epb.DealStarted | None = None     # the current deal's (deck, salt, commitment)
    last_score: epb.DealScored | None = None
    winning_team: int = -1

    def copy(self) -> TableState:
        new = TableState(**self.__dict__)
        new.seats = [Seat(**s.__dict__) for s in self.seats]
        new.game = self.game.copy() if self.game else None
        return new

    @property
    def exists(self) -> bool:
        return self.created is not None

    def free_seats(self) -> list[int]:
        return [i for i, s in enumerate(self.seats) if s.occupant == EMPTY]

    def seat_of_token_hash(self, token_hash: bytes) -> int | None:
        for i, s in enumerate(self.seats):
            if s.token_hash and s.token_hash == token_hash:
                return i
        return None

    def to_act(self) -> int | None:
        return self.game.to_act() if self.game and self.status == PLAYING else None


def evolve(state: TableState, event: epb.TableEvent) -> TableState:
    """Apply one stored event to ``state`` (in place) and return it."""
    kind = event.WhichOneof("body")
    body = getattr(event, kind)
    state.version = event.sequence
    if kind == "seat_disconnected":     # the one handler that needs the event's time
        state.seats[body.seat].disconnected_at_us = event.time.ToMicroseconds() or 1
    handler = _HANDLERS.get(kind)
    if handler:
        handler(state, body)
    return state


def fold(table_id: str, events) -> TableState:
    state = TableState(table_id)
    for e in events:
        evolve(state, e)
    return state


def _created(state: TableState, e: epb.TableCreated) -> None:
    state.created = e
    state.rules = rules_from_strings(e.options)


def _joined(state: TableState, e: epb.SeatJoined) -> None:
    state.seats[e.seat] = Seat(HUMAN, e.display_name, e.token_hash, e.player_id)


def _left(state: TableState, e: epb.SeatLeft) -> None:
    seat = state.seats[e.seat]
    # Before the game the seat is free again; during it the human keeps the claim to come back.
    if state.status == WAITING:
        state.seats[e.seat] = Seat()
    else:
        seat.occupant = EMPTY


def _bot(state: TableState, e: epb.BotSeated) -> None:
    seat = state.seats[e.seat]
    if e.takeover:
        seat.occupant, seat.bot_level, seat.takeover = BOT, e.level, True
    else:
        state.seats[e.seat] = Seat(BOT, f"bot ({epb.BotLevel.Name(e.level).lower()})", bot_level=e.level)


def _reclaimed(state: TableState, e: epb.SeatReclaimed) -> None:
    seat = state.seats[e.seat]
    seat.occupant, seat.bot_level, seat.takeover, seat.disconnected_at_us = HUMAN, 0, False, 0


def _connected(state: TableState, e: epb.SeatConnected) -> None:
    state.seats[e.seat].disconnected_at_us = 0


def _game_started(state: TableState, e: epb.GameStarted) -> None:
    state.status = PLAYING
    state.game_number = e.game_number
    state.game = Game(state.rules)
    state.game.dealer = e.first_dealer
    state.winning_team = -1


def _deal_started(state: TableState, e: epb.DealStarted) -> None:
    state.deal_started = e
    state.game.start_deal([card_from_pb(c) for c in e.deck])


def _bid(state: TableState, e: epb.BidMade) -> None:
    call = -1 if e.bid.is_pass else e.bid.contract - 1
    state.game.apply(e.seat, Bid(call))


def _declared(state: TableState, e: epb.AnnouncementDeclared) -> None:
    a = e.announcement
    kind = _KIND_FROM_PB[a.kind]
    state.game.apply(e.seat, Declare(kind, a.suit - 1 if kind != CARRE and a.suit else -1,
                                     a.rank - 1 if kind == CARRE else -1))


def _card(state: TableState, e: epb.CardPlayed) -> None:
    state.game.apply(e.seat, Play(card_from_pb(e.card)))


def _scored(state: TableState, e: epb.DealScored) -> None:
    state.last_score = e


def _game_ended(state: TableState, e: epb.GameEnded) -> None:
    state.status = FINISHED
    state.winning_team = e.winning_team


_HANDLERS = {
    "table_created": _created, "seat_joined": _joined, "seat_left": _left, "bot_seated": _bot,
    "seat_reclaimed": _reclaimed, "seat_connected": _connected, "game_started": _game_started, "deal_started": _deal_started,
    "bid_made": _bid, "announcement_declared": _declared, "card_played": _card,
    "deal_scored": _scored, "game_ended": _game_ended,
}
