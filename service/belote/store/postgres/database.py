"""The PostgreSQL store's connections, which its parts share: a pool, the news of appends
between replicas, and outages.

Other replicas learn of an append by ``NOTIFY belote_events, '<table_id>:<sequence>'``, sent
after the commit by a background task, in batches (one statement for all the tables appended
to meanwhile, with synchronous_commit off). Not inside the append's transaction: PostgreSQL
serializes the commits of notifying transactions, WAL flush included. The price: a replica
that dies between its commit and its NOTIFY sends none, and the other replicas' waiters see the
event at their next poll. One LISTEN connection wakes the local waiters; when it comes back
after a loss, every waiter reads its table's version again.

Outages: a lost connection or an unreachable server is StoreUnavailable. Once one is seen,
calls fail fast while a background task reconnects every <= 1 s; then the pool is replaced by
a fresh one and waiters are woken. A call that fails on a dead connection is sent again on
another one (an append recognises its own events if its first try committed: see events.py).
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Awaitable, Callable, Coroutine
from typing import Any, TypeVar

import psycopg
import psycopg.conninfo
import psycopg.errors
import psycopg_pool
import structlog

from ..base import StoreConfigError, StoreUnavailable
from ..waiters import Waiters
from .schema import migrate

T = TypeVar("T")

log = structlog.get_logger("belote.store.postgres")

CHANNEL = "belote_events"
CONNECT_TIMEOUT_S = 3
POOL_MIN_SIZE = 2
POOL_MAX_SIZE = 10
POOL_TIMEOUT_S = 5.0  # how long a call waits for a free pooled connection
RECONNECT_DELAYS = (0.05, 0.1, 0.2, 0.5, 1.0)  # then every 1 s
OWN_REMEMBERED = 100_000  # tables whose last own append's notification is still to come back
# One statement notifies a batch; synchronous_commit off: nothing to flush to disk for it.
_NOTIFY_MANY = ("SELECT pg_notify(%s, p) FROM"
                " (SELECT set_config('synchronous_commit', 'off', true)) AS c,"
                " unnest(%s::text[]) AS p")


def _conninfo(url: str) -> str:
    """The URL with our defaults for what it does not set itself."""
    try:
        params = psycopg.conninfo.conninfo_to_dict(url)
    except psycopg.ProgrammingError as e:
        raise StoreConfigError(f"bad PostgreSQL URL: {e}") from None
    params.setdefault("connect_timeout", CONNECT_TIMEOUT_S)
    params.setdefault("application_name", "belote")
    # Notice a peer that vanished without closing the socket within ~20 s.
    params.setdefault("keepalives", 1)
    params.setdefault("keepalives_idle", 10)
    params.setdefault("keepalives_interval", 5)
    params.setdefault("keepalives_count", 2)
    return psycopg.conninfo.make_conninfo("", **params)


async def _configure(conn: psycopg.AsyncConnection) -> None:
    # A replica frozen inside a transaction must not hold a table's head lock forever.
    await conn.execute("SET idle_in_transaction_session_timeout = '15s'")


def oneline(e: BaseException) -> str:
    text = str(e).strip().splitlines()
    return text[0] if text else type(e).__name__


class PostgresDatabase:
    """The server a store uses: `run` a call on a pooled connection, `appended` tells the
    waiters here and the other replicas of an append."""

    waiters: Waiters  # set by the store, once its event log made them

    def __init__(self, url: str, *, pool_min_size: int = POOL_MIN_SIZE,
                 pool_max_size: int = POOL_MAX_SIZE, pool_timeout: float = POOL_TIMEOUT_S):
        """Check the URL, connect once and migrate the schema (blocking, meant for startup).
        The pool and the LISTEN connection open on first use."""
        self.url = url
        self._conninfo = _conninfo(url)
        self._pool_min_size, self._pool_max_size = pool_min_size, pool_max_size
        self._pool_timeout = pool_timeout
        self.closed = False
        self._down = False  # an outage was seen: fail fast until _recover reconnects
        self._down_reason = ""
        self._pool: psycopg_pool.AsyncConnectionPool | None = None
        self._started = False
        self._start_lock = asyncio.Lock()
        self._tasks: set[asyncio.Task[Any]] = set()  # background: listener, recovery, old pools
        self._listener: asyncio.Task[None] | None = None
        self._notifier: asyncio.Task[None] | None = None
        self._to_notify: dict[str, int] = {}  # table -> last sequence appended, not yet sent
        self._notify_signal = asyncio.Event()
        self._recovery: asyncio.Task[None] | None = None
        # table -> last sequence this store appended and woke locally: its own notification,
        # when it comes back, need not wake anyone again.
        self._own: dict[str, int] = {}
        try:
            migrate(self._conninfo)
        except psycopg.OperationalError as e:
            raise StoreUnavailable(f"cannot reach PostgreSQL: {oneline(e)}") from e
        except psycopg.Error as e:
            raise StoreConfigError(f"cannot migrate the PostgreSQL schema: {oneline(e)}") from e

    async def _get_pool(self) -> psycopg_pool.AsyncConnectionPool:
        if self.closed:
            raise StoreUnavailable("the store is closed")
        if not self._started:
            async with self._start_lock:
                if self.closed:
                    raise StoreUnavailable("the store is closed")
                if not self._started:
                    self._pool = await self._new_pool()
                    self._listener = self._spawn(self._listen())
                    self._notifier = self._spawn(self._notify_loop())
                    self._started = True
        if self._pool is None:  # dropped in an outage: _recover opens the next one
            raise StoreUnavailable(f"PostgreSQL is unreachable: {self._down_reason}")
        return self._pool

    async def _new_pool(self) -> psycopg_pool.AsyncConnectionPool:
        pool = psycopg_pool.AsyncConnectionPool(
            self._conninfo, open=False, kwargs={"autocommit": True}, configure=_configure,
            name="belote", min_size=self._pool_min_size, max_size=self._pool_max_size,
            timeout=self._pool_timeout)
        await pool.open(wait=False)
        return pool

    def _spawn(self, coro: Coroutine[Any, Any, Any]) -> asyncio.Task[Any]:
        task = asyncio.get_running_loop().create_task(coro)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)
        return task

    async def run(self, fn: Callable[[psycopg.AsyncConnection], Awaitable[T]], *,
                   retried: list[bool] | None = None) -> T:
        """fn(conn) on a pooled connection, with psycopg's errors mapped to the store's.

        A connection found dead (or a transaction the server rolled back) is tried again on
        another connection; `retried`, if given, is set to [True] when that happened.
        """
        # Dead pooled connections fail at once: after a server restart the pool may hold
        # several, so a call may try (and discard) up to one per pooled connection.
        attempts = self._pool_max_size + 1
        for attempt in range(attempts):
            if self._down:
                raise StoreUnavailable(f"PostgreSQL is unreachable: {self._down_reason}")
            pool = await self._get_pool()
            try:
                conn = await pool.getconn()
            except psycopg_pool.PoolClosed as e:
                if self.closed:
                    raise StoreUnavailable("the store is closed") from e
                continue  # replaced by _recover meanwhile
            except psycopg_pool.PoolTimeout as e:
                # Down, or only overloaded: _recover tells (and fails calls fast if down).
                self._mark_down("no connection available", fail_fast=False)
                raise StoreUnavailable(f"PostgreSQL is unreachable: {oneline(e)}") from e
            try:
                if attempt and retried is not None:
                    retried[:] = [True]
                return await fn(conn)
            except (psycopg.OperationalError, psycopg.InterfaceError) as e:
                dead = conn.closed
                again = dead or isinstance(e, psycopg.errors.TransactionRollback)
                if again and attempt + 1 < attempts:
                    continue  # e.g. a connection the server closed while it sat in the pool
                if dead:
                    self._mark_down(oneline(e))
                raise StoreUnavailable(f"PostgreSQL: {oneline(e)}") from e
            except psycopg.DataError as e:  # e.g. a NUL character in a text value
                raise ValueError(str(e)) from e
            except psycopg.DatabaseError as e:
                if isinstance(e, (psycopg.ProgrammingError, psycopg.IntegrityError)):
                    raise  # our bug / handled by the caller
                raise StoreUnavailable(f"PostgreSQL: {oneline(e)}") from e  # read-only, ...
            finally:
                await pool.putconn(conn)
        raise StoreUnavailable("PostgreSQL: no working connection")

    def _mark_down(self, reason: str, *, fail_fast: bool = True) -> None:
        """An outage was seen: start _recover. `fail_fast`: calls fail at once meanwhile
        (else only once _recover's first attempt fails too)."""
        if self.closed:
            return
        if fail_fast:
            self._set_down(reason)
        if self._recovery is None or self._recovery.done():
            self._recovery = self._spawn(self._recover())

    def _set_down(self, reason: str) -> None:
        self._down_reason = reason
        if self._down:
            return
        log.warning("postgresql unreachable", reason=reason)
        self._down = True
        # Drop the pool now: its connections are dead, and its own reconnection attempts
        # would only fill the log. _recover opens a fresh one when the server answers.
        old, self._pool = self._pool, None
        if old is not None:  # in-flight calls end; their connections close on return
            self._spawn(old.close(timeout=5))
        self.waiters.wake_all()  # they read their table again, and hear of the outage

    async def _recover(self) -> None:
        """Reconnect until the server answers; then a fresh pool, and wake every waiter."""
        attempt = 0
        while not self.closed:
            try:
                async with await psycopg.AsyncConnection.connect(
                        self._conninfo, autocommit=True) as conn:
                    await conn.execute("SELECT 1")
            except (psycopg.Error, OSError) as e:
                self._set_down(oneline(e))
                await asyncio.sleep(RECONNECT_DELAYS[min(attempt, len(RECONNECT_DELAYS) - 1)])
                attempt += 1
                continue
            # The old pool's connections may all be dead (a restarted server): replace them
            # at once rather than meeting them one failed call at a time.
            new = await self._new_pool()
            if self.closed:
                await new.close(timeout=5)
                return
            old, self._pool = self._pool, new
            if old is not None:  # in-flight calls finish; their connections close on return
                self._spawn(old.close(timeout=5))
            if self._down:
                log.info("postgresql reachable again")
            self._down = False
            self.waiters.wake_all()
            return

    async def _listen(self) -> None:
        """Keep one LISTEN connection; turn notifications into local wake-ups."""
        attempt = 0
        while not self.closed:
            try:
                async with await psycopg.AsyncConnection.connect(
                        self._conninfo, autocommit=True) as conn:
                    await conn.execute(f"LISTEN {CHANNEL}")
                    self._own.clear()  # notifications sent while not listening are gone
                    attempt = 0
                    # Anything appended while not listening: waiters re-read the log.
                    self.waiters.wake_all()
                    async for note in conn.notifies():
                        self._notified(note.payload)
            except (psycopg.Error, OSError) as e:
                if self.closed:
                    return
                # Maybe the server went away (or restarted): check, and fail fast if so;
                # when it answers, the pool is replaced.
                self._mark_down(f"lost the LISTEN connection: {oneline(e)}", fail_fast=False)
            except Exception:  # a bug: log it, and keep listening
                log.exception("postgresql listener failed")
            await asyncio.sleep(RECONNECT_DELAYS[min(attempt, len(RECONNECT_DELAYS) - 1)])
            attempt += 1

    def _announce(self, table_id: str, sequence: int) -> None:
        if sequence > self._to_notify.get(table_id, 0):
            self._to_notify[table_id] = sequence
        self._notify_signal.set()

    async def _notify_loop(self) -> None:
        """NOTIFY the other replicas of our appends, a batch per round trip."""
        while not self.closed:
            await self._notify_signal.wait()
            self._notify_signal.clear()
            await self._send_notifications()

    async def _send_notifications(self) -> None:
        batch, self._to_notify = self._to_notify, {}
        if not batch:
            return
        payloads = [f"{table_id}:{sequence}" for table_id, sequence in batch.items()]
        try:
            await self.run(lambda conn: conn.execute(_NOTIFY_MANY, (CHANNEL, payloads)))
        except StoreUnavailable:
            pass  # lost: the waiters elsewhere re-check by themselves, and on reconnecting
        except Exception:  # a bug: log it, and keep notifying
            log.exception("postgresql notify failed")

    def _notified(self, payload: str) -> None:
        table_id, _, seq = payload.rpartition(":")
        try:
            sequence = int(seq)
        except ValueError:
            return
        own = self._own.get(table_id)
        if own is not None and sequence <= own:
            if sequence == own:
                del self._own[table_id]
            return  # our own append: its waiters were woken at commit
        self.waiters.wake(table_id, sequence)

    def appended(self, table_id: str, last: int) -> None:
        """This store appended up to `last`: wake the waiters here, and tell the replicas."""
        if len(self._own) >= OWN_REMEMBERED:
            self._own.clear()
        self._own[table_id] = last  # its notification need not wake anyone again
        self.waiters.wake(table_id, last)
        self._announce(table_id, last)

    @property
    def healthy(self) -> bool:
        """False while an outage is known (calls fail fast until the server answers)."""
        return not self._down and not self.closed

    async def close(self) -> None:
        if self.closed:
            return
        if self._to_notify and self._pool is not None and not self._down:
            with contextlib.suppress(TimeoutError):  # best effort: the last appends' news
                await asyncio.wait_for(self._send_notifications(), 1.0)
        self.closed = True
        await self.waiters.close()  # waiters re-check and get StoreUnavailable
        for task in (self._listener, self._recovery, self._notifier):
            if task is not None:
                task.cancel()
        pool, self._pool = self._pool, None
        if pool is not None:
            await pool.close(timeout=5)
        # The listener, the recovery and any old pool still closing.
        await asyncio.gather(*self._tasks, return_exceptions=True)
