"""An HTTP fuzz of the web port: malformed and hostile requests, each on its own connection.

Paths with odd bytes, ``%00``, ``..``, very long ones; every method; header sets of each protocol
(Connect, gRPC-Web, gRPC, which HTTP/1.1 cannot carry, and none); bodies empty, garbage, framed
wrong or over the size limit. Whatever the request, the web port must answer a 4xx (or a 2xx/3xx
for what is valid): a 5xx is a bug. The requests are bytes written to a socket, not a client
library's, because a client would refuse to send most of them; the answers are read with h11.
``tests/web/test_web_fuzz.py`` and ``belote.bench.web_fuzz_bench`` run it.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import random
import struct
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass, field

import h11

from belote.v1 import table_service_pb2

SERVICE = table_service_pb2.DESCRIPTOR.services_by_name["TableService"]
RPC_PATHS = [f"/{SERVICE.full_name}/{m.name}" for m in SERVICE.methods]
STATIC_PATHS = ["/", "/index.html", "/app.js", "/style.css", "/favicon.ico", "/no/such/file"]
METHODS = [b"GET", b"HEAD", b"POST", b"PUT", b"DELETE", b"OPTIONS", b"PATCH", b"TRACE",
           b"CONNECT", b"PRI", b"get", b"FOO", b"X" * 300]
CONTENT_TYPES = [b"application/grpc", b"application/grpc+proto", b"application/grpc+json",
                 b"application/grpc-web", b"application/grpc-web+proto",
                 b"application/grpc-web+json", b"application/grpc-web-text",
                 b"application/connect+proto", b"application/connect+json", b"application/json",
                 b"application/proto", b"application/json; charset=utf-8", b"APPLICATION/JSON",
                 b"text/plain", b"multipart/form-data; boundary=x", b"application/", b"*/*",
                 b"application/\xff\xfe", b"application/grpc" + b"+x" * 200]
# Values for the headers the web port reads (api/web.py's ALLOWED_HEADERS and a few more).
HEADER_VALUES: dict[bytes, list[bytes]] = {
    b"connect-protocol-version": [b"1", b"2", b"", b"\xff"],
    b"connect-timeout-ms": [b"1000", b"0", b"-1", b"abc", b"99999999999", b"1" * 40],
    b"grpc-timeout": [b"1S", b"100m", b"0n", b"garbage", b"99999999H"],
    b"content-encoding": [b"gzip", b"br", b"identity", b"zstd", b"x" * 100],
    b"connect-content-encoding": [b"gzip", b"identity", b"nope"],
    b"grpc-encoding": [b"gzip", b"identity", b"nope"],
    b"accept-encoding": [b"gzip", b"*", b"identity;q=0", b"\xff"],
    b"connect-accept-encoding": [b"gzip", b"nope"],
    b"origin": [b"https://game.example", b"https://evil.example", b"null", b"\xff\xfe"],
    b"access-control-request-method": [b"POST", b"GET", b"\x7f"],
    b"authorization": [b"Bearer x", b"Bearer " + b"a" * 5000, b"Basic \xff", b""],
    b"x-player-token": [b"x.y.z", b"", b"\xe2\x80\xae"],
    b"x-grpc-web": [b"1"],
    b"expect": [b"100-continue", b"nothing"],
    b"connection": [b"close", b"keep-alive", b"upgrade", b"\xff"],
    b"upgrade": [b"websocket", b"h2c", b"\xff"],
    b"range": [b"bytes=0-10", b"bytes=-1", b"garbage"],
    b"x-long": [b"v" * 20_000],
}
READ_MAX_BYTES = 64 * 1024  # api/connect.py's request limit: "oversized" bodies go past it


@dataclass(frozen=True)
class FuzzRequest:
    """One request as the bytes of its head and body."""

    method: bytes
    target: bytes
    headers: tuple[tuple[bytes, bytes], ...]
    body: bytes

    def wire(self) -> bytes:
        head = [self.method + b" " + self.target + b" HTTP/1.1"]
        head += [name + b": " + value for name, value in self.headers]
        return b"\r\n".join(head) + b"\r\n\r\n" + self.body

    def describe(self) -> str:
        kind = dict(self.headers).get(b"content-type", b"-")
        return (f"{self.method[:20]!r} {self.target[:80]!r} content-type={kind[:40]!r} "
                f"body={len(self.body)}B")


def _odd_path(rng: random.Random, base: bytes) -> bytes:
    """`base` made into a path the static side or the RPC side must turn down with a 4xx."""
    pick = rng.randrange(12)
    if pick == 0:
        return base + b"%00" + rng.choice((b"", b".js", b"/x"))
    if pick == 1:
        return b"/" + b"a" * rng.choice((255, 256, 300, 4096, 10_000, 15_000))
    if pick == 2:
        return b"/" + b"/".join(b"b" * 200 for _ in range(rng.randrange(2, 60)))
    if pick == 3:
        return rng.choice((b"/../../etc/passwd", b"/%2e%2e/%2e%2e/etc/passwd", b"/..",
                           b"/./index.html", b"//index.html", b"/static/../../x", b"/.git/config",
                           b"/index.html/", b"/%2e", b"/..%2f..%2fetc"))
    if pick == 4:  # escapes of bytes that are not UTF-8, overlong forms, controls, bidi marks
        return base + rng.choice((b"%ff", b"%c0%af", b"%e2%80%ae", b"%0a", b"%7f", b"%", b"%g1",
                                  b"%ed%a0%80", b"%01%02"))
    if pick == 5:  # raw bytes h11 must refuse in a request line
        return base + bytes([rng.choice((0x00, 0x01, 0x20, 0x7f, 0x80, 0xff))])
    if pick == 6:
        return rng.choice((b"*", b"http://example.com/index.html", b"example.com:443",
                           b"index.html", b"?", b"#x"))
    if pick == 7:  # a query string, Connect's GET encoding among others
        return base + rng.choice((b"?connect=v1&encoding=json&message=%7B%7D",
                                  b"?encoding=proto&base64=1&message=@@@", b"?message=%ff",
                                  b"?" + b"q=" * 2000, b"?encoding=json&message=" + b"%7B" * 500))
    if pick == 8:  # printable junk
        return b"/" + bytes(rng.randrange(0x21, 0x7f) for _ in range(rng.randrange(1, 200)))
    if pick == 9:
        return base.upper()
    return base


def _body(rng: random.Random) -> bytes:
    pick = rng.randrange(10)
    if pick == 0:
        return b""
    if pick == 1:
        return rng.randbytes(rng.randrange(1, 2000))
    if pick == 2:
        return rng.choice((b"{}", b"{", b"null", b"[]", b'{"table_id": 5}', b'{"x": "\xff"}',
                           json.dumps({"table_id": "t" * 500, "from_sequence": -1}).encode()))
    if pick == 3:  # one envelope, its length right or wrong, its flags plain or compressed
        payload = rng.choice((b"{}", b"", rng.randbytes(40)))
        flags = rng.choice((0, 1, 2, 0x80, 0xff))
        size = rng.choice((len(payload), len(payload) + 7, 0, 2**32 - 1))
        return struct.pack(">BI", flags, size) + payload
    if pick == 4:
        return rng.randbytes(rng.randrange(1, 5))  # shorter than an envelope's prefix
    if pick == 5:  # over the request limit
        return b"{" * (READ_MAX_BYTES + rng.choice((1, 1000, 100_000)))
    if pick == 6:
        payload = b"x" * (READ_MAX_BYTES + 10)
        return struct.pack(">BI", 0, len(payload)) + payload
    return b"{}"


def _headers(rng: random.Random, body: bytes) -> tuple[list[tuple[bytes, bytes]], bytes]:
    """The header set (and the body as framed): mostly one protocol's, sometimes anything."""
    headers: list[tuple[bytes, bytes]] = []
    if rng.random() < 0.97:
        headers.append((b"host", rng.choice((b"127.0.0.1", b"game.example", b"\xff", b""))))
    if rng.random() < 0.85:
        headers.append((b"content-type", rng.choice(CONTENT_TYPES)))
    if rng.random() < 0.05:
        headers.append((b"content-type", rng.choice(CONTENT_TYPES)))  # twice
    for name in rng.sample(list(HEADER_VALUES), rng.randrange(0, 5)):
        headers.append((name, rng.choice(HEADER_VALUES[name])))
    framing = rng.random()
    if framing < 0.85:
        headers.append((b"content-length", str(len(body)).encode()))
    elif framing < 0.93 and body:  # chunked, in chunks of random sizes
        headers.append((b"transfer-encoding", b"chunked"))
        chunks, rest = [], body
        while rest:
            size = rng.randrange(1, 4096)
            chunks.append(b"%x\r\n" % len(rest[:size]) + rest[:size] + b"\r\n")
            rest = rest[size:]
        body = b"".join(chunks) + b"0\r\n\r\n"
    elif framing < 0.96:  # framing the server must refuse
        headers.append(rng.choice(((b"content-length", b"-1"), (b"content-length", b"abc"),
                                   (b"transfer-encoding", b"gzip"),
                                   (b"content-length", b"1, 2"))))
    elif framing < 0.98 and body:  # says less than it sends: the rest reads as a next request
        headers.append((b"content-length", str(len(body) // 2).encode()))
    # else: no framing at all (a body then reads as the next request)
    rng.shuffle(headers)
    return headers, body


def requests(seed: int, count: int) -> Iterator[FuzzRequest]:
    """`count` requests, the same ones for the same seed."""
    rng = random.Random(seed)
    for _ in range(count):
        rpc = rng.random() < 0.6
        path = rng.choice(RPC_PATHS if rpc else STATIC_PATHS).encode()
        target = _odd_path(rng, path) if rng.random() < 0.5 else path
        # Mostly the method each side serves, so that most requests get past the first check.
        method = (rng.choice(METHODS) if rng.random() < 0.3
                  else b"POST" if rpc else rng.choice((b"GET", b"HEAD")))
        headers, body = _headers(rng, _body(rng) if method != b"GET" or rng.random() < 0.2
                                 else b"")
        yield FuzzRequest(method, target, tuple(headers), body)


@dataclass
class Outcome:
    """What the server answered over a fuzz run."""

    sent: int = 0
    statuses: Counter = field(default_factory=Counter)   # HTTP status -> answers
    unanswered: int = 0        # connections closed (or timed out) without an answer
    server_errors: list[str] = field(default_factory=list)  # one line per 5xx, the first 50

    @property
    def server_error_count(self) -> int:
        return sum(n for status, n in self.statuses.items() if status >= 500)

    def record(self, request: FuzzRequest, status: int | None) -> None:
        self.sent += 1
        if status is None:
            self.unanswered += 1
            return
        self.statuses[status] += 1
        if status >= 500 and len(self.server_errors) < 50:
            self.server_errors.append(f"{status} {request.describe()}")


async def status_of(host: str, port: int, request: FuzzRequest, timeout: float) -> int | None:
    """The status the server answers `request` with, None if it closes without one."""
    # h11 as the client only to read the answer: it is told of a plain request of the same
    # method (a HEAD answer has no body), the bytes on the wire are the fuzzed ones.
    client = h11.Connection(h11.CLIENT)
    client.send(h11.Request(method=b"HEAD" if request.method == b"HEAD" else b"GET",
                            target=b"/", headers=[(b"host", b"fuzz")]))
    client.send(h11.EndOfMessage())
    try:
        async with asyncio.timeout(timeout):
            reader, writer = await asyncio.open_connection(host, port)
            try:
                # The server may answer (413, 415, 400) and close before the body is all sent.
                with contextlib.suppress(ConnectionError):
                    writer.write(request.wire())
                    await writer.drain()
                while True:
                    event = client.next_event()
                    if event is h11.NEED_DATA:
                        client.receive_data(await reader.read(65536))
                    elif isinstance(event, h11.Response):
                        return event.status_code
                    elif not isinstance(event, h11.InformationalResponse):
                        return None
            finally:
                writer.close()
                with contextlib.suppress(ConnectionError):
                    await writer.wait_closed()
    except (TimeoutError, ConnectionError, h11.RemoteProtocolError):
        return None


async def fuzz(host: str, port: int, count: int, *, seed: int = 0, concurrency: int = 16,
               timeout: float = 5.0) -> Outcome:
    """Send `count` fuzzed requests, `concurrency` at a time; what came back."""
    outcome = Outcome()
    pending = iter(requests(seed, count))

    async def worker() -> None:
        for request in pending:
            outcome.record(request, await status_of(host, port, request, timeout))

    await asyncio.gather(*(worker() for _ in range(concurrency)))
    return outcome
