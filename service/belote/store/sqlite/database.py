"""The SQLite store's connections, which its parts share.

One writer connection owned by a single-thread executor (it runs jobs one at a time in
submission order, so it serializes writes exactly like a lock would, and commits stay off the
event loop), and one reader connection used right on the event loop's thread (an indexed read
of a WAL file takes microseconds and never waits for the writer).
"""

from __future__ import annotations

import asyncio
import contextlib
import sqlite3
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any, TypeVar

from ..base import StoreUnavailable
from .schema import migrate

T = TypeVar("T")

BUSY_TIMEOUT_MS = 5000
READER_CACHE_KB = 256


def _connect(path: str, *, writer: bool) -> sqlite3.Connection:
    # isolation_level=None: no implicit transactions, we BEGIN/COMMIT ourselves.
    # The reader is used on the event loop's thread (see read), the writer on its own thread.
    c = sqlite3.connect(path, isolation_level=None, timeout=BUSY_TIMEOUT_MS / 1000,
                        check_same_thread=writer)
    try:
        c.execute(f"PRAGMA busy_timeout = {BUSY_TIMEOUT_MS}")
        if writer:
            c.execute("PRAGMA journal_mode = WAL")  # persistent in the file
        # No fsync per commit. With WAL this cannot corrupt the file; a power
        # loss (not a process crash) may lose the last commits.
        c.execute("PRAGMA synchronous = NORMAL")
        if not writer:
            c.execute("PRAGMA query_only = ON")
            # Every commit of the writer empties the reader's page cache: a large one buys
            # nothing (the default is 2 MB).
            c.execute(f"PRAGMA cache_size = -{READER_CACHE_KB}")
    except BaseException:
        c.close()
        raise
    return c


class SqliteDatabase:
    """The open database file: `write` runs on the writer's thread, `read` right here."""

    writer_conn: sqlite3.Connection
    reader_conn: sqlite3.Connection

    def __init__(self, path: str | Path) -> None:
        """Open (creating the file and its directory if needed) and migrate (blocking)."""
        self.path = str(path)
        self.closed = False
        self.writer = ThreadPoolExecutor(1, thread_name_prefix="store-sqlite-writer")
        self._opened: list[sqlite3.Connection] = []
        try:
            Path(self.path).parent.mkdir(parents=True, exist_ok=True)
            self.writer_conn = self.writer.submit(_connect, self.path, writer=True).result()
            self._opened.append(self.writer_conn)
            self.writer.submit(migrate, self.writer_conn).result()
            self.reader_conn = _connect(self.path, writer=False)
            self._opened.append(self.reader_conn)
        except BaseException as e:
            self.shutdown()
            if isinstance(e, (OSError, sqlite3.DatabaseError)):
                raise StoreUnavailable(f"cannot open sqlite database {self.path!r}: {e}") from e
            raise

    @contextlib.contextmanager
    def errors(self) -> Iterator[None]:
        """StoreUnavailable for the database's state (locked, I/O error, disk full, corrupt...);
        our own bugs (ProgrammingError, InterfaceError) go through as they are."""
        if self.closed:
            raise StoreUnavailable("the store is closed")
        try:
            yield
        except (sqlite3.ProgrammingError, sqlite3.InterfaceError):
            raise
        except sqlite3.DatabaseError as e:
            raise StoreUnavailable(f"sqlite: {e}") from e

    async def write(self, fn: Callable[[sqlite3.Connection], T]) -> T:
        """fn(writer connection), on the writer's thread."""
        with self.errors():
            return await asyncio.get_running_loop().run_in_executor(
                self.writer, lambda: fn(self.writer_conn))

    async def read(self, fn: Callable[..., T], *args: Any) -> T:
        """fn(reader connection, *args) right here, on the event loop's thread: an indexed read
        of a WAL file takes microseconds and never waits for the writer, far less than a hop to
        a thread and back."""
        with self.errors():
            return fn(self.reader_conn, *args)

    def shutdown(self) -> None:
        """Close both connections, after the writer's queued jobs (blocking)."""
        for c in self._opened:
            if c is self._opened[0]:
                self.writer.submit(c.close).result()
            else:
                c.close()
        self._opened = []
        self.writer.shutdown(wait=True)


def write_transaction(c: sqlite3.Connection, fn: Callable[[sqlite3.Connection], T]) -> T:
    """fn(c) inside BEGIN IMMEDIATE ... COMMIT (other processes on the file wait their turn)."""
    c.execute("BEGIN IMMEDIATE")
    try:
        result = fn(c)
        c.execute("COMMIT")
        return result
    except BaseException:
        if c.in_transaction:
            c.execute("ROLLBACK")
        raise
