"""The gRPC server: TableService, health checking and reflection on one port.

``start()`` binds and starts a server around an opened app (the CLI's ``demo`` embeds one);
``serve()`` is ``belote serve``: open the app, start, wait for SIGTERM/SIGINT, stop gracefully.
"""

from __future__ import annotations

import asyncio
import contextlib
import gc
import secrets
import signal
import sys
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

import grpc
import structlog
from grpc_health.v1 import health_pb2, health_pb2_grpc
from grpc_health.v1.health import aio as health_aio
from grpc_reflection.v1alpha import reflection

from belote.app.server_key import derive
from belote.v1 import table_service_pb2, table_service_pb2_grpc

from .callers import NO_PROXIES, TrustedProxies
from .measured import MeasuredServer
from .servicer import TableServicer

if TYPE_CHECKING:  # api/web_limits.py imports uvicorn, which only a web port needs
    from .web_limits import WebLimits

SERVICE_NAME = table_service_pb2.DESCRIPTOR.services_by_name["TableService"].full_name
# Liveness: this process answers (NOT_SERVING only once it shuts down), whatever the store does.
# A probe that restarts the process asks this name: one that followed the store would restart
# every replica at once during a database outage, which a restart does not cure.
LIVENESS = "liveness"
# Readiness: the whole server and the game service follow the store (send no calls here while
# it is down).
READINESS_NAMES = ("", SERVICE_NAME)
SERVING = health_pb2.HealthCheckResponse.SERVING
NOT_SERVING = health_pb2.HealthCheckResponse.NOT_SERVING
STORE_CHECK_S = 2.0  # how often readiness follows the store (NOT_SERVING while it is down)

log = structlog.get_logger("belote.server")


class BindError(RuntimeError):
    """A listen address could not be bound."""


@dataclass
class RunningServer:
    server: grpc.aio.Server
    app: object  # TableApp (or a test double with the same methods)
    health: health_aio.HealthServicer
    host: str
    port: int
    web: object | None = None  # api.web.WebServer, when the web port is served
    _tasks: list[asyncio.Task] = field(default_factory=list, repr=False)

    @property
    def address(self) -> str:
        return f"{self.host}:{self.port}"

    async def stop(self, grace: float | None = 5.0) -> None:
        """Graceful stop: NOT_SERVING, end watch streams, let in-flight calls finish, close the app."""
        await self.health.enter_graceful_shutdown()
        self.app.shutdown()  # watch streams return cleanly; clients resume from sequence + 1
        if self.web is not None:
            await self.web.stop()
        # Bot decisions running may finish (and their moves be appended) within the grace too.
        pool = getattr(self.app, "bot_pool", None)
        await asyncio.gather(self.server.stop(grace),
                             pool.drain(grace or 0) if pool else asyncio.sleep(0))
        for task in self._tasks:
            task.cancel()
        for task in self._tasks:
            with contextlib.suppress(asyncio.CancelledError):
                await task
        await self.app.close()


def split_address(listen: str) -> tuple[str, int]:
    host, sep, port = listen.rpartition(":")
    if not sep or not host or not port.isdigit():
        raise BindError(f"listen address must be HOST:PORT, got {listen!r}")
    return host, int(port)


async def start(listen: str, app, *, store_check_s: float = STORE_CHECK_S,
                web_listen: str | None = None, web_origins: tuple[str, ...] = (),
                grace: float = 5.0, trusted_proxies: TrustedProxies = NO_PROXIES,
                web_limits: WebLimits | None = None) -> RunningServer:
    """Bind `listen` (port 0: any free port), start serving `app` (and the web port on
    `web_listen`, when given), then let bots resume. Both ports believe the forwarded client
    addresses of `trusted_proxies` only (api/callers.py)."""
    host, _ = split_address(listen)
    if web_listen:
        split_address(web_listen)
    # grpc sets SO_REUSEPORT by default: a second server on a busy port would start and silently
    # share it. One port, one server.
    # A stand-in app of a test may have no key: its log hashes get one of their own.
    log_key = derive(getattr(app, "server_key", None) or secrets.token_bytes(32), "log-hash")
    server = MeasuredServer(grpc.aio.server(options=[("grpc.so_reuseport", 0)]), log_key)
    servicer = TableServicer(app, trusted_proxies)  # the web port calls it too
    table_service_pb2_grpc.add_TableServiceServicer_to_server(servicer, server)
    health = health_aio.HealthServicer()
    health_pb2_grpc.add_HealthServicer_to_server(health, server)
    reflection.enable_server_reflection(
        (SERVICE_NAME, health_pb2.DESCRIPTOR.services_by_name["Health"].full_name,
         reflection.SERVICE_NAME),
        server)
    try:
        port = server.add_insecure_port(listen)
    except RuntimeError as exc:  # grpc raises RuntimeError("Failed to bind ...")
        raise BindError(f"cannot listen on {listen}: {exc}") from None
    if port == 0:  # older grpc versions report a failed bind this way
        raise BindError(f"cannot listen on {listen}")
    await server.start()
    web = None
    if web_listen:
        from .web import start_web
        from .web_limits import DEFAULT_LIMITS

        web_host, web_port = split_address(web_listen)
        try:
            web = await start_web(web_host, web_port, servicer, log_key, origins=web_origins,
                                  grace=grace, limits=web_limits or DEFAULT_LIMITS)
        except OSError as exc:
            await server.stop(0)
            raise BindError(f"cannot serve the web port on {web_listen}: {exc}") from None
    # The app is open (its store answered), so every name is SERVING from the start.
    for name in (LIVENESS, *READINESS_NAMES):
        await health.set(name, SERVING)
    running = RunningServer(server=server, app=app, health=health, host=host, port=port, web=web)
    running._tasks += [asyncio.create_task(_resume_bots(app)),
                       asyncio.create_task(_watch_store(app, health, store_check_s))]
    return running


async def _resume_bots(app) -> None:
    # In the background: tables whose bots were interrupted (crash, restart) finish their moves
    # while the server already answers; a failure here must not take the server down.
    try:
        await app.resume()
    except Exception:
        log.exception("resuming bots failed")


async def _watch_store(app, health, every_s: float) -> None:
    """Readiness follows the store: NOT_SERVING while it cannot be reached (and the store
    gauges). Liveness does not."""
    check = getattr(app, "refresh_gauges", None) or app.ready
    serving = True
    while True:
        try:
            ok = await check()
        except Exception:
            log.exception("store check failed")
            ok = False
        if ok != serving:
            serving = ok
            log.warning("store reachable" if ok else "store unreachable")
            for name in READINESS_NAMES:
                await health.set(name, SERVING if ok else NOT_SERVING)
        await asyncio.sleep(every_s)


def start_metrics(listen: str) -> str:
    """Serve Prometheus metrics on http://<listen>/metrics (a thread); returns HOST:PORT bound."""
    from belote.observability import start_metrics_server

    host, port = split_address(listen)
    try:
        _, bound = start_metrics_server(host.strip("[]"), port)
    except OSError as exc:
        raise BindError(f"cannot serve metrics on {listen}: {exc}") from None
    return f"{host}:{bound}"


# Young collections every 50,000 allocations instead of 700: a server allocates protobuf messages
# and asyncio handles by the million and frees nearly all of them by reference counting, so the
# frequent collections found little and added pauses to the tail latencies (docs/performance.md).
GC_THRESHOLDS = (50_000, 50, 1000)


def tune_garbage_collection() -> None:
    """Freeze what startup made (modules, descriptors: never garbage) out of every collection,
    then collect less often."""
    gc.collect()
    gc.freeze()
    gc.set_threshold(*GC_THRESHOLDS)


def on_stop_signals(loop: asyncio.AbstractEventLoop, stop: Callable[[], None]) -> None:
    """Call ``stop`` on the loop at SIGTERM or SIGINT.

    Not loop.add_signal_handler: asyncio hears of the signal through one byte in its self-pipe,
    and a loop busy while threads queue thousands of callbacks (the store's commits) lets that
    pipe fill, and the byte is lost (a server was seen ignoring its SIGTERM so). A Python handler
    runs in the main thread whatever the pipe holds."""
    def handler(signum, frame) -> None:
        loop.call_soon_threadsafe(stop)

    for sig in (signal.SIGTERM, signal.SIGINT):
        signal.signal(sig, handler)


async def serve(listen: str, store_url: str, reviewer_token: str | None = None, *,
                disconnect_grace: float = 60.0, tables_per_minute: int | None = None,
                spectators_per_caller: int | None = None,
                key_file: str | None = None,
                grace: float = 5.0, metrics_listen: str | None = None,
                web_listen: str | None = None, web_origins: tuple[str, ...] = (),
                quick_play_wait: float | None = None, quick_play_seats: int | None = None,
                bot_workers: int | None = None,
                trusted_proxies: TrustedProxies = NO_PROXIES,
                web_limits: WebLimits | None = None) -> int:
    """``belote serve``: run until SIGTERM or SIGINT, then stop gracefully. Returns the exit code.
    ``bot_workers``: processes the bots decide in (None: one per core)."""
    from belote.app.bot_pool import default_workers
    from belote.app.export_signing import key_text, public_key
    from belote.app.server_key import load_server_key
    from belote.app.tables import TableApp  # the app pulls in the store and the rules

    split_address(listen)  # a malformed address fails before the store is opened
    server_key = load_server_key(key_file, store_url)
    app = await TableApp.open(store_url, reviewer_token=reviewer_token,
                              disconnect_grace_s=disconnect_grace,
                              tables_per_minute=tables_per_minute, server_key=server_key,
                              spectators_per_caller=spectators_per_caller,
                              bot_workers=default_workers() if bot_workers is None else bot_workers)
    if quick_play_wait is not None or quick_play_seats is not None:
        from belote.app.quickplay import quick_play_of

        from .commands import proto_tables

        quick_play_of(proto_tables(app), quick_play_wait, quick_play_seats)
    try:
        running = await start(listen, app, web_listen=web_listen, web_origins=web_origins,
                              grace=grace, trusted_proxies=trusted_proxies,
                              web_limits=web_limits)
    except BaseException:
        await app.close()
        raise
    app.bot_pool.start()
    tune_garbage_collection()
    # Tests and scripts read the port from this line (it matters with port 0).
    print(f"listening on {running.address}", flush=True)
    # A reviewer checks exports with it (`belote replay --key`); GetExportKey serves it too.
    print(f"export key: {key_text(public_key(server_key))}", flush=True)
    log.info("serving", address=running.address)
    if running.web is not None:
        print(f"web on {running.web.url}", flush=True)
    if metrics_listen:
        try:
            metrics_address = start_metrics(metrics_listen)
        except BindError:
            await running.stop(0)
            raise
        print(f"metrics on http://{metrics_address}/metrics", flush=True)

    stopping = asyncio.Event()
    on_stop_signals(asyncio.get_running_loop(), stopping.set)
    await stopping.wait()
    log.info("stopping", grace_seconds=grace)
    await running.stop(grace)
    log.info("stopped")
    sys.stdout.flush()
    return 0
