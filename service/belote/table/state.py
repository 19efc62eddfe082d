"""A table's state, rebuilt from its log: ``fold(events)`` is ``evolve`` over the events.

Only the events that carry a choice (a deal's deck, a bid, a declaration, a card) move the
game; the events that follow from them (contract settled, trick won, deal scored...) are in
the log for readers and are recomputed here, not trusted. ``evolve_body`` is evolve itself, the
event given by its parts, and may leave the game to a caller that moved it already (the review).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any

from belote.rules import Game, rules_from_strings
from belote.rules.actions import Bid, Play
from belote.rules.options import Rules
from belote.v1 import events_pb2 as epb

from .codec import bid_from_pb, card_from_pb, declaration_from_pb


class Occupant(StrEnum):
    EMPTY = "empty"
    HUMAN = "human"
    BOT = "bot"


class Status(StrEnum):
    WAITING = "waiting"
    PLAYING = "playing"
    FINISHED = "finished"


EMPTY, HUMAN, BOT = Occupant.EMPTY, Occupant.HUMAN, Occupant.BOT
WAITING, PLAYING, FINISHED = Status.WAITING, Status.PLAYING, Status.FINISHED

REMATCH_VOTE_S = 120          # SPEC §10: every human may vote for a rematch during 2 minutes
CHAT_BURST, CHAT_WINDOW_S = 5, 10      # at most 5 chat messages per 10 s per author
# Events after which the seat to act is still the one it was: they do not restart its timer.
NOT_A_TURN = frozenset({"chat_posted", "seat_disconnected", "seat_connected", "rematch_voted",
                         "table_closed"})
# The events whose evolve moves the game (``evolve_body(..., move_game=False)`` leaves it).
MOVES_GAME = frozenset({"deal_started", "bid_made", "announcement_declared", "card_played"})


@dataclass
class Seat:
    occupant: str = EMPTY
    display_name: str = ""
    token_hash: bytes = b""          # the human's seat token (kept while a takeover bot plays)
    player_id: str = ""
    bot_level: int = 0               # BotLevel of the bot playing it, if any
    takeover: bool = False           # a bot plays for a human who left
    disconnected_at_us: int = 0      # when its last watch stream closed (0: connected)

    def copy(self) -> Seat:
        new = Seat.__new__(Seat)
        new.__dict__.update(self.__dict__)
        return new


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
    # Time, from the log's event times (unix microseconds): deadlines are derived from these.
    last_event_us: int = 0
    turn_since_us: int = 0           # the event that made it the current seat's turn
    game_ended_at_us: int = 0
    first_dealer: int = 0            # of the current (or last) game
    pot: int = 0
    paying_seats: tuple = ()
    rated: bool = False              # four registered players and no bot, so far this game
    rematch_votes: frozenset = frozenset()
    closed: bool = False
    chats: tuple = ()                # (author, time_us) of the chat messages of the last window

    def copy(self) -> TableState:
        # Fields copied as they are, without running __init__ (every command copies a state).
        new = TableState.__new__(TableState)
        new.__dict__.update(self.__dict__)
        new.seats = [s.copy() for s in self.seats]
        new.game = self.game.copy() if self.game else None
        return new

    def humans(self) -> list[int]:
        """The seats a human holds now (not those left to a takeover bot)."""
        return [i for i, s in enumerate(self.seats) if s.occupant == HUMAN]

    def turn_deadline_us(self) -> int | None:
        """When the human seat to act gets a timer move; None without a timer or such a seat."""
        seat = self.to_act()
        timer = self.created.turn_timer_seconds if self.created else 0
        if not timer or seat is None or self.seats[seat].occupant != HUMAN:
            return None
        return self.turn_since_us + timer * 1_000_000

    def rematch_deadline_us(self) -> int | None:
        """When the rematch vote ends; None unless a game is over and the table still open."""
        if self.status != FINISHED or self.closed:
            return None
        return self.game_ended_at_us + REMATCH_VOTE_S * 1_000_000

    def chats_of(self, author: str, now_us: int) -> int:
        """How many messages ``author`` posted within the chat window before ``now_us``."""
        since = now_us - CHAT_WINDOW_S * 1_000_000
        return sum(1 for who, at in self.chats if who == author and at > since)

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

    def takeover_level(self) -> int:
        """The level of the bot that plays for a human away or out of time (NORMAL unless the
        table chose one)."""
        return (self.created.takeover_bot_level if self.created else 0) or epb.BOT_LEVEL_NORMAL

    def to_act(self) -> int | None:
        return self.game.to_act() if self.game and self.status == PLAYING else None


def evolve(state: TableState, event: epb.TableEvent) -> TableState:
    """Apply one stored event to ``state`` (in place) and return it."""
    kind = event.WhichOneof("body")
    return evolve_body(state, kind, getattr(event, kind), event.sequence, event.append_time.ToMicroseconds())


def evolve_body(state: TableState, kind: str, body, sequence: int, now_us: int,
                move_game: bool = True) -> TableState:
    """``evolve`` for the event of sequence ``sequence`` and time ``now_us`` whose body is
    ``body``, of field ``kind``. ``move_game=False`` leaves the game as it is, for a caller that
    made the event's move on it already (decide's steps, in place) or does not play it."""
    state.version = sequence
    state.last_event_us = now_us
    if kind not in NOT_A_TURN:
        state.turn_since_us = now_us
    handler = (_HANDLERS if move_game else _TABLE_HANDLERS).get(kind)
    if handler:
        handler(state, body, now_us)
    return state


def fold(table_id: str, events: Iterable[epb.TableEvent]) -> TableState:
    state = TableState(table_id)
    for e in events:
        evolve(state, e)
    return state


def chat_author(chat: epb.ChatPosted) -> str:
    """Who a chat message counts against: a seat, or a spectator by the name it gave."""
    return f"seat:{chat.seat}" if chat.seat >= 0 else f"spectator:{chat.display_name}"


def _created(state: TableState, e: epb.TableCreated, now_us: int) -> None:
    state.created = e
    state.rules = rules_from_strings(e.options)


def _joined(state: TableState, e: epb.SeatJoined, now_us: int) -> None:
    state.seats[e.seat] = Seat(HUMAN, e.display_name, e.token_hash, e.player_id)


def _left(state: TableState, e: epb.SeatLeft, now_us: int) -> None:
    seat = state.seats[e.seat]
    # Before the game the seat is free again; during it the human keeps the claim to come back.
    if state.status == WAITING:
        state.seats[e.seat] = Seat()
    else:
        seat.occupant = EMPTY


def _bot(state: TableState, e: epb.BotSeated, now_us: int) -> None:
    seat = state.seats[e.seat]
    if state.status == PLAYING:
        state.rated = False              # a game with a bot seat changes no rating
    if e.takeover:
        seat.occupant, seat.bot_level, seat.takeover = BOT, e.level, True
    else:
        state.seats[e.seat] = Seat(BOT, f"bot ({epb.BotLevel.Name(e.level).removeprefix('BOT_LEVEL_').lower()})", bot_level=e.level)


def _reclaimed(state: TableState, e: epb.SeatReclaimed, now_us: int) -> None:
    seat = state.seats[e.seat]
    seat.occupant, seat.bot_level, seat.takeover, seat.disconnected_at_us = HUMAN, 0, False, 0


def _connected(state: TableState, e: epb.SeatConnected, now_us: int) -> None:
    state.seats[e.seat].disconnected_at_us = 0


def _disconnected(state: TableState, e: epb.SeatDisconnected, now_us: int) -> None:
    state.seats[e.seat].disconnected_at_us = now_us or 1


def _chat(state: TableState, e: epb.ChatPosted, now_us: int) -> None:
    since = now_us - CHAT_WINDOW_S * 1_000_000
    state.chats = (*(c for c in state.chats if c[1] > since), (chat_author(e), now_us))


def _game_started(state: TableState, e: epb.GameStarted, now_us: int) -> None:
    state.status = PLAYING
    state.game_number = e.game_number
    assert state.rules is not None  # table_created comes first
    state.game = Game(state.rules)
    state.game.dealer = e.first_dealer
    state.first_dealer = e.first_dealer
    state.winning_team = -1
    state.pot, state.paying_seats = e.pot, tuple(e.paying_seats)
    state.rated = all(s.occupant == HUMAN and s.player_id for s in state.seats)
    state.rematch_votes = frozenset()


def _deal_noted(state: TableState, e: epb.DealStarted, now_us: int) -> None:
    state.deal_started = e


def _deal_started(state: TableState, e: epb.DealStarted, now_us: int) -> None:
    _deal_noted(state, e, now_us)
    _game(state).start_deal([card_from_pb(c) for c in e.deck])


def _bid(state: TableState, e: epb.BidMade, now_us: int) -> None:
    _game(state).apply(e.seat, Bid(bid_from_pb(e.bid)))


def _declared(state: TableState, e: epb.AnnouncementDeclared, now_us: int) -> None:
    _game(state).apply(e.seat, declaration_from_pb(e.announcement))


def _card(state: TableState, e: epb.CardPlayed, now_us: int) -> None:
    _game(state).apply(e.seat, Play(card_from_pb(e.card)))


def _game(state: TableState) -> Game:
    game = state.game
    assert game is not None, "a move before game_started"
    return game


def _scored(state: TableState, e: epb.DealScored, now_us: int) -> None:
    state.last_score = e


def _game_ended(state: TableState, e: epb.GameEnded, now_us: int) -> None:
    state.game_ended_at_us = now_us
    state.status = FINISHED
    state.winning_team = e.winning_team


def _rematch_voted(state: TableState, e: epb.RematchVoted, now_us: int) -> None:
    state.rematch_votes = state.rematch_votes | {e.seat}


def _closed(state: TableState, e: epb.TableClosed, now_us: int) -> None:
    state.closed = True


# What each kind of event does to the state besides its clock (the rest do nothing more).
# A handler's event is the body of its kind.
_Handler = Callable[[TableState, Any, int], None]
_TABLE_HANDLERS: dict[str, _Handler] = {
    "table_created": _created, "seat_joined": _joined, "seat_left": _left, "bot_seated": _bot,
    "seat_reclaimed": _reclaimed, "seat_connected": _connected, "seat_disconnected": _disconnected,
    "chat_posted": _chat, "game_started": _game_started, "deal_started": _deal_noted,
    "deal_scored": _scored, "game_ended": _game_ended, "rematch_voted": _rematch_voted,
    "table_closed": _closed,
}
# The same with the game's moves (MOVES_GAME).
_HANDLERS: dict[str, _Handler] = {**_TABLE_HANDLERS, "deal_started": _deal_started, "bid_made": _bid,
             "announcement_declared": _declared, "card_played": _card}
