"""Watching a table: the event streams (each event redacted for its viewer), the seats present
(a seat's last stream closing disconnects it), spectators' places and their chat's rate.

A stream reads the log a page at a time (from the repository's tail of this process's appends
when it can) and waits for the next append with no timeout: the store wakes it. A seat's own
stream also says when the table waits for it, and what it may do (app/turns.py).
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Callable

from belote import observability as metrics
from belote.store import StoreError
from belote.table import request_ids
from belote.table.codec import decode_stored
from belote.table.state import CHAT_BURST, CHAT_WINDOW_S, TableState
from belote.table.views import SPECTATOR, Redactor
from belote.v1 import events_pb2 as epb

from . import errors as err
from .access import sha256
from .deals import deciding
from .display_names import check_display_name, looks_like
from .limits import Spectators, Window, caller_key
from .presence import SeatPresence
from .repository import existing_table
from .turns import SeatTurns


class Watching:
    def __init__(self, tables, access, clock: Callable[[], int], closing: asyncio.Event, spawn, *,
                 spectators_per_caller: int) -> None:
        store = tables.store
        self._tables, self._access, self.clock = tables, access, clock
        self._closing, self._spawn = closing, spawn
        self.spectator_chats = Window(store, clock, "spectator-chat", CHAT_BURST, CHAT_WINDOW_S)
        self.spectators = Spectators(store, clock, per_caller=spectators_per_caller)
        self.seats_present = SeatPresence(store, clock, tables.load, self._presence, spawn)

    async def _presence(self, table_id: str, seat: int, command) -> bool:
        """Append a (dis)connection if the table still wants it (True if appended); a refusal
        means it does not."""
        try:
            await self._tables.execute(table_id, request_ids.presence(seat, self.clock()),
                                       deciding(command))
            return True
        except (err.AppError, StoreError):
            return False

    async def watch(self, table_id: str, from_sequence: int, token: str | None, password: str,
                    peer: str | None) -> AsyncIterator[epb.TableEvent]:
        if from_sequence < 0:
            raise err.invalid("from_sequence", "from_sequence: 0 or more (0 and 1 both mean from the start)")
        state = await existing_table(self._tables, table_id)
        viewer = await self._access.viewer(state, token, password, peer=peer)
        first = max(from_sequence, 1)
        if first > state.version + 1:
            raise err.AppError("SEQUENCE_AHEAD",
                               f"from_sequence {first} is past the table's next event {state.version + 1}")
        place = None
        if viewer == SPECTATOR:
            place = await self.spectators.enter(table_id, caller_key(peer, token))
            if place == Spectators.FULL:
                raise err.AppError("TOO_MANY_SPECTATORS",
                                   f"this table has {self.spectators.limit} spectators already")
            if place == Spectators.CALLER_FULL:
                raise err.AppError("TOO_MANY_SPECTATOR_STREAMS",
                                   f"at most {self.spectators.per_caller} spectator streams of "
                                   "one table from one caller: close one first")
        redactor = Redactor(viewer)
        # Only a seat's own stream: a spectator (the host's token included) has no turn.
        turns = SeatTurns(self._tables, table_id, viewer, sha256(token or "")) if viewer >= 0 else None
        seen = 0
        metrics.WATCH_STREAMS.inc()
        seat_lease = await self.seats_present.arrive(table_id, viewer) if viewer >= 0 else None
        upto = state.version
        state = None     # what the stream started from: not kept alive while it waits
        try:
            while not self._closing.is_set():
                # A page at a time: the next is read once the client has taken this one.
                while seen < upto and not self._closing.is_set():
                    for event in await self._tables.events_after(table_id, seen, upto):
                        shown = redactor.see(event)
                        seen = event.sequence
                        if turns is not None:
                            turns.saw(event.WhichOneof("body"), seen)
                            # Only the newest event can be one the table waits at.
                            if seen == upto and seen >= first:
                                shown = await turns.attach(shown, shared=shown is event)
                        if seen >= first:
                            yield shown
                        if viewer >= 0 and event.WhichOneof("body") == "seat_left" and \
                                event.seat_left.seat == viewer:
                            await self._check_still_held(table_id, viewer, token)
                    event = shown = None  # nor the last event and its copy
                # No timeout: appends wake it (other processes' through the store's poller), and
                # so does the shutdown (store.events.stop_waits).
                upto = await self._tables.store.events.wait_for_append(table_id, seen, timeout=None)
        finally:
            metrics.WATCH_STREAMS.dec()
            if place is not None:
                self._spawn(self.spectators.leave(place))
            if seat_lease is not None:
                self.seats_present.depart(table_id, viewer, seat_lease, closing=self._closing.is_set())

    async def _check_still_held(self, table_id: str, seat: int, token: str | None) -> None:
        """After the seat's SeatLeft: its stream goes on only while its token still holds the
        seat (a takeover bot playing for it, or taken back since); else it ends before the
        next holder's cards could reach it."""
        state = await self._tables.load(table_id)
        if state.seat_of_token_hash(sha256(token or "")) != seat:
            raise err.AppError("SEAT_LEFT", "you left this seat: watch the table as a spectator "
                                            "(WatchTable without your seat token)")

    async def check_spectator_chat(self, state: TableState, name: str, peer: str | None,
                                   token: str | None, holder: str) -> str:
        """A spectator posts under a name of its own (returned as stored), at most CHAT_BURST
        messages per CHAT_WINDOW_S from one caller (its peer and the token it shows, whatever
        its name); ``holder`` (the request's key) holds the place, so a retry is not counted
        again."""
        name = check_spectator_name(state, name)
        if await self.spectator_chats.take(f"{state.table_id}:{caller_key(peer, token)}",
                                           holder=holder) is None:
            raise err.AppError("CHAT_TOO_FAST",
                               f"at most {CHAT_BURST} messages per {CHAT_WINDOW_S} seconds "
                               "from one spectator")
        return name


def check_spectator_name(state: TableState, name: str) -> str:
    """A spectator's name (as stored): its own, never one that looks like a name a seat of the
    table shows (a human's, a bot's, or that of a human who left during the game). A spectator's
    message has no seat number to tell it apart, so its name must; a seat's has one."""
    name = check_display_name(name)
    if any(looks_like(name, s.display_name) for s in state.seats if s.display_name):
        raise err.invalid("display_name", f"display_name: {name!r} looks like the name of a seat "
                                          "at this table: a spectator posts under a name of its "
                                          "own", "NAME_OF_A_SEAT")
    return name


async def redactor_before(store, state: TableState, viewer: int, sequence: int) -> Redactor:
    """A redactor that has followed the log up to ``sequence`` (exclusive): primed from
    ``state`` when that is where the log stood, else (a retry, a race) by reading the log."""
    redactor = Redactor(viewer)
    if state.version == sequence - 1:
        redactor.prime(state)
        return redactor
    for stored in await store.events.read(state.table_id, limit=sequence - 1):
        redactor.see(decode_stored(stored))
    return redactor
