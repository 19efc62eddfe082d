"""A stream's writes wait for its reader, for a bounded time.

grpc.aio's ``context.write()`` does not queue: it returns once the message has passed HTTP/2
flow control (the client's window) and the transport's previous socket write is done, so a
client that does not read makes it wait. What a stream holds meanwhile is the page of events its
app iterator read plus the message being written. What is bounded here is the wait: a write
that has waited STREAM_STALL_S ends the stream with RESOURCE_EXHAUSTED, so a reader that
stopped gives back its watcher and its spectator place. Every message written before still
reaches it, then that status; it reconnects from the last sequence it saw + 1.

The writes are timed by one watchdog per server rather than a timer per write: a write only
notes when it started, and a callback that runs every second while streams are open cancels
the writes that are late (a timer per write would cost several microseconds per message).
"""

from __future__ import annotations

import asyncio
import contextlib
import time

import grpc

from belote.app import errors as app_errors

STREAM_STALL_S = 20.0   # how long one message may wait for the client to read
CHECK_EVERY_S = 1.0     # how often late writes are looked for (so: 20 to 21 s)
STATUS_WAIT_S = 5.0     # how long the handler waits to hand its final status to the transport
READS_TOO_SLOWLY = "READS_TOO_SLOWLY"


def reads_too_slowly(stall_s: float) -> app_errors.AppError:
    return app_errors.AppError(
        READS_TOO_SLOWLY,
        f"the client read too slowly: a message waited {stall_s:g} s for it, so the server ended "
        "the stream; reconnect (WatchTable: with from_sequence = the last sequence seen + 1)")


class StreamWriter:
    """One stream's ``context.write()``, which the server's StallWatch may end."""

    __slots__ = ("context", "task", "since", "stalled")

    def __init__(self, context: grpc.aio.ServicerContext) -> None:
        self.context = context
        self.task = asyncio.current_task()
        self.since: float | None = None    # time.monotonic() when the pending write began
        self.stalled = False

    async def write(self, message) -> None:
        """``context.write(message)``, or RESOURCE_EXHAUSTED (READS_TOO_SLOWLY) if the client has
        not made room for it within STREAM_STALL_S."""
        self.since = time.monotonic()
        try:
            await self.context.write(message)
        except asyncio.CancelledError:
            if not self.stalled:
                raise                      # the client went away, or the server is stopping
            self.task.uncancel()
            raise reads_too_slowly(STREAM_STALL_S) from None
        except grpc.aio.InternalError:
            # The write's batch failed: the call is over, the client went away before grpc told
            # the handler so. As when grpc tells it first, the handler is cancelled (no bug).
            raise asyncio.CancelledError from None
        finally:
            self.since = None


class StallWatch:
    """The open streams of a server, and a check every CHECK_EVERY_S while there are some that
    cancels each write pending for STREAM_STALL_S or more."""

    def __init__(self) -> None:
        self._writers: set[StreamWriter] = set()
        self._check: asyncio.TimerHandle | None = None

    def open(self, context: grpc.aio.ServicerContext) -> StreamWriter:
        writer = StreamWriter(context)
        self._writers.add(writer)
        if self._check is None:
            self._check = asyncio.get_running_loop().call_later(CHECK_EVERY_S, self._end_late)
        return writer

    def close(self, writer: StreamWriter) -> None:
        self._writers.discard(writer)

    def _end_late(self) -> None:
        late = time.monotonic() - STREAM_STALL_S
        for writer in self._writers:
            if writer.since is not None and writer.since <= late and not writer.stalled:
                writer.stalled = True
                writer.task.cancel()
        self._check = None
        if self._writers:
            self._check = asyncio.get_running_loop().call_later(CHECK_EVERY_S, self._end_late)


async def end_with_status(context: grpc.aio.ServicerContext, status: grpc.Status) -> None:
    """Abort the stream with ``status``. Behind unread messages the status waits for the client
    too; once grpc holds it (it is delivered after them), the handler need not wait with it."""
    with contextlib.suppress(TimeoutError):
        async with asyncio.timeout(STATUS_WAIT_S):
            await context.abort_with_status(status)  # raises AbortError once the status is out
