"""A table as an event-sourced aggregate: its events, its state folded from them, the decider
that turns a command into new events, and what each viewer may see. Pure: randomness and time
come in with the commands (chosen by app/) and are written into the events.

The modules: ``codec`` (every proto <-> value conversion), ``state`` (``evolve``, ``fold``),
``decide`` (commands and ``decide``), ``views`` (seat and table views, redaction) and
``request_ids`` (the ids of the server's own moves).
"""

from . import request_ids
from .codec import (
    BOT_LEVEL_NAMES,
    BOT_LEVELS,
    CARD_OF_PB,
    SCHEMA_VERSION,
    BadMessage,
    action_from_pb,
    action_to_pb,
    bid_from_pb,
    card_from_pb,
    card_to_pb,
    declaration_from_pb,
    decode_stored,
    encode_body,
    event_type,
    logged_event,
)
from .decide import (
    Act,
    CloseTable,
    CreateTable,
    Disconnect,
    JoinSeat,
    LeaveSeat,
    NextDeal,
    PostChat,
    ReclaimSeat,
    Reconnect,
    Refused,
    SeatBot,
    TimerMove,
    VoteRematch,
    decide,
    deck_commitment,
)
from .state import TableState, evolve, evolve_body, fold
from .views import REVIEWER, SPECTATOR, Redactor, SeatView, seat_view, table_view

__all__ = [
    "BOT_LEVELS", "BOT_LEVEL_NAMES", "CARD_OF_PB", "REVIEWER", "SCHEMA_VERSION", "SPECTATOR",
    "Act", "BadMessage", "CloseTable", "CreateTable", "Disconnect", "JoinSeat", "LeaveSeat",
    "NextDeal", "PostChat", "ReclaimSeat", "Reconnect", "Redactor", "Refused", "SeatBot",
    "SeatView", "TableState", "TimerMove", "VoteRematch", "action_from_pb", "action_to_pb",
    "bid_from_pb", "card_from_pb", "card_to_pb", "decide", "deck_commitment",
    "declaration_from_pb", "decode_stored", "encode_body", "event_type", "evolve", "evolve_body",
    "fold", "logged_event", "request_ids", "seat_view", "table_view",
]
