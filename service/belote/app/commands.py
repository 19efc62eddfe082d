"""What a caller asks the app: one value per use case, built by api/ from a wire request that it
has already checked field by field (api/commands.py).

``key`` is the request's key (app/requests.py: caller and request id, hashed, with the
request's fingerprint); ``caller`` is who sent it, None for a caller inside this process (the
demo, a benchmark), which no per-caller quota counts; ``token`` its bearer token; ``player``
the verified id of its registered player ("" for a guest).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from .requests import Caller, RequestKey


@dataclass(frozen=True, slots=True)
class NewTable:
    key: RequestKey
    caller: Caller | None
    player: str
    name: str
    preset: str
    options: dict[str, str] = field(default_factory=dict)     # the preset's, all of them
    is_private: bool = False
    password: str = ""
    stake: int = 0
    takeover_bot_level: int = 0
    turn_timer_s: int = 0
    bots_fill_at_us: int = 0        # QuickPlay's: when bots fill the seats still empty (0: never)


@dataclass(frozen=True, slots=True)
class Join:
    """Sit at a table (a free seat, or ``seat``); with a seat token: take that seat back."""
    key: RequestKey
    caller: Caller | None
    table_id: str
    token: str | None
    player: str
    seat: int | None
    display_name: str
    password: str = ""


@dataclass(frozen=True, slots=True)
class AddBot:
    key: RequestKey
    table_id: str
    token: str | None
    seat: int | None
    level: int


@dataclass(frozen=True, slots=True)
class Leave:
    key: RequestKey
    table_id: str
    token: str | None


@dataclass(frozen=True, slots=True)
class Move:
    """A seat's action (a bid or a card), at ``expected_version`` of the log if given."""
    key: RequestKey
    table_id: str
    token: str | None
    action: object
    expected_version: int | None = None


@dataclass(frozen=True, slots=True)
class Look:
    """A table as the caller may see it (GetTable, WatchTable from ``from_sequence``)."""
    caller: Caller | None
    table_id: str
    token: str | None
    password: str = ""
    from_sequence: int = 0


@dataclass(frozen=True, slots=True)
class Chat:
    key: RequestKey
    caller: Caller | None
    table_id: str
    token: str | None
    text: str
    display_name: str = ""          # a spectator's
    password: str = ""


@dataclass(frozen=True, slots=True)
class Rematch:
    key: RequestKey
    table_id: str
    token: str | None


@dataclass(frozen=True, slots=True)
class Leaderboard:
    preset: str
    month: str                      # yyyy-mm; "" for this month
    size: int                       # the page size
    page_token: str
    player: str
