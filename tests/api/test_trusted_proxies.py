"""Who a caller is behind a proxy, on both ports: Forwarded / X-Forwarded-For count only when the
direct peer is in `--trusted-proxies`; then the clients behind the proxy are callers apart (one
locked out, the others' right password works), and one client is one caller on the gRPC port
(metadata) and the web port (HTTP headers) alike. From any other peer the headers change
nothing: a caller cannot dodge its limits by forwarding a new address each time."""

from __future__ import annotations

import asyncio
import base64
import contextlib
import http.client
import json
import os
import subprocess
from urllib.parse import urlsplit

import grpc
import pytest
from belote.v1 import table_service_pb2 as pb
from belote.v1 import table_service_pb2_grpc
from google.protobuf import json_format
from google.rpc import error_details_pb2
from peers import caller_from
from players import new_table, rid
from servers import BELOTE, ServerProcess
from test_callers_limits import STRANGER, _private_table, _status

pytestmark = pytest.mark.timeout(120)
PORTS = ("grpc", "web")
RIGHT = "right one"
OK = ("OK", "")
DENIED = ("PERMISSION_DENIED", "WRONG_PASSWORD")
LOCKED = ("RESOURCE_EXHAUSTED", "TOO_MANY_WRONG_PASSWORDS")
CHAT_TOO_FAST = ("RESOURCE_EXHAUSTED", "CHAT_TOO_FAST")


@pytest.fixture(scope="module")
def proxied(tmp_path_factory) -> ServerProcess:
    """A server behind a proxy on loopback: 127.0.0.1 is trusted, 127.0.0.2 is not."""
    proc = ServerProcess(tmp_path_factory.mktemp("proxied-server"),
                         extra_args=("--trusted-proxies", "127.0.0.1/32"))
    proc.start()
    yield proc
    proc.kill()


def spoofed(i: int) -> dict[str, str]:
    """A new address each time, in both headers."""
    return {"X-Forwarded-For": f"198.51.100.{i % 250}", "Forwarded": f"for=192.0.2.{i % 250}"}


class _Grpc:
    def __init__(self, stub) -> None:
        self.stub = stub

    async def _call(self, rpc: str, request, headers: dict[str, str]) -> tuple[str, str]:
        metadata = tuple((k.lower(), v) for k, v in headers.items())
        code, reason = await _status(getattr(self.stub, rpc)(request, metadata=metadata))
        return (code if code == "OK" else code.name, reason)


class _Web:
    """Connect JSON over HTTP/1.1 from a source address of the test's choice."""

    def __init__(self, web_url: str, source: str) -> None:
        parts = urlsplit(web_url)
        self.host, self.port, self.source = parts.hostname, parts.port, source

    def _post(self, rpc: str, request, headers: dict[str, str]) -> tuple[str, str]:
        conn = http.client.HTTPConnection(self.host, self.port, timeout=30,
                                          source_address=(self.source, 0))
        try:
            conn.request("POST", f"/belote.v1.TableService/{rpc}",
                         body=json_format.MessageToJson(request),
                         headers={"Content-Type": "application/json", **headers})
            answer = conn.getresponse()
            status, body = answer.status, json.loads(answer.read())
        finally:
            conn.close()
        if status == 200:
            return OK
        reason = ""
        for detail in body.get("details", ()):
            if detail["type"] == "google.rpc.ErrorInfo":
                raw = base64.b64decode(detail["value"] + "=" * (-len(detail["value"]) % 4))
                reason = error_details_pb2.ErrorInfo.FromString(raw).reason
        return (body["code"].upper(), reason)

    async def _call(self, rpc: str, request, headers: dict[str, str]) -> tuple[str, str]:
        return await asyncio.to_thread(self._post, rpc, request, headers)


class _Calls:
    def __init__(self, port: _Grpc | _Web) -> None:
        self.port = port

    async def look(self, table_id: str, password: str, headers: dict[str, str]) -> tuple[str, str]:
        return await self.port._call("GetTable", pb.GetTableRequest(table_id=table_id,
                                                                     password=password), headers)

    async def say(self, table_id: str, text: str, headers: dict[str, str]) -> tuple[str, str]:
        return await self.port._call("PostChat", pb.PostChatRequest(
            table_id=table_id, text=text, display_name=f"kibitzer {text}", request_id=rid()),
            headers)


@contextlib.asynccontextmanager
async def calling(port: str, server: ServerProcess, source: str):
    """Calls to `server`'s gRPC or web port from the address `source` (127.0.0.N)."""
    if port == "web":
        yield _Calls(_Web(server.web_url, source))
        return
    async with caller_from(source, server.address) as stub:
        yield _Calls(_Grpc(stub))


@contextlib.asynccontextmanager
async def grpc_stub(server: ServerProcess):
    async with grpc.aio.insecure_channel(server.address) as channel:
        yield table_service_pb2_grpc.TableServiceStub(channel)


# From an untrusted peer ----------------------------------------------------------------------
@pytest.mark.parametrize("port", PORTS)
async def test_without_trusted_proxies_forwarded_addresses_from_loopback_change_nothing(server, port):
    """No --trusted-proxies (the shared server): a caller on loopback, where uvicorn used to
    believe X-Forwarded-For, is locked out after 5 wrong passwords whatever address it forwards."""
    async with grpc_stub(server) as stub:
        table_id = await _private_table(stub, RIGHT)
    async with calling(port, server, "127.0.0.1") as me:
        outcomes = [await me.look(table_id, f"guess {i}", spoofed(i)) for i in range(40)]
        assert outcomes == [DENIED] * 5 + [LOCKED] * 35
        assert await me.look(table_id, RIGHT, spoofed(40)) == LOCKED


@pytest.mark.parametrize("port", PORTS)
async def test_without_trusted_proxies_a_spectator_cannot_chat_faster_by_forwarding(server, port):
    async with grpc_stub(server) as stub:
        table = await new_table(stub, "classic", humans=(0, 1))
    async with calling(port, server, "127.0.0.1") as me:
        outcomes = [await me.say(table.table_id, f"spam {i}", spoofed(i)) for i in range(8)]
    assert outcomes == [OK] * 5 + [CHAT_TOO_FAST] * 3


@pytest.mark.parametrize("port", PORTS)
async def test_a_peer_outside_the_trusted_networks_cannot_forward_an_address(proxied, port):
    async with grpc_stub(proxied) as stub:
        table_id = await _private_table(stub, RIGHT)
    async with calling(port, proxied, STRANGER) as stranger, \
            calling(port, proxied, "127.0.0.1") as proxy:
        outcomes = [await stranger.look(table_id, f"guess {i}", spoofed(i)) for i in range(40)]
        assert outcomes == [DENIED] * 5 + [LOCKED] * 35
        assert await stranger.look(table_id, RIGHT, spoofed(40)) == LOCKED
        # Not even as the address of someone behind the trusted proxy: that one is still free.
        assert await stranger.look(table_id, RIGHT, {"X-Forwarded-For": "203.0.113.7"}) == LOCKED
        assert await proxy.look(table_id, RIGHT, {"X-Forwarded-For": "203.0.113.7"}) == OK
        assert await proxy.look(table_id, RIGHT, {}) == OK


# Behind a trusted proxy ----------------------------------------------------------------------
@pytest.mark.parametrize("port", PORTS)
async def test_behind_a_trusted_proxy_each_client_is_a_caller_of_its_own(proxied, port):
    async with grpc_stub(proxied) as stub:
        table_id = await _private_table(stub, RIGHT)
    async with calling(port, proxied, "127.0.0.1") as proxy:
        # The proxy appends the address it saw (203.0.113.7) to what the client sent: a new
        # address the client writes itself each time, on the left, is never read.
        outcomes = [await proxy.look(table_id, f"guess {i}",
                                     {"X-Forwarded-For": f"198.51.100.{i}, 203.0.113.7"})
                    for i in range(40)]
        assert outcomes == [DENIED] * 5 + [LOCKED] * 35
        for told in ({"X-Forwarded-For": "203.0.113.7"}, {"Forwarded": "for=203.0.113.7"},
                     {"X-Forwarded-For": "203.0.113.7", "Forwarded": "for=203.0.113.7"}):
            assert await proxy.look(table_id, RIGHT, told) == LOCKED, told
        # Everyone else behind it: the right password works; their own mistakes count apart.
        for told in ({"X-Forwarded-For": "203.0.113.8"},
                     {"Forwarded": 'for="[2001:db8::8]:4711";proto=https'}, {}):
            assert await proxy.look(table_id, RIGHT, told) == OK, told
        other = {"X-Forwarded-For": "203.0.113.9"}
        assert [await proxy.look(table_id, f"typo {i}", other) for i in range(5)] == [DENIED] * 5
        assert await proxy.look(table_id, RIGHT, other) == LOCKED
        assert await proxy.look(table_id, RIGHT, {"X-Forwarded-For": "203.0.113.8"}) == OK


@pytest.mark.parametrize("port", PORTS)
async def test_behind_a_trusted_proxy_spectators_chat_within_limits_of_their_own(proxied, port):
    async with grpc_stub(proxied) as stub:
        table = await new_table(stub, "classic", humans=(0, 1))
    async with calling(port, proxied, "127.0.0.1") as proxy:
        one, two = {"X-Forwarded-For": "203.0.113.7"}, {"Forwarded": "for=203.0.113.8"}
        assert [await proxy.say(table.table_id, f"a{i}", one) for i in range(6)] == \
            [OK] * 5 + [CHAT_TOO_FAST]
        assert [await proxy.say(table.table_id, f"b{i}", two) for i in range(5)] == [OK] * 5


async def test_one_client_behind_proxies_is_one_caller_on_both_ports(proxied):
    async with grpc_stub(proxied) as stub:
        table_id = await _private_table(stub, RIGHT)
    him = {"X-Forwarded-For": "203.0.113.7"}
    async with calling("grpc", proxied, "127.0.0.1") as grpc_port, \
            calling("web", proxied, "127.0.0.1") as web_port:
        assert [await grpc_port.look(table_id, f"guess {i}", him) for i in range(3)] == [DENIED] * 3
        assert [await web_port.look(table_id, f"guess {i}", him) for i in range(2)] == [DENIED] * 2
        for port in (grpc_port, web_port):
            assert await port.look(table_id, RIGHT, him) == LOCKED
            assert await port.look(table_id, RIGHT, {"X-Forwarded-For": "203.0.113.8"}) == OK


# The setting ---------------------------------------------------------------------------------
@pytest.mark.parametrize("given", ["flag", "env"])
def test_serve_refuses_a_trusted_proxy_that_is_not_a_network(tmp_path, given):
    env = {k: v for k, v in os.environ.items() if not k.startswith("BELOTE_")}
    args = [*BELOTE, "serve", "--listen", "127.0.0.1:0", "--metrics-listen", "",
            "--web-listen", "", "--store", f"sqlite:///{tmp_path}/x.db"]
    if given == "flag":
        args += ["--trusted-proxies", "10.0.0.0/8, nonsense"]
    else:
        env["BELOTE_TRUSTED_PROXIES"] = "10.0.0.0/8, nonsense"
    run = subprocess.run(args, capture_output=True, text=True, timeout=45, env=env,
                         stdin=subprocess.DEVNULL, check=False)
    assert (run.returncode, run.stderr) == (2, (
        "belote serve: --trusted-proxies: not a network (a CIDR such as 10.0.0.0/8): "
        "'nonsense' does not appear to be an IPv4 or IPv6 network\n"))
    assert not (tmp_path / "x.db").exists()   # refused before the store is opened
