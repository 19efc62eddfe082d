"""The use cases: one method per RPC. Load (cache + log), fold, decide, append, retry, bots.

Stateless by design: a table's state is always the fold of its log, cached per table and
checked against the log's version on every command, so any process can serve any table.
Everything random (decks, salts, bot seeds) and the clock are chosen here and written into
the events.
"""

from __future__ import annotations

import asyncio
import contextlib
import base64
import functools
import hashlib
import hmac
import itertools
import os
import re
import secrets
import time
from collections import OrderedDict, deque
from collections.abc import AsyncIterator, Callable

import structlog

from belote import bots
from belote import observability as metrics
from belote.rules import IllegalAction, InvalidOptions, rules_for
from belote.rules.cards import shuffled_deck
from belote.store import (
    NewEvent,
    RequestReused,
    StoreError,
    StoreUnavailable,
    TableIndexEntry,
    VersionConflict,
    open_store,
)
from belote.table import request_ids
from belote.table.codec import (
    BadMessage,
    action_from_pb,
    action_to_pb,
    decode_stored,
    encode_body,
    event_type,
    logged_event,
)
from belote.table.decide import (
    Act,
    CloseTable,
    CreateTable,
    JoinSeat,
    LeaveSeat,
    PostChat,
    ReclaimSeat,
    Refused,
    SeatBot,
    TimerMove,
    VoteRematch,
    decide,
)
from belote.table.state import BOT, FINISHED, HUMAN, PLAYING, WAITING, TableState, evolve
from belote.table.state import CHAT_BURST, CHAT_WINDOW_S
from belote.table.views import REVIEWER, SPECTATOR, Redactor, seat_view, status_to_pb, table_view
from belote.v1 import events_pb2 as epb
from belote.v1 import table_service_pb2 as tpb

from . import errors as err
from .bot_pool import BotPool
from .deadlines import Deadlines
from .due_bots import DueBots
from .export_signing import key_response, signed_export
from .identity import Identity
from .ledgers import RATING_START, Hold, Ledgers, NotEnoughChips, month_of
from .limits import (
    SPECTATORS_PER_CALLER,
    TABLES_PER_MINUTE,
    Spectators,
    Window,
    WrongPasswords,
    caller_key,
)
from .passwords import Passwords
from .presence import SeatPresence
from .requests import Caller, RequestKey, RequestKeys, reused
from .server_key import derive

log = structlog.get_logger("belote.app")

MAX_NAME = 64
MAX_DISPLAY_NAME = 32
CACHE_TABLES = 4096
RETRIES = 8
TAIL_EVENTS = 64
STREAM_PAGE = 64       # events a stream reads from the store at a time: all it holds while it waits
DISCONNECT_GRACE_S = 60.0
STARTING_CHIPS = 1000
MAX_CHAT = 500
MAX_TURN_TIMER_S = 3600
SWEEP_MAX_S = 15.0     # a deadline another replica wrote is enforced at most this late here
SWEEP_MIN_S = 0.1
SWEEP_RETRY_S = 1.0    # a look at the index that failed (the store) is tried again this soon
BOT_RETRY_S = (0.05, 0.1, 0.2, 0.5, 1.0)   # bots paused by the store try again after these, then every 1 s
HOLD_PENDING_S = 30.0  # a stake hold whose seat is not in the table's log yet counts this long
CLOSED = "closed"                 # the index status of a closed table (TableStatus stays FINISHED)
_MONTH = re.compile(r"\d{4}-(0[1-9]|1[0-2])")
# Refusals of the decider that are not FAILED_PRECONDITION.
_REFUSAL_CODES = {"CHAT_TOO_FAST": err.RESOURCE_EXHAUSTED}


def _now_us() -> int:
    return time.time_ns() // 1000


@functools.lru_cache(maxsize=1024)
def _action_pb(kind: type, action):
    """An action's message, built once (a game has a few hundred actions; a response's repeated
    field copies it). The kind is part of the key: a Bid and a Play may be equal tuples."""
    return action_to_pb(action)


def _sha256(text: str) -> bytes:
    return hashlib.sha256(text.encode()).digest()


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
        self._token_key = derive(self.server_key, "tokens")
        self.ledgers = Ledgers(store, starting_chips, clock)
        self._passwords = Passwords(WrongPasswords(store, clock))
        self._tables_created = Window(store, clock, "tables-created", tables_per_minute, 60.0) \
            if tables_per_minute else None
        self._spectator_chats = Window(store, clock, "spectator-chat", CHAT_BURST, CHAT_WINDOW_S)
        self._spectators = Spectators(store, clock, per_caller=spectators_per_caller)
        self._seats_present = SeatPresence(store, clock, self._load, self._presence, self._spawn)
        self._background: set[asyncio.Task] = set()
        self._reviewer_hash = _sha256(reviewer_token) if reviewer_token else None
        self._states: OrderedDict[str, TableState] = OrderedDict()
        self._tails: dict[str, deque[epb.TableEvent]] = {}   # last events this process appended
        self._bot_tasks: dict[str, asyncio.Task] = {}
        self._bot_again: set[str] = set()
        self._closing = asyncio.Event()
        self._next_sweep_us = 0             # when the deadline sweep wakes next
        self._deadline_sooner = asyncio.Event()
        self._deadlines = Deadlines()       # the tables' soonest deadlines known to this process
        self._due_bots = DueBots(store, clock, PLAYING)
        self.bot_pool = BotPool(bot_workers,
                                version_of=lambda t: getattr(self._states.get(t), "version", None))

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
        tasks = [*self._bot_tasks.values(), *self._background]
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
        await self.bot_pool.close()
        await self._spectators.close()
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
        for table_id, _entry, _version in await self.store.list_index(status=PLAYING, limit=100_000):
            self._kick_bots(table_id)
        self._spawn(self._enforce_deadlines_forever())
        self._spawn(self._due_bots.run(self._load, self._kick_bots_if_due, self._closing))

    def _spawn(self, coroutine) -> None:
        task = asyncio.get_running_loop().create_task(coroutine)
        self._background.add(task)
        task.add_done_callback(self._background.discard)

    # Deadlines: each is the time of an event of the log plus a delay (a SeatDisconnected plus
    # the grace, the event that made it a seat's turn plus the turn timer, a GameEnded plus the
    # rematch vote), so any replica, before or after a restart, enforces it the same way; the
    # expected version makes sure only the first one to look acts.
    async def enforce_deadlines(self, now_us: int | None = None, *, refresh: bool = True) -> int:
        """Act on every deadline passed by ``now_us`` (default: now); returns how many.

        A disconnected player past its grace gets a takeover bot; a human seat past its turn
        timer gets a timer move; a table whose rematch vote ran out closes. Only the tables
        whose deadline has come are loaded (they are kept soonest first). ``refresh``: first
        learn, from the store's index, the deadlines of the tables changed since this process
        last looked (by another replica, or before a restart); only those are loaded, and the
        ledgers of their games started or ended are settled, if this process has not yet.
        """
        now_us = now_us or self.clock()
        if refresh:
            listed = [*await self.store.list_index(status=PLAYING, limit=100_000),
                      *await self.store.list_index(status=FINISHED, limit=100_000)]
            for table_id in self._deadlines.changed((t, v) for t, _entry, v in listed):
                state = await self._load(table_id)
                self._note_deadlines(state)
                step = "end" if state.status == FINISHED else "stake" if state.pot else None
                if step is not None:
                    await self._settle(state, step)
                    if not self.ledgers.settled(state, step):
                        self._deadlines.look_again(table_id)
        done = 0
        for table_id in self._deadlines.pop_due(now_us):
            try:
                state = await self._load(table_id)
                for seat, s in enumerate(state.seats):
                    if state.status == PLAYING and s.occupant == HUMAN and s.disconnected_at_us and \
                            now_us - s.disconnected_at_us >= self.disconnect_grace_s * 1e6:
                        level = state.created.takeover_bot_level or epb.NORMAL
                        done += await self._on_deadline(state, request_ids.grace(seat),
                                                        LeaveSeat(seat, level, epb.DISCONNECTED))
                state = await self._load(table_id)
                deadline = state.turn_deadline_us()
                if deadline is not None and now_us >= deadline:
                    done += await self._on_deadline(state, request_ids.TIMER, await self._timer_move(state, now_us))
                state = await self._load(table_id)
                deadline = state.rematch_deadline_us()
                if deadline is not None and now_us >= deadline:
                    done += await self._on_deadline(state, request_ids.CLOSE, CloseTable(now_us))
                self._note_deadlines(await self._load(table_id), judged_at_us=now_us)
            except (StoreError, err.AppError) as e:
                # Not lost: looked at again in a second, and loaded again at the next refresh.
                self._deadlines.note(table_id, self.clock() + 1_000_000, -1)
                log.warning("deadline not enforced yet", table_id=table_id, error=str(e))
        return done

    def _note_deadlines(self, state: TableState, judged_at_us: int | None = None) -> None:
        """Keep the table's soonest deadline (grace, turn timer or rematch vote), and wake the
        sweep if it is sooner than the sweep's next round. ``judged_at_us``: the time the
        table was just judged at; a deadline still passed then (nobody could act) is looked
        at again in a second."""
        deadlines = [state.turn_deadline_us(), state.rematch_deadline_us()]
        if state.status == PLAYING:
            deadlines += [s.disconnected_at_us + int(self.disconnect_grace_s * 1e6)
                          for s in state.seats if s.occupant == HUMAN and s.disconnected_at_us]
        soonest = min((d for d in deadlines if d is not None), default=None)
        if soonest is not None and judged_at_us is not None and soonest <= judged_at_us:
            soonest = max(soonest, self.clock() + 1_000_000)
        self._deadlines.note(state.table_id, soonest, state.version)
        if soonest is not None and soonest < self._next_sweep_us:
            self._next_sweep_us = soonest
            self._deadline_sooner.set()

    async def _on_deadline(self, state: TableState, what: str, command) -> int:
        try:
            await self._execute(state.table_id, request_ids.deadline(what, state.version),
                                lambda st: decide(st, command, self._next_deal()), state.version,
                                at_us=getattr(command, "now_us", None))
            return 1
        except err.AppError:
            return 0      # another replica (or the player) moved first; the next sweep looks again

    async def _timer_move(self, state: TableState, now_us: int) -> TimerMove:
        """A bot's move, at the table's takeover level, for the seat whose turn timer ran out."""
        seat = state.to_act()
        level = state.created.takeover_bot_level or epb.NORMAL
        seed = secrets.randbits(63)
        action = await self.bot_pool.choose(state.table_id, level, seat_view(state, seat), seed)
        return TimerMove(seat, action, bots.move_record(level, seed), now_us)

    async def _settle(self, state: TableState, step: str) -> None:
        """Apply a game's start (stakes) or end (pot, ratings) to the ledgers, once."""
        try:
            if step == "stake":
                await self.ledgers.settle_stakes(state)
            else:
                await self.ledgers.settle_game(state)
        except Exception as e:  # noqa: BLE001 - the table's events are appended: never fail them
            self.ledgers.forget(state, step)
            log.warning("ledgers not settled yet", table_id=state.table_id, step=step, error=repr(e))

    async def _enforce_deadlines_forever(self) -> None:
        """Act on the deadlines as they come, sleeping until the soonest (one its own appends
        set wakes it earlier); look at the store's index every SWEEP_MAX_S for the deadlines
        other replicas wrote."""
        next_refresh = 0.0              # time.monotonic()
        while not self._closing.is_set():
            refresh = time.monotonic() >= next_refresh
            try:
                await self.enforce_deadlines(refresh=refresh)
                if refresh:
                    next_refresh = time.monotonic() + SWEEP_MAX_S
            except (StoreError, err.AppError) as e:
                log.warning("deadline sweep failed", error=str(e))
                next_refresh = time.monotonic() + SWEEP_RETRY_S
            await asyncio.sleep(SWEEP_MIN_S)
            soonest = self._deadlines.soonest()
            self._next_sweep_us = self.clock() + int((next_refresh - time.monotonic()) * 1e6)
            if soonest is not None:
                self._next_sweep_us = min(self._next_sweep_us, soonest)
            while (wait_s := (self._next_sweep_us - self.clock()) / 1e6) > 0:
                self._deadline_sooner.clear()
                try:
                    await asyncio.wait_for(self._deadline_sooner.wait(), wait_s)
                except TimeoutError:
                    break

    async def _presence(self, table_id: str, seat: int, command) -> bool:
        """Append a (dis)connection if the table still wants it (True if appended); a refusal
        means it does not."""
        try:
            await self._execute(table_id, request_ids.presence(seat, self.clock()),
                                lambda st: decide(st, command, self._next_deal()))
            return True
        except (err.AppError, StoreError):
            return False

    def shutdown(self) -> None:
        self._closing.set()
        self.store.stop_waits()          # open watch streams end now: their clients move on

    # Tokens: derived from the server's key (from outside the store) and the caller-scoped
    # request key, so a retried request gets the same one back and nothing else derives it;
    # prefixed by the table id so a token of another table is told apart from an unknown one.
    def _token(self, kind: str, table_id: str, request: RequestKey) -> str:
        mac = hmac.new(self._token_key, f"{kind}|{table_id}|{request.key}".encode(), "sha256").digest()
        return f"{table_id}.{base64.urlsafe_b64encode(mac).rstrip(b'=').decode()}"

    async def _table_id(self, request: RequestKey) -> str:
        """A random id for a new table; a retried CreateTable gets the one its request claimed."""
        try:
            return await self.store.claim_table(request.key, base64.b32encode(
                secrets.token_bytes(10)).decode().lower())
        except StoreUnavailable as e:
            raise err.AppError(err.UNAVAILABLE, "STORE_UNAVAILABLE", "the store cannot be reached") from e

    # Loading and appending -------------------------------------------------------------------
    async def _load(self, table_id: str) -> TableState:
        """The table's state at the log's current version (callers must not mutate it)."""
        if ":" in table_id:            # a ledger's log ("player:...", "ratings:..."), not a table
            return TableState(table_id)
        state = self._states.get(table_id)
        try:
            new = await self.store.read(table_id, after_sequence=state.version if state else 0)
        except StoreUnavailable as e:
            raise err.AppError(err.UNAVAILABLE, "STORE_UNAVAILABLE", "the store cannot be reached") from e
        if new:
            started = time.perf_counter()
            state = state.copy() if state else TableState(table_id)
            for stored in new:
                evolve(state, decode_stored(stored))
            self._remember(state)
            metrics.FOLD_SECONDS.observe(time.perf_counter() - started)
        elif state is None:
            state = TableState(table_id)
        else:
            self._states.move_to_end(table_id)
        return state

    def _remember(self, state: TableState) -> None:
        self._states[state.table_id] = state
        self._states.move_to_end(state.table_id)
        while len(self._states) > CACHE_TABLES:
            evicted, _ = self._states.popitem(last=False)
            self._tails.pop(evicted, None)

    async def _events_after(self, table_id: str, seen: int, upto: int) -> list[epb.TableEvent]:
        """The next events after ``seen``, up to ``upto`` and at most STREAM_PAGE of them: from the
        tail of this process's own appends when it holds them all (the watchers of a table share
        one decode), else one page from the store. A stream that is behind reads again by
        sequence, so nothing piles up for it while it waits for its reader."""
        tail = self._tails.get(table_id)
        if tail and tail[0].sequence <= seen + 1 and tail[-1].sequence >= upto:
            start = seen + 1 - tail[0].sequence
            picked = list(itertools.islice(tail, start, start + upto - seen))
            if len(picked) == upto - seen and picked[0].sequence == seen + 1 and picked[-1].sequence == upto:
                return picked        # no gap: another process did not write in between
        return [decode_stored(s) for s in await self._page(table_id, seen, upto)]

    async def _page(self, table_id: str, seen: int, upto: int) -> list:
        """Stored events ``seen``+1.. up to ``upto``, at most STREAM_PAGE of them."""
        return await self.store.read(table_id, after_sequence=seen, limit=min(STREAM_PAGE, upto - seen))

    async def _existing(self, table_id: str) -> TableState:
        if not table_id:
            raise err.invalid("table_id", "table_id: required")
        state = await self._load(table_id)
        if not state.exists:
            raise err.not_found(f"no table {table_id!r}")
        return state

    async def _execute(self, table_id: str, request_id: str | RequestKey,
                       build: Callable[[TableState], list[epb.TableEvent]],
                       expected_version: int | None = None,
                       loaded: TableState | None = None,
                       at_us: int | None = None) -> tuple[list[epb.TableEvent], TableState]:
        """Decide and append with optimistic concurrency; re-decide on a conflict. ``loaded``: the
        state the caller has, used for the first try; it may be behind the log (a cached one), so
        a conflict reloads, and so does a refusal if the log has moved past it. ``at_us``: the
        time a timed command was decided at, stamped on its events, so the log shows the very
        time its deadline was judged by (a vote just in time stays in time). ``request_id``: a
        client's RequestKey, or the name of the server's own move ("bot-12")."""
        request, request_id = request_id, str(request_id)
        rpc, fingerprint = _origin(request)
        lost_a_race = False      # an append of ours met a newer log: the table changed meanwhile
        for attempt in range(RETRIES):
            state, cached = (loaded, True) if attempt == 0 and loaded is not None \
                else (await self._load(table_id), False)
            try:
                if expected_version is not None and state.version != expected_version:
                    raise Refused("VERSION_CONFLICT", f"the table is at version {state.version}, "
                                                      f"not {expected_version}")
                events = build(state)
            except (Refused, IllegalAction) as e:
                if cached and (await self._load(table_id)).version != state.version:
                    continue             # judged on a state the log has moved past: judge again
                earlier = await self._recorded(table_id, request)
                if earlier is not None:
                    return [decode_stored(s) for s in earlier], await self._load(table_id)
                if e.reason == "VERSION_CONFLICT":
                    raise err.aborted(e.message) from None
                if e.reason in _REFUSAL_CODES:
                    raise err.AppError(_REFUSAL_CODES[e.reason], e.reason, e.message) from None
                if lost_a_race:
                    raise err.aborted(f"the table changed while your request was handled: {e.message}",
                                      "CONFLICT_" + e.reason) from None
                raise err.refused(e.reason, e.message) from None
            new_state = state.copy()
            now_us = self.clock() if at_us is None else at_us
            for i, event in enumerate(events, start=state.version + 1):
                event.sequence = i
                event.table_id = table_id
                event.time.FromMicroseconds(now_us)
                evolve(new_state, event)
            # Most cards change nothing the lobby lists.
            index = _index_entry(new_state) if not state.exists or \
                _index_key(new_state) != _index_key(state) else None
            started = time.perf_counter()
            try:
                result = await self.store.append(
                    table_id, state.version, [NewEvent(event_type(e), encode_body(e)) for e in events],
                    request_id=request_id, recorded_at_us=now_us, index=index,
                    rpc=rpc, fingerprint=fingerprint)
            except RequestReused as reuse:
                raise reused(reuse.rpc) from None
            except VersionConflict:
                # A cached state may have been behind before the command came: only a fresh
                # one shows that the table changed while the command was handled.
                lost_a_race = lost_a_race or not cached
                metrics.APPEND_CONFLICTS.inc()
                if expected_version is not None:
                    raise err.aborted("the table changed: your expected_version is stale") from None
                log.info("conflict retried", table_id=table_id, request_id=request_id, attempt=attempt + 1)
                continue
            except StoreUnavailable as e:
                raise err.AppError(err.UNAVAILABLE, "STORE_UNAVAILABLE", "the store cannot be reached") from e
            metrics.STORE_APPEND_SECONDS.observe(time.perf_counter() - started)
            if result.duplicate:
                stored = [decode_stored(s) for s in result.events]
            else:
                # As the store will give them back (the envelope is complete). No await before
                # the tail is extended: the watchers the append woke read it next.
                stored = events
                self._remember(new_state)
                self._tails.setdefault(table_id, deque(maxlen=TAIL_EVENTS)).extend(stored)
                self._appended(table_id, stored)
                self._kick_bots_if_due(new_state)
                self._note_deadlines(new_state)
                kinds = {event_type(e) for e in stored}
                if "game_started" in kinds and new_state.pot:
                    await self._settle(new_state, "stake")
                if "game_ended" in kinds:
                    await self._settle(new_state, "end")
            return stored, await self._load(table_id) if result.duplicate else new_state
        raise err.aborted("the table is too busy right now: retry with the same request_id")

    def _appended(self, table_id: str, events: list[epb.TableEvent]) -> None:
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

    async def refresh_gauges(self) -> bool:
        """Store health and games in progress, as the store says (so right after a restart too)."""
        try:
            await self.store.ping()
            metrics.TABLES_ACTIVE.set(await self.store.count_index(PLAYING))
            metrics.STORE_UP.set(1)
            return True
        except StoreError:
            metrics.STORE_UP.set(0)
            return False

    def _next_deal(self) -> FreshDeal:
        return FreshDeal()

    # Who is asking ---------------------------------------------------------------------------
    async def _seat_of(self, state: TableState, token: str | None) -> int:
        """The seat whose token this is (its player may be away: a takeover bot plays)."""
        if not token:
            raise err.unauthenticated("this call needs your seat token (authorization: Bearer <token>)")
        seat = state.seat_of_token_hash(_sha256(token))
        if seat is not None:
            structlog.contextvars.bind_contextvars(seat=seat)
            return seat
        if self._is_host(state, token) or await self._holds_a_seat_elsewhere(state.table_id, token):
            raise err.denied("NOT_YOUR_SEAT", "this token does not hold a seat at this table")
        raise err.unauthenticated("unknown token")

    async def _holds_a_seat_elsewhere(self, table_id: str, token: str) -> bool:
        """A real token of another table (its id prefixes the token) or of a seat left here."""
        other = token.split(".", 1)[0]
        if other == table_id or not other:
            return False
        state = await self._load(other)
        return state.exists and (state.seat_of_token_hash(_sha256(token)) is not None
                                 or self._is_host(state, token))

    def _is_host(self, state: TableState, token: str | None) -> bool:
        return bool(token) and hmac.compare_digest(_sha256(token), state.created.host_token_hash)

    async def _viewer(self, state: TableState, token: str | None, password: str = "", *,
                      peer: str | None = None) -> int:
        """A seat, or SPECTATOR (no token, or the host's). A spectator without the host token
        needs the password of a private table."""
        if self._is_host(state, token):
            return SPECTATOR
        if not token:
            await self._check_password(state, password, peer=peer)
            return SPECTATOR
        return await self._seat_of(state, token)

    async def _check_password(self, state: TableState, password: str, *, peer: str | None = None,
                              player: str = "") -> None:
        """Nothing for a public table; PERMISSION_DENIED for a wrong password of a private one,
        and RESOURCE_EXHAUSTED after 5 wrong ones within a minute from this caller (its peer
        and player, on every replica)."""
        created = state.created
        if created.private:
            await self._passwords.check(state.table_id, caller_key(peer, player), password,
                                        created.password_salt, created.password_hash)

    # Use cases -------------------------------------------------------------------------------
    async def create_table(self, req: tpb.CreateTableRequest, player_token: str | None = None, *,
                           peer: str | None = None,
                           caller: Caller | None = None) -> tpb.CreateTableResponse:
        """``peer``: the caller's host, whose tables (or its player's) count against the quota;
        None for a caller inside this process (the demo, a benchmark), which has none."""
        key = self.requests.key("CreateTable", req, None, caller or Caller(player_token=player_token))
        host_player = self.identity.player_id(player_token)
        preset = req.preset or "classic"
        try:
            rules = rules_for(preset, dict(req.options))
        except InvalidOptions as e:
            raise err.invalid("preset" if e.field == "preset" else f"options[{e.field}]", str(e)) from None
        if len(req.name) > MAX_NAME:
            raise err.invalid("name", f"name: at most {MAX_NAME} characters")
        if req.stake < 0:
            raise err.invalid("stake", "stake: must be 0 or more")
        if req.private and not req.password:
            raise err.invalid("password", "password: a private table needs one")
        if req.takeover_bot_level not in (0, epb.EASY, epb.NORMAL, epb.HARD):
            raise err.invalid("takeover_bot_level", "takeover_bot_level: EASY, NORMAL or HARD")
        if not 0 <= req.turn_timer_s <= MAX_TURN_TIMER_S:
            raise err.invalid("turn_timer_s", f"turn_timer_s: 0 (no timer) to {MAX_TURN_TIMER_S} seconds")
        await self._count_table_created(key, peer, host_player)
        table_id = await self._table_id(key)
        host_token = self._token("host", table_id, key)
        created = epb.TableCreated(
            name=req.name or f"{preset} table", preset=preset, options=rules.as_strings(),
            private=req.private, stake=req.stake,
            takeover_bot_level=req.takeover_bot_level or epb.NORMAL,
            host_token_hash=_sha256(host_token), turn_timer_s=req.turn_timer_s,
            host_player_id=host_player)
        if req.private:
            created.password_salt = secrets.token_bytes(16)
            created.password_hash = await self._passwords.hash(req.password, created.password_salt)
        _, state = await self._execute(table_id, key,
                                       lambda s: decide(s, CreateTable(created), self._next_deal()))
        return tpb.CreateTableResponse(table_id=table_id, host_token=host_token,
                                       table=table_view(state, SPECTATOR))

    async def _count_table_created(self, key: RequestKey, peer: str | None, player: str) -> None:
        """A registered player's tables count against it, a guest's against its peer; a retry
        (the same request key) counts once."""
        window = self._tables_created
        if window is None or peer is None:
            return
        caller = caller_key(f"player:{player}" if player else peer)
        if await window.take(caller, holder=str(key)) is None:
            raise err.AppError(err.RESOURCE_EXHAUSTED, "TOO_MANY_TABLES",
                               f"at most {window.limit} new tables per minute from one caller: "
                               "retry within a minute")

    async def list_tables(self, req: tpb.ListTablesRequest) -> tpb.ListTablesResponse:
        if req.page_size < 0:
            raise err.invalid("page_size", "page_size: must be 0 or more")
        limit = min(req.page_size or 50, 200)
        rows = await self.store.list_index(status=WAITING, listed=True, limit=limit)
        return tpb.ListTablesResponse(tables=[tpb.TableSummary.FromString(e.summary) for _, e, _ in rows])

    async def join_table(self, req: tpb.JoinTableRequest, token: str | None,
                         player_token: str | None = None, *,
                         peer: str | None = None,
                         caller: Caller | None = None) -> tpb.JoinTableResponse:
        key = self.requests.key("JoinTable", req, token, caller or Caller(player_token=player_token))
        seat = _check_seat(req.seat if req.HasField("seat") else None)
        player = self.identity.player_id(player_token)
        state = await self._existing(req.table_id)
        if token:
            return await self._reclaim(state, token, key)
        if not 1 <= len(req.display_name) <= MAX_DISPLAY_NAME:
            raise err.invalid("display_name", f"display_name: 1 to {MAX_DISPLAY_NAME} characters")
        await self._check_password(state, req.password, peer=peer, player=player)
        held = await self._hold_stake(state, player)
        seat_token = self._token("seat", req.table_id, key)
        command = JoinSeat(seat, req.display_name, _sha256(seat_token), player)
        try:
            events, state = await self._execute(
                req.table_id, key, lambda s: decide(s, command, self._next_deal()))
        except err.AppError:
            if held is not None:
                await self._release_stake_unless_seated(req.table_id, player, held)
            raise
        taken = next(e.seat_joined.seat for e in events if e.HasField("seat_joined"))
        # A retry shows what the token may see now: its seat, or (the seat left, and maybe
        # another player's since) the spectator view.
        viewer = taken if state.seat_of_token_hash(_sha256(seat_token)) == taken else SPECTATOR
        return tpb.JoinTableResponse(seat=taken, seat_token=seat_token, table=table_view(state, viewer))

    # Stakes: a player who sits at a stake table (or votes for a rematch there) sets the stake
    # aside in its ledger first, so the chips it has can never be promised to two games.
    async def _hold_stake(self, state: TableState, player: str) -> int | None:
        """Hold the stake of the table's next game (its number), or refuse the player who cannot
        pay it; None for a table without a stake."""
        stake = state.created.stake
        if not stake:
            return None
        if not player:
            raise err.refused("STAKE_NEEDS_PLAYER", "a table with a stake is for registered players: "
                                                    "send your x-player-token")
        game = state.game_number + 1
        try:
            await self.ledgers.hold_stake(player, Hold(state.table_id, game, stake, self.clock()),
                                          self._still_held(player))
        except NotEnoughChips as e:
            elsewhere = f" ({e.held} of your {e.balance} are held for other tables)" if e.held else ""
            raise err.refused("NOT_ENOUGH_CHIPS",
                              f"you need {stake} chips to pay this table's stake{elsewhere}") from None
        return game

    def _still_held(self, player: str):
        """Whether a table still holds ``player`` in for the game of a hold: seated for a game
        to come, or paying for one that started (until the STAKE move ends the hold)."""
        async def still_held(hold: Hold) -> bool:
            if self.clock() - hold.held_at_us < HOLD_PENDING_S * 1_000_000:
                return True               # its seat may be on its way to the log
            state = await self._load(hold.table_id)
            if not state.exists or state.closed:
                return False
            if state.game_number < hold.game_number:
                return _seats_player(state, player)
            if state.game_number == hold.game_number:
                return any(state.seats[i].player_id == player for i in state.paying_seats)
            return False
        return still_held

    async def _release_stake_unless_seated(self, table_id: str, player: str, game: int) -> None:
        """A hold whose seat was refused, or left, before its game: released at once (rather
        than counted until HOLD_PENDING_S)."""
        state = await self._load(table_id)
        if state.game_number < game and _seats_player(state, player):
            return
        with contextlib.suppress(StoreError):
            await self.ledgers.release_stake(player, table_id, game)

    async def _reclaim(self, state: TableState, token: str, key: RequestKey) -> tpb.JoinTableResponse:
        """A player who left comes back with its seat token: the takeover bot hands it back."""
        seat = await self._seat_of(state, token)
        _, state = await self._execute(state.table_id, key,
                                       lambda s: decide(s, ReclaimSeat(seat), self._next_deal()))
        return tpb.JoinTableResponse(seat=seat, seat_token=token, table=table_view(state, seat))

    async def add_bot(self, req: tpb.AddBotRequest, token: str | None, *,
                      caller: Caller | None = None) -> tpb.AddBotResponse:
        key = self.requests.key("AddBot", req, token, caller)
        seat = _check_seat(req.seat if req.HasField("seat") else None)
        if req.level not in (0, epb.EASY, epb.NORMAL, epb.HARD):
            raise err.invalid("level", "level: EASY, NORMAL or HARD")
        state = await self._existing(req.table_id)
        if not self._is_host(state, token):
            await self._seated(state, token)          # any player of the table may seat bots too
        level = req.level or epb.NORMAL
        events, state = await self._execute(
            req.table_id, key, lambda s: decide(s, SeatBot(seat, level), self._next_deal()))
        taken = next(e.bot_seated.seat for e in events if e.HasField("bot_seated"))
        return tpb.AddBotResponse(seat=taken, table=table_view(state, SPECTATOR))

    async def leave_table(self, req: tpb.LeaveTableRequest, token: str | None, *,
                          caller: Caller | None = None) -> tpb.LeaveTableResponse:
        key = self.requests.key("LeaveTable", req, token, caller)
        state = await self._existing(req.table_id)
        try:
            seat = await self._seat_of(state, token)
            if state.seats[seat].occupant != HUMAN:
                raise err.refused("NOT_SEATED", "you have already left this seat")
        except err.AppError:
            if await self._recorded(req.table_id, key):     # a retry: the seat is left already
                return tpb.LeaveTableResponse(table=table_view(state, SPECTATOR))
            raise
        level, player = state.created.takeover_bot_level or epb.NORMAL, state.seats[seat].player_id
        _, state = await self._execute(
            req.table_id, key, lambda s: decide(s, LeaveSeat(seat, level), self._next_deal()))
        if state.created.stake and player and state.status != PLAYING:
            await self._release_stake_unless_seated(req.table_id, player, state.game_number + 1)
        return tpb.LeaveTableResponse(table=table_view(state, SPECTATOR))

    async def _cached_seat(self, table_id: str, token: str | None) -> tuple[TableState, int]:
        """The table and the caller's seat, from this process's cached state when that shows the
        caller seated, else from the log. For commands only: a cached state may be behind the
        log, and the append's expected version is what tells (a conflict reloads it)."""
        state = self._states.get(table_id)
        if state is not None and token:
            seat = state.seat_of_token_hash(_sha256(token))
            if seat is not None and state.seats[seat].occupant == HUMAN:
                structlog.contextvars.bind_contextvars(seat=seat)
                return state, seat
        state = await self._existing(table_id)
        return state, await self._seated(state, token)

    async def _seated(self, state: TableState, token: str | None) -> int:
        """The caller's seat, which it must still hold (not left to a takeover bot)."""
        seat = await self._seat_of(state, token)
        _check_still_human(state, seat)
        return seat

    async def get_legal_actions(self, req: tpb.GetLegalActionsRequest,
                                token: str | None) -> tpb.GetLegalActionsResponse:
        state = await self._existing(req.table_id)
        seat = await self._seated(state, token)
        self._kick_bots_if_due(state)
        legal = state.game.legal_actions(seat) if state.status == PLAYING else []
        return tpb.GetLegalActionsResponse(version=state.version, seat=seat,
                                           your_turn=state.to_act() == seat,
                                           actions=[_action_pb(type(a), a) for a in legal])

    async def act(self, req: tpb.ActRequest, token: str | None, *,
                  caller: Caller | None = None) -> tpb.ActResponse:
        key = self.requests.key("Act", req, token, caller)
        try:
            action = action_from_pb(req.action)
        except BadMessage as e:
            raise err.invalid(e.field, str(e)) from None
        state, seat = await self._cached_seat(req.table_id, token)
        expected = req.expected_version if req.HasField("expected_version") else None

        def build(s: TableState) -> list[epb.TableEvent]:
            if s is not state:
                _check_seat_still_yours(s, seat, token)
            return decide(s, Act(seat, action), self._next_deal())

        events, _ = await self._execute(req.table_id, key, build, expected, loaded=state)
        redactor = await self._redactor_before(state, seat, events[0].sequence)
        return tpb.ActResponse(version=events[-1].sequence, events=[redactor.see(e) for e in events])

    async def _redactor_before(self, state: TableState, viewer: int, sequence: int) -> Redactor:
        """A redactor that has followed the log up to ``sequence`` (exclusive): primed from
        ``state`` when that is where the log stood, else (a retry, a race) by reading the log."""
        redactor = Redactor(viewer)
        if state.version == sequence - 1:
            redactor.prime(state)
            return redactor
        for stored in await self.store.read(state.table_id, limit=sequence - 1):
            redactor.see(decode_stored(stored))
        return redactor

    async def _recorded(self, table_id: str, request: str | RequestKey):
        """The events this very request appended (a retry), or None; REQUEST_ID_REUSED if its
        id was used for another request."""
        rpc, fingerprint = _origin(request)
        try:
            return await self.store.request_events(table_id, str(request), rpc=rpc,
                                                   fingerprint=fingerprint)
        except RequestReused as reuse:
            raise reused(reuse.rpc) from None

    async def get_table(self, req: tpb.GetTableRequest, token: str | None, *,
                        peer: str | None = None) -> tpb.Table:
        state = await self._existing(req.table_id)
        viewer = await self._viewer(state, token, req.password, peer=peer)
        self._kick_bots_if_due(state)
        return table_view(state, viewer)

    async def watch_table(self, req: tpb.WatchTableRequest, token: str | None, *,
                          peer: str | None = None) -> AsyncIterator[epb.TableEvent]:
        if req.from_sequence < 0:
            raise err.invalid("from_sequence", "from_sequence: 0 or more (0 and 1 both mean from the start)")
        state = await self._existing(req.table_id)
        viewer = await self._viewer(state, token, req.password, peer=peer)
        first = max(req.from_sequence, 1)
        if first > state.version + 1:
            raise err.AppError(err.OUT_OF_RANGE, "SEQUENCE_AHEAD",
                               f"from_sequence {first} is past the table's next event {state.version + 1}")
        place = None
        if viewer == SPECTATOR:
            place = await self._spectators.enter(req.table_id, caller_key(peer, token))
            if place == Spectators.FULL:
                raise err.AppError(err.RESOURCE_EXHAUSTED, "TOO_MANY_SPECTATORS",
                                   f"this table has {self._spectators.limit} spectators already")
            if place == Spectators.CALLER_FULL:
                raise err.AppError(err.RESOURCE_EXHAUSTED, "TOO_MANY_SPECTATOR_STREAMS",
                                   f"at most {self._spectators.per_caller} spectator streams of "
                                   "one table from one caller: close one first")
        redactor = Redactor(viewer)
        seen = 0
        metrics.WATCH_STREAMS.inc()
        seat_lease = await self._seats_present.arrive(req.table_id, viewer) if viewer >= 0 else None
        upto = state.version
        state = None     # what the stream started from: not kept alive while it waits
        try:
            while not self._closing.is_set():
                # A page at a time: the next is read once the client has taken this one.
                while seen < upto and not self._closing.is_set():
                    for event in await self._events_after(req.table_id, seen, upto):
                        shown = redactor.see(event)
                        seen = event.sequence
                        if seen >= first:
                            yield shown
                    event = shown = None  # nor the last event and its copy
                # No timeout: appends wake it (other processes' through the store's poller), and
                # so does the shutdown (store.stop_waits).
                upto = await self.store.wait_for_append(req.table_id, seen, timeout=None)
        finally:
            metrics.WATCH_STREAMS.dec()
            if place is not None:
                self._spawn(self._spectators.leave(place))
            if seat_lease is not None:
                self._seats_present.depart(req.table_id, viewer, seat_lease, closing=self._closing.is_set())

    async def post_chat(self, req: tpb.PostChatRequest, token: str | None, *,
                        peer: str | None = None,
                        caller: Caller | None = None) -> tpb.PostChatResponse:
        """A seat's messages count against the seat (the log's limit); a spectator's against the
        caller, its peer and the (host) token it shows, whatever name it gives."""
        key = self.requests.key("PostChat", req, token, caller)
        if not 1 <= len(req.text) <= MAX_CHAT or not req.text.strip():
            raise err.invalid("text", f"text: 1 to {MAX_CHAT} characters, not only spaces")
        state = await self._existing(req.table_id)
        seat = await self._viewer(state, token, req.password, peer=peer)
        if seat == SPECTATOR:
            _check_spectator_name(state, req.display_name)
            # The request's key holds the place: a retry is not counted again.
            if await self._spectator_chats.take(f"{req.table_id}:{caller_key(peer, token)}",
                                                holder=str(key)) is None:
                raise err.AppError(err.RESOURCE_EXHAUSTED, "CHAT_TOO_FAST",
                                   f"at most {CHAT_BURST} messages per {CHAT_WINDOW_S} seconds "
                                   "from one spectator")
        name = state.seats[seat].display_name if seat >= 0 else req.display_name
        command = PostChat(seat, name, req.text, self.clock())
        events, _ = await self._execute(req.table_id, key,
                                        lambda s: decide(s, command, self._next_deal()),
                                        at_us=command.now_us)
        return tpb.PostChatResponse(event=Redactor(seat).see(events[0]))

    async def vote_rematch(self, req: tpb.VoteRematchRequest, token: str | None, *,
                           caller: Caller | None = None) -> tpb.VoteRematchResponse:
        key = self.requests.key("VoteRematch", req, token, caller)
        state = await self._existing(req.table_id)
        seat = await self._seated(state, token)
        if state.created.stake:
            await self._hold_stake(state, state.seats[seat].player_id)
        command = VoteRematch(seat, self.clock())
        _, state = await self._execute(req.table_id, key,
                                       lambda s: decide(s, command, self._next_deal()),
                                       at_us=command.now_us)
        return tpb.VoteRematchResponse(table=table_view(state, seat))

    async def get_balance(self, req: tpb.GetBalanceRequest,
                          player_token: str | None) -> tpb.GetBalanceResponse:
        if not player_token:
            raise err.unauthenticated("GetBalance needs your x-player-token")
        player = self.identity.player_id(player_token)
        balance, held = await self.ledgers.purse(player, self._still_held(player))
        return tpb.GetBalanceResponse(player_id=player, balance=balance, held=held)

    async def get_leaderboard(self, req: tpb.GetLeaderboardRequest,
                              player_token: str | None) -> tpb.GetLeaderboardResponse:
        preset = req.preset or "classic"
        try:
            rules_for(preset)
        except InvalidOptions as e:
            raise err.invalid("preset", str(e)) from None
        month = req.month or month_of(self.clock())
        if not _MONTH.fullmatch(month):
            raise err.invalid("month", "month: yyyy-mm, e.g. 2026-03")
        if req.page_size < 0:
            raise err.invalid("page_size", "page_size: must be 0 or more")
        player = self.identity.player_id(player_token)
        ratings = await self.ledgers.ratings(preset, month)
        ranked = sorted(ratings.items(), key=lambda pr: (-pr[1].rating, pr[1].games, pr[0]))
        entries = [tpb.LeaderboardEntry(rank=i, player_id=p, display_name=r.display_name,
                                        rating=r.rating, games=r.games)
                   for i, (p, r) in enumerate(ranked, start=1)]
        reply = tpb.GetLeaderboardResponse(preset=preset, month=month,
                                           entries=entries[:min(req.page_size or 50, 200)])
        if player:
            mine = next((e for e in entries if e.player_id == player), None)
            reply.you.CopyFrom(mine or tpb.LeaderboardEntry(player_id=player, rating=RATING_START))
        return reply

    @signed_export      # after the events, their signed head
    async def export_log(self, req: tpb.ExportLogRequest, token: str | None) -> AsyncIterator[epb.LoggedEvent]:
        if not token:
            raise err.unauthenticated("ExportLog needs the reviewer token")
        if self._reviewer_hash is None or not hmac.compare_digest(_sha256(token), self._reviewer_hash):
            if await self._holds_a_seat_elsewhere("", token):     # a seat or host token
                raise err.denied("NOT_REVIEWER", "only the reviewer token may export a log")
            raise err.unauthenticated("unknown token: ExportLog needs the reviewer token")
        seen, upto = 0, (await self._existing(req.table_id)).version
        # The log as it stood when asked, a page at a time.
        while seen < upto and (page := await self._page(req.table_id, seen, upto)):
            for stored in page:
                yield logged_event(stored)
            seen = page[-1].sequence

    async def get_export_key(self, req: tpb.GetExportKeyRequest) -> tpb.GetExportKeyResponse:
        return key_response(self.server_key)

    # Bots ------------------------------------------------------------------------------------
    def _kick_bots_if_due(self, state: TableState) -> bool:
        """Play the table's bots here if one is to act; whether one is."""
        seat = state.to_act()
        if seat is not None and state.seats[seat].occupant == BOT:
            self._kick_bots(state.table_id)
            return True
        return False

    def _kick_bots(self, table_id: str) -> None:
        if self._closing.is_set():
            return
        if table_id in self._bot_tasks:
            self._bot_again.add(table_id)
            return
        self._bot_tasks[table_id] = asyncio.get_running_loop().create_task(self._play_bots(table_id))

    async def _play_bots(self, table_id: str) -> None:
        """While a bot is to act, ask it (with its seat's view) and append its move. A store that
        cannot be reached pauses the bots, which try again (after BOT_RETRY_S) until it can;
        should this process die instead, the sweep of due bots plays them on another replica."""
        failures = 0
        try:
            while not self._closing.is_set():
                self._bot_again.discard(table_id)
                try:
                    state = await self._load(table_id)
                    seat = state.to_act()
                    if seat is None or state.seats[seat].occupant != BOT:
                        if table_id in self._bot_again:
                            continue
                        return
                    level = state.seats[seat].bot_level
                    seed = secrets.randbits(63)
                    action = await self.bot_pool.choose(table_id, level, seat_view(state, seat), seed)
                    command = Act(seat, action, bots.move_record(level, seed))
                    await self._execute(table_id, request_ids.bot_move(state.version + 1),
                                        lambda s, c=command: decide(s, c, self._next_deal()), state.version)
                    failures = 0
                except (StoreError, err.AppError) as e:
                    code = e.code if isinstance(e, err.AppError) else err.UNAVAILABLE
                    if code == err.ABORTED:           # someone else moved first: look again
                        continue
                    if code != err.UNAVAILABLE:
                        log.error("bot move refused", table_id=table_id, reason=e.reason, error=e.message)
                        return
                    if not failures:
                        log.warning("bots paused", table_id=table_id, error=str(e))
                    await asyncio.sleep(BOT_RETRY_S[min(failures, len(BOT_RETRY_S) - 1)])
                    failures += 1
        finally:
            self._bot_tasks.pop(table_id, None)


# Events an operator wants a log line for, with what to say about them.
_WORTH_A_LINE = {
    "game_started": lambda b: {"game_number": b.game_number},
    "game_ended": lambda b: {"winning_team": b.winning_team, "totals": list(b.totals)},
    "bot_seated": lambda b: {"seat": b.seat, "takeover": b.takeover,
                             "level": epb.BotLevel.Name(b.level).lower()},
    "seat_reclaimed": lambda b: {"seat": b.seat},
}


class FreshDeal:
    """A NextDeal shuffled (with ``secrets``) only if a deal does start: most commands don't."""

    @functools.cached_property
    def deck(self) -> tuple:
        return tuple(shuffled_deck())

    @functools.cached_property
    def salt(self) -> bytes:
        return secrets.token_bytes(16)


def _seats_player(state: TableState, player: str) -> bool:
    """Whether ``player`` holds a seat of the table itself (not left to a takeover bot)."""
    return any(s.player_id == player and s.occupant == HUMAN for s in state.seats)


def _check_seat_still_yours(state: TableState, seat: int, token: str) -> None:
    """A command retried on a newer state than it was authorized on: the seat must not have
    changed hands meanwhile."""
    if state.seat_of_token_hash(_sha256(token)) != seat:
        raise err.denied("NOT_YOUR_SEAT", "this token does not hold a seat at this table")
    _check_still_human(state, seat)


def _check_still_human(state: TableState, seat: int) -> None:
    if state.seats[seat].occupant != HUMAN:
        raise err.denied("SEAT_LEFT", "you left this seat and a bot plays it: "
                                      "call JoinTable with your seat token to take it back")


def _index_key(state: TableState) -> tuple:
    """What of a table its lobby entry shows that can change (the rest is fixed at creation)."""
    return state.status, state.closed, len(state.free_seats())


def _index_entry(state: TableState) -> TableIndexEntry:
    summary = tpb.TableSummary(table_id=state.table_id, name=state.created.name,
                               preset=state.created.preset, free_seats=len(state.free_seats()),
                               stake=state.created.stake, turn_timer_s=state.created.turn_timer_s,
                               status=status_to_pb(state.status))
    return TableIndexEntry(status=CLOSED if state.closed else state.status,
                           listed=not state.created.private and state.status == WAITING,
                           summary=summary.SerializeToString(deterministic=True))


def _origin(request: str | RequestKey) -> tuple[str, bytes]:
    """(rpc, fingerprint) of a client's request; a move of the server's own has neither."""
    return (request.rpc, request.fingerprint) if isinstance(request, RequestKey) else ("", b"")


def _check_spectator_name(state: TableState, name: str) -> None:
    """A spectator's name: its own, never one a seat of the table shows."""
    if not 1 <= len(name) <= MAX_DISPLAY_NAME:
        raise err.invalid("display_name", f"display_name: a spectator posts under a name of "
                                          f"1 to {MAX_DISPLAY_NAME} characters")
    seats = {s.display_name.strip().casefold() for s in state.seats if s.display_name}
    if name.strip().casefold() in seats:
        raise err.invalid("display_name", f"display_name: {name!r} is the name of a seat at this "
                                          "table: a spectator posts under a name of its own",
                          "NAME_OF_A_SEAT")


def _check_seat(seat: int | None) -> int | None:
    if seat is not None and not 0 <= seat <= 3:
        raise err.invalid("seat", f"seat: {seat} is not a seat (0, 1, 2 or 3)")
    return seat


__all__ = ["REVIEWER", "TableApp"]
