"""A seat's turn told on its own watch stream (TableEvent.your_turn): what GetLegalActions
would answer, on the event after which the table waits for that seat.

It runs for every seat's stream after every append, so it is kept cheap: only an event that
is the table's current version can be one the table waits at (one the table has moved past
needs nothing: a later event follows, and it is judged in turn), and it is judged on the state
the repository holds already (the append that woke the stream folded it; a store read only
when another process appended). The actions are computed once per turn: an event that does not
change whose turn it is (a chat, a seat connecting) carries the same ones at its own version,
the one Act's expected_version needs.
"""

from __future__ import annotations

import functools

from belote.table.codec import action_to_pb
from belote.table.state import HUMAN, NOT_A_TURN, TableState
from belote.v1 import cards_pb2 as cpb
from belote.v1 import events_pb2 as epb


@functools.lru_cache(maxsize=1024)
def _action_pb(kind: str, action) -> cpb.Action:
    """An action's message, built once (as app/tables.py's for GetLegalActions; the kind, its
    class's name, is part of the key: a Bid and a Play may be equal tuples). Callers copy it,
    never change it."""
    return action_to_pb(action)


class SeatTurns:
    """Follows one seat's stream (every event, in order, the backlog before from_sequence
    included) and adds your_turn where the table waits for the seat."""

    def __init__(self, tables, table_id: str, seat: int, token_hash: bytes) -> None:
        self._tables, self._table_id = tables, table_id
        self._seat, self._token_hash = seat, token_hash
        self._turn_from = 0        # the last event seen that may change whose turn it is
        self._actions: tuple[int, list[cpb.Action]] | None = None   # (its _turn_from, actions)

    def saw(self, kind: str | None, sequence: int) -> None:
        if kind not in NOT_A_TURN:
            self._turn_from = sequence

    async def attach(self, shown: epb.TableEvent, shared: bool) -> epb.TableEvent:
        """``shown`` (the event the stream is about to send, the table's newest it knows of)
        with your_turn if the table waits for this seat at its sequence; a copy when ``shared``
        (the redactor passed the event on as it is: other streams send the same object)."""
        sequence = shown.sequence
        state = self._tables.cached(self._table_id)
        if state is None or state.version < sequence:        # appended by another process
            state = await self._tables.load(self._table_id)
        if state.version != sequence or not self._to_act(state):
            return shown
        if self._actions is None or self._actions[0] != self._turn_from:
            assert state.game is not None           # to act: a game is being played
            legal = state.game.legal_actions(self._seat)
            self._actions = (self._turn_from, [_action_pb(type(a).__name__, a) for a in legal])
        if shared:
            copy = epb.TableEvent()
            copy.CopyFrom(shown)
            shown = copy
        turn = shown.your_turn
        turn.version = sequence
        turn.actions.extend(self._actions[1])
        deadline = state.turn_deadline_us()
        if deadline is not None:
            turn.deadline_time.FromMicroseconds(deadline)
        return shown

    def _to_act(self, state: TableState) -> bool:
        """The seat is to act and still this stream's token's, played by its human (not a
        takeover bot): GetLegalActions would answer your_turn for that token."""
        seat = self._seat
        if state.to_act() != seat:
            return False
        held = state.seats[seat]
        return held.occupant == HUMAN and held.token_hash == self._token_hash
