"""The Node.js client (clients/node/) plays a whole game against a real server and exits 0.

Its dependencies come from clients/node/package-lock.json: `make test` runs `npm ci` first (the
Makefile target clients/node/node_modules); run by hand, this test does it when they are missing.
"""

from __future__ import annotations

import asyncio
import re
import subprocess

from client_helpers import ROOT, CuttableProxy, need_tool

NODE_DIR = ROOT / "clients" / "node"


def node_modules() -> None:
    if (NODE_DIR / "node_modules" / "@grpc" / "grpc-js").is_dir():
        return
    npm = need_tool("npm", "the Node client's dependencies are installed with npm ci")
    subprocess.run([npm, "ci", "--ignore-scripts", "--no-audit", "--no-fund"], cwd=NODE_DIR, check=True,
                   capture_output=True, timeout=300)


def test_node_client_plays_a_whole_game(server):
    node = need_tool("node", "the Node.js client runs on Node.js")
    node_modules()
    run = subprocess.run([node, "play.js", "--target", server.address, "--seed", "11",
                          "--timeout", "40"],
                         cwd=NODE_DIR, capture_output=True, text=True, timeout=60, check=False)
    assert run.returncode == 0, run.stdout + run.stderr
    lines = run.stdout.splitlines()
    assert lines[0].startswith("table: ") and "three NORMAL bots" in lines[0]
    assert any(line.startswith("deal 1: seat ") for line in lines), run.stdout
    score = lines[-1]
    assert score.startswith("score: "), run.stdout
    totals = [int(x) for x in score.removeprefix("score: ").split(" (")[0].split(" - ")]
    assert max(totals) >= 1000  # the classic target: a complete game


def test_node_client_reports_a_refused_table(server):
    node = need_tool("node", "the Node.js client runs on Node.js")
    node_modules()
    run = subprocess.run([node, "play.js", "--target", server.address, "--preset", "nope"],
                         cwd=NODE_DIR, capture_output=True, text=True, timeout=30, check=False)
    assert run.returncode == 1
    assert run.stderr.startswith("play.js: INVALID_ARGUMENT: ") and "nope" in run.stderr


async def test_node_client_survives_cut_connections(server):
    """Every connection through the proxy is cut every 0.2 s: the Node client retries its calls
    with the same request ids and resumes its watch stream, and still finishes the game."""
    node = need_tool("node", "the Node.js client runs on Node.js")
    node_modules()
    proxy = CuttableProxy(server.address)
    await proxy.start()
    proc = await asyncio.create_subprocess_exec(
        node, "play.js", "--target", proxy.address, "--option", "target=501", "--seed", "5",
        "--timeout", "40", cwd=NODE_DIR, stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE)
    try:
        done = asyncio.ensure_future(proc.communicate())
        while not done.done():
            await asyncio.wait([done], timeout=0.2)
            proxy.cut()
        out, err = done.result()
    finally:
        if proc.returncode is None:
            proc.kill()
        await proxy.close()
    assert proc.returncode == 0, (out + err).decode()
    score = out.decode().splitlines()[-1]
    assert score.startswith("score: ") and proxy.cuts >= 3
    reconnections = int(re.search(r"(\d+) reconnections", score).group(1))
    assert reconnections >= 1, score
