"""TableService over grpc.aio: read the bearer token, call the app, turn errors into statuses.

Each RPC is one line of delegation to the app's commands (mapped from the request by
api/commands.py); everything about the game is the app's business.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Awaitable, Callable
from typing import TypeVar

import grpc

from belote.app import errors as app_errors
from belote.app.requests import Caller
from belote.v1 import table_service_pb2_grpc

from .backpressure import StallWatch, end_with_status
from .callers import NO_PROXIES, TrustedProxies, caller_host
from .commands import proto_tables
from .errors import status_for

T = TypeVar("T")


def bearer_token(context: grpc.aio.ServicerContext) -> str | None:
    """The token of an ``authorization: Bearer <token>`` metadata entry; None when absent.

    A present but malformed entry is refused rather than ignored: a client that sent
    credentials must not silently be treated as a spectator.
    """
    for key, value in context.invocation_metadata() or ():
        if key.lower() != "authorization":
            continue
        scheme, _, token = str(value).strip().partition(" ")
        token = token.strip()
        if scheme.lower() != "bearer" or not token:
            raise app_errors.unauthenticated("authorization must be 'Bearer <token>'")
        return token
    return None


def player_token(context: grpc.aio.ServicerContext) -> str | None:
    """The registered player's JWT of an ``x-player-token`` metadata entry; None when absent."""
    for key, value in context.invocation_metadata() or ():
        if key.lower() == "x-player-token":
            return str(value).strip() or None
    return None


def peer_host(context: grpc.aio.ServicerContext,
              trusted: TrustedProxies = NO_PROXIES) -> str:
    """The caller's network address without its port ("ipv4:10.0.0.5:53211" -> "10.0.0.5"):
    what per-caller quotas, lockouts and anonymous callers' request keys are counted by. A
    reconnect from the same host keeps it; "" when grpc does not say (in-process transports).
    Behind a `trusted` proxy, the client's address it forwards (api/callers.py): the web port's
    context gives its direct peer and HTTP headers the same way, so one rule serves both ports."""
    peer = context.peer() or ""
    scheme, _, rest = peer.partition(":")
    if scheme in ("ipv4", "ipv6"):
        host, _, _port = rest.rpartition(":")
        peer = host.strip("[]") or rest
    # else unix:/path, or another transport's own form: never a trusted proxy
    return caller_host(peer, context.invocation_metadata() or (), trusted)


def caller_of(context: grpc.aio.ServicerContext, token: str | None,
              trusted: TrustedProxies = NO_PROXIES) -> Caller:
    """Who sends the request, as its request ids are scoped: token, player or peer host."""
    return Caller(token, player_token(context), peer_host(context, trusted))


async def _unary(context: grpc.aio.ServicerContext, rpc: str,
                 call: Callable[[str | None], Awaitable[T]]) -> T:
    try:
        return await call(bearer_token(context))
    except Exception as exc:  # an AppError or a bug: status_for() decides which status
        await context.abort_with_status(status_for(exc, rpc))  # raises
        raise


async def _write_stream(context: grpc.aio.ServicerContext, rpc: str,
                        open_stream: Callable[[str | None], AsyncIterator],
                        stalls: StallWatch) -> None:
    """Write the app's stream with context.write() rather than being an async generator: grpc
    then keeps no reference to the last message of a stream that waits (thousands of idle
    streams hold a few KB less each), and no generator stands between grpc and the app's.
    Each write waits for the client to read, within a bound (see backpressure)."""
    items, writer = None, stalls.open(context)
    try:
        items = open_stream(bearer_token(context))
        async for item in items:
            await writer.write(item)
            item = None  # noqa: F841 - not held while the app's stream waits for the next one
    except Exception as exc:  # noqa: BLE001 - as in _unary
        failed = status_for(exc, rpc)
    else:
        return
    finally:
        stalls.close(writer)
        # Close the app's iterator now (client gone or error) so its watcher is released at
        # once, before a status that may wait behind messages the client has not read.
        if items is not None:
            await items.aclose()
    await end_with_status(context, failed)


class TableServicer(table_service_pb2_grpc.TableServiceServicer):
    def __init__(self, app, trusted_proxies: TrustedProxies = NO_PROXIES) -> None:
        self._app = proto_tables(app)
        self._stalls = StallWatch()
        self._trusted = trusted_proxies

    def _caller(self, context: grpc.aio.ServicerContext, token: str | None) -> Caller:
        return caller_of(context, token, self._trusted)

    async def CreateTable(self, request, context):
        return await _unary(context, "CreateTable",
                            lambda t: self._app.create_table(request, player_token(context),
                                                             caller=self._caller(context, t)))

    async def ListTables(self, request, context):
        return await _unary(context, "ListTables", lambda _: self._app.list_tables(request))

    async def JoinTable(self, request, context):
        # The bearer token matters only to reclaim a seat left to a takeover bot.
        return await _unary(context, "JoinTable",
                            lambda t: self._app.join_table(request, t, player_token(context),
                                                           caller=self._caller(context, t)))

    async def AddBot(self, request, context):
        return await _unary(context, "AddBot",
                            lambda t: self._app.add_bot(request, t, caller=self._caller(context, t)))

    async def LeaveTable(self, request, context):
        return await _unary(context, "LeaveTable",
                            lambda t: self._app.leave_table(request, t, caller=self._caller(context, t)))

    async def GetLegalActions(self, request, context):
        return await _unary(context, "GetLegalActions",
                            lambda t: self._app.get_legal_actions(request, t))

    async def Act(self, request, context):
        return await _unary(context, "Act",
                            lambda t: self._app.act(request, t, caller=self._caller(context, t)))

    async def GetTable(self, request, context):
        return await _unary(context, "GetTable",
                            lambda t: self._app.get_table(request, t, caller=self._caller(context, t)))

    async def PostChat(self, request, context):
        return await _unary(context, "PostChat",
                            lambda t: self._app.post_chat(request, t, caller=self._caller(context, t)))

    async def VoteRematch(self, request, context):
        return await _unary(context, "VoteRematch",
                            lambda t: self._app.vote_rematch(request, t, caller=self._caller(context, t)))

    async def GetBalance(self, request, context):
        return await _unary(context, "GetBalance",
                            lambda _: self._app.get_balance(request, player_token(context)))

    async def GetLeaderboard(self, request, context):
        return await _unary(context, "GetLeaderboard",
                            lambda _: self._app.get_leaderboard(request, player_token(context)))

    async def QuickPlay(self, request, context):
        from belote.app.quickplay import quick_play_of

        return await _unary(context, "QuickPlay", lambda t: quick_play_of(self._app).quick_play(
            request, player_token(context), caller=self._caller(context, t)))

    async def WatchTable(self, request, context):
        await _write_stream(context, "WatchTable",
                            lambda t: self._app.watch_table(request, t, caller=self._caller(context, t)),
                            self._stalls)

    async def ExportLog(self, request, context):
        await _write_stream(context, "ExportLog", lambda t: self._app.export_log(request, t),
                            self._stalls)

    async def GetExportKey(self, request, context):
        return await _unary(context, "GetExportKey", lambda _: self._app.get_export_key(request))
