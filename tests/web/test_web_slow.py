"""Slow clients cannot hold the web port: a request head or body that does not arrive in time
and an idle kept-alive connection are closed, connections over the cap are refused; and yet a
WatchTable stream (a long response, not a slow request) stays open past every one of those
timeouts. The server runs with short ones (0.5 s, 1 s) and a cap of 3 connections."""

from __future__ import annotations

import http.client
import json
import socket
import struct
import time
from urllib.parse import urlsplit

import grpc
import pytest
from belote.v1 import table_service_pb2 as pb
from belote.v1 import table_service_pb2_grpc
from players import rid

HEADER_TIMEOUT_S = 0.5
BODY_TIMEOUT_S = 1.0
KEEPALIVE_TIMEOUT_S = 0.5
MAX_CONNECTIONS = 3
# uvicorn closes an idle kept-alive connection after 5 s by default: closing well before that
# shows the flag is the one at work. Generous on a slow machine.
WITHIN_S = 4.0
WATCH = "/belote.v1.TableService/WatchTable"


@pytest.fixture(scope="module")
def slow(tmp_path_factory):
    from servers import ServerProcess

    proc = ServerProcess(tmp_path_factory.mktemp("web-slow"), extra_args=(
        "--web-header-timeout", str(HEADER_TIMEOUT_S), "--web-body-timeout", str(BODY_TIMEOUT_S),
        "--web-keepalive-timeout", str(KEEPALIVE_TIMEOUT_S),
        "--web-max-connections", str(MAX_CONNECTIONS)))
    proc.start()
    yield proc
    proc.kill()


@pytest.fixture(autouse=True)
def no_error_line(slow):
    """A closed slow client is no error: not one line at error level, nor a traceback."""
    since = len(slow.output())
    yield
    lines = [json.loads(line) for line in slow.output()[since:].splitlines()
             if line.startswith("{")]
    assert [line for line in lines
            if line.get("level") in ("error", "critical") or "exception" in line] == []


def _address(server) -> tuple[str, int]:
    parts = urlsplit(server.web_url)
    return parts.hostname, parts.port


def _seconds_until_closed(sock: socket.socket, trickle: bytes = b"", every_s: float = 0.1,
                          limit_s: float = 10.0) -> float:
    """Seconds until the server closes `sock` (sending `trickle` a byte every `every_s`
    meanwhile); fails if it is still open after `limit_s`, or answers anything."""
    started = time.monotonic()
    sock.settimeout(every_s)
    sent = 0
    while time.monotonic() - started < limit_s:
        try:
            data = sock.recv(4096)
        except TimeoutError:
            if sent < len(trickle):
                try:
                    sock.sendall(trickle[sent:sent + 1])
                except OSError:  # the server closed it between two bytes
                    return time.monotonic() - started
                sent += 1
            continue
        except ConnectionResetError:
            return time.monotonic() - started
        assert data == b"", f"the server answered {data[:200]!r}"
        return time.monotonic() - started
    raise AssertionError(f"the connection was still open after {limit_s} s")


def _connect(server) -> socket.socket:
    return socket.create_connection(_address(server), timeout=10)


def test_half_a_request_head_is_closed_after_the_header_timeout(slow):
    with _connect(slow) as sock:
        sock.sendall(b"GET /index.html HTTP/1.1\r\nHost: 127.0.0.1\r\n")
        assert HEADER_TIMEOUT_S * 0.8 <= _seconds_until_closed(sock) < WITHIN_S


def test_a_head_sent_a_byte_at_a_time_is_cut_at_the_header_timeout(slow):
    """The timeout is a deadline for the whole head, not a silence: bytes that keep coming do
    not keep the connection."""
    head = b"GET /index.html HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: " + b"s" * 200
    with _connect(slow) as sock:
        assert HEADER_TIMEOUT_S * 0.8 <= _seconds_until_closed(sock, trickle=head) < WITHIN_S


def test_a_connection_that_sends_nothing_is_closed_after_the_header_timeout(slow):
    with _connect(slow) as sock:
        assert HEADER_TIMEOUT_S * 0.8 <= _seconds_until_closed(sock) < WITHIN_S


def test_a_trickling_body_is_cut_after_the_body_timeout(slow):
    head = (b"POST /belote.v1.TableService/GetTable HTTP/1.1\r\nHost: 127.0.0.1\r\n"
            b"Content-Type: application/json\r\nContent-Length: 1000\r\n\r\n")
    with _connect(slow) as sock:
        sock.sendall(head)
        # Past the header timeout (the head is whole), cut at the body's.
        assert BODY_TIMEOUT_S * 0.8 <= _seconds_until_closed(sock, trickle=b" " * 1000) < WITHIN_S


def test_an_idle_kept_alive_connection_is_closed(slow):
    host, port = _address(slow)
    conn = http.client.HTTPConnection(host, port, timeout=10)
    try:
        conn.request("GET", "/index.html")
        answer = conn.getresponse()
        assert answer.status == 200 and answer.getheader("connection") is None  # kept alive
        answer.read()
        # Within the timeout the connection serves another request...
        conn.request("GET", "/index.html")
        again = conn.getresponse()
        assert again.status == 200
        again.read()
        # ...then, idle, it is closed.
        assert KEEPALIVE_TIMEOUT_S * 0.8 <= _seconds_until_closed(conn.sock) < WITHIN_S
    finally:
        conn.close()


class Stream:
    """A WatchTable stream over Connect (JSON envelopes on one HTTP/1.1 response)."""

    def __init__(self, server, table_id: str) -> None:
        host, port = _address(server)
        self.conn = http.client.HTTPConnection(host, port, timeout=15)
        payload = json.dumps({"tableId": table_id, "fromSequence": "1"}).encode()
        self.conn.request("POST", WATCH, body=struct.pack(">BI", 0, len(payload)) + payload,
                          headers={"Content-Type": "application/connect+json"})
        self.answer = self.conn.getresponse()
        assert self.answer.status == 200

    def next_event(self) -> dict:
        flags, size = struct.unpack(">BI", self.answer.read(5))
        event = json.loads(self.answer.read(size))
        assert not flags & 0x02, f"the stream ended: {event}"
        return event

    def close(self) -> None:
        self.conn.close()


@pytest.fixture
def stub(slow):
    with grpc.insecure_channel(slow.address) as channel:
        yield table_service_pb2_grpc.TableServiceStub(channel)


def _new_table(stub) -> str:
    return stub.CreateTable(pb.CreateTableRequest(preset="classic", request_id=rid())).table_id


def _status_of_get(server) -> int:
    host, port = _address(server)
    conn = http.client.HTTPConnection(host, port, timeout=10)
    try:
        conn.request("GET", "/index.html")
        answer = conn.getresponse()
        answer.read()
        return answer.status
    finally:
        conn.close()


def test_a_watch_stream_outlives_every_timeout(slow, stub):
    table_id = _new_table(stub)
    stream = Stream(slow, table_id)
    try:
        assert "tableCreated" in stream.next_event()
        time.sleep(2 * max(HEADER_TIMEOUT_S, BODY_TIMEOUT_S, KEEPALIVE_TIMEOUT_S) + 1)
        stub.JoinTable(pb.JoinTableRequest(table_id=table_id, seat=0, display_name="late",
                                           request_id=rid()))
        assert "seatJoined" in stream.next_event()
    finally:
        stream.close()


def test_connections_over_the_cap_are_refused_and_those_under_it_served(slow, stub):
    table_id = _new_table(stub)
    streams = [Stream(slow, table_id) for _ in range(MAX_CONNECTIONS - 1)]
    try:
        assert _status_of_get(slow) == 200          # the cap's last connection
        streams.append(Stream(slow, table_id))      # the cap is full
        assert _status_of_get(slow) == 503          # one over it
        for stream in streams:
            assert "tableCreated" in stream.next_event()  # the ones under it are served
        streams.pop().close()
        deadline = time.monotonic() + WITHIN_S      # the server sees the close a moment later
        while (status := _status_of_get(slow)) != 200 and time.monotonic() < deadline:
            time.sleep(0.1)
        assert status == 200
    finally:
        for stream in streams:
            stream.close()
