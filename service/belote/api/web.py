"""The web port: TableService for browsers (api/connect.py) and the web client's static files at
``/`` (its content-hashed assets cached for a year, the page revalidated by its ETag, each file
gzipped once), under uvicorn in the server's own event loop (HTTP/1.1, so a browser's fetch streams
WatchTable without HTTP/2).

CORS: a page served from this port calls it same-origin and needs nothing. Pages of other
origins are answered only when ``--web-origins`` lists their origin (or ``*``).

A malformed request gets a 4xx, never a 500: the static side checks a path before it touches
the file system, and the RPC side turns away what connectrpc would fail on (gRPC proper, which
needs HTTP/2 trailers; undecodable headers; unknown encodings; other methods than POST) before
it reaches connectrpc. Slow clients are bounded by api/web_limits.py.
"""

from __future__ import annotations

import asyncio
import contextlib
import gzip
import hashlib
import mimetypes
import re
import socket
import traceback
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from stat import S_ISREG

import structlog
import uvicorn

import belote

from .connect import SERVICE, table_service_app
from .web_limits import DEFAULT_LIMITS, WebLimits

log = structlog.get_logger("belote.web")

# The bundle `make install` builds (clients/web/), beside the sources of an editable install.
STATIC_ROOT = Path(belote.__file__).resolve().parents[2] / "clients" / "web" / "dist"
RPC_PREFIX = f"/{SERVICE.full_name}/"

# The bundle's paths are short (index.html, app.<hash>.js, style.<hash>.css): a longer one is
# refused (414).
MAX_PATH_CHARS = 1024
# A NUL or another control character is in no URL path: such a request is malformed (400).
CONTROL_CHARS = re.compile(r"[\x00-\x1f\x7f]")
# The only paths looked up on disk: segments of letters, digits, "_", "-" and ".", none starting
# with "." (no "..", no hidden file) nor longer than a file name may be. Any other is a 404
# without a system call, so no path can make the file system raise.
FILE_PATH = re.compile(r"(?:[A-Za-z0-9_-][A-Za-z0-9_.-]{0,127}/)*[A-Za-z0-9_-][A-Za-z0-9_.-]{0,127}")
# The request encodings connectrpc decodes (table_service_app names no others): another one in
# a Connect header would be its UNIMPLEMENTED, answered 501. gRPC-Web's grpc-encoding is left
# to connectrpc, whose answer to it is an HTTP 200 carrying the gRPC status.
REQUEST_ENCODINGS = ("identity", "gzip")
ENCODING_HEADERS = (b"content-encoding", b"connect-content-encoding")
ACCEPT_POST = (b"application/json, application/proto, application/connect+json, "
               b"application/connect+proto, application/grpc-web, application/grpc-web+proto")

# What a browser may send to, and read of, a Connect or gRPC-Web call.
ALLOWED_HEADERS = (
    "content-type", "connect-protocol-version", "connect-timeout-ms", "connect-accept-encoding",
    "connect-content-encoding", "accept-encoding", "authorization", "x-player-token",
    "x-grpc-web", "x-user-agent", "grpc-timeout",
)
EXPOSED_HEADERS = ("grpc-status", "grpc-message", "grpc-status-details-bin",
                   "content-encoding", "connect-content-encoding")
PREFLIGHT_MAX_AGE_S = 7200

# The page and its scripts come from this port only: no inline script, no other origin.
PAGE_HEADERS = [
    (b"content-security-policy",
     b"default-src 'self'; img-src 'self' data:; style-src 'self'; frame-ancestors 'none'"),
    (b"x-content-type-options", b"nosniff"),
    (b"referrer-policy", b"no-referrer"),
]

# What clients/web/build.mjs names after its content (esbuild's [hash]: 8 of A-Z and 2-7): a new
# build is a new name, so a browser may keep such a file for a year without asking again. Any
# other file (index.html, which names them) is revalidated on every visit by its ETag.
HASHED_NAME = re.compile(r"[A-Za-z0-9_-]+\.[A-Z2-7]{8}\.(?:js|css)")
IMMUTABLE = b"public, max-age=31536000, immutable"
REVALIDATE = b"no-cache"
# Below this a file goes as it is: gzip would save a few hundred bytes of one TCP segment.
GZIP_MIN_BYTES = 1024
# A token of Accept-Encoding and its weight: "gzip", "gzip;q=0.5", "*;q=0" (RFC 9110 12.5.3).
ACCEPT_TOKEN = re.compile(r"\s*([!#$%&'*+.^_`|~0-9A-Za-z-]+)\s*(?:;\s*q\s*=\s*([0-9.]+))?.*")

NOT_BUILT = b"""<!doctype html><html lang="en"><meta charset="utf-8"><title>Belote</title>
<body><h1>The web client was not built</h1>
<p>This server answers the API for browsers on this port (Connect and gRPC-Web at
<code>/belote.v1.TableService/</code>), but the page itself is missing: install Node.js with npm
and run <code>make install</code> (it builds <code>clients/web/dist/</code>).</p></body></html>
"""


class CorsPolicy:
    """Which origins may call the API from a page of their own."""

    def __init__(self, origins: Iterable[str] = ()) -> None:
        self.origins = frozenset(o.strip().rstrip("/") for o in origins if o.strip())

    def allows(self, origin: str) -> bool:
        return "*" in self.origins or origin in self.origins

    def headers(self, origin: str) -> list[tuple[bytes, bytes]]:
        return [(b"access-control-allow-origin", origin.encode()), (b"vary", b"origin"),
                (b"access-control-expose-headers", ", ".join(EXPOSED_HEADERS).encode())]

    def preflight_headers(self, origin: str) -> list[tuple[bytes, bytes]]:
        return [(b"access-control-allow-origin", origin.encode()), (b"vary", b"origin"),
                (b"access-control-allow-methods", b"POST, GET"),
                (b"access-control-allow-headers", ", ".join(ALLOWED_HEADERS).encode()),
                (b"access-control-max-age", str(PREFLIGHT_MAX_AGE_S).encode())]


def _header(scope, name: bytes) -> str:
    for key, value in scope.get("headers", ()):
        if key == name:
            return value.decode("latin-1")
    return ""


async def _respond(send, status: int, body: bytes, headers: list[tuple[bytes, bytes]]) -> None:
    await send({"type": "http.response.start", "status": status,
                "headers": [(b"content-length", str(len(body)).encode()), *headers]})
    await send({"type": "http.response.body", "body": body})


def accepts_gzip(accept_encoding: str) -> bool:
    """Whether an Accept-Encoding allows gzip: named (or x-gzip) with a weight above 0, or, when
    not named, "*" with a weight above 0. No library of the server's parses this header (uvicorn
    and connectrpc only compare names), hence these few lines."""
    weights: dict[str, float] = {}
    for token in accept_encoding.split(","):
        if found := ACCEPT_TOKEN.fullmatch(token):
            try:
                weight = float(found.group(2) or 1)
            except ValueError:
                weight = 0.0  # "q=1.2.3": not a weight, so not an acceptance
            weights[found.group(1).lower()] = weight
    for name in ("gzip", "x-gzip", "*"):
        if name in weights:
            return weights[name] > 0
    return False


def etag_matches(if_none_match: str, etag: bytes) -> bool:
    """If-None-Match's weak comparison (RFC 9110 13.1.2): "*", or one of its tags, W/ or not."""
    tags = [tag.strip().removeprefix("W/") for tag in if_none_match.split(",")]
    return "*" in tags or etag.decode() in tags


@dataclass(frozen=True)
class Encoded:
    """The bytes of one encoding of a file, and their strong ETag."""
    body: bytes
    etag: bytes

    @classmethod
    def of(cls, body: bytes) -> Encoded:
        return cls(body, b'"' + hashlib.sha256(body).hexdigest()[:32].encode() + b'"')


@dataclass(frozen=True)
class StaticFile:
    """A file of the bundle as it is served: its type, caching, and its encodings."""
    content_type: bytes
    cache_control: bytes
    identity: Encoded
    gzipped: Encoded | None  # None: small, or gzip would not make it smaller

    @classmethod
    def of(cls, name: str, body: bytes) -> StaticFile:
        kind = mimetypes.guess_type(name)[0] or "application/octet-stream"
        if kind.startswith("text/") or kind.endswith("javascript"):
            kind += "; charset=utf-8"
        gzipped = None
        if len(body) >= GZIP_MIN_BYTES:
            # No timestamp in the header: every replica serves the same bytes, so one ETag.
            packed = gzip.compress(body, compresslevel=9, mtime=0)
            gzipped = Encoded.of(packed) if len(packed) < len(body) else None
        return cls(kind.encode(), IMMUTABLE if HASHED_NAME.fullmatch(name) else REVALIDATE,
                   Encoded.of(body), gzipped)

    def choose(self, accept_encoding: str) -> Encoded:
        """The encoding a request with this Accept-Encoding gets."""
        if self.gzipped is not None and accepts_gzip(accept_encoding):
            return self.gzipped
        return self.identity

    def headers(self, chosen: Encoded, *, not_modified: bool = False) -> list[tuple[bytes, bytes]]:
        """The headers of `chosen` in a 200; in a 304 (`not_modified`), only those a cache
        updates, none of the representation's (RFC 9110 15.4.5)."""
        caching = [(b"cache-control", self.cache_control), (b"etag", chosen.etag)]
        vary = [(b"vary", b"accept-encoding")] if self.gzipped is not None else []
        if not_modified:
            return [*caching, *vary, *PAGE_HEADERS]
        encoding = [(b"content-encoding", b"gzip")] if chosen is self.gzipped else []
        return [(b"content-type", self.content_type), *caching, *encoding, *vary, *PAGE_HEADERS]


def rpc_refusal(scope) -> tuple[int, bytes, list[tuple[bytes, bytes]]] | None:
    """(status, message, headers) of an RPC request connectrpc must not see, as it would raise
    on it (a 500) or answer it with a 5xx; None for one it answers itself."""
    if scope["method"] != "POST":
        # Every RPC is declared IdempotencyLevel.UNKNOWN (api/connect.py): Connect's GET form
        # does not apply, and a 2xx to CONNECT would switch h11 to a tunnel.
        return 405, b"an RPC is a POST", [(b"allow", b"POST, OPTIONS")]
    for _, value in scope["headers"]:
        try:
            value.decode()  # as connectrpc reads every header
        except UnicodeDecodeError:
            return 400, b"header values must be UTF-8", []
    content_type = _header(scope, b"content-type")  # the first one, as connectrpc reads it
    if content_type == "application/grpc" or content_type.startswith("application/grpc+"):
        # gRPC ends every call in HTTP trailers, which uvicorn's HTTP/1.1 cannot send.
        return (415, b"gRPC is served on the gRPC port; here Connect or gRPC-Web",
                [(b"accept-post", ACCEPT_POST)])
    for name in ENCODING_HEADERS:
        encoding = _header(scope, name)
        if encoding and encoding not in REQUEST_ENCODINGS:
            return (415, b"unsupported content encoding",
                    [(b"accept-encoding", ", ".join(REQUEST_ENCODINGS).encode())])
    return None


class WebApp:
    """The ASGI app of the web port: RPCs to connectrpc, everything else a static file."""

    def __init__(self, servicer, log_key: bytes, cors: CorsPolicy,
                 static_root: Path = STATIC_ROOT) -> None:
        self.rpc = table_service_app(servicer, log_key)
        self.cors = cors
        self.static_root = static_root.resolve()
        # Each file of the bundle, read and gzipped once (at its first request, synchronously in
        # the loop: no second request can start the same work meanwhile), by its path and the
        # (inode, mtime, size) it had: a rebuilt file is read anew. Only files found in the
        # bundle get an entry, so this holds no more than the bundle.
        self._files: dict[str, tuple[tuple[int, int, int], StaticFile]] = {}

    async def __call__(self, scope, receive, send) -> None:
        if scope["type"] != "http":
            return  # lifespan is off; websockets are not served
        started = completed = False

        async def tracked(message) -> None:
            nonlocal started, completed
            started = True
            completed = message["type"] == "http.response.body" and not message.get("more_body")
            await send(message)
        try:
            if scope["path"].startswith(RPC_PREFIX):
                await self._rpc(scope, receive, tracked)
            else:
                await self._static(scope, tracked)
        except Exception as exc:
            # The last resort, for a bug: one line (where, not the message, which may hold a
            # server path), and a 500 if there is still time for one. A response cut short
            # cannot be mended: uvicorn closes its connection.
            if started and not completed:
                raise
            frame = traceback.extract_tb(exc.__traceback__)[-1]
            log.warning("web request failed", error=type(exc).__name__,
                        at=f"{Path(frame.filename).name}:{frame.lineno}",
                        method=scope["method"][:16], path=scope["path"][:100])
            if not started:
                await _respond(send, 500, b"internal error", [(b"content-type", b"text/plain")])

    async def _rpc(self, scope, receive, send) -> None:
        origin = _header(scope, b"origin")
        allowed = bool(origin) and self.cors.allows(origin)
        if scope["method"] == "OPTIONS":
            if allowed and _header(scope, b"access-control-request-method"):
                await _respond(send, 204, b"", self.cors.preflight_headers(origin))
            else:
                await _respond(send, 403, b"origin not allowed", [(b"content-type", b"text/plain")])
            return
        extra = self.cors.headers(origin) if allowed else []
        if refusal := rpc_refusal(scope):
            status, message, headers = refusal
            log.info("web request refused", status=status, reason=message.decode())
            await _respond(send, status, message,
                           [(b"content-type", b"text/plain"), *headers, *extra])
            return
        if not allowed:
            await self.rpc(scope, receive, send)
            return

        async def send_with_cors(message) -> None:
            if message["type"] == "http.response.start":
                message = {**message, "headers": [*message.get("headers", ()), *extra]}
            await send(message)
        await self.rpc(scope, receive, send_with_cors)

    async def _static(self, scope, send) -> None:
        if scope["method"] not in ("GET", "HEAD"):
            await _respond(send, 405, b"", [(b"allow", b"GET, HEAD")])
            return
        if len(scope["path"]) > MAX_PATH_CHARS:
            await _respond(send, 414, b"path too long", [(b"content-type", b"text/plain")])
            return
        if CONTROL_CHARS.search(scope["path"]):
            await _respond(send, 400, b"bad path", [(b"content-type", b"text/plain")])
            return
        relative = scope["path"].lstrip("/") or "index.html"
        found = self._file(relative)
        if found is None:
            if relative == "index.html":
                await _respond(send, 200, NOT_BUILT, [(b"content-type", b"text/html; charset=utf-8"),
                                                      *PAGE_HEADERS])
            else:
                await _respond(send, 404, b"not found", [(b"content-type", b"text/plain")])
            return
        chosen = found.choose(_header(scope, b"accept-encoding"))
        if etag_matches(_header(scope, b"if-none-match"), chosen.etag):
            await send({"type": "http.response.start", "status": 304,
                        "headers": found.headers(chosen, not_modified=True)})
            await send({"type": "http.response.body", "body": b""})
            return
        # To a HEAD as to a GET, the same content-length: uvicorn sends no body (h11_impl).
        await _respond(send, 200, chosen.body, found.headers(chosen))

    def _file(self, relative: str) -> StaticFile | None:
        """The file of the bundle at `relative` as served, None if there is none."""
        if not FILE_PATH.fullmatch(relative):
            return None
        try:
            path = (self.static_root / relative).resolve()
            if not path.is_relative_to(self.static_root):
                return None  # a symbolic link out of the bundle
            info = path.stat()
            if not S_ISREG(info.st_mode):
                return None  # a directory
            stamp = (info.st_ino, info.st_mtime_ns, info.st_size)
            cached = self._files.get(relative)
            if cached is not None and cached[0] == stamp:
                return cached[1]
            served = StaticFile.of(path.name, path.read_bytes())
        except (OSError, RuntimeError):  # none, unreadable; RuntimeError: a link loop (Python < 3.13)
            self._files.pop(relative, None)
            return None
        self._files[relative] = (stamp, served)
        return served


class _Uvicorn(uvicorn.Server):
    """uvicorn without its signal handlers: `belote serve` has its own (server.on_stop_signals)
    and stops this server itself."""

    @contextlib.contextmanager
    def capture_signals(self):
        yield


@dataclass
class WebServer:
    host: str
    port: int
    server: _Uvicorn
    task: asyncio.Task

    @property
    def url(self) -> str:
        return f"http://{self.host}:{self.port}"

    async def stop(self) -> None:
        """Stop accepting, let calls in flight finish (within the server's grace), close."""
        self.server.should_exit = True
        with contextlib.suppress(asyncio.CancelledError):
            await self.task


def _bind(host: str, port: int) -> socket.socket:
    bare = host.strip("[]")
    family = socket.AF_INET6 if ":" in bare else socket.AF_INET
    sock = socket.socket(family, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        sock.bind((bare, port))
    except OSError:
        sock.close()
        raise
    sock.listen(1024)
    sock.setblocking(False)
    return sock


async def start_web(host: str, port: int, servicer, log_key: bytes, *, origins: Iterable[str] = (),
                    grace: float = 5.0, static_root: Path = STATIC_ROOT,
                    limits: WebLimits = DEFAULT_LIMITS) -> WebServer:
    """Serve the web port on host:port (0: any free port) in the running loop, its slow clients
    bounded by `limits`. Raises OSError when the address cannot be bound."""
    sock = _bind(host, port)
    config = uvicorn.Config(WebApp(servicer, log_key, CorsPolicy(origins), static_root),
                            lifespan="off", ws="none", log_config=None,
                            access_log=False, server_header=False,
                            # h11 with deadlines, keep-alive timeout, connection cap
                            **limits.uvicorn_options(),
                            # the client address is the socket's: the servicer applies
                            # --trusted-proxies to Forwarded / X-Forwarded-For (api/callers.py)
                            proxy_headers=False, timeout_graceful_shutdown=grace)
    server = _Uvicorn(config)
    task = asyncio.create_task(server.serve(sockets=[sock]))
    while not server.started:
        if task.done():  # failed before it started
            sock.close()
            await task
            raise OSError(f"the web server did not start on {host}:{port}")
        await asyncio.sleep(0.01)
    web = WebServer(host=host, port=sock.getsockname()[1], server=server, task=task)
    log.info("web serving", url=web.url, static=str(static_root), built=static_root.is_dir())
    return web
