"""Who is asking: tokens, seats, the host, viewers, private tables' passwords, the reviewer.

Tokens are derived from the server's key (from outside the store) and the caller-scoped
request key, so a retried request gets the same one back and nothing else derives it; each is
prefixed by its table's id, so a token of another table is told apart from an unknown one. The
log holds only their hashes.
"""

from __future__ import annotations

import base64
import hashlib
import hmac

import structlog

from belote.table.state import HUMAN, TableState
from belote.table.views import SPECTATOR

from . import errors as err
from .limits import caller_key
from .requests import RequestKey


def sha256(text: str) -> bytes:
    return hashlib.sha256(text.encode()).digest()


class Access:
    def __init__(self, tables, token_key: bytes, passwords, reviewer_token: str | None) -> None:
        self._tables = tables                 # the tables' Repository
        self._token_key = token_key
        self._passwords = passwords
        self._reviewer_hash = sha256(reviewer_token) if reviewer_token else None

    def token(self, kind: str, table_id: str, request: RequestKey) -> str:
        mac = hmac.new(self._token_key, f"{kind}|{table_id}|{request.key}".encode(), "sha256").digest()
        return f"{table_id}.{base64.urlsafe_b64encode(mac).rstrip(b'=').decode()}"

    async def seat_of(self, state: TableState, token: str | None) -> int:
        """The seat whose token this is (its player may be away: a takeover bot plays)."""
        if not token:
            raise err.unauthenticated("this call needs your seat token (authorization: Bearer <token>)")
        seat = state.seat_of_token_hash(sha256(token))
        if seat is not None:
            structlog.contextvars.bind_contextvars(seat=seat)
            return seat
        if self.is_host(state, token) or await self.holds_a_seat_elsewhere(state.table_id, token):
            raise err.AppError("NOT_YOUR_SEAT", "this token does not hold a seat at this table")
        raise err.unauthenticated("unknown token")

    async def holds_a_seat_elsewhere(self, table_id: str, token: str) -> bool:
        """A real token of another table (its id prefixes the token) or of a seat left here."""
        other = token.split(".", 1)[0]
        if other == table_id or not other:
            return False
        state = await self._tables.load(other)
        return state.exists and (state.seat_of_token_hash(sha256(token)) is not None
                                 or self.is_host(state, token))

    def is_host(self, state: TableState, token: str | None) -> bool:
        return bool(token) and hmac.compare_digest(sha256(token), state.created.host_token_hash)

    async def viewer(self, state: TableState, token: str | None, password: str = "", *,
                     peer: str | None = None) -> int:
        """A seat, or SPECTATOR (no token, or the host's). A spectator without the host token
        needs the password of a private table."""
        if self.is_host(state, token):
            return SPECTATOR
        if not token:
            await self.check_password(state, password, peer=peer)
            return SPECTATOR
        return await self.seat_of(state, token)

    async def check_password(self, state: TableState, password: str, *, peer: str | None = None,
                             player: str = "") -> None:
        """Nothing for a public table; PERMISSION_DENIED for a wrong password of a private one,
        and RESOURCE_EXHAUSTED after 5 wrong ones within a minute from this caller (its peer
        and player, on every replica)."""
        created = state.created
        if created.is_private:
            await self._passwords.check(state.table_id, caller_key(peer, player), password,
                                        created.password_salt, created.password_hash)

    async def cached_seat(self, table_id: str, token: str | None, existing) -> tuple[TableState, int]:
        """The table and the caller's seat, from this process's cached state when that shows the
        caller seated, else from the log (``existing(table_id)``). For commands only: a cached
        state may be behind the log, and the append's expected version is what tells (a
        conflict reloads it)."""
        state = self._tables.cached(table_id)
        if state is not None and token:
            seat = state.seat_of_token_hash(sha256(token))
            if seat is not None and state.seats[seat].occupant == HUMAN:
                structlog.contextvars.bind_contextvars(seat=seat)
                return state, seat
        state = await existing(table_id)
        return state, await self.seated(state, token)

    async def seated(self, state: TableState, token: str | None) -> int:
        """The caller's seat, which it must still hold (not left to a takeover bot)."""
        seat = await self.seat_of(state, token)
        check_still_human(state, seat)
        return seat

    async def check_reviewer(self, token: str | None) -> None:
        """Only the reviewer token may export a log."""
        if not token:
            raise err.unauthenticated("ExportLog needs the reviewer token")
        if self._reviewer_hash is None or not hmac.compare_digest(sha256(token), self._reviewer_hash):
            if await self.holds_a_seat_elsewhere("", token):     # a seat or host token
                raise err.AppError("NOT_REVIEWER", "only the reviewer token may export a log")
            raise err.unauthenticated("unknown token: ExportLog needs the reviewer token")


def seats_player(state: TableState, player: str) -> bool:
    """Whether ``player`` holds a seat of the table itself (not left to a takeover bot)."""
    return any(s.player_id == player and s.occupant == HUMAN for s in state.seats)


def check_seat_still_yours(state: TableState, seat: int, token: str) -> None:
    """A command retried on a newer state than it was authorized on: the seat must not have
    changed hands meanwhile."""
    if state.seat_of_token_hash(sha256(token)) != seat:
        raise err.AppError("NOT_YOUR_SEAT", "this token does not hold a seat at this table")
    check_still_human(state, seat)


def check_still_human(state: TableState, seat: int) -> None:
    if state.seats[seat].occupant != HUMAN:
        raise err.AppError("SEAT_LEFT", "you left this seat and a bot plays it: "
                                      "call JoinTable with your seat token to take it back")
