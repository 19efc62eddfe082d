"""A Connect client of the web port made of the standard library alone (urllib, http.client),
so that what the tests check is the wire itself: JSON or binary bodies, and the streaming
envelopes of WatchTable over HTTP/1.1."""

from __future__ import annotations

import asyncio
import base64
import http.client
import json
import struct
import urllib.error
import urllib.request
from dataclasses import dataclass
from urllib.parse import urlsplit

from belote.v1 import table_service_pb2 as pb
from google.protobuf import json_format, message_factory
from google.rpc import error_details_pb2

SERVICE = pb.DESCRIPTOR.services_by_name["TableService"]
PATH = f"/{SERVICE.full_name}/"


def output_type(rpc: str):
    return message_factory.GetMessageClass(SERVICE.methods_by_name[rpc].output_type)


@dataclass
class ConnectFailure(Exception):
    """A Connect error answer: its HTTP status, code, message and ErrorInfo reason."""

    http_status: int
    code: str
    message: str
    reason: str | None

    @classmethod
    def from_json(cls, http_status: int, body: dict) -> ConnectFailure:
        reason = None
        for detail in body.get("details", ()):
            if detail["type"] == "google.rpc.ErrorInfo":
                raw = base64.b64decode(detail["value"] + "=" * (-len(detail["value"]) % 4))
                reason = error_details_pb2.ErrorInfo.FromString(raw).reason
        return cls(http_status, body.get("code", ""), body.get("message", ""), reason)


def envelopes(body: bytes) -> list[tuple[int, bytes]]:
    """A Connect streaming or gRPC-Web body: (flags, message) per envelope."""
    found = []
    while body:
        flags, size = struct.unpack(">BI", body[:5])
        found.append((flags, body[5:5 + size]))
        body = body[5 + size:]
    return found


def headers_for(token: str | None, extra: dict | None = None) -> dict:
    headers = dict(extra or {})
    if token:
        headers["Authorization"] = f"Bearer {token}"
    return headers


class ConnectClient:
    def __init__(self, base_url: str) -> None:
        self.base_url = base_url.rstrip("/")
        parts = urlsplit(self.base_url)
        self.host, self.port = parts.hostname, parts.port

    def _post(self, rpc: str, body: bytes, headers: dict) -> tuple[int, dict, bytes]:
        request = urllib.request.Request(self.base_url + PATH + rpc, data=body, headers=headers,
                                         method="POST")
        try:
            with urllib.request.urlopen(request, timeout=30) as answer:
                return answer.status, dict(answer.headers), answer.read()
        except urllib.error.HTTPError as err:
            return err.code, dict(err.headers), err.read()

    async def call(self, rpc: str, request, token: str | None = None, *, binary: bool = False,
                   headers: dict | None = None):
        """The RPC's answer over Connect unary (JSON unless `binary`); raises ConnectFailure."""
        body = request.SerializeToString() if binary else json_format.MessageToJson(request).encode()
        kind = "application/proto" if binary else "application/json"
        status, _, raw = await asyncio.to_thread(
            self._post, rpc, body, headers_for(token, {"Content-Type": kind, **(headers or {})}))
        if status != 200:
            raise ConnectFailure.from_json(status, json.loads(raw))
        if binary:
            return output_type(rpc).FromString(raw)
        return json_format.Parse(raw, output_type(rpc)())

    async def raw(self, method: str, path: str, body: bytes = b"", headers: dict | None = None
                  ) -> tuple[int, dict, bytes]:
        """Any HTTP request to the web port: (status, lower-cased headers, body)."""
        def go():
            conn = http.client.HTTPConnection(self.host, self.port, timeout=30)
            try:
                conn.request(method, path, body=body or None, headers=headers or {})
                answer = conn.getresponse()
                return (answer.status, {k.lower(): v for k, v in answer.getheaders()},
                        answer.read())
            finally:
                conn.close()
        return await asyncio.to_thread(go)

    async def watch(self, request: pb.WatchTableRequest, token: str | None = None, *,
                    count: int, timeout: float = 60.0) -> tuple[list, list[bytes]]:
        """The first `count` events of WatchTable over Connect streaming (JSON envelopes on one
        HTTP/1.1 response), then the connection is closed: (events, every envelope's bytes)."""
        def go():
            conn = http.client.HTTPConnection(self.host, self.port, timeout=timeout)
            payload = json_format.MessageToJson(request).encode()
            try:
                conn.request("POST", PATH + "WatchTable",
                             body=struct.pack(">BI", 0, len(payload)) + payload,
                             headers=headers_for(token, {"Content-Type": "application/connect+json"}))
                answer = conn.getresponse()
                assert answer.status == 200, answer.read()
                assert answer.version == 11  # HTTP/1.1
                events, envelopes = [], []
                while len(events) < count:
                    flags, size = struct.unpack(">BI", answer.read(5))
                    data = answer.read(size)
                    envelopes.append(data)
                    if flags & 0x02:  # end of stream: an error or the stream's trailers
                        end = json.loads(data)
                        if "error" in end:
                            raise ConnectFailure.from_json(200, end["error"])
                        break
                    events.append(json_format.Parse(data, output_type("WatchTable")()))
                return events, envelopes
            finally:
                conn.close()
        return await asyncio.to_thread(go)
