"""Chips and ratings: projections of the table logs, kept as ledger logs in the same store.

A table's log says everything: GameStarted names the seats that paid the stake, GameEnded the
payouts and whether the game is rated, and the seats name their players. From a table's state
right after one of those events, :func:`stake_moves`, :func:`pot_moves` and :func:`rated_game`
say what it does to the ledgers; the live projection (:class:`Ledgers`) and the rebuild
(:func:`rebuild`) both use them, so the two cannot disagree.

Ledger logs (events of ledgers.proto, see there):
- ``player:<player id>``: ChipsMoved, the first one the starting balance; and StakeHeld /
  StakeReleased, the stakes set aside for games to come (reservations, not moves: they are not
  in the table logs and the rebuild has no need of them);
- ``ratings:<preset>:<yyyy-mm>``: RatingChanged, four per rated game.
Each append carries the expected version of its ledger and a request id made of the source
table id and game number: a retry, a racing replica or a catch-up after a restart finds that
request already there and writes nothing. Chips have no money value.

A balance never goes below zero: a player is seated at a stake table only after holding the
stake (:meth:`Ledgers.hold_stake`), which counts the stakes it holds for other tables and is
appended with its ledger's expected version, so two tables starting at once cannot both count
the same chips.
"""

from __future__ import annotations

import time
from collections import OrderedDict
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime

from belote.rules.chips import pot_is_refunded, share_pot
from belote.rules.rating import RATING_START, team_changes, team_rating
from belote.store import NewEvent, VersionConflict
from belote.table.codec import decode_stored
from belote.table.state import TableState, evolve
from belote.v1 import ledgers_pb2 as lpb

from .repository import Repository

LEDGERS_CACHED = 4096
SETTLED_MEMORY = 100_000           # (table, game, what) settled by this process, remembered


def month_of(time_us: int) -> str:
    """The UTC calendar month of a time, "yyyy-mm": the month a game counts for."""
    return datetime.fromtimestamp(time_us / 1e6, UTC).strftime("%Y-%m")


# What one event of a table does to the ledgers ---------------------------------------------
@dataclass(frozen=True)
class ChipMove:
    player_id: str
    amount: int
    reason: int                    # a ChipsReason
    table_id: str
    game_number: int
    request_id: str                # one per (table, game, stake | pot): a ledger applies it once


@dataclass(frozen=True)
class RatedGame:
    table_id: str
    game_number: int
    preset: str
    month: str
    ended_us: int
    players: tuple                 # (player id, display name, team) of seats 0..3
    winning_team: int

    @property
    def request_id(self) -> str:
        return f"{self.table_id}#{self.game_number}"


def stake_moves(state: TableState) -> list[ChipMove]:
    """Right after GameStarted: each paying seat's player pays the stake."""
    request = f"{state.table_id}#{state.game_number}#stake"
    return [ChipMove(state.seats[s].player_id, -state.created.stake, lpb.CHIPS_REASON_STAKE, state.table_id,
                     state.game_number, request) for s in state.paying_seats]


def pot_moves(state: TableState) -> list[ChipMove]:
    """Right after GameEnded: the shares of the pot (or the refunds)."""
    if not state.pot:
        return []
    payouts = share_pot(state.created.stake, state.paying_seats, state.winning_team)
    refund = pot_is_refunded(state.paying_seats, state.winning_team)
    request = f"{state.table_id}#{state.game_number}#pot"
    return [ChipMove(state.seats[s].player_id, payouts[s], lpb.CHIPS_REASON_REFUND if refund else lpb.CHIPS_REASON_WINNINGS,
                     state.table_id, state.game_number, request)
            for s in range(4) if payouts[s]]


def rated_game(state: TableState) -> RatedGame | None:
    """Right after GameEnded: the game as the ratings see it, or None if it changes none."""
    if not state.rated:
        return None
    return RatedGame(state.table_id, state.game_number, state.created.preset,
                     month_of(state.game_ended_at_us), state.game_ended_at_us,
                     tuple((s.player_id, s.display_name, i % 2) for i, s in enumerate(state.seats)),
                     state.winning_team)


# Folds of the ledger logs ------------------------------------------------------------------
StillHeld = Callable[["Hold"], Awaitable[bool]]    # does the table still hold the player in?

@dataclass
class Rating:
    rating: float = RATING_START
    games: int = 0
    display_name: str = ""


@dataclass(frozen=True)
class Hold:
    """Chips a player set aside for the stake of a table's next game."""
    table_id: str
    game_number: int
    amount: int
    hold_time_micros: int


@dataclass(frozen=True)
class Purse:
    """A player's ledger folded: its balance (None before the ledger opens: the starting one)
    and its holds, one per table."""
    balance: int | None = None
    holds: dict = field(default_factory=dict)          # table id -> Hold


def _fold_purse(purse: Purse, event: lpb.LedgerEvent) -> Purse:
    kind = event.WhichOneof("body")
    if kind == "chips_moved":
        moved = event.chips_moved
        holds = purse.holds
        if moved.reason == lpb.CHIPS_REASON_STAKE and _holds_game(holds, moved.table_id, moved.game_number):
            holds = {t: h for t, h in holds.items() if t != moved.table_id}    # paid: no longer held
        return Purse(moved.balance, holds)
    if kind == "stake_held":
        held = event.stake_held
        return Purse(purse.balance, {**purse.holds, held.table_id: Hold(
            held.table_id, held.game_number, held.amount, held.hold_time_micros)})
    if kind == "stake_released":
        released = event.stake_released
        if _holds_game(purse.holds, released.table_id, released.game_number):
            return Purse(purse.balance, {t: h for t, h in purse.holds.items() if t != released.table_id})
    return purse


def _holds_game(holds: dict, table_id: str, game_number: int) -> bool:
    return table_id in holds and holds[table_id].game_number == game_number


class NotEnoughChips(Exception):
    def __init__(self, balance: int, held: int):
        super().__init__(f"balance {balance}, of which {held} held for other tables")
        self.balance, self.held = balance, held


def _fold_ratings(ratings: dict, event: lpb.LedgerEvent) -> dict:
    r = event.rating_changed
    ratings[r.player_id] = Rating(r.after, r.games, r.display_name)
    return ratings


def rate(ratings: dict[str, Rating], game: RatedGame) -> list[lpb.RatingChanged]:
    """The RatingChanged of a rated game's four players, from the month's ratings so far."""
    now = [ratings.get(p, Rating()) for p, _, _ in game.players]
    teams = tuple(team_rating(now[t].rating, now[t + 2].rating) for t in (0, 1))
    change = team_changes(teams, game.winning_team)
    return [lpb.RatingChanged(
        player_id=player, display_name=name, preset=game.preset, month=game.month,
        before=now[i].rating, after=round(now[i].rating + change[team], 2), change=change[team],
        games=now[i].games + 1, table_id=game.table_id, game_number=game.game_number)
        for i, (player, name, team) in enumerate(game.players)]


def player_log(player_id: str) -> str:
    return f"player:{player_id}"


def ratings_log(preset: str, month: str) -> str:
    return f"ratings:{preset}:{month}"


@dataclass
class _Folded:
    version: int
    value: object


class LedgerLogs:
    """The model of the ledger logs for the repository: LedgerEvents folded into a Purse
    (``player:...``) or a month's ratings (``ratings:...``)."""

    tail_events = 0
    metered = False

    @staticmethod
    def unavailable(e: Exception) -> None:
        return None                 # the store's own error, as it is

    @staticmethod
    def holds(log_id: str) -> bool:
        return True

    @staticmethod
    def initial(log_id: str) -> _Folded:
        return _Folded(0, Purse() if log_id.startswith("player:") else {})

    @staticmethod
    def version(folded: _Folded) -> int:
        return folded.version

    @staticmethod
    def decode(stored) -> lpb.LedgerEvent:
        return lpb.LedgerEvent.FromString(stored.payload)

    def fold(self, folded: _Folded, new: list) -> _Folded:
        fold = _fold_purse if isinstance(folded.value, Purse) else _fold_ratings
        version, value = folded.version, folded.value
        if isinstance(value, dict):
            value = dict(value)                  # the cached fold is shared: never mutate it
        for stored in new:
            value = fold(value, self.decode(stored))
            version = stored.sequence
        return _Folded(version, value)

    @staticmethod
    def stamp(folded: _Folded, events: list, log_id: str, now_us: int) -> None:
        return None                 # read back from the log when next asked

    @staticmethod
    def to_store(events: list) -> list[NewEvent]:
        return [NewEvent(e.WhichOneof("body"), e.SerializeToString(deterministic=True))
                for e in events]

    @staticmethod
    def append_options(folded: _Folded, new: None) -> dict:
        return {}

    @staticmethod
    def too_busy() -> Exception:
        return VersionConflict(-1, -1)


@dataclass
class Ledgers:
    """The live projection: applies a table's chip moves and rated games to the ledger logs."""

    store: object
    starting_chips: int
    clock: Callable[[], int] = lambda: time.time_ns() // 1000
    _settled: OrderedDict = field(default_factory=OrderedDict)

    def __post_init__(self) -> None:
        self._logs = Repository(self.store, LedgerLogs(), self.clock, cache_size=LEDGERS_CACHED)

    async def _read(self, log_id: str) -> tuple[int, object]:
        """The ledger folded at its current version (cached; only new events are read)."""
        folded = await self._logs.load(log_id)
        return folded.version, folded.value

    async def _append(self, log_id: str, request_id: str, build) -> None:
        """Append ``build(folded)`` with the expected version; re-read and rebuild on a conflict.
        A request id already in the ledger writes nothing (a retry, or another replica)."""
        await self._logs.execute(log_id, request_id, lambda folded: build(folded.value))

    async def balance(self, player_id: str) -> int:
        _, purse = await self._read(player_log(player_id))
        return self.starting_chips if purse.balance is None else purse.balance

    async def purse(self, player_id: str, still_held: StillHeld) -> tuple[int, int]:
        """(balance, chips held now) of a player."""
        _, purse = await self._read(player_log(player_id))
        held = [h for h in purse.holds.values() if await still_held(h)]
        balance = self.starting_chips if purse.balance is None else purse.balance
        return balance, sum(h.amount for h in held)

    async def hold_stake(self, player_id: str, hold: Hold, still_held: StillHeld) -> None:
        """Set the stake of ``hold`` aside, or raise NotEnoughChips when the balance minus the
        chips held for other tables is short of it. The append carries the ledger's expected
        version, so two holds of one player (two tables, two replicas) are counted one after
        the other. Holds found over (the table says so) are released in the same append."""
        async def build(purse: Purse) -> list:
            others = [h for t, h in purse.holds.items() if t != hold.table_id]
            over = [h for h in others if not await still_held(h)]
            balance = self.starting_chips if purse.balance is None else purse.balance
            held = sum(h.amount for h in others if h not in over)
            if balance - held < hold.amount:
                raise NotEnoughChips(balance, held)
            mine = purse.holds.get(hold.table_id)
            if not over and mine and (mine.game_number, mine.amount) == (hold.game_number, hold.amount):
                return []                               # held already (a retried request)
            return [*(lpb.LedgerEvent(stake_released=lpb.StakeReleased(
                player_id=player_id, table_id=h.table_id, game_number=h.game_number)) for h in over),
                lpb.LedgerEvent(stake_held=lpb.StakeHeld(
                    player_id=player_id, table_id=hold.table_id, game_number=hold.game_number,
                    amount=hold.amount, hold_time_micros=hold.hold_time_micros))]
        # The hold's own time in its request id: holding again after a release writes again.
        await self._append(player_log(player_id), f"hold#{hold.table_id}#{hold.game_number}#"
                           f"{hold.hold_time_micros}", build)

    async def release_stake(self, player_id: str, table_id: str, game_number: int) -> None:
        """End a hold that will not be paid (nothing if there is none)."""
        def build(purse: Purse):
            if not _holds_game(purse.holds, table_id, game_number):
                return []
            return [lpb.LedgerEvent(stake_released=lpb.StakeReleased(
                player_id=player_id, table_id=table_id, game_number=game_number))]
        await self._append(player_log(player_id), f"release#{table_id}#{game_number}#{self.clock()}",
                           build)

    async def ratings(self, preset: str, month: str) -> dict[str, Rating]:
        _, ratings = await self._read(ratings_log(preset, month))
        return ratings

    async def move_chips(self, moves: list[ChipMove]) -> None:
        for move in moves:
            def build(purse, move=move):
                events, balance = [], purse.balance
                if balance is None:
                    balance = self.starting_chips
                    events.append(lpb.LedgerEvent(chips_moved=lpb.ChipsMoved(
                        player_id=move.player_id, amount=balance, balance=balance,
                        reason=lpb.CHIPS_REASON_STARTING_BALANCE)))
                events.append(lpb.LedgerEvent(chips_moved=lpb.ChipsMoved(
                    player_id=move.player_id, amount=move.amount, balance=balance + move.amount,
                    reason=move.reason, table_id=move.table_id, game_number=move.game_number)))
                return events
            await self._append(player_log(move.player_id), move.request_id, build)

    async def rate_game(self, game: RatedGame) -> None:
        await self._append(ratings_log(game.preset, game.month), game.request_id,
                           lambda ratings: [lpb.LedgerEvent(rating_changed=r)
                                                  for r in rate(ratings, game)])

    # What a table's new events do; each (table, game, step) once per process -----------------
    async def settle_stakes(self, state: TableState) -> None:
        if self._first_time((state.table_id, state.game_number, "stake")):
            await self.move_chips(stake_moves(state))

    async def settle_game(self, state: TableState) -> None:
        if self._first_time((state.table_id, state.game_number, "end")):
            await self.move_chips(pot_moves(state))
            game = rated_game(state)
            if game is not None:
                await self.rate_game(game)

    def _first_time(self, key: tuple) -> bool:
        if key in self._settled:
            return False
        self._settled[key] = True
        while len(self._settled) > SETTLED_MEMORY:
            self._settled.popitem(last=False)
        return True

    def forget(self, state: TableState, step: str) -> None:
        """A settlement failed (the store): let a later sweep try it again."""
        self._settled.pop((state.table_id, state.game_number, step), None)

    def settled(self, state: TableState, step: str) -> bool:
        """Whether this process has applied the game's ``step`` (not forgotten after a failure)."""
        return (state.table_id, state.game_number, step) in self._settled


# Rebuilding every ledger from the table logs -----------------------------------------------
@dataclass
class Projection:
    balances: dict[str, int]
    ratings: dict[tuple[str, str], dict[str, Rating]]       # (preset, month) -> player -> rating


async def rebuild(store, starting_chips: int) -> Projection:
    """Every balance and rating, recomputed from the table logs alone (the ledgers unread).

    Rated games are applied in the order they ended (GameEnded time, then table id), the order
    the live projection applies them in as games end.
    """
    balances: dict[str, int] = {}
    games: list[RatedGame] = []
    for table_id, _entry, _version in await store.lobby.list_tables(limit=10_000_000):
        state = TableState(table_id)
        for stored in await store.events.read(table_id):
            event = decode_stored(stored)
            evolve(state, event)
            kind = event.WhichOneof("body")
            moves = stake_moves(state) if kind == "game_started" else \
                pot_moves(state) if kind == "game_ended" else []
            for move in moves:
                balances[move.player_id] = balances.get(move.player_id, starting_chips) + move.amount
            if kind == "game_ended" and (game := rated_game(state)) is not None:
                games.append(game)
    ratings: dict[tuple[str, str], dict[str, Rating]] = {}
    for game in sorted(games, key=lambda g: (g.ended_us, g.table_id, g.game_number)):
        board = ratings.setdefault((game.preset, game.month), {})
        for change in rate(board, game):
            board[change.player_id] = Rating(change.after, change.games, change.display_name)
    return Projection(balances, ratings)
