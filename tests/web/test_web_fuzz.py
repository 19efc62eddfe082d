"""The web port never answers 5xx: thousands of malformed requests (belote.web_fuzz) against a
real `belote serve` get a 4xx (or a 2xx for what is valid), and not one log line at error level;
each case the review reported gets its exact status."""

from __future__ import annotations

import json
from urllib.parse import urlsplit

import pytest
from belote.web_fuzz import FuzzRequest, fuzz, status_of

RPC = "/belote.v1.TableService/GetTable"


@pytest.fixture(scope="module")
def fuzzed(tmp_path_factory):
    from servers import ServerProcess

    proc = ServerProcess(tmp_path_factory.mktemp("web-fuzz"),
                         extra_args=("--web-origins", "https://game.example"))
    proc.start()
    yield proc
    proc.kill()


def _address(server) -> tuple[str, int]:
    parts = urlsplit(server.web_url)
    return parts.hostname, parts.port


def _log_lines(server, since: int) -> list[dict]:
    """The server's JSON log lines printed after the first `since` characters of its output."""
    lines = []
    for line in server.output()[since:].splitlines():
        if line.startswith("{"):
            lines.append(json.loads(line))
    return lines


def _bad_lines(lines: list[dict]) -> list[dict]:
    """Lines at error level, and warnings with a traceback or the server's static path."""
    return [line for line in lines if line.get("level") in ("error", "critical")
            or "exception" in line or "clients/web/dist" in json.dumps(line)]


def _request(method: bytes, target: bytes, headers: dict[bytes, bytes], body: bytes = b""
             ) -> FuzzRequest:
    fields = {b"host": b"127.0.0.1", b"content-length": str(len(body)).encode(), **headers}
    return FuzzRequest(method, target, tuple(fields.items()), body)


@pytest.mark.parametrize("request_, status", [
    # The three cases of the review.
    (_request(b"GET", b"/index.html%00.js", {}), 400),
    (_request(b"GET", b"/" + b"a" * 10_000, {}), 414),
    (_request(b"POST", RPC.encode(), {b"content-type": b"application/grpc"}, b"\0\0\0\0\0"), 415),
    # The other causes of a 500 the fuzz found.
    (_request(b"GET", b"/" + b"b" * 300, {}), 404),
    (_request(b"POST", RPC.encode(), {b"content-type": b"application/grpc+proto"}), 415),
    (_request(b"POST", RPC.encode(), {b"content-type": b"application/json",
                                      b"content-encoding": b"br"}, b"{}"), 415),
    (_request(b"POST", RPC.encode(), {b"content-type": b"application/json",
                                      b"x-user-agent": b"\xff\xfe"}, b"{}"), 400),
    (_request(b"CONNECT", RPC.encode(), {b"content-type": b"application/grpc-web"}), 405),
    (_request(b"GET", RPC.encode(), {}), 405),
], ids=["nul-in-path", "path-10000-chars", "grpc-over-http1", "name-too-long", "grpc+proto",
        "unknown-content-encoding", "header-not-utf8", "connect-method", "get-an-rpc"])
async def test_a_malformed_request_gets_its_4xx_and_no_error_line(fuzzed, request_, status):
    since = len(fuzzed.output())
    assert await status_of(*_address(fuzzed), request_, timeout=10) == status
    assert _bad_lines(_log_lines(fuzzed, since)) == []


async def test_thousands_of_fuzzed_requests_get_no_5xx_and_log_no_error(fuzzed):
    since = len(fuzzed.output())
    host, port = _address(fuzzed)
    outcomes = [await fuzz(host, port, 2000, seed=seed, timeout=5) for seed in (1, 2)]
    for outcome in outcomes:
        assert outcome.sent == 2000
        assert outcome.server_error_count == 0, "\n".join(outcome.server_errors)
        # The fuzz reached both the static side and the RPCs, valid and not.
        assert outcome.statuses[200] > 0 and outcome.statuses[404] > 0
        assert outcome.statuses[400] > 0 and outcome.statuses[415] > 0
    assert _bad_lines(_log_lines(fuzzed, since)) == []
    # The server still serves.
    ok = _request(b"GET", b"/index.html", {})
    assert await status_of(host, port, ok, timeout=10) == 200
