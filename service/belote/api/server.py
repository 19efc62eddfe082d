"""The gRPC server: TableService, health checking and reflection on one port.

``start()`` binds and starts a server around an opened app (the CLI's ``demo`` embeds one);
``serve()`` is ``belote serve``: open the app, start, wait for SIGTERM/SIGINT, stop gracefully.
"""

from __future__ import annotations

import asyncio
import contextlib
import signal
import sys
from dataclasses import dataclass, field

import grpc
import structlog
from grpc_health.v1 import health_pb2, health_pb2_grpc
from grpc_health.v1.health import aio as health_aio
from grpc_reflection.v1alpha import reflection

from belote.v1 import table_service_pb2, table_service_pb2_grpc

from .servicer import TableServicer

SERVICE_NAME = table_service_pb2.DESCRIPTOR.services_by_name["TableService"].full_name
SERVING = health_pb2.HealthCheckResponse.SERVING

log = structlog.get_logger("belote.server")


class BindError(RuntimeError):
    """The listen address could not be bound."""


@dataclass
class RunningServer:
    server: grpc.aio.Server
    app: object  # TableApp (or a test double with the same methods)
    health: health_aio.HealthServicer
    host: str
    port: int
    _resume: asyncio.Task | None = field(default=None, repr=False)

    @property
    def address(self) -> str:
        return f"{self.host}:{self.port}"

    async def stop(self, grace: float | None = 5.0) -> None:
        """Graceful stop: NOT_SERVING, end watch streams, let in-flight calls finish, close the app."""
        await self.health.enter_graceful_shutdown()
        self.app.shutdown()  # watch streams return cleanly; clients resume from sequence + 1
        await self.server.stop(grace)
        if self._resume is not None and not self._resume.done():
            self._resume.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._resume
        await self.app.close()


def _split_host(listen: str) -> str:
    host, sep, _ = listen.rpartition(":")
    if not sep or not host:
        raise BindError(f"--listen must be HOST:PORT, got {listen!r}")
    return host


async def start(listen: str, app) -> RunningServer:
    """Bind `listen` (port 0: any free port), start serving `app`, then let bots resume."""
    host = _split_host(listen)
    server = grpc.aio.server()
    table_service_pb2_grpc.add_TableServiceServicer_to_server(TableServicer(app), server)
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
    running = RunningServer(server=server, app=app, health=health, host=host, port=port)
    # The app is open (serve() opened it before start), so both names are SERVING now.
    await health.set("", SERVING)
    await health.set(SERVICE_NAME, SERVING)
    running._resume = asyncio.create_task(_resume_bots(app))
    return running


async def _resume_bots(app) -> None:
    # In the background: tables whose bots were interrupted (crash, restart) finish their moves
    # while the server already answers; a failure here must not take the server down.
    try:
        await app.resume()
    except asyncio.CancelledError:
        raise
    except Exception:
        log.exception("resuming bots failed")


async def serve(listen: str, store_url: str, reviewer_token: str | None = None, *,
                grace: float = 5.0) -> int:
    """``belote serve``: run until SIGTERM or SIGINT, then stop gracefully. Returns the exit code."""
    from belote.app.tables import TableApp  # the app pulls in the store and the rules

    app = await TableApp.open(store_url, reviewer_token=reviewer_token)
    try:
        running = await start(listen, app)
    except BaseException:
        await app.close()
        raise
    # Tests and scripts read the port from this line (it matters with port 0).
    print(f"listening on {running.address}", flush=True)
    log.info("serving", address=running.address)

    stopping = asyncio.Event()
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGTERM, signal.SIGINT):
        loop.add_signal_handler(sig, stopping.set)
    await stopping.wait()
    log.info("stopping", grace_seconds=grace)
    await running.stop(grace)
    log.info("stopped")
    sys.stdout.flush()
    return 0
