"""Each command event turned back into the decide command it records.

Besides what decide refuses, the findings the app's own checks would make (a seat that does not
exist, a chat message under another name) and why decide found a timer move not due.
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from belote.rules.actions import Bid, Play
from belote.rules.auction import PASS
from belote.table.codec import CARD_OF_PB, bid_from_pb, card_from_pb, declaration_from_pb
from belote.table.decide import (
    CloseTable,
    CreateTable,
    Disconnect,
    JoinSeat,
    LeaveSeat,
    PostChat,
    ReclaimSeat,
    Reconnect,
    SeatBot,
    VoteRematch,
)
from belote.table.state import TableState
from belote.v1 import events_pb2 as epb

from .entries import Entry

# The rules' actions of a log, made once: most events are one of these.
_PLAYS = tuple(Play(c) for c in range(32))
PLAY_OF = {pb: _PLAYS[card] for pb, card in CARD_OF_PB.items()}     # proto (suit, rank) -> Play
_BIDS = {c: Bid(c) for c in (PASS, 0, 1, 2, 3, 4, 5)}


def action_of(e: Entry) -> tuple:
    """(seat, rules action, BotMove or None) of an action event (raises BadMessage)."""
    kind = e.kind
    if kind == "card_played":
        body = e.event.card_played
        action = _PLAYS[card_from_pb(body.card)]
    elif kind == "bid_made":
        body = e.event.bid_made
        action = _BIDS[bid_from_pb(body.bid)]
    else:
        body = e.event.announcement_declared
        action = declaration_from_pb(body.announcement)
    return body.seat, action, body.bot if body.HasField("bot") else None


def seat_command(state: TableState, e: Entry, fail):
    """The seat or table command an event records (None when it cannot be one, with a finding
    sent to ``fail``). A command that takes the time (chat, rematch vote, closing) is given the
    event's."""
    kind = e.kind
    body = getattr(e.event, kind)
    if kind == "table_created":
        return CreateTable(body)
    if kind == "seat_joined":
        return JoinSeat(body.seat, body.display_name, body.token_hash, body.player_id)
    if kind == "bot_seated":
        return SeatBot(body.seat, body.level)
    if kind == "table_closed":
        return CloseTable(e.at_us)
    if kind == "chat_posted":
        return _chat(state, e, body, fail)
    if not 0 <= body.seat <= 3:
        fail(e.position, "legal", f"{kind}: there is no seat {body.seat}", rule="BAD_SEAT")
        return None
    if kind == "seat_left":
        # As TableApp: the server takes a seat for a lost connection only from a player whose
        # connection it saw lost (SeatDisconnected) and not back.
        if body.reason == epb.SEAT_LEFT_REASON_DISCONNECTED and not state.seats[body.seat].disconnected_at_us:
            fail(e.position, "legal", f"seat {body.seat} is taken for a lost connection, but the "
                 "log shows it connected", rule="NOT_DISCONNECTED")
        return LeaveSeat(body.seat, state.takeover_level(), body.reason)
    if kind == "seat_disconnected":
        return Disconnect(body.seat)
    if kind == "seat_connected":
        return Reconnect(body.seat)
    if kind == "rematch_voted":
        return VoteRematch(body.seat, e.at_us)
    return ReclaimSeat(body.seat)


def _chat(state: TableState, e: Entry, body: epb.ChatPosted, fail):
    """A chat message: decide checks the table is open and the author's rate; as TableApp, a
    seat's message is its player's (a seat token was needed), under the seat's name."""
    seat = body.seat
    if not -1 <= seat <= 3:
        fail(e.position, "legal", f"chat_posted: there is no seat {seat} (-1 for a spectator)",
             rule="BAD_SEAT")
        return None
    if seat >= 0:
        held = state.seats[seat]
        if not held.token_hash:
            fail(e.position, "legal", f"chat_posted: a message of seat {seat}, which no player "
                 "holds", "a seat a player joined", f"seat {seat}", "NOT_SEATED")
        elif held.display_name != body.display_name:
            fail(e.position, "legal", f"chat_posted: a message of seat {seat} is not under the "
                 "name its player sat with", repr(held.display_name), repr(body.display_name),
                 "NOT_THE_SEATS_NAME")
    return PostChat(seat, body.display_name, body.text, e.at_us)


def not_due(state: TableState, e: Entry, seat: int, fail) -> None:
    """Why decide refused a timer move (TIMER_NOT_DUE) at the event's time, as a finding."""
    deadline = state.turn_deadline_us()
    to_act = state.to_act()
    timer = state.created.turn_timer_seconds if state.created else 0
    what = f"{e.kind} by seat {seat}: a timer move (BotMove.timer)"
    if not timer:
        fail(e.position, "legal", f"{what}, but the table has no turn timer (turn_timer_s 0): a "
             "human seat gets no timer move", "no timer move", "a timer move", "TIMER_NOT_DUE")
    elif to_act != seat:
        fail(e.position, "legal", f"{what}, but it is not seat {seat}'s turn",
             f"seat {to_act} to act" if to_act is not None else "nobody to act", f"seat {seat}",
             "TIMER_NOT_DUE")
    elif deadline is None:
        fail(e.position, "legal", f"{what}, but no human holds seat {seat} (a bot plays it): only "
             "a human seat gets a timer move", "a human seat", f"{state.seats[seat].occupant} seat",
             "TIMER_NOT_DUE")
    else:
        fail(e.position, "legal", f"{what} {(e.at_us - state.turn_since_us) / 1e6:.3f} s into its "
             f"turn, before its {timer} s turn timer ran out: the seat was not late",
             f"at or after {_when(deadline)}", _when(e.at_us), "TIMER_NOT_DUE")


_EPOCH = datetime(1970, 1, 1, tzinfo=UTC)


def _when(time_us: int) -> str:
    """A log time as an ISO 8601 UTC timestamp (microseconds)."""
    try:
        return (_EPOCH + timedelta(microseconds=time_us)).isoformat(timespec="microseconds")
    except OverflowError:
        return f"{time_us} µs"
