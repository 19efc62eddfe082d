"""Metrics and logs: every Prometheus metric the service exposes, the HTTP endpoint that serves
them, and the structlog set-up.

No label holds a table id, a player or anything unbounded: only RPC names, status codes, event
types and bot levels.
"""

from __future__ import annotations

import logging
import socket
import sys
import threading
from socketserver import ThreadingMixIn
from wsgiref.simple_server import WSGIRequestHandler, WSGIServer, make_server

import structlog
from prometheus_client import Counter, Gauge, Histogram, disable_created_metrics, make_wsgi_app

# No `<name>_created` series beside every counter and histogram: a timestamp per label set that
# no rule or dashboard reads.
disable_created_metrics()

METRICS_PATH = "/metrics"

RPC_LABELS = ("grpc_type", "grpc_service", "grpc_method")

# The standard gRPC server metrics (names and labels of go-grpc-prometheus / grpc-ecosystem).
GRPC_STARTED = Counter("grpc_server_started_total", "RPCs started on the server.", RPC_LABELS)
GRPC_HANDLED = Counter("grpc_server_handled_total", "RPCs completed on the server, by status code.",
                       RPC_LABELS + ("grpc_code",))
RPC_BUCKETS = (0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10)
GRPC_HANDLING = Histogram("grpc_server_handling_seconds",
                          "Response latency of RPCs handled by the server (seconds).", RPC_LABELS,
                          buckets=RPC_BUCKETS)
GRPC_MSG_RECEIVED = Counter("grpc_server_msg_received_total", "Stream messages received by the server.",
                            RPC_LABELS)
GRPC_MSG_SENT = Counter("grpc_server_msg_sent_total", "Stream messages sent by the server.", RPC_LABELS)

# The same RPCs on the web port (api/connect.py), by protocol: connect or grpc_web.
WEB_LABELS = ("protocol", "grpc_type", "grpc_method")
WEB_STARTED = Counter("belote_web_rpc_started_total", "RPCs started on the web port.", WEB_LABELS)
WEB_HANDLED = Counter("belote_web_rpc_handled_total", "RPCs completed on the web port, by status code.",
                      WEB_LABELS + ("grpc_code",))
WEB_HANDLING = Histogram("belote_web_rpc_handling_seconds",
                         "Response latency of RPCs on the web port (seconds).", WEB_LABELS,
                         buckets=RPC_BUCKETS)
WEB_MSG_SENT = Counter("belote_web_msg_sent_total", "Stream messages sent on the web port.",
                       ("protocol", "grpc_method"))

# The game service.
TABLES_ACTIVE = Gauge("belote_tables_active", "Games in progress in the store.")
WATCH_STREAMS = Gauge("belote_watch_streams", "Open WatchTable streams on this process.")
EVENTS_APPENDED = Counter("belote_events_appended_total", "Events appended to table logs.", ("type",))
STORE_APPEND_SECONDS = Histogram("belote_store_append_seconds", "Time to append one command's events.",
                                 buckets=(0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 1))
APPEND_CONFLICTS = Counter("belote_append_conflicts_total",
                           "Appends refused for a stale expected version (then retried).")
BOT_DECISION_SECONDS = Histogram("belote_bot_decision_seconds", "Time a bot takes to choose an action.",
                                 ("level",),
                                 buckets=(0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 1))
# The bot pool (app/bot_pool.py): decisions waiting for a worker, how long they waited, and
# workers that died and were replaced.
BOT_QUEUE_LENGTH = Gauge("belote_bot_queue_length", "Bot decisions waiting for a worker.", ("level",))
BOT_QUEUE_WAIT_SECONDS = Histogram("belote_bot_queue_wait_seconds",
                                   "Time a bot decision waits for a worker.", ("level",),
                                   buckets=(0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5,
                                            1, 2.5, 5))
BOT_WORKER_RESTARTS = Counter("belote_bot_worker_restarts_total",
                              "Bot worker processes that died and were replaced.")
FOLD_SECONDS = Histogram("belote_fold_seconds", "Time to bring a table's state up to its log's version.",
                         buckets=(0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.1, 1))
STORE_UP = Gauge("belote_store_up", "1 while the event store answers, else 0.")

METRIC_NAMES = (
    "grpc_server_started_total", "grpc_server_handled_total", "grpc_server_handling_seconds",
    "grpc_server_msg_received_total", "grpc_server_msg_sent_total", "belote_tables_active",
    "belote_watch_streams", "belote_events_appended_total", "belote_store_append_seconds",
    "belote_append_conflicts_total", "belote_bot_decision_seconds", "belote_fold_seconds",
    "belote_store_up", "belote_web_rpc_started_total", "belote_web_rpc_handled_total",
    "belote_web_rpc_handling_seconds", "belote_web_msg_sent_total", "belote_bot_queue_length",
    "belote_bot_queue_wait_seconds", "belote_bot_worker_restarts_total",
)


def metrics_only():
    """A WSGI app: the metrics at /metrics, 404 everywhere else (prometheus-client's own app
    answers every path with the metrics page, so / or /healthz would look like a health check)."""
    metrics_app = make_wsgi_app()

    def app(environ, start_response):
        if environ.get("PATH_INFO") == METRICS_PATH:
            return metrics_app(environ, start_response)
        start_response("404 Not Found", [("Content-Type", "text/plain; charset=utf-8")])
        return [f"not found: the metrics are at {METRICS_PATH}\n".encode()]

    return app


class _ThreadingWSGIServer(ThreadingMixIn, WSGIServer):
    daemon_threads = True


class _QuietHandler(WSGIRequestHandler):
    def log_message(self, format, *args):  # one line on stderr per scrape otherwise
        pass


def start_metrics_server(host: str, port: int) -> tuple[WSGIServer, int]:
    """Serve `metrics_only()` on host:port (0: any free port) in a daemon thread: (server, port)."""
    family = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)[0][0]
    server_class = type("MetricsServer", (_ThreadingWSGIServer,), {"address_family": family})
    httpd = make_server(host, port, metrics_only(), server_class, handler_class=_QuietHandler)
    threading.Thread(target=httpd.serve_forever, name="metrics", daemon=True).start()
    return httpd, httpd.server_port


def configure_logging(level: str = "info", fmt: str = "console", stream=None) -> None:
    """Log lines on ``stream`` (default stderr): JSON objects (`json`) or readable text (`console`).

    The standard logging of grpc and asyncio is rendered the same way, so a log collector sees
    one format. Tracebacks are plain text, never with local variables (they could hold secrets).
    """
    stream = stream or sys.stderr
    renderer = (structlog.processors.JSONRenderer() if fmt == "json"
                else structlog.dev.ConsoleRenderer(colors=False))
    shared = [structlog.contextvars.merge_contextvars, structlog.processors.add_log_level,
              structlog.processors.TimeStamper(fmt="iso", utc=True)]
    number = logging.getLevelNamesMapping()[level.upper()]
    structlog.configure(
        # format_exc_info: tracebacks as plain text, never with local variables (secrets).
        processors=[*shared, structlog.processors.format_exc_info, renderer],
        wrapper_class=structlog.make_filtering_bound_logger(number),
        logger_factory=structlog.PrintLoggerFactory(stream),
        cache_logger_on_first_use=True,
    )
    handler = logging.StreamHandler(stream)
    handler.setFormatter(structlog.stdlib.ProcessorFormatter(
        foreign_pre_chain=[*shared, structlog.stdlib.add_logger_name],
        processors=[structlog.stdlib.ProcessorFormatter.remove_processors_meta,
                    structlog.processors.format_exc_info, renderer]))
    logging.basicConfig(handlers=[handler], level=number, force=True)
    for noisy in ("grpc", "asyncio"):  # their debug lines are about their own plumbing
        logging.getLogger(noisy).setLevel(max(logging.INFO, number))
