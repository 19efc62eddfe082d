"""The Node.js client (clients/node/: @belote/client over @connectrpc/connect-node) plays a
whole game against a real server and exits 0.

`make install` builds it (npm ci from clients/node/package-lock.json, which copies in
@belote/client from clients/ts/, built first; then build.mjs); run by hand, this test builds it
when it is missing or older than its sources.
"""

from __future__ import annotations

import asyncio
import re
import subprocess

import pytest
from client_helpers import ROOT, CuttableProxy, need_tool, rpcs_handled, rpcs_since

NODE_DIR = ROOT / "clients" / "node"
TS_DIR = ROOT / "clients" / "ts"
PLAY = NODE_DIR / "dist" / "play.mjs"


def play_command() -> list[str]:
    """node and the built play.mjs, built first if need be."""
    node = need_tool("node", "the Node.js client runs on Node.js")
    package = TS_DIR / "dist" / "index.js"
    sources = [*NODE_DIR.glob("src/*.ts"), NODE_DIR / "build.mjs", *TS_DIR.glob("src/*.ts")]
    if not PLAY.exists() or max(p.stat().st_mtime for p in sources) > PLAY.stat().st_mtime:
        if not package.exists() or max(p.stat().st_mtime for p in TS_DIR.glob("src/*.ts")) > \
                package.stat().st_mtime:
            pytest.fail("clients/ts/dist/ is missing or stale: run `make install` (it builds "
                        "@belote/client, which the Node.js client is built on)")
        npm = need_tool("npm", "the Node client's dependencies are installed with npm ci")
        # npm ci copies in @belote/client as built now (install-links: clients/node/.npmrc).
        subprocess.run([npm, "ci", "--ignore-scripts", "--no-audit", "--no-fund"], cwd=NODE_DIR,
                       check=True, capture_output=True, timeout=300)
        subprocess.run([node, "build.mjs"], cwd=NODE_DIR, check=True, capture_output=True,
                       timeout=300)
    return [node, str(PLAY)]


def test_node_client_plays_a_whole_game(server):
    run = subprocess.run([*play_command(), "--target", server.address, "--seed", "11",
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


def test_node_client_plays_from_its_stream_alone(own_server):
    """The seat's moves come with its stream (your_turn): besides setting the table up, the
    game takes only Act calls, as many as the actions it reports."""
    server = own_server()
    before = rpcs_handled(server.metrics_url)
    run = subprocess.run([*play_command(), "--target", server.address, "--seed", "12",
                          "--option", "target=501", "--timeout", "40"],
                         cwd=NODE_DIR, capture_output=True, text=True, timeout=60, check=False)
    assert run.returncode == 0, run.stdout + run.stderr
    actions = int(re.search(r"; (\d+) actions of ours", run.stdout.splitlines()[-1]).group(1))
    assert actions > 0
    assert rpcs_since(before, server.metrics_url) == {"CreateTable": 1, "JoinTable": 1,
                                                      "AddBot": 3, "Act": actions}


def test_node_client_reports_a_refused_table(server):
    run = subprocess.run([*play_command(), "--target", server.address, "--preset", "nope"],
                         cwd=NODE_DIR, capture_output=True, text=True, timeout=30, check=False)
    assert run.returncode == 1
    assert run.stderr.startswith("play.mjs: INVALID_ARGUMENT: ") and "nope" in run.stderr


async def test_node_client_survives_cut_connections(server):
    """Every connection through the proxy is cut every 0.2 s: the Node client retries its calls
    with the same request ids and resumes its watch stream, and still finishes the game."""
    command = play_command()
    proxy = CuttableProxy(server.address)
    await proxy.start()
    proc = await asyncio.create_subprocess_exec(
        *command, "--target", proxy.address, "--option", "target=501", "--seed", "5",
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


def test_the_readme_walk_through_plays_a_game(server):
    """The README's Node.js block, run as written (from the repository root) once the client is
    built: the command a newcomer pastes plays a whole game."""
    play_command()
    section = (ROOT / "README.md").read_text().split("### With Node.js", 1)[1].split("\n### ", 1)[0]
    block = re.search(r"```sh\n(.*?)\n```", section, re.DOTALL).group(1)
    lines = [line.split("#", 1)[0].strip() for line in block.splitlines()]
    assert lines[0] == "make install"
    command = lines[1].replace("127.0.0.1:50051", server.address)
    assert command.startswith("node clients/node/dist/play.mjs --target ")
    run = subprocess.run(["bash", "-c", command], cwd=ROOT, capture_output=True, text=True,
                         timeout=60, check=False)
    assert run.returncode == 0, run.stdout + run.stderr
    assert run.stdout.splitlines()[-1].startswith("score: ")
