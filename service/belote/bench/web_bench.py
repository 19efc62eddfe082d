"""The web path's Act throughput beside the gRPC port's, in one run against one server.

- ``act_rpc_per_s_beside_web``: table_bench's ``act_rpc_per_s`` (100 tables of four human
  seats, each seat asking GetLegalActions then Act) over the gRPC port, measured again here so
  that the two figures come from one server in one run;
- ``web_act_rpc_per_s``: the same load over the web port, Connect with binary bodies (connectrpc's
  own client on HTTP/1.1), against the same server process;
- ``web_act_rpc_ratio``: web / gRPC.
"""

from __future__ import annotations

import asyncio
import os
import random
import re
import subprocess
import sys
import tempfile
import time

from connectrpc.client import ConnectClient
from connectrpc.compat import google_protobuf_binary_codec

from belote.api.connect import method_infos
from belote.bench.table_bench import _play_table, act_rpc


class ConnectStub:
    """The TableServiceStub calls _play_table makes, over Connect: the same load shape."""

    def __init__(self, client: ConnectClient) -> None:
        self._client, self._methods = client, method_infos()

    def __getattr__(self, rpc: str):
        method = self._methods[rpc]

        async def call(request, metadata=None):
            return await self._client.execute_unary(request=request, method=method,
                                                    headers=dict(metadata or ()))
        return call


async def web_act_rpc(web_url: str, tables: int = 100, seconds: float = 10.0) -> float:
    async with ConnectClient(web_url, codec=google_protobuf_binary_codec(),
                             send_compression=None, accept_compression=()) as client:
        stub = ConnectStub(client)
        warm = time.perf_counter() + 2.0
        await asyncio.gather(*(_play_table(stub, i, warm, [], random.Random(i)) for i in range(4)))
        start = time.perf_counter()
        counts = await asyncio.gather(*(_play_table(stub, i, start + seconds, [], random.Random(i))
                                        for i in range(tables)))
        return sum(counts) / (time.perf_counter() - start)


def start_server(store_url: str) -> tuple[subprocess.Popen, str, str]:
    """``belote serve`` with both ports on free loopback ports: (process, gRPC address, web URL)."""
    env = {**os.environ, "BELOTE_LOG_LEVEL": "warning", "BELOTE_METRICS_LISTEN": "",
           "BELOTE_WEB_LISTEN": "127.0.0.1:0",
           "BELOTE_TABLES_PER_MINUTE": "0"}      # one client makes every table
    proc = subprocess.Popen([sys.executable, "-m", "belote.cli", "serve", "--listen", "127.0.0.1:0",
                             "--store", store_url], stdout=subprocess.PIPE,
                            stderr=subprocess.DEVNULL, env=env, text=True)
    target = web = None
    for line in proc.stdout:
        if found := re.search(r"listening on (\S+)", line):
            target = found.group(1)
        if found := re.search(r"web on (\S+)", line):
            web = found.group(1)
        if target and web:
            return proc, target, web
    raise RuntimeError("the server did not start")


def run() -> list[tuple[str, float, str]]:
    with tempfile.TemporaryDirectory() as tmp:
        proc, target, web = start_server(f"sqlite:///{tmp}/act.db")
        try:
            grpc_rate, _ = asyncio.run(act_rpc(target))
            web_rate = asyncio.run(web_act_rpc(web))
        finally:
            proc.terminate()
            proc.wait(10)
    return [("act_rpc_per_s_beside_web", grpc_rate, "acts/s"), ("web_act_rpc_per_s", web_rate, "acts/s"),
            ("web_act_rpc_ratio", web_rate / grpc_rate, "web/grpc")]


if __name__ == "__main__":
    for name, value, unit in run():
        print(f"bench: {name} {value:.2f} {unit}")
