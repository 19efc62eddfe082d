"""A table's state folded from one viewer's WatchTable stream, so that a client never polls
GetTable:

    state = initial_state(table_id, seat)            # seat 0..3, or -1 for a spectator
    async for event in watch:                        # the stream, resumed as often as need be
        state = fold_event(state, event)
        show(state.table)                            # what GetTable would answer this viewer

``state.table`` is the ``belote.v1.Table`` GetTable returns to the viewer at ``state.version``,
field for field, once the fold has taken the last event of each of the server's appends (the
events one request wrote together: a card, the trick it won, the deal it scored, the next deal
dealt...). Between two events of one append it shows the table in between, which GetTable never
does: the trick's four cards before TrickWon takes them, the deal scored before the next is dealt.
docs/events.md says which events come together; tests/clients/test_fold_differential.py proves
the equality at every version, for every preset and every kind of viewer.

Besides the table, the state keeps what GetTable does not show: the result of every deal of the
game (``deals``), the chat (``chat``), the seats whose player lost its stream
(``disconnected``), when bots fill a quick-play table (``bots_fill_time``) and ``your_turn``.

It folds the events as the server sends them to that viewer (redacted: a spectator sees no
hand), from the rules written in the table's events alone: it needs nothing of the server's
package but the generated ``belote.v1`` messages. ``fold_event`` is pure: it returns a new state
and never changes the one it is given, nor the event.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass, replace
from typing import Any

from belote.v1 import cards_pb2, events_pb2
from belote.v1 import table_service_pb2 as pb
# protobuf ships no stubs of its own (the belote.v1 .pyi files use it the same way).
from google.protobuf.timestamp_pb2 import Timestamp  # type: ignore[import-untyped]

__all__ = ["SPECTATOR", "TableState", "fold_event", "fold_events", "initial_state"]

SPECTATOR = -1
# Votes for a rematch are open for 2 minutes from GameEnded (RematchVoted in events.proto).
REMATCH_VOTE_US = 120 * 1_000_000
# Events after which the seat to act is still the one it was: its turn timer runs on from the
# event that gave it its turn, and its YourTurn holds.
NOT_A_TURN = frozenset({"chat_posted", "seat_disconnected", "seat_connected", "rematch_voted",
                        "table_closed"})


@dataclass(frozen=True)
class TableState:
    """What one viewer knows of a table, after the events up to ``version``."""

    table: pb.Table                                  # exactly what GetTable shows this viewer
    viewer: int                                      # the seat 0..3, or SPECTATOR
    version: int = 0                                 # the sequence of the last event folded
    deals: tuple[events_pb2.DealScored, ...] = ()    # every deal scored in the current game
    chat: tuple[events_pb2.ChatPosted, ...] = ()     # every message, oldest first
    rematch_votes: tuple[int, ...] = ()              # the seats that voted since the game ended
    # The moves the viewer's seat may make now, as its stream sent them; None when the table
    # does not wait for it. Events that do not change the turn (NOT_A_TURN) keep it: its actions
    # still hold, though the table's version moved on (pass state.version as expected_version).
    your_turn: events_pb2.YourTurn | None = None
    disconnected: tuple[int, ...] = ()               # seats whose player's stream closed
    bots_fill_time: Timestamp | None = None          # a quick-play table: when bots fill it
    turn_since_us: int = 0                           # when the seat to act got its turn


def initial_state(table_id: str, viewer: int) -> TableState:
    """The state before the table's first event; ``viewer`` is a seat 0..3 or -1 (spectator)."""
    if not -1 <= viewer <= 3:
        raise ValueError(f"viewer {viewer}: a seat 0..3, or -1 for a spectator")
    return TableState(pb.Table(table_id=table_id, your_seat=viewer), viewer)


def fold_events(state: TableState, events: Iterable[events_pb2.TableEvent]) -> TableState:
    for event in events:
        state = fold_event(state, event)
    return state


def fold_event(state: TableState, event: events_pb2.TableEvent) -> TableState:
    """The state after ``event``. An event folded already (a stream resumed from an earlier
    sequence) changes nothing; one that skips a sequence is a ValueError, as the state would
    miss what happened in between."""
    if event.sequence <= state.version:
        return state
    if event.sequence != state.version + 1:
        raise ValueError(f"event {event.sequence} after version {state.version}: "
                         f"events {state.version + 1}..{event.sequence - 1} are missing")
    kind = event.WhichOneof("body")
    step = _Step(state, event)
    handler = _HANDLERS.get(kind) if kind else None
    if handler is not None:        # an event type this client does not know only moves the version
        handler(step, getattr(event, kind))
    return step.done(kind)


class _Step:
    """One event being folded: a copy of the table and of the state's fields, changed freely."""

    def __init__(self, state: TableState, event: events_pb2.TableEvent):
        self.state, self.event = state, event
        self.table = pb.Table()
        self.table.CopyFrom(state.table)
        self.game = self.table.game
        self.viewer = state.viewer
        self.deals, self.chat = state.deals, state.chat
        self.disconnected, self.bots_fill_time = state.disconnected, state.bots_fill_time
        self.now_us = event.append_time.ToMicroseconds()

    def done(self, kind: str | None) -> TableState:
        table, state, event = self.table, self.state, self.event
        table.version = event.sequence
        turn_since = state.turn_since_us if kind in NOT_A_TURN else self.now_us
        # As the server does: a deadline while a human seat is to act at a table with a timer.
        to_act = table.game.to_act if table.HasField("game") else -1
        if (table.turn_timer.seconds and table.status == pb.TABLE_STATUS_PLAYING and to_act >= 0
                and table.seats[to_act].occupant == pb.SEAT_OCCUPANT_HUMAN):
            table.turn_deadline_time.FromMicroseconds(turn_since + table.turn_timer.seconds * 1_000_000)
        else:
            table.ClearField("turn_deadline_time")
        your_turn = state.your_turn if kind in NOT_A_TURN else None
        if event.HasField("your_turn"):
            your_turn = _copy(event.your_turn)
        return replace(state, table=table, version=event.sequence, deals=self.deals, chat=self.chat,
                       rematch_votes=tuple(table.rematch_votes), your_turn=your_turn,
                       disconnected=self.disconnected, bots_fill_time=self.bots_fill_time,
                       turn_since_us=turn_since)

    def connected(self, seat: int) -> None:
        self.disconnected = tuple(s for s in self.disconnected if s != seat)

    def deal_over(self) -> None:
        """What a view shows of a deal in progress only (the hand, the auction, the tricks)."""
        game = self.game
        game.phase = pb.DEAL_PHASE_DEAL_OVER
        game.to_act = -1
        game.trick_number = 0
        for name in ("your_hand", "bids", "turned_card", "deck_commitment", "current_trick",
                     "tricks_won", "announcements"):
            game.ClearField(name)


def _copy(message: Any) -> Any:
    out = type(message)()
    out.CopyFrom(message)
    return out


def _sorted_cards(cards: Iterable[cards_pb2.Card]) -> list[cards_pb2.Card]:
    # The server lists a hand in its cards' order: suit (C D H S), then rank (7 .. A).
    return sorted(cards, key=lambda c: (c.suit, c.rank))


def _table_created(step: _Step, e: events_pb2.TableCreated) -> None:
    table = step.table
    table.name, table.preset, table.is_private, table.stake = e.name, e.preset, e.is_private, e.stake
    table.options.update(e.options)
    table.status = pb.TABLE_STATUS_WAITING_FOR_PLAYERS
    for seat in range(4):
        table.seats.add(seat=seat, occupant=pb.SEAT_OCCUPANT_EMPTY)
    if e.turn_timer_seconds:
        table.turn_timer.seconds = e.turn_timer_seconds
    step.bots_fill_time = _copy(e.bots_fill_time) if e.HasField("bots_fill_time") else None


def _seat_joined(step: _Step, e: events_pb2.SeatJoined) -> None:
    step.table.seats[e.seat].CopyFrom(pb.SeatInfo(seat=e.seat, occupant=pb.SEAT_OCCUPANT_HUMAN,
                                                  display_name=e.display_name, player_id=e.player_id))
    step.connected(e.seat)


def _seat_left(step: _Step, e: events_pb2.SeatLeft) -> None:
    seat = step.table.seats[e.seat]
    if step.table.status == pb.TABLE_STATUS_WAITING_FOR_PLAYERS:
        seat.CopyFrom(pb.SeatInfo(seat=e.seat, occupant=pb.SEAT_OCCUPANT_EMPTY))
    else:                   # during a game the player keeps its name on the seat, and may come back
        seat.occupant = pb.SEAT_OCCUPANT_EMPTY
    step.connected(e.seat)


def _bot_seated(step: _Step, e: events_pb2.BotSeated) -> None:
    seat = step.table.seats[e.seat]
    if e.takeover:
        seat.occupant, seat.bot_level, seat.bot_takeover = pb.SEAT_OCCUPANT_BOT, e.level, True
    else:
        level = events_pb2.BotLevel.Name(e.level).removeprefix("BOT_LEVEL_").lower()
        seat.CopyFrom(pb.SeatInfo(seat=e.seat, occupant=pb.SEAT_OCCUPANT_BOT,
                                  display_name=f"bot ({level})", bot_level=e.level))


def _seat_reclaimed(step: _Step, e: events_pb2.SeatReclaimed) -> None:
    seat = step.table.seats[e.seat]
    seat.occupant, seat.bot_takeover = pb.SEAT_OCCUPANT_HUMAN, False
    seat.ClearField("bot_level")
    step.connected(e.seat)


def _seat_disconnected(step: _Step, e: events_pb2.SeatDisconnected) -> None:
    step.connected(e.seat)
    step.disconnected = tuple(sorted((*step.disconnected, e.seat)))


def _seat_connected(step: _Step, e: events_pb2.SeatConnected) -> None:
    step.connected(e.seat)


def _chat_posted(step: _Step, e: events_pb2.ChatPosted) -> None:
    step.chat = (*step.chat, _copy(e))


def _game_started(step: _Step, e: events_pb2.GameStarted) -> None:
    table = step.table
    table.status, table.pot = pb.TABLE_STATUS_PLAYING, e.pot
    for name in ("rematch_votes", "rematch_deadline_time"):
        table.ClearField(name)
    game = pb.GameView(game_number=e.game_number, totals=[0, 0], dealer=e.first_dealer,
                       phase=pb.DEAL_PHASE_DEAL_OVER, taker=-1, to_act=-1, winning_team=-1)
    # The server's view keeps the previous game's last deal until this game scores one.
    if table.game.HasField("last_deal"):
        game.last_deal.CopyFrom(table.game.last_deal)
    table.game.CopyFrom(game)
    step.deals, step.bots_fill_time = (), None


def _deal_started(step: _Step, e: events_pb2.DealStarted) -> None:
    game = step.game
    step.deal_over()
    game.ClearField("last_trick")
    game.deal_number, game.dealer, game.phase = e.deal_number, e.dealer, pb.DEAL_PHASE_AUCTION
    game.taker, game.contract = -1, cards_pb2.CONTRACT_UNSPECIFIED
    game.to_act = (e.dealer + 1) & 3               # the eldest speaks first
    game.deck_commitment = e.deck_commitment
    if e.HasField("turned_card"):
        game.turned_card.CopyFrom(e.turned_card)
    game.your_hand.extend(_sorted_cards(e.hand))


def _bid_made(step: _Step, e: events_pb2.BidMade) -> None:
    game = step.game
    game.bids.add(seat=e.seat, bid=e.bid)
    game.to_act = (e.seat + 1) & 3                  # after 8 passes (forced_trump): the eldest
    if e.hand:                                      # forced_trump: the 8 cards to choose from
        game.ClearField("your_hand")
        game.your_hand.extend(_sorted_cards(e.hand))


def _all_passed(step: _Step, e: events_pb2.AllPassed) -> None:
    step.deal_over()


def _contract_settled(step: _Step, e: events_pb2.ContractSettled) -> None:
    game = step.game
    game.taker, game.contract, game.phase = e.taker, e.contract, pb.DEAL_PHASE_CARD_PLAY
    game.to_act = (game.dealer + 1) & 3            # the eldest leads the first trick
    game.trick_number = 1
    game.tricks_won[:] = [0, 0]
    if e.hand:
        game.ClearField("your_hand")
        game.your_hand.extend(_sorted_cards(e.hand))


def _announcement_declared(step: _Step, e: events_pb2.AnnouncementDeclared) -> None:
    # Shown in seat order (each seat declares once), not in the order they were declared.
    shown = [*step.game.announcements, events_pb2.SeatAnnouncement(
        seat=e.seat, announcement=e.announcement, cards=e.cards)]
    step.game.ClearField("announcements")
    step.game.announcements.extend(sorted(shown, key=lambda a: a.seat))


def _announcements_revealed(step: _Step, e: events_pb2.AnnouncementsRevealed) -> None:
    step.game.ClearField("announcements")
    step.game.announcements.extend(e.announcements)


def _card_played(step: _Step, e: events_pb2.CardPlayed) -> None:
    game = step.game
    game.current_trick.add(seat=e.seat, card=e.card)
    game.to_act = (e.seat + 1) & 3
    if e.seat == step.viewer:
        hand = game.your_hand
        for i, card in enumerate(hand):
            if card.suit == e.card.suit and card.rank == e.card.rank:
                del hand[i]
                break


def _trick_won(step: _Step, e: events_pb2.TrickWon) -> None:
    game = step.game
    game.last_trick.CopyFrom(pb.LastTrick(trick_number=e.trick_number, cards=game.current_trick,
                                          winner=e.winner))
    game.ClearField("current_trick")
    game.tricks_won[e.winner & 1] += 1
    game.trick_number = e.trick_number + 1
    game.to_act = e.winner                          # the winner leads the next trick


def _deal_scored(step: _Step, e: events_pb2.DealScored) -> None:
    game = step.game
    step.deals = (*step.deals, _copy(e))
    game.totals[:] = e.totals
    game.reserve = e.reserve_pending
    # DealScore has DealScored's fields with their numbers: the event's bytes read as it.
    game.last_deal.CopyFrom(pb.DealScore.FromString(e.SerializeToString()))
    step.deal_over()                                # the next deal (or GameEnded) follows


def _game_ended(step: _Step, e: events_pb2.GameEnded) -> None:
    table, game = step.table, step.game
    table.status, table.pot = pb.TABLE_STATUS_FINISHED, 0
    game.phase, game.to_act, game.winning_team = pb.DEAL_PHASE_GAME_OVER, -1, e.winning_team
    game.totals[:] = e.totals
    table.rematch_deadline_time.FromMicroseconds(step.now_us + REMATCH_VOTE_US)


def _rematch_voted(step: _Step, e: events_pb2.RematchVoted) -> None:
    votes = sorted({*step.table.rematch_votes, e.seat})
    step.table.rematch_votes[:] = votes


def _table_closed(step: _Step, e: events_pb2.TableClosed) -> None:
    step.table.closed = True
    step.table.ClearField("rematch_deadline_time")


# Each takes the body its event type names.
_HANDLERS: dict[str, Callable[[_Step, Any], None]] = {
    "table_created": _table_created, "seat_joined": _seat_joined, "seat_left": _seat_left,
    "bot_seated": _bot_seated, "seat_reclaimed": _seat_reclaimed,
    "seat_disconnected": _seat_disconnected, "seat_connected": _seat_connected,
    "chat_posted": _chat_posted, "game_started": _game_started, "deal_started": _deal_started,
    "bid_made": _bid_made, "all_passed": _all_passed, "contract_settled": _contract_settled,
    "announcement_declared": _announcement_declared,
    "announcements_revealed": _announcements_revealed, "card_played": _card_played,
    "trick_won": _trick_won, "deal_scored": _deal_scored, "game_ended": _game_ended,
    "rematch_voted": _rematch_voted, "table_closed": _table_closed,
}
