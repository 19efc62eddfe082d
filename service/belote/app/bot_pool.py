"""Bot decisions off the event loop: a pool of worker processes, fair across tables.

A decision is a pure function of (level, seat view, seed, version) (``belote.bots.choose``): a
worker process gets those, pickled, and sends back the action, so no search runs on the loop
that serves every RPC and stream, and the cores share the thinking. What a worker returns is
what the same call returns in the server's own process, so the review recomputes it.

- Fair: each table has its own queue and the tables are served in turn (round-robin), so a
  table with a backlog delays another by at most one decision per turn of the tables.
- A decision whose turn has moved on (``version_of(table_id)``, the table's version this process
  knows, is no longer what it was when asked) is dropped before it runs and before its action
  is returned: the caller gets :class:`StaleTurn`.
- A worker that dies is replaced and its decision retried (ATTEMPTS in all).
- ``drain(grace)`` lets the decisions running finish for at most ``grace`` seconds and drops
  the queued ones; ``close()`` then ends the workers.
- The workers run at a lower priority (WORKER_NICENESS): the loop stays responsive when the
  bots have every core busy.
- ``workers=0`` decides in the caller, on the loop (tests, the demo).
"""

from __future__ import annotations

import asyncio
import multiprocessing
import os
import pickle
import signal
import time
from collections import OrderedDict, deque
from collections.abc import Callable
from dataclasses import dataclass, field

import structlog

from belote import bots
from belote import observability as metrics
from belote.v1 import events_pb2 as epb

from . import errors as err

ATTEMPTS = 3           # a decision whose worker died is tried this many times in all
STOP_S = 1.0           # a worker asked to stop is killed after this long
# With every core thinking, the loop that answers the calls and streams comes first.
WORKER_NICENESS = 10

log = structlog.get_logger("belote.bot_pool")


class StaleTurn(err.AppError):
    """The table moved on while its bot's decision waited or ran: nobody wants it."""

    def __init__(self, table_id: str):
        super().__init__("TURN_MOVED_ON",
                         f"table {table_id} moved on before its bot decided")


class BotPoolClosed(err.AppError):
    """The server is shutting down: no more bot decisions here."""

    def __init__(self):
        super().__init__("SHUTTING_DOWN", "the server is shutting down")


class BotWorkerLost(err.AppError):
    """Every worker that took this decision died: it is given up (the caller may ask again)."""

    def __init__(self, table_id: str):
        super().__init__("BOT_WORKER_LOST",
                         f"the bot of table {table_id} could not decide: its workers died")


def default_workers() -> int:
    """The number of cores this process may run on."""
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:       # not on every platform
        return os.cpu_count() or 1


def _level_name(level: int) -> str:
    return epb.BotLevel.Name(level).removeprefix("BOT_LEVEL_").lower() if level in epb.BotLevel.values() else str(level)


def _decide_timed(decide, payload) -> tuple[bool, object, float]:
    started = time.perf_counter()
    try:
        return True, decide(*payload), time.perf_counter() - started
    except Exception as e:  # noqa: BLE001 - the caller gets the bot's own error
        return False, e, time.perf_counter() - started


def _work(conn, decide) -> None:
    """A worker process: decide what it is sent until its pipe closes."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)   # Ctrl-C stops the server, which stops us
    os.nice(WORKER_NICENESS)
    while True:
        try:
            payload = conn.recv()
        except (EOFError, OSError):
            return
        ok, result, seconds = _decide_timed(decide, payload)
        try:
            try:
                conn.send((ok, result, seconds))
            except (pickle.PicklingError, TypeError, AttributeError):   # an error that won't pickle
                conn.send((False, RuntimeError(repr(result)), seconds))
        except OSError:
            return                      # the server closed its end: it wants no answer


class _Worker:
    """One worker process and the parent's end of its pipe."""

    def __init__(self, context, decide):
        self.conn, child = context.Pipe()
        self.process = context.Process(target=_work, args=(child, decide), name="belote-bot",
                                       daemon=True)
        self.process.start()
        child.close()

    async def ask(self, payload) -> tuple[bool, object, float]:
        """Send one decision, wait for its answer; EOFError/OSError if the worker died."""
        loop = asyncio.get_running_loop()
        self.conn.send(payload)          # a view is small: the pipe takes it at once
        readable = loop.create_future()
        fd = self.conn.fileno()
        loop.add_reader(fd, lambda: readable.done() or readable.set_result(None))
        try:
            await readable
        finally:
            loop.remove_reader(fd)
        return self.conn.recv()

    async def stop(self) -> None:
        self.conn.close()                 # the worker's recv ends: it returns
        await asyncio.to_thread(self.process.join, STOP_S)
        if self.process.is_alive():
            self.process.kill()
            await asyncio.to_thread(self.process.join, STOP_S)


@dataclass(eq=False)
class _Decision:
    table_id: str
    level: int
    payload: tuple                   # (level, view, seed, version)
    future: asyncio.Future
    asked_version: object            # version_of(table_id) when asked
    asked_at: float = field(default_factory=time.perf_counter)
    attempts: int = 0


class BotPool:
    def __init__(self, workers: int | None = None, *,
                 version_of: Callable[[str], object] | None = None,
                 decide: Callable = bots.choose):
        """``workers``: processes (None: one per core; 0: decide in the caller).
        ``version_of(table_id)``: the table's version this process knows (None: unknown), read
        when a decision is asked and again before it runs and before it is returned.
        ``decide(level, view, seed, version)``: a module-level function (it is pickled)."""
        self.workers = default_workers() if workers is None else workers
        self.version_of = version_of
        self.decide = decide
        self.restarts = 0                # workers replaced after they died
        self._context = multiprocessing.get_context("spawn")   # never fork the server's threads
        self._processes: list[_Worker] = []
        self._slots: list[asyncio.Task] = []
        self._tables: OrderedDict[str, deque[_Decision]] = OrderedDict()
        self._queued = asyncio.Event()
        self._running: set[_Decision] = set()
        self._closing = False

    def worker_pids(self) -> list[int]:
        return [w.process.pid for w in self._processes]

    def start(self) -> None:
        """Start the workers now (else at the first decision)."""
        if self._slots or not self.workers:
            return
        self._processes = [_Worker(self._context, self.decide) for _ in range(self.workers)]
        self._slots = [asyncio.get_running_loop().create_task(self._serve(i))
                       for i in range(self.workers)]

    async def choose(self, table_id: str, level: int, view, seed: int):
        """The action of the bot of ``level`` from its seat's view; raises StaleTurn if the
        table moves on first, BotPoolClosed once shutting down."""
        if self._closing:
            raise BotPoolClosed()
        payload = (level, view, seed, bots.current_version(level))
        if not self.workers:
            ok, result, seconds = _decide_timed(self.decide, payload)
            metrics.BOT_DECISION_SECONDS.labels(_level_name(level)).observe(seconds)
            if not ok:
                raise result
            return result
        self.start()
        decision = _Decision(table_id, level, payload, asyncio.get_running_loop().create_future(),
                             self._version(table_id))
        self._tables.setdefault(table_id, deque()).append(decision)
        metrics.BOT_QUEUE_LENGTH.labels(_level_name(level)).inc()
        self._queued.set()
        return await decision.future

    def _version(self, table_id: str):
        return self.version_of(table_id) if self.version_of else None

    def _stale(self, decision: _Decision) -> bool:
        return self._version(decision.table_id) != decision.asked_version

    def queued(self) -> int:
        return sum(len(q) for q in self._tables.values())

    def _pop(self) -> _Decision | None:
        """The next decision: the head of the first table's queue, that table going last."""
        while self._tables:
            table_id, queue = next(iter(self._tables.items()))
            decision = queue.popleft()
            if queue:
                self._tables.move_to_end(table_id)
            else:
                del self._tables[table_id]
            level = _level_name(decision.level)
            metrics.BOT_QUEUE_LENGTH.labels(level).dec()
            if decision.future.done():          # the caller gave up (cancelled)
                continue
            if self._stale(decision):
                decision.future.set_exception(StaleTurn(decision.table_id))
                continue
            metrics.BOT_QUEUE_WAIT_SECONDS.labels(level).observe(time.perf_counter() - decision.asked_at)
            return decision
        return None

    def _retry(self, decision: _Decision) -> None:
        """Back at the head of its table's queue, that table first: its turn is owed."""
        self._tables.setdefault(decision.table_id, deque()).appendleft(decision)
        self._tables.move_to_end(decision.table_id, last=False)
        metrics.BOT_QUEUE_LENGTH.labels(_level_name(decision.level)).inc()
        self._queued.set()

    async def _serve(self, slot: int) -> None:
        while True:
            decision = self._pop()
            if decision is None:
                self._queued.clear()
                await self._queued.wait()
                continue
            self._running.add(decision)
            try:
                await self._run(slot, decision)
            except Exception as e:  # noqa: BLE001 - an answer that does not unpickle, say
                log.exception("bot decision failed", table_id=decision.table_id)
                self._replace(slot, e)            # what the worker holds now is unknown
                if not decision.future.done():
                    decision.future.set_exception(e)
            finally:
                self._running.discard(decision)

    async def _run(self, slot: int, decision: _Decision) -> None:
        try:
            ok, result, seconds = await self._processes[slot].ask(decision.payload)
        except (EOFError, OSError) as e:
            self._replace(slot, e)
            decision.attempts += 1
            if decision.future.done():
                return
            if decision.attempts >= ATTEMPTS:
                decision.future.set_exception(BotWorkerLost(decision.table_id))
            else:
                self._retry(decision)
            return
        metrics.BOT_DECISION_SECONDS.labels(_level_name(decision.level)).observe(seconds)
        if decision.future.done():
            return
        if self._stale(decision):
            decision.future.set_exception(StaleTurn(decision.table_id))
        elif ok:
            decision.future.set_result(result)
        else:
            decision.future.set_exception(result)

    def _replace(self, slot: int, error: BaseException) -> None:
        dead = self._processes[slot]
        dead.conn.close()
        dead.process.join(0)             # reap it if it is gone (it died: no wait)
        log.warning("bot worker died; replaced", pid=dead.process.pid,
                    exitcode=dead.process.exitcode, error=repr(error))
        self._processes[slot] = _Worker(self._context, self.decide)
        self.restarts += 1
        metrics.BOT_WORKER_RESTARTS.inc()

    def _drop_queued(self) -> None:
        for queue in self._tables.values():
            for decision in queue:
                metrics.BOT_QUEUE_LENGTH.labels(_level_name(decision.level)).dec()
                if not decision.future.done():
                    decision.future.set_exception(BotPoolClosed())
        self._tables.clear()

    async def drain(self, grace: float) -> None:
        """Shutting down: take no more decisions, drop the queued ones, and give the running
        ones at most ``grace`` seconds to finish."""
        self._closing = True
        self._drop_queued()
        running = [d.future for d in self._running if not d.future.done()]
        if running and grace > 0:
            await asyncio.wait(running, timeout=grace)

    async def close(self) -> None:
        """End the workers (a decision still running is dropped: BotPoolClosed)."""
        self._closing = True
        self._drop_queued()
        running = list(self._running)
        for task in self._slots:
            task.cancel()
        await asyncio.gather(*self._slots, return_exceptions=True)
        for decision in running:
            if not decision.future.done():
                decision.future.set_exception(BotPoolClosed())
        await asyncio.gather(*(w.stop() for w in self._processes))
        self._slots, self._processes = [], []
