"""The seats one caller holds through quick play: at most ``limit`` at once across tables whose
game is not over, never two of one table. One guest firing QuickPlay in a loop would otherwise
take every seat of the tables strangers are sent to (and, never watching, stall them).

Counted in the store's leases, so every replica counts alike: each seat held is a lease in the
caller's scope, named by its table, seat, a prefix of the seat token's hash and the quick play
that took it (so that play's retry, on any replica, finds its seat again). The log says
whether the caller still holds it: a lease whose seat was left, taken over, or whose game is
over is forgotten the next time the caller asks (so the leases themselves may last long). A
quick play in flight holds a place of its own (``pending``) until its seat replaces it, so
calls at once cannot pass the limit together; and it claims a table before joining it, so two
of them never both sit at one table.
"""

from __future__ import annotations

import contextlib
from collections.abc import Awaitable, Callable
from dataclasses import dataclass

from belote.store import StoreError
from belote.table.state import FINISHED, HUMAN, TableState

from . import errors as err

SEATS_PER_CALLER = 2
PENDING_S = 60.0              # a quick play in flight: its place ends by itself if its replica dies
HOLD_S = 24 * 3600.0          # a seat held: the log, not this, says when it ends
MANY = 2**31
TOKEN_HASH_HEX = 16           # of the seat token's hash, to tell this caller's seat from a successor's


def _us(seconds: float) -> int:
    return int(seconds * 1_000_000)


@dataclass(frozen=True, slots=True)
class Held:
    """A seat a caller holds, as its lease names it: with the quick play that took it."""

    table_id: str
    seat: int
    token_hash: str
    request: str

    @property
    def holder(self) -> str:
        return f"seat|{self.table_id}|{self.seat}|{self.token_hash}|{self.request}"

    @classmethod
    def parse(cls, holder: str) -> Held | None:
        kind, _, rest = holder.partition("|")
        table_id, seat, token_hash, request = (rest.split("|") + ["", "", "", ""])[:4]
        if kind != "seat" or not seat.isdigit():
            return None
        return cls(table_id, int(seat), token_hash, request)

    def still_held(self, state: TableState) -> bool:
        seat = state.seats[self.seat] if state.exists and 0 <= self.seat < 4 else None
        return (seat is not None and seat.occupant == HUMAN and not state.closed
                and state.status != FINISHED and seat.token_hash.hex()[:TOKEN_HASH_HEX] == self.token_hash)


class SeatQuota:
    """``load(table_id)``: the table's state (a table that does not exist: ``exists`` False)."""

    def __init__(self, store, clock: Callable[[], int], load: Callable[[str], Awaitable[TableState]],
                 limit: int = SEATS_PER_CALLER) -> None:
        self.store, self.clock, self.load, self.limit = store, clock, load, limit

    @staticmethod
    def _scope(caller: str) -> str:
        return f"quick-play-seats:{caller}"

    @staticmethod
    def _table_scope(caller: str, table_id: str) -> str:
        return f"quick-play-table:{caller}:{table_id}"

    async def reserve(self, caller: str, request: str) -> set[str] | str:
        """A place for one more seat of ``caller`` (held by ``request`` until ``seated`` or
        ``release``), and the tables where it holds a seat already; or, for a retry of a quick
        play that got its seat, that seat's table (no place taken). RESOURCE_EXHAUSTED when it
        holds ``limit`` seats."""
        scope, now = self._scope(caller), self.clock()
        tables = set()
        for holder in await self.store.leases.holders(scope, now):
            held = Held.parse(holder)
            if held is None:
                continue
            if held.still_held(await self.load(held.table_id)):
                if held.request == request:
                    return held.table_id
                tables.add(held.table_id)
            else:
                await self.store.leases.drop(scope, holder)
                await self.store.leases.drop(self._table_scope(caller, held.table_id), holder)
        if not await self.store.leases.take(scope, f"pending|{request}", self.limit, now,
                                            now + _us(PENDING_S)):
            raise err.AppError("TOO_MANY_SEATS",
                               f"you hold {self.limit} quick-play seats already: play them, or "
                               "leave one (LeaveTable), before asking for another")
        return tables

    async def claim(self, caller: str, table_id: str, request: str) -> bool:
        """The one quick play of ``caller`` that may join ``table_id`` now (False: another does,
        or its seat is there)."""
        now = self.clock()
        return await self.store.leases.take(self._table_scope(caller, table_id), f"pending|{request}",
                                            1, now, now + _us(PENDING_S))

    async def unclaim(self, caller: str, table_id: str, request: str) -> None:
        with contextlib.suppress(StoreError):      # unreachable store: the claim runs out
            await self.store.leases.drop(self._table_scope(caller, table_id), f"pending|{request}")

    async def seated(self, caller: str, request: str, table_id: str, seat: int,
                     token_hash: bytes) -> None:
        """The quick play ``request`` took ``seat``: its place is now that seat's, and so is its
        claim of the table."""
        held, now = Held(table_id, seat, token_hash.hex()[:TOKEN_HASH_HEX], request), self.clock()
        until = now + _us(HOLD_S)
        # The pending place did the counting: until it is dropped just after, the caller counts
        # one seat more than it holds (which may refuse a call at once, never let one more in).
        await self.store.leases.take(self._scope(caller), held.holder, MANY, now, until)
        await self.store.leases.take(self._table_scope(caller, table_id), held.holder, MANY, now, until)
        await self.release(caller, request, table_id)

    async def release(self, caller: str, request: str, table_id: str | None = None) -> None:
        with contextlib.suppress(StoreError):      # unreachable store: the place runs out
            await self.store.leases.drop(self._scope(caller), f"pending|{request}")
        if table_id is not None:
            await self.unclaim(caller, table_id, request)
