"""The use cases: one method per RPC, each a few lines over the app's parts.

Stateless by design: a table's state is always the fold of its log (app/repository.py: cached
per table, checked against the log's version on every command, appended with the one retry
loop), so any process can serve any table. Who may do what is app/access.py's; deadlines,
bots, stakes, watch streams and the lobby have a module each. Everything random (decks, salts,
bot seeds) and the clock are chosen in app and written into the events.
"""

from __future__ import annotations

import asyncio
import functools
import os
import secrets
import time
from collections.abc import AsyncIterator, Callable

import structlog

from belote import observability as metrics
from belote.store import StoreError, open_store
from belote.table.codec import action_to_pb, event_type, logged_event
from belote.table.decide import (
    Act,
    CreateTable,
    JoinSeat,
    LeaveSeat,
    PostChat,
    ReclaimSeat,
    SeatBot,
    VoteRematch,
)
from belote.table.state import HUMAN, PLAYING, TableState
from belote.table.views import REVIEWER, SPECTATOR, Redactor, table_view
from belote.v1 import events_pb2 as epb
from belote.v1 import table_service_pb2 as tpb

from . import errors as err
from .access import Access, check_seat_still_yours, sha256
from .bot_pool import BotPool
from .bot_runner import BotRunner
from .commands import AddBot, Chat, Join, Leaderboard, Leave, Look, Move, NewTable, Rematch
from .deadlines import DeadlineSweep
from .deals import deciding
from .due_bots import DueBots
from .export_signing import key_response, signed_export
from .identity import Identity
from .ledgers import RATING_START, Ledgers, month_of
from .limits import SPECTATORS_PER_CALLER, TABLES_PER_MINUTE, Window, WrongPasswords
from .lobby import Lobby
from .passwords import Passwords
from .repository import Repository, TableLogs, existing_table
from .requests import Caller, RequestKeys
from .paging import PageTokens
from .server_key import derive
from .stakes import Stakes
from .display_names import check_display_name
from .watching import Watching, redactor_before

log = structlog.get_logger("belote.app")

DISCONNECT_GRACE_S = 60.0
STARTING_CHIPS = 1000


def _now_us() -> int:
    return time.time_ns() // 1000


@functools.lru_cache(maxsize=1024)
def _action_pb(kind: type, action):
    """An action's message, built once (a game has a few hundred actions; a response's repeated
    field copies it). The kind is part of the key: a Bid and a Play may be equal tuples."""
    return action_to_pb(action)


def _peer(caller: Caller | None) -> str | None:
    """The caller's host, whose tables, passwords and spectator streams count against its
    quotas; None for a caller inside this process (the demo, a benchmark), which has none."""
    return caller.peer if caller is not None else None


class TableApp:
    def __init__(self, store, reviewer_token: str | None = None,
                 disconnect_grace_s: float = DISCONNECT_GRACE_S, *, auth_secret: str | None = None,
                 starting_chips: int = STARTING_CHIPS, clock: Callable[[], int] = _now_us,
                 tables_per_minute: int = TABLES_PER_MINUTE, server_key: bytes | None = None,
                 spectators_per_caller: int = SPECTATORS_PER_CALLER, bot_workers: int = 0):
        self.store = store
        # From outside the store (app/server_key.py); a test's app without one gets its own.
        self.server_key = server_key or secrets.token_bytes(32)
        self.disconnect_grace_s = disconnect_grace_s
        self.clock = clock                  # unix microseconds: the time written into events
        self.identity = Identity(auth_secret)
        self.requests = RequestKeys(self.server_key, self.identity)
        self.tables = Repository(store, TableLogs(), clock, appended=self._appended)
        self.ledgers = Ledgers(store, starting_chips, clock)
        self.stakes = Stakes(self.ledgers, self.tables, clock)
        self._passwords = Passwords(WrongPasswords(store, clock))
        self.access = Access(self.tables, derive(self.server_key, "tokens"), self._passwords,
                             reviewer_token)
        self.lobby = Lobby(store, Window(store, clock, "tables-created", tables_per_minute, 60.0)
                           if tables_per_minute else None,
                           PageTokens(derive(self.server_key, "page tokens")))
        self._background: set[asyncio.Task] = set()
        self._closing = asyncio.Event()
        self.watching = Watching(self.tables, self.access, clock, self._closing, self._spawn,
                                 spectators_per_caller=spectators_per_caller)
        self.bot_pool = BotPool(bot_workers, version_of=self.tables.cached_version)
        self.bots = BotRunner(self.tables, self.bot_pool, self._closing)
        self.deadlines = DeadlineSweep(self.tables, clock, disconnect_grace_s, self.stakes,
                                       self.bots, self._closing)
        self._due_bots = DueBots(store, clock, PLAYING)

    @classmethod
    async def open(cls, store_url: str, *, reviewer_token: str | None = None,
                   disconnect_grace_s: float = DISCONNECT_GRACE_S,
                   tables_per_minute: int | None = None,
                   spectators_per_caller: int | None = None,
                   server_key: bytes | None = None, bot_workers: int = 0) -> TableApp:
        """Open the store; the player-token key and the starting balance come from the
        environment: BELOTE_AUTH_SECRET (unset: no registered players), BELOTE_STARTING_CHIPS."""
        store = open_store(store_url)
        return cls(store, reviewer_token, disconnect_grace_s,
                   auth_secret=os.environ.get("BELOTE_AUTH_SECRET"),
                   starting_chips=int(os.environ.get("BELOTE_STARTING_CHIPS") or STARTING_CHIPS),
                   tables_per_minute=TABLES_PER_MINUTE if tables_per_minute is None
                   else tables_per_minute, server_key=server_key,
                   spectators_per_caller=spectators_per_caller or SPECTATORS_PER_CALLER,
                   bot_workers=bot_workers)

    async def close(self) -> None:
        self.shutdown()
        tasks = [*self.bots.tasks(), *self._background]
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
        await self.bot_pool.close()
        await self.watching.spectators.close()
        await self.store.close()

    async def ready(self) -> bool:
        try:
            await self.store.ping()
            return True
        except StoreError:
            return False

    async def resume(self) -> None:
        """After a start: bots whose turn it is on tables in progress play on, and the disconnect
        deadlines written in the logs are enforced from now on."""
        for table_id, _entry, _version in await self.store.lobby.list_tables(status=PLAYING, limit=100_000):
            self.bots.kick(table_id)
        self._spawn(self.deadlines.run())
        from .quickplay import fill_empty_seats     # quickplay imports this module
        self._spawn(self._due_bots.run(self.tables.load, self.bots.kick_if_due, self._closing,
                                       fill=lambda table_id: fill_empty_seats(self, table_id)))

    def _spawn(self, coroutine) -> None:
        task = asyncio.get_running_loop().create_task(coroutine)
        self._background.add(task)
        task.add_done_callback(self._background.discard)

    def shutdown(self) -> None:
        self._closing.set()
        self.store.events.stop_waits()          # open watch streams end now: their clients move on

    async def enforce_deadlines(self, now_us: int | None = None, *, refresh: bool = True) -> int:
        """Act on every deadline passed by ``now_us`` (default: now); returns how many (see
        DeadlineSweep.enforce)."""
        return await self.deadlines.enforce(now_us, refresh=refresh)

    async def refresh_gauges(self) -> bool:
        """Store health and games in progress, as the store says (so right after a restart too)."""
        try:
            await self.store.ping()
            metrics.TABLES_ACTIVE.set(await self.store.lobby.count_tables(PLAYING))
            metrics.STORE_UP.set(1)
            return True
        except StoreError:
            metrics.STORE_UP.set(0)
            return False

    async def _appended(self, table_id: str, events: list[epb.TableEvent], state: TableState) -> None:
        """After an append of this process: its metrics and log lines, the bots to play, the
        deadlines to keep, the ledgers to settle."""
        _count_appended(table_id, events)
        if any(e.HasField("game_started") for e in events):
            self.watching.seats_present.game_started(
                table_id, [i for i, s in enumerate(state.seats) if s.occupant == HUMAN])
        self.bots.kick_if_due(state)
        self.deadlines.note(state)
        await self.stakes.settle_appended(state, {event_type(e) for e in events})

    async def _called(self, table_id: str, seat: int) -> None:
        """The seat's own token called: it is present (app/presence.py), polling or not."""
        await self.watching.seats_present.called(table_id, seat)

    async def _existing(self, table_id: str) -> TableState:
        return await existing_table(self.tables, table_id)

    # Use cases -------------------------------------------------------------------------------
    async def create_table(self, ask: NewTable) -> tpb.CreateTableResponse:
        """The caller's host (or its player) counts the table against its quota."""
        await self.lobby.count_table_created(ask.key, _peer(ask.caller), ask.player)
        table_id = await self.lobby.table_id(ask.key)
        host_token = self.access.token("host", table_id, ask.key)
        created = epb.TableCreated(
            name=ask.name, preset=ask.preset, options=ask.options, is_private=ask.is_private,
            stake=ask.stake, takeover_bot_level=ask.takeover_bot_level,
            host_token_hash=sha256(host_token), turn_timer_seconds=ask.turn_timer_s,
            host_player_id=ask.player)
        if ask.bots_fill_at_us:
            created.bots_fill_time.FromMicroseconds(ask.bots_fill_at_us)
        if ask.is_private:
            created.password_salt = secrets.token_bytes(16)
            created.password_hash = await self._passwords.hash(ask.password, created.password_salt)
        _, state = await self.tables.execute(table_id, ask.key, deciding(CreateTable(created)))
        return tpb.CreateTableResponse(table_id=table_id, host_token=host_token,
                                       table=table_view(state, SPECTATOR))

    async def list_tables(self, size: int, page_token: str) -> tpb.ListTablesResponse:
        return await self.lobby.open_tables(size, page_token)

    async def join_table(self, ask: Join) -> tpb.JoinTableResponse:
        state = await self._existing(ask.table_id)
        if ask.token:          # a player who left comes back: the takeover bot hands its seat back
            seat = await self.access.seat_of(state, ask.token)
            _, state = await self.tables.execute(ask.table_id, ask.key, deciding(ReclaimSeat(seat)))
            await self._called(ask.table_id, seat)
            return tpb.JoinTableResponse(seat=seat, seat_token=ask.token, table=table_view(state, seat))
        # Checked after the table: a seat token reclaiming its seat needs no name.
        # A seat's name may look like another seat's: every view and chat line tells seats
        # apart by their number (only a spectator's name is compared with the seats').
        name = check_display_name(ask.display_name)
        await self.access.check_password(state, ask.password, peer=_peer(ask.caller), player=ask.player)
        held = await self.stakes.hold_stake(state, ask.player)
        seat_token = self.access.token("seat", ask.table_id, ask.key)
        command = JoinSeat(ask.seat, name, sha256(seat_token), ask.player)
        try:
            events, state = await self.tables.execute(ask.table_id, ask.key, deciding(command))
        except err.AppError:
            if held is not None:
                await self.stakes.release_stake_unless_seated(ask.table_id, ask.player, held)
            raise
        taken = next(e.seat_joined.seat for e in events if e.HasField("seat_joined"))
        await self._called(ask.table_id, taken)
        # A retry shows what the token may see now: its seat, or (the seat left, and maybe
        # another player's since) the spectator view.
        viewer = taken if state.seat_of_token_hash(sha256(seat_token)) == taken else SPECTATOR
        return tpb.JoinTableResponse(seat=taken, seat_token=seat_token, table=table_view(state, viewer))

    async def add_bot(self, ask: AddBot) -> tpb.AddBotResponse:
        state = await self._existing(ask.table_id)
        if not self.access.is_host(state, ask.token):
            await self.access.seated(state, ask.token)      # any player of the table may seat bots too
        events, state = await self.tables.execute(ask.table_id, ask.key,
                                                  deciding(SeatBot(ask.seat, ask.level)))
        taken = next(e.bot_seated.seat for e in events if e.HasField("bot_seated"))
        return tpb.AddBotResponse(seat=taken, table=table_view(state, SPECTATOR))

    async def leave_table(self, ask: Leave) -> tpb.LeaveTableResponse:
        state = await self._existing(ask.table_id)
        try:
            seat = await self.access.seat_of(state, ask.token)
            if state.seats[seat].occupant != HUMAN:
                raise err.AppError("NOT_SEATED", "you have already left this seat")
        except err.AppError:
            if await self.tables.recorded(ask.table_id, ask.key):   # a retry: the seat is left already
                return tpb.LeaveTableResponse(table=table_view(state, SPECTATOR))
            raise
        level, player = state.takeover_level(), state.seats[seat].player_id
        _, state = await self.tables.execute(ask.table_id, ask.key, deciding(LeaveSeat(seat, level)))
        if state.created.stake and player and state.status != PLAYING:
            await self.stakes.release_stake_unless_seated(ask.table_id, player, state.game_number + 1)
        return tpb.LeaveTableResponse(table=table_view(state, SPECTATOR))

    async def get_legal_actions(self, table_id: str, token: str | None) -> tpb.GetLegalActionsResponse:
        state = await self._existing(table_id)
        seat = await self.access.seated(state, token)
        await self._called(table_id, seat)
        self.bots.kick_if_due(state)
        legal = state.game.legal_actions(seat) if state.status == PLAYING else []
        return tpb.GetLegalActionsResponse(version=state.version, seat=seat,
                                           your_turn=state.to_act() == seat,
                                           actions=[_action_pb(type(a), a) for a in legal])

    async def act(self, ask: Move) -> tpb.ActResponse:
        state, seat = await self.access.cached_seat(ask.table_id, ask.token, self._existing)
        await self._called(ask.table_id, seat)
        play = deciding(Act(seat, ask.action))

        def build(s: TableState) -> list[epb.TableEvent]:
            if s is not state:
                check_seat_still_yours(s, seat, ask.token)
            return play(s)

        events, _ = await self.tables.execute(ask.table_id, ask.key, build, ask.expected_version,
                                              loaded=state)
        redactor = await redactor_before(self.store, state, seat, events[0].sequence)
        return tpb.ActResponse(version=events[-1].sequence, events=[redactor.see(e) for e in events])

    async def get_table(self, ask: Look) -> tpb.Table:
        state = await self._existing(ask.table_id)
        viewer = await self.access.viewer(state, ask.token, ask.password, peer=_peer(ask.caller))
        if viewer >= 0:
            await self._called(ask.table_id, viewer)
        self.bots.kick_if_due(state)
        return table_view(state, viewer)

    def watch_table(self, ask: Look) -> AsyncIterator[epb.TableEvent]:
        return self.watching.watch(ask.table_id, ask.from_sequence, ask.token, ask.password,
                                   _peer(ask.caller))

    async def post_chat(self, ask: Chat) -> tpb.PostChatResponse:
        """A seat's messages count against the seat (the log's limit); a spectator's against the
        caller, its peer and the (host) token it shows, whatever name it gives."""
        state = await self._existing(ask.table_id)
        seat = await self.access.viewer(state, ask.token, ask.password, peer=_peer(ask.caller))
        name = ask.display_name
        if seat == SPECTATOR:
            name = await self.watching.check_spectator_chat(state, name, _peer(ask.caller),
                                                            ask.token, str(ask.key))
        if seat >= 0:
            await self._called(ask.table_id, seat)
        name = state.seats[seat].display_name if seat >= 0 else name
        command = PostChat(seat, name, ask.text, self.clock())
        events, _ = await self.tables.execute(ask.table_id, ask.key, deciding(command),
                                              at_us=command.now_us)
        return tpb.PostChatResponse(event=Redactor(seat).see(events[0]))

    async def vote_rematch(self, ask: Rematch) -> tpb.VoteRematchResponse:
        state = await self._existing(ask.table_id)
        seat = await self.access.seated(state, ask.token)
        await self._called(ask.table_id, seat)
        if state.created.stake:
            await self.stakes.hold_stake(state, state.seats[seat].player_id)
        command = VoteRematch(seat, self.clock())
        _, state = await self.tables.execute(ask.table_id, ask.key, deciding(command),
                                             at_us=command.now_us)
        return tpb.VoteRematchResponse(table=table_view(state, seat))

    async def get_balance(self, player: str) -> tpb.GetBalanceResponse:
        balance, held = await self.ledgers.purse(player, self.stakes.still_held(player))
        return tpb.GetBalanceResponse(player_id=player, balance=balance, held=held)

    async def get_leaderboard(self, ask: Leaderboard) -> tpb.GetLeaderboardResponse:
        month = ask.month or month_of(self.clock())
        ratings = await self.ledgers.ratings(ask.preset, month)
        ranked = sorted(ratings.items(), key=lambda pr: (-pr[1].rating, pr[1].games, pr[0]))
        entries = [tpb.LeaderboardEntry(rank=i, player_id=p, display_name=r.display_name,
                                        rating=r.rating, games=r.games)
                   for i, (p, r) in enumerate(ranked, start=1)]
        query = f"GetLeaderboard\x00{ask.preset}\x00{month}"
        offset, last, _ = self.lobby.page_tokens.cursor(query, ask.page_token, ask.size)
        page, next_token = self.lobby.page_tokens.cut(query, entries, offset, last, ask.size,
                                                      lambda e: e.player_id)
        reply = tpb.GetLeaderboardResponse(preset=ask.preset, month=month, entries=page,
                                           next_page_token=next_token)
        if ask.player:
            mine = next((e for e in entries if e.player_id == ask.player), None)
            reply.you.CopyFrom(mine or tpb.LeaderboardEntry(player_id=ask.player, rating=RATING_START))
        return reply

    @signed_export      # after the events, their signed head
    async def export_log(self, table_id: str, token: str | None) -> AsyncIterator[epb.LoggedEvent]:
        await self.access.check_reviewer(token)
        seen, upto = 0, (await self._existing(table_id)).version
        # The log as it stood when asked, a page at a time.
        while seen < upto and (page := await self.tables.page(table_id, seen, upto)):
            for stored in page:
                yield logged_event(stored)
            seen = page[-1].sequence

    async def get_export_key(self) -> tpb.GetExportKeyResponse:
        return key_response(self.server_key)


# Events an operator wants a log line for, with what to say about them.
_WORTH_A_LINE = {
    "game_started": lambda b: {"game_number": b.game_number},
    "game_ended": lambda b: {"winning_team": b.winning_team, "totals": list(b.totals)},
    "bot_seated": lambda b: {"seat": b.seat, "takeover": b.takeover,
                             "level": epb.BotLevel.Name(b.level).removeprefix("BOT_LEVEL_").lower()},
    "seat_reclaimed": lambda b: {"seat": b.seat},
}


def _count_appended(table_id: str, events: list[epb.TableEvent]) -> None:
    for e in events:
        kind = event_type(e)
        metrics.EVENTS_APPENDED.labels(kind).inc()
        if kind == "game_started":
            metrics.TABLES_ACTIVE.inc()
        elif kind == "game_ended":
            metrics.TABLES_ACTIVE.dec()
        if kind in _WORTH_A_LINE:
            log.info(kind.replace("_", " "), table_id=table_id, sequence=e.sequence,
                     **_WORTH_A_LINE[kind](getattr(e, kind)))


__all__ = ["REVIEWER", "TableApp"]
