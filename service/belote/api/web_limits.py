"""How long the web port waits for a slow client, and how many it holds at once.

uvicorn has two of these bounds itself, and they are used as they are: ``timeout_keep_alive``
closes a kept-alive connection idle between requests, and ``limit_concurrency`` answers 503 to
a request over the connection cap (and closes it). It has no deadline for a request's head nor
for its body: a client sending a byte now and then would hold its connection, and a place
under the cap, forever. ``DeadlinedH11Protocol`` adds those two deadlines to uvicorn's h11
protocol, no more: it closes a connection whose request head, or request body, has not arrived
in full within its time. The response is never timed: WatchTable's is a stream that lasts.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass
from typing import Any, ClassVar

import h11
import structlog
from uvicorn.protocols.http.h11_impl import H11Protocol

log = structlog.get_logger("belote.web")


@dataclass(frozen=True)
class WebLimits:
    """`belote serve --web-header-timeout / --web-body-timeout / --web-keepalive-timeout /
    --web-max-connections` (their help and docs/api.md say why these defaults)."""

    header_timeout_s: float = 10.0
    body_timeout_s: float = 30.0
    keepalive_timeout_s: float = 5.0
    max_connections: int = 1000

    def uvicorn_options(self) -> dict[str, Any]:
        """The options of uvicorn.Config that enforce these limits."""
        return {"http": protocol_class(self), "timeout_keep_alive": self.keepalive_timeout_s,
                # uvicorn counts the connection asking among the open ones and refuses at
                # `>= limit_concurrency`: one more lets exactly max_connections be served.
                "limit_concurrency": self.max_connections + 1}


DEFAULT_LIMITS = WebLimits()


class DeadlinedH11Protocol(H11Protocol):
    """uvicorn's h11 protocol with a deadline on each request's head and on its body.

    The head's deadline starts when the connection opens, or with the first byte of the next
    request on a kept-alive one (before that byte, uvicorn's keep-alive timeout applies); the
    body's starts when its head is whole. Neither is pushed back by bytes that keep trickling.
    """

    limits: ClassVar[WebLimits] = DEFAULT_LIMITS
    _timer: asyncio.TimerHandle | None = None
    _timing: str = ""       # what the timer is the deadline of: "head", "body" or nothing
    _served: bool = False   # a response was sent on this connection

    def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
        super().connection_made(transport)
        self._follow()

    def data_received(self, data: bytes) -> None:
        super().data_received(data)
        self._follow()

    def on_response_complete(self) -> None:
        self._served = True
        super().on_response_complete()
        self._follow()

    def connection_lost(self, exc: Exception | None) -> None:
        self._arm("")
        super().connection_lost(exc)

    def _unsupported_upgrade_warning(self) -> None:
        """An Upgrade request is served as plain HTTP (the web port has no websockets), quietly:
        uvicorn would log two warnings, one advising to install a websocket library."""

    def _follow(self) -> None:
        """Arm the deadline of what the client is sending now (h11 knows), or none."""
        if self.transport.is_closing():
            self._arm("")
            return
        state = self.conn.their_state
        if state is h11.IDLE:
            # Idle between two requests is the keep-alive timeout's; a part of a head is not.
            waiting = not self._served or bool(self.conn.trailing_data[0])
            self._arm("head" if waiting else "")
        elif state is h11.SEND_BODY:
            self._arm("body")
        else:  # the request is whole (or the connection is done): its response is not timed
            self._arm("")

    def _arm(self, timing: str) -> None:
        if timing == self._timing:
            return  # a deadline, not a silence: more bytes do not push it back
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None
        self._timing = timing
        if timing:
            seconds = (self.limits.header_timeout_s if timing == "head"
                       else self.limits.body_timeout_s)
            self._timer = self.loop.call_later(seconds, self._expire)

    def _expire(self) -> None:
        timing, self._timer, self._timing = self._timing, None, ""
        if not self.transport.is_closing():
            log.info("web request too slow, connection closed", part=timing,
                     client=f"{self.client[0]}:{self.client[1]}" if self.client else "")
            self.transport.close()


def protocol_class(limits: WebLimits) -> type[H11Protocol]:
    """The protocol of one web server, with its limits (uvicorn makes one per connection)."""
    class Deadlined(DeadlinedH11Protocol):
        pass
    Deadlined.limits = limits
    return Deadlined
