"""An asyncio client of ``belote.v1.TableService`` (see proto/belote/v1/table_service.proto).

Two promises of the server make clients simple, and this module keeps both for you:

- every request that changes a table carries a ``request_id``; sending the same request again
  does nothing more and returns the first answer. So a call that fails with UNAVAILABLE or
  DEADLINE_EXCEEDED is sent again, *the same request with the same request id*, until it
  succeeds or :class:`RetryPolicy` gives up;
- a table's events are numbered 1, 2, 3... without gap. So a watch stream that breaks (the
  connection drops, the server restarts or ends the stream) is opened again from the last
  sequence seen + 1, and the caller sees every event exactly once, in order.

A seat's own stream also says when the table waits for it: the event after which it is to act
carries ``your_turn`` (its legal actions, the version to act at, the turn timer's deadline), so
a seat that watches needs no GetLegalActions during a game (:attr:`TableWatch.your_turn`).

Everything else is a thin, typed layer over the generated stubs: requests and replies are the
``belote.v1`` protobuf messages.
"""

from __future__ import annotations

import asyncio
import time
import uuid
from collections.abc import AsyncIterator, Sequence
from dataclasses import dataclass, field
from typing import Self

import grpc
from belote.v1 import cards_pb2, events_pb2, table_service_pb2_grpc
from belote.v1 import table_service_pb2 as pb

from .errors import BeloteError

__all__ = ["BeloteClient", "CreatedTable", "RetryPolicy", "Seat", "TableWatch", "new_request_id"]

Metadata = tuple[tuple[str, str], ...]


def new_request_id() -> str:
    """A fresh, unguessable request id, a random UUID (the server asks for one per request that
    changes a table, and refuses any other id; reuse it only to send the *same* request again)."""
    return uuid.uuid4().hex


def _bearer(token: str | None) -> Metadata | None:
    return (("authorization", f"Bearer {token}"),) if token else None


@dataclass(frozen=True)
class RetryPolicy:
    """When and how long the client insists.

    A unary call is sent at most ``attempts`` times, each try with a deadline of
    ``call_timeout`` seconds, pausing ``backoff`` seconds after the first failure and twice as
    long after each next one (at most ``max_backoff``). Only ``retry_codes`` are retried.

    A watch stream reconnects for as long as it keeps failing for less than ``give_up_after``
    seconds in a row (any event received starts the count again).
    """

    attempts: int = 6
    call_timeout: float = 10.0
    backoff: float = 0.1
    max_backoff: float = 2.0
    give_up_after: float = 60.0
    retry_codes: frozenset[grpc.StatusCode] = frozenset(
        {grpc.StatusCode.UNAVAILABLE, grpc.StatusCode.DEADLINE_EXCEEDED})
    #: The codes after which a watch stream is opened again (RESOURCE_EXHAUSTED: the reader fell
    #: too far behind, the server asks it to reconnect).
    watch_retry_codes: frozenset[grpc.StatusCode] = frozenset(
        {grpc.StatusCode.UNAVAILABLE, grpc.StatusCode.DEADLINE_EXCEEDED,
         grpc.StatusCode.RESOURCE_EXHAUSTED})

    def pause(self, failures: int) -> float:
        """Seconds to wait after the ``failures``-th failure in a row (1, 2, ...)."""
        return min(self.max_backoff, self.backoff * 2 ** max(0, failures - 1))


class BeloteClient:
    """A connection to one server. Use as ``async with BeloteClient(target) as client:``.

    ``target`` is ``host:port`` (insecure channel) unless ``channel`` is given. ``interceptors``
    are grpc.aio client interceptors (tests use them to inject failures).

    Methods that take a ``request_id`` generate a fresh one when it is None; pass your own to
    make a call idempotent across restarts of your program.
    """

    def __init__(self, target: str, *, retry: RetryPolicy | None = None,
                 channel: grpc.aio.Channel | None = None,
                 interceptors: Sequence[grpc.aio.ClientInterceptor] | None = None) -> None:
        self.target = target
        self.retry = retry or RetryPolicy()
        self._channel = channel or grpc.aio.insecure_channel(target, interceptors=interceptors)
        self.stub = table_service_pb2_grpc.TableServiceStub(self._channel)

    async def __aenter__(self) -> Self:
        return self

    async def __aexit__(self, *exc) -> None:
        await self.close()

    async def close(self) -> None:
        await self._channel.close()

    # -- the retry loop -------------------------------------------------------------------------

    async def call(self, rpc: str, request, token: str | None = None):
        """Send a unary ``rpc`` (e.g. "Act"), retrying the very same request (same request id)
        on the policy's retry codes. Raises :class:`BeloteError`."""
        method = getattr(self.stub, rpc, None)
        if method is None:  # stubs generated from an older contract
            raise BeloteError(grpc.StatusCode.UNIMPLEMENTED,
                              f"{rpc} is not in this client's belote.v1 stubs")
        failures = 0
        while True:
            try:
                return await method(request, metadata=_bearer(token),
                                    timeout=self.retry.call_timeout)
            except grpc.aio.AioRpcError as err:
                failures += 1
                if err.code() not in self.retry.retry_codes or failures >= self.retry.attempts:
                    raise BeloteError.from_rpc_error(err, attempts=failures) from err
            await asyncio.sleep(self.retry.pause(failures))

    # -- the lobby --------------------------------------------------------------------------------

    async def create_table(self, preset: str = "classic", options: dict[str, str] | None = None,
                           *, name: str = "", is_private: bool = False, password: str = "",
                           stake: int = 0,
                           takeover_bot_level: int = events_pb2.BOT_LEVEL_UNSPECIFIED,
                           request_id: str | None = None) -> CreatedTable:
        """Create a table (you become its host; you do not take a seat)."""
        reply = await self.call("CreateTable", pb.CreateTableRequest(
            preset=preset, options=dict(options or {}), name=name, is_private=is_private,
            password=password, stake=stake, takeover_bot_level=takeover_bot_level,
            request_id=request_id or new_request_id()))
        return CreatedTable(self, reply.table_id, reply.host_token, reply.table)

    async def list_tables(self, page_size: int = 0, *, limit: int | None = None) -> list[pb.TableSummary]:
        """Public tables waiting for players, newest first: page after page (``page_size`` tables
        each, 0 for the server's default) until the last, or until ``limit`` tables."""
        tables: list[pb.TableSummary] = []
        token = ""
        while limit is None or len(tables) < limit:
            reply = await self.call("ListTables", pb.ListTablesRequest(page_size=page_size, page_token=token))
            tables.extend(reply.tables)
            token = reply.next_page_token
            if not token:
                break
        return tables if limit is None else tables[:limit]

    async def join_table(self, table_id: str, display_name: str, *, seat: int | None = None,
                         password: str = "", reclaim_token: str | None = None,
                         request_id: str | None = None) -> Seat:
        """Take a seat (the lowest free one unless ``seat`` is given). With ``reclaim_token``
        (your old seat token), take back a seat a takeover bot plays for you."""
        request = pb.JoinTableRequest(table_id=table_id, display_name=display_name,
                                      password=password,
                                      request_id=request_id or new_request_id())
        if seat is not None:
            request.seat = seat
        reply = await self.call("JoinTable", request, reclaim_token)
        return Seat(self, table_id, reply.seat, reply.seat_token, reply.table)

    async def add_bot(self, table_id: str, token: str, level: int = events_pb2.BOT_LEVEL_NORMAL, *,
                      seat: int | None = None, request_id: str | None = None) -> int:
        """Seat a bot (``token``: the host token or a seat token of the table); its seat."""
        request = pb.AddBotRequest(table_id=table_id, level=level,
                                   request_id=request_id or new_request_id())
        if seat is not None:
            request.seat = seat
        return (await self.call("AddBot", request, token)).seat

    # -- one table ------------------------------------------------------------------------------

    async def get_table(self, table_id: str, token: str | None = None) -> pb.Table:
        """The table as ``token``'s seat sees it (no token: as a spectator)."""
        return await self.call("GetTable", pb.GetTableRequest(table_id=table_id), token)

    async def legal_actions(self, table_id: str, token: str) -> pb.GetLegalActionsResponse:
        """What the seat may do now (empty ``actions`` unless ``your_turn``). A seat that
        watches its table learns the same from its stream (:attr:`TableWatch.your_turn`)."""
        return await self.call("GetLegalActions", pb.GetLegalActionsRequest(table_id=table_id),
                               token)

    async def act(self, table_id: str, token: str, action: cards_pb2.Action, *,
                  expected_version: int | None = None,
                  request_id: str | None = None) -> pb.ActResponse:
        """Take one action (a bid, an announcement or a card) for the seat of ``token``.

        A refused action raises :class:`BeloteError` with the server's message, e.g.
        ``FAILED_PRECONDITION: you must follow hearts`` (reason ``MUST_FOLLOW_SUIT``)."""
        request = pb.ActRequest(table_id=table_id, action=action,
                                request_id=request_id or new_request_id())
        if expected_version is not None:
            request.expected_version = expected_version
        return await self.call("Act", request, token)

    async def leave_table(self, table_id: str, token: str, *,
                          request_id: str | None = None) -> pb.Table:
        """Leave the seat of ``token`` (a takeover bot plays it during a game)."""
        reply = await self.call("LeaveTable", pb.LeaveTableRequest(
            table_id=table_id, request_id=request_id or new_request_id()), token)
        return reply.table

    async def post_chat(self, table_id: str, text: str, token: str | None = None, *,
                        display_name: str = "", password: str = "",
                        request_id: str | None = None) -> events_pb2.TableEvent:
        """Post a chat message: as the seat of ``token``, or as a spectator named
        ``display_name`` without one. Returns the ChatPosted event every viewer receives (its
        ``spectator`` set for a spectator's: show it so, whatever the name)."""
        reply = await self.call("PostChat", pb.PostChatRequest(
            table_id=table_id, text=text, display_name=display_name, password=password,
            request_id=request_id or new_request_id()), token)
        return reply.event

    async def vote_rematch(self, table_id: str, token: str, *,
                           request_id: str | None = None) -> pb.Table:
        """Vote for a rematch once the game is over (every human must vote within 2 minutes).
        Returns the table as the seat sees it then."""
        reply = await self.call("VoteRematch", pb.VoteRematchRequest(
            table_id=table_id, request_id=request_id or new_request_id()), token)
        return reply.table

    def watch(self, table_id: str, token: str | None = None, from_sequence: int = 1) -> TableWatch:
        """The table's events from ``from_sequence`` on, as ``token``'s seat may see them,
        resumed across disconnections: ``async for event in client.watch(...)``."""
        return TableWatch(self, table_id, token, from_sequence)


class TableWatch:
    """An endless, resumed ``WatchTable`` stream: iterate it, break (or :meth:`close`) to stop.

    Every event is yielded exactly once and in order: after a broken stream (UNAVAILABLE,
    RESOURCE_EXHAUSTED, DEADLINE_EXCEEDED, or the server simply ending it) the stream is opened
    again from ``next_sequence`` (the last sequence yielded + 1), and any event below it that
    a server would send again is dropped. ``reconnects`` counts the reopenings. Other errors,
    and failing for longer than ``RetryPolicy.give_up_after``, raise :class:`BeloteError`.

    On a seat's stream, :attr:`your_turn` says whether the table waits for that seat after the
    last event yielded, and what it may do then.
    """

    def __init__(self, client: BeloteClient, table_id: str, token: str | None,
                 from_sequence: int = 1) -> None:
        self.client = client
        self.table_id = table_id
        self.token = token
        self.next_sequence = max(1, from_sequence)
        self.reconnects = 0
        #: The ``your_turn`` of the last event yielded (the seat is to act at its ``version``,
        #: with its ``actions``), or None when that event carried none: it is not the seat's
        #: turn. A reconnection that brings no new event leaves it: the table has not moved.
        self.your_turn: events_pb2.YourTurn | None = None
        self._call = None
        self._closed = False
        self._events: AsyncIterator[events_pb2.TableEvent] | None = None

    def __aiter__(self) -> AsyncIterator[events_pb2.TableEvent]:
        if self._events is None:
            self._events = self._run()
        return self._events

    async def __anext__(self) -> events_pb2.TableEvent:
        return await self.__aiter__().__anext__()

    async def close(self) -> None:
        """Stop: the stream is cancelled and iteration ends."""
        self._closed = True
        if self._call is not None:
            self._call.cancel()  # a reader waiting on the stream wakes up and ends
        if self._events is not None and not self._events.ag_running:
            await self._events.aclose()

    async def _run(self) -> AsyncIterator[events_pb2.TableEvent]:
        policy = self.client.retry
        failures = 0
        failing_since: float | None = None
        first = True
        while not self._closed:
            if not first:
                self.reconnects += 1
            first = False
            call = self._call = self.client.stub.WatchTable(
                pb.WatchTableRequest(table_id=self.table_id, from_sequence=self.next_sequence),
                metadata=_bearer(self.token))
            error: grpc.aio.AioRpcError | None = None
            try:
                async for event in call:
                    if event.sequence < self.next_sequence:
                        continue  # already yielded before a reconnection: never twice
                    self.next_sequence = event.sequence + 1
                    failures, failing_since = 0, None
                    self.your_turn = event.your_turn if event.HasField("your_turn") else None
                    yield event
            except grpc.aio.AioRpcError as err:
                if self._closed or err.code() == grpc.StatusCode.CANCELLED:
                    return
                if err.code() not in policy.watch_retry_codes:
                    raise BeloteError.from_rpc_error(err) from err
                error = err
            finally:
                call.cancel()
                self._call = None
            # The stream broke or ended: open it again after a pause, unless it fails too long.
            failures += 1
            now = time.monotonic()
            failing_since = failing_since or now
            if now - failing_since > policy.give_up_after:
                if error is not None:
                    raise BeloteError.from_rpc_error(error, attempts=failures) from error
                raise BeloteError(grpc.StatusCode.UNAVAILABLE,
                                  "the server keeps ending the watch stream", attempts=failures)
            await asyncio.sleep(policy.pause(failures))


@dataclass
class CreatedTable:
    """A table you created: its id and host token (a secret: it seats bots)."""

    client: BeloteClient
    table_id: str
    host_token: str
    table: pb.Table

    async def add_bot(self, level: int = events_pb2.BOT_LEVEL_NORMAL, *, seat: int | None = None,
                      request_id: str | None = None) -> int:
        return await self.client.add_bot(self.table_id, self.host_token, level, seat=seat,
                                         request_id=request_id)

    async def join(self, display_name: str, *, seat: int | None = None, password: str = "",
                   request_id: str | None = None) -> Seat:
        return await self.client.join_table(self.table_id, display_name, seat=seat,
                                            password=password, request_id=request_id)


@dataclass
class Seat:
    """A seat you hold: the table, your seat number and your seat token (a secret)."""

    client: BeloteClient
    table_id: str
    seat: int
    token: str
    table: pb.Table = field(repr=False, default_factory=pb.Table)

    async def view(self) -> pb.Table:
        """The table as your seat sees it (your hand included)."""
        return await self.client.get_table(self.table_id, self.token)

    async def legal_actions(self) -> pb.GetLegalActionsResponse:
        return await self.client.legal_actions(self.table_id, self.token)

    async def act(self, action: cards_pb2.Action, *, expected_version: int | None = None,
                  request_id: str | None = None) -> pb.ActResponse:
        return await self.client.act(self.table_id, self.token, action,
                                     expected_version=expected_version, request_id=request_id)

    async def add_bot(self, level: int = events_pb2.BOT_LEVEL_NORMAL, *, seat: int | None = None,
                      request_id: str | None = None) -> int:
        return await self.client.add_bot(self.table_id, self.token, level, seat=seat,
                                         request_id=request_id)

    async def leave(self, *, request_id: str | None = None) -> pb.Table:
        return await self.client.leave_table(self.table_id, self.token, request_id=request_id)

    async def post_chat(self, text: str, *, request_id: str | None = None):
        return await self.client.post_chat(self.table_id, text, self.token, request_id=request_id)

    async def vote_rematch(self, *, request_id: str | None = None) -> pb.Table:
        return await self.client.vote_rematch(self.table_id, self.token, request_id=request_id)

    def watch(self, from_sequence: int = 1) -> TableWatch:
        return self.client.watch(self.table_id, self.token, from_sequence)
