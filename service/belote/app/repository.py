"""Logs read as folds, and the one retry loop that appends to them (like pyeventsourcing's
``Repository``).

A :class:`Repository` keeps the fold of each log it has read (a small LRU cache, checked against
the log's version on every load: only newer events are read) and appends with the expected
version: ``execute(log_id, request_key, decide, expected)`` decides on the current state,
appends, and on a version conflict reads again and decides again, at most RETRIES times. What a
log's events are, and how they fold, is its model's business: :class:`TableLogs` for the tables
(with a tail of the events this process appended, which the watchers read), the ledgers' own
for chips and ratings (app/ledgers.py).
"""

from __future__ import annotations

import inspect
import itertools
import time
from collections import OrderedDict, deque
from collections.abc import Callable

import structlog

from belote import observability as metrics
from belote.rules import IllegalAction
from belote.store import NewEvent, RequestReused, StoreUnavailable, VersionConflict
from belote.table.codec import decode_stored, encode_body, event_type
from belote.table.decide import Refused
from belote.table.state import TableState, evolve
from belote.v1 import events_pb2 as epb

from . import errors as err
from .lobby import index_entry, index_key
from .requests import RequestKey, reused

log = structlog.get_logger("belote.app")

CACHE_TABLES = 4096
RETRIES = 8
TAIL_EVENTS = 64
STREAM_PAGE = 64       # events a stream reads from the store at a time: all it holds while it waits
# Refusals of the decider that are not FAILED_PRECONDITION.


def origin(request: str | RequestKey) -> tuple[str, bytes]:
    """(rpc, fingerprint) of a client's request; a move of the server's own has neither."""
    return (request.rpc, request.fingerprint) if isinstance(request, RequestKey) else ("", b"")


def store_unavailable(e: StoreUnavailable) -> err.AppError:
    return err.AppError("STORE_UNAVAILABLE", "the store cannot be reached")


def _raise_unavailable(model, e: StoreUnavailable):
    """The model's error for a store that cannot be reached (None: the store's own)."""
    failure = model.unavailable(e)
    if failure is None:
        raise e
    raise failure from e


class TableLogs:
    """The model of a table's log: TableEvents folded by ``evolve`` into a TableState."""

    tail_events = TAIL_EVENTS
    metered = True            # its appends' time and conflicts are the store metrics'
    unavailable = staticmethod(store_unavailable)

    @staticmethod
    def initial(log_id: str) -> TableState:
        return TableState(log_id)

    @staticmethod
    def holds(log_id: str) -> bool:
        return ":" not in log_id       # a ledger's log ("player:...", "ratings:..."), not a table

    @staticmethod
    def version(state: TableState) -> int:
        return state.version

    @staticmethod
    def fold(state: TableState, new: list) -> TableState:
        started = time.perf_counter()
        state = state.copy()
        for stored in new:
            evolve(state, decode_stored(stored))
        metrics.FOLD_SECONDS.observe(time.perf_counter() - started)
        return state

    decode = staticmethod(decode_stored)

    @staticmethod
    def stamp(state: TableState, events: list[epb.TableEvent], log_id: str,
              now_us: int) -> TableState:
        """The events numbered, addressed and timed; the state they lead to."""
        new_state = state.copy()
        for i, event in enumerate(events, start=state.version + 1):
            event.sequence = i
            event.table_id = log_id
            event.append_time.FromMicroseconds(now_us)
            evolve(new_state, event)
        return new_state

    @staticmethod
    def to_store(events: list[epb.TableEvent]) -> list[NewEvent]:
        return [NewEvent(event_type(e), encode_body(e)) for e in events]

    @staticmethod
    def append_options(state: TableState, new_state: TableState) -> dict:
        # Most cards change nothing the lobby lists.
        index = index_entry(new_state) if not state.exists or \
            index_key(new_state) != index_key(state) else None
        return {"index": index}

    @staticmethod
    def too_busy() -> Exception:
        return err.aborted("the table is too busy right now: retry with the same request_id")


class Repository:
    """The folds of the logs of one model, cached by version, and the appends to them."""

    def __init__(self, store, model, clock: Callable[[], int], *, cache_size: int = CACHE_TABLES,
                 appended=None) -> None:
        self.store, self.model, self.clock = store, model, clock
        self.cache_size = cache_size
        # ``appended(log_id, events, state)``: awaited after each append of this process.
        self._appended = appended
        self._states: OrderedDict[str, object] = OrderedDict()
        self._tails: dict[str, deque] = {}     # last events this process appended

    def cached_version(self, log_id: str) -> int | None:
        """The version of the log this process last saw (None: not cached)."""
        state = self._states.get(log_id)
        return None if state is None else self.model.version(state)

    def cached(self, log_id: str):
        """The state this process holds (maybe behind the log), or None."""
        return self._states.get(log_id)

    async def load(self, log_id: str):
        """The log's state at its current version (callers must not mutate it)."""
        model = self.model
        if not model.holds(log_id):
            return model.initial(log_id)
        state = self._states.get(log_id)
        try:
            new = await self.store.events.read(log_id, after_sequence=model.version(state) if state else 0)
        except StoreUnavailable as e:
            _raise_unavailable(model, e)
        if new:
            state = model.fold(state if state is not None else model.initial(log_id), new)
            self._remember(log_id, state)
        elif state is None:
            state = model.initial(log_id)
        else:
            self._states.move_to_end(log_id)
        return state

    def _remember(self, log_id: str, state) -> None:
        self._states[log_id] = state
        self._states.move_to_end(log_id)
        while len(self._states) > self.cache_size:
            evicted, _ = self._states.popitem(last=False)
            self._tails.pop(evicted, None)

    async def events_after(self, table_id: str, seen: int, upto: int) -> list[epb.TableEvent]:
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
        return [decode_stored(s) for s in await self.page(table_id, seen, upto)]

    async def page(self, table_id: str, seen: int, upto: int) -> list:
        """Stored events ``seen``+1.. up to ``upto``, at most STREAM_PAGE of them."""
        return await self.store.events.read(table_id, after_sequence=seen, limit=min(STREAM_PAGE, upto - seen))

    async def recorded(self, table_id: str, request: str | RequestKey):
        """The events this very request appended (a retry), or None; REQUEST_ID_REUSED if its
        id was used for another request."""
        rpc, fingerprint = origin(request)
        try:
            return await self.store.events.request_events(table_id, str(request), rpc=rpc,
                                                   fingerprint=fingerprint)
        except RequestReused as reuse:
            raise reused(reuse.rpc) from None

    async def execute(self, log_id: str, request_key: str | RequestKey,
                      decide: Callable[[object], list],
                      expected: int | None = None, *,
                      loaded=None, at_us: int | None = None) -> tuple[list, object]:
        """Decide and append with optimistic concurrency; re-decide on a conflict. ``decide``:
        the events of a command on a state (maybe awaitable; none: nothing is written).
        ``loaded``: the state the caller has, used for the first try; it may be behind the log
        (a cached one), so a conflict reloads, and so does a refusal if the log has moved past
        it. ``at_us``: the time a timed command was decided at, stamped on its events, so the
        log shows the very time its deadline was judged by (a vote just in time stays in
        time). ``request_key``: a client's RequestKey, or the name of the server's own move
        ("bot-12"). Returns the events appended (or recorded before, for a retry) and the
        state after them."""
        model = self.model
        request, request_id = request_key, str(request_key)
        rpc, fingerprint = origin(request)
        lost_a_race = False      # an append of ours met a newer log: the table changed meanwhile
        for attempt in range(RETRIES):
            state, cached = (loaded, True) if attempt == 0 and loaded is not None \
                else (await self.load(log_id), False)
            try:
                if expected is not None and model.version(state) != expected:
                    raise Refused("VERSION_CONFLICT", f"the table is at version {model.version(state)}, "
                                                      f"not {expected}")
                events = decide(state)
                if inspect.isawaitable(events):          # a decision that must look elsewhere first
                    events = await events
            except (Refused, IllegalAction) as e:
                if cached and model.version(await self.load(log_id)) != model.version(state):
                    continue             # judged on a state the log has moved past: judge again
                earlier = await self.recorded(log_id, request)
                if earlier is not None:
                    return [model.decode(s) for s in earlier], await self.load(log_id)
                if e.reason == "VERSION_CONFLICT":
                    raise err.aborted(e.message) from None
                if lost_a_race:
                    raise err.aborted(f"the table changed while your request was handled: {e.message}",
                                      "TABLE_CHANGED") from None
                raise err.AppError(e.reason, e.message) from None
            if not events:
                return [], state
            now_us = self.clock() if at_us is None else at_us
            new_state = model.stamp(state, events, log_id, now_us)
            options = model.append_options(state, new_state)
            started = time.perf_counter()
            try:
                result = await self.store.events.append(log_id, model.version(state), model.to_store(events),
                                                 request_id=request_id, recorded_at_us=now_us,
                                                 rpc=rpc, fingerprint=fingerprint, **options)
            except RequestReused as reuse:
                raise reused(reuse.rpc) from None
            except VersionConflict:
                # A cached state may have been behind before the command came: only a fresh
                # one shows that the table changed while the command was handled.
                lost_a_race = lost_a_race or not cached
                if model.metered:
                    metrics.APPEND_CONFLICTS.inc()
                if expected is not None:
                    raise err.aborted("the table changed: your expected_version is stale") from None
                if model.metered:
                    log.info("conflict retried", table_id=log_id, request_id=request_id, attempt=attempt + 1)
                continue
            except StoreUnavailable as e:
                _raise_unavailable(model, e)
            if model.metered:
                metrics.STORE_APPEND_SECONDS.observe(time.perf_counter() - started)
            if result.duplicate:
                return [model.decode(s) for s in result.events], await self.load(log_id)
            # As the store will give them back (the envelope is complete). No await before
            # the tail is extended: the watchers the append woke read it next.
            if new_state is not None:
                self._remember(log_id, new_state)
            if model.tail_events:
                self._tails.setdefault(log_id, deque(maxlen=model.tail_events)).extend(events)
            if self._appended is not None:
                await self._appended(log_id, events, new_state)
            return events, new_state
        raise model.too_busy()


async def existing_table(tables: Repository, table_id: str) -> TableState:
    """The table's state; INVALID_ARGUMENT without an id, NOT_FOUND for a table never created."""
    if not table_id:
        raise err.invalid("table_id", "table_id: required")
    state = await tables.load(table_id)
    if not state.exists:
        raise err.not_found(f"no table {table_id!r}")
    return state
