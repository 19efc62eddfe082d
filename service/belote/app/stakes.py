"""Stakes: a player who sits at a stake table (or votes for a rematch there) sets the stake
aside in its ledger first, so the chips it has can never be promised to two games; a game's
start and end are then settled in the ledgers (app/ledgers.py), once.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable

import structlog

from belote.store import StoreError
from belote.table.state import TableState

from . import errors as err
from .access import seats_player
from .ledgers import Hold, NotEnoughChips

log = structlog.get_logger("belote.app")

HOLD_PENDING_S = 30.0  # a stake hold whose seat is not in the table's log yet counts this long


class Stakes:
    def __init__(self, ledgers, tables, clock: Callable[[], int]) -> None:
        self.ledgers, self._tables, self.clock = ledgers, tables, clock

    async def hold_stake(self, state: TableState, player: str) -> int | None:
        """Hold the stake of the table's next game (its number), or refuse the player who cannot
        pay it; None for a table without a stake."""
        stake = state.created.stake
        if not stake:
            return None
        if not player:
            raise err.AppError("STAKE_NEEDS_PLAYER", "a table with a stake is for registered players: "
                                                    "send your x-player-token")
        game = state.game_number + 1
        try:
            await self.ledgers.hold_stake(player, Hold(state.table_id, game, stake, self.clock()),
                                          self.still_held(player))
        except NotEnoughChips as e:
            elsewhere = f" ({e.held} of your {e.balance} are held for other tables)" if e.held else ""
            raise err.AppError("NOT_ENOUGH_CHIPS",
                              f"you need {stake} chips to pay this table's stake{elsewhere}") from None
        return game

    def still_held(self, player: str):
        """Whether a table still holds ``player`` in for the game of a hold: seated for a game
        to come, or paying for one that started (until the STAKE move ends the hold)."""
        async def still_held(hold: Hold) -> bool:
            if self.clock() - hold.hold_time_micros < HOLD_PENDING_S * 1_000_000:
                return True               # its seat may be on its way to the log
            state = await self._tables.load(hold.table_id)
            if not state.exists or state.closed:
                return False
            if state.game_number < hold.game_number:
                return seats_player(state, player)
            if state.game_number == hold.game_number:
                return any(state.seats[i].player_id == player for i in state.paying_seats)
            return False
        return still_held

    async def release_stake_unless_seated(self, table_id: str, player: str, game: int) -> None:
        """A hold whose seat was refused, or left, before its game: released at once (rather
        than counted until HOLD_PENDING_S)."""
        state = await self._tables.load(table_id)
        if state.game_number < game and seats_player(state, player):
            return
        with contextlib.suppress(StoreError):
            await self.ledgers.release_stake(player, table_id, game)

    async def settle(self, state: TableState, step: str) -> None:
        """Apply a game's start (stakes) or end (pot, ratings) to the ledgers, once."""
        try:
            if step == "stake":
                await self.ledgers.settle_stakes(state)
            else:
                await self.ledgers.settle_game(state)
        except Exception as e:  # noqa: BLE001 - the table's events are appended: never fail them
            self.ledgers.forget(state, step)
            log.warning("ledgers not settled yet", table_id=state.table_id, step=step, error=repr(e))

    async def settle_appended(self, state: TableState, kinds: set[str]) -> None:
        """What the events just appended (their kinds) do to the ledgers."""
        if "game_started" in kinds and state.pot:
            await self.settle(state, "stake")
        if "game_ended" in kinds:
            await self.settle(state, "end")
