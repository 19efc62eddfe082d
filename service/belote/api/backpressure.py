"""A stream's writes wait for its reader, for a bounded time.

grpc.aio's ``context.write()`` does not queue: it returns once the message has passed HTTP/2
flow control (the client's window) and the transport's previous socket write is done, so a
client that does not read makes it wait. What a stream holds meanwhile is the page of events its
app iterator read plus the message being written. What is bounded here is the wait: a write
that has waited STREAM_STALL_S ends the stream with RESOURCE_EXHAUSTED, so a reader that
stopped gives back its watcher and its spectator place. Every message written before still
reaches it, then that status; it reconnects from the last sequence it saw + 1.
"""

from __future__ import annotations

import asyncio
import contextlib

import grpc

from belote.app import errors as app_errors

STREAM_STALL_S = 20.0   # how long one message may wait for the client to read
STATUS_WAIT_S = 5.0     # how long the handler waits to hand its final status to the transport
READS_TOO_SLOWLY = "READS_TOO_SLOWLY"


def reads_too_slowly(stall_s: float) -> app_errors.AppError:
    return app_errors.AppError(
        app_errors.RESOURCE_EXHAUSTED, READS_TOO_SLOWLY,
        f"the client read too slowly: a message waited {stall_s:g} s for it, so the server ended "
        "the stream; reconnect (WatchTable: with from_sequence = the last sequence seen + 1)")


async def write_in_time(context: grpc.aio.ServicerContext, message) -> None:
    """``context.write(message)``, or RESOURCE_EXHAUSTED (READS_TOO_SLOWLY) if the client has not
    made room for it within STREAM_STALL_S."""
    stall_s = STREAM_STALL_S
    try:
        async with asyncio.timeout(stall_s):
            await context.write(message)
    except TimeoutError:
        raise reads_too_slowly(stall_s) from None
    except grpc.aio.InternalError:
        # The write's batch failed: the call is over, the client went away before grpc told the
        # handler so. As when grpc tells it first, the handler is cancelled (not a server bug).
        raise asyncio.CancelledError from None


async def end_with_status(context: grpc.aio.ServicerContext, status: grpc.Status) -> None:
    """Abort the stream with ``status``. Behind unread messages the status waits for the client
    too; once grpc holds it (it is delivered after them), the handler need not wait with it."""
    with contextlib.suppress(TimeoutError):
        async with asyncio.timeout(STATUS_WAIT_S):
            await context.abort_with_status(status)  # raises AbortError once the status is out
