"""@belote/client (clients/ts/) as a front-end developer gets it: `npm pack`ed into a tarball,
installed offline into an empty folder (no link back into the repository), the examples of
docs/frontend.md type-checked against it (tsc, strict, the .d.ts of every package checked too),
and its table handle playing a whole game against a live server from Node.js, told its turns by
its stream alone: no GetTable nor GetLegalActions during the game; cut off for longer than the
server's disconnect grace, it reconnects and takes its seat back from the takeover bot.

`make install` builds the package (npm ci, then build.mjs: buf generate, tsc); run by hand, this
test builds it when its dist/ is missing or older than its sources.
"""

from __future__ import annotations

import asyncio
import json
import random
import re
import shutil
import subprocess
import time
import urllib.request
from pathlib import Path

import pytest
from belote.v1 import table_service_pb2 as pb
from belote_client import BeloteClient
from client_helpers import ROOT, CuttableProxy, need_tool, play_turn
from prometheus_client.parser import text_string_to_metric_families

pytestmark = pytest.mark.timeout(300)

TS_DIR = ROOT / "clients" / "ts"
EXAMPLES = ROOT / "docs" / "examples"
FRONTEND_DOC = ROOT / "docs" / "frontend.md"
TSC = TS_DIR / "node_modules" / ".bin" / "tsc"
# What an app installs beside the package: connect-node (Node.js) and connect-web (browsers),
# the optional peers its examples use, and Node's types for the Node.js example.
APP_PACKAGES = ("@connectrpc/connect-node", "@connectrpc/connect-web", "@types/node")
SERVICE = "belote.v1.TableService"


def built_package(node: str) -> None:
    """clients/ts/dist/, built now if missing or older than its sources."""
    dist = TS_DIR / "dist" / "index.js"
    sources = [*TS_DIR.glob("src/*.ts"), TS_DIR / "build.mjs", TS_DIR / "buf.gen.yaml",
               *(ROOT / "proto" / "belote" / "v1").glob("*.proto")]
    if dist.exists() and max(p.stat().st_mtime for p in sources) <= dist.stat().st_mtime:
        return
    if not TSC.exists():
        npm = need_tool("npm", "@belote/client's dependencies are installed with npm ci")
        subprocess.run([npm, "ci", "--ignore-scripts", "--no-audit", "--no-fund"], cwd=TS_DIR,
                       check=True, capture_output=True, timeout=300)
    subprocess.run([node, "build.mjs"], cwd=TS_DIR, check=True, capture_output=True, timeout=300)


def dependency_closure(names: tuple[str, ...]) -> list[Path]:
    """The folders, in clients/ts/node_modules, of `names` and everything they need (their
    dependencies and required peers), as npm installed them there from the package-lock."""
    modules = TS_DIR / "node_modules"
    seen: dict[str, Path] = {}
    todo = list(names)
    while todo:
        name = todo.pop()
        if name in seen:
            continue
        folder = modules / name
        manifest = json.loads((folder / "package.json").read_text())
        seen[name] = folder
        optional = {n for n, meta in manifest.get("peerDependenciesMeta", {}).items()
                    if meta.get("optional")}
        todo += list(manifest.get("dependencies", {}))
        todo += [n for n in manifest.get("peerDependencies", {}) if n not in optional]
    return list(seen.values())


@pytest.fixture(scope="module")
def app(tmp_path_factory) -> Path:
    """An empty folder with the packed package (and its dependencies, each packed from the
    package's own node_modules) installed offline, with an empty npm cache: nothing could come
    from a registry or from the repository."""
    node = need_tool("node", "@belote/client is built and run by Node.js")
    npm = need_tool("npm", "@belote/client is packed and installed by npm")
    built_package(node)
    root = tmp_path_factory.mktemp("ts-package")
    tarballs, app = root / "tarballs", root / "app"
    tarballs.mkdir()
    app.mkdir()
    pack = ["pack", "--ignore-scripts", "--json", "--pack-destination", str(tarballs)]
    packed = json.loads(subprocess.run([npm, *pack], cwd=TS_DIR, check=True, capture_output=True,
                                       text=True, timeout=120).stdout)
    assert [p["name"] for p in packed] == ["@belote/client"]
    needs = (*json.loads((TS_DIR / "package.json").read_text())["dependencies"], *APP_PACKAGES)
    others = [str(p) for p in dependency_closure(needs)]
    subprocess.run([npm, *pack, *others], cwd=root, check=True, capture_output=True, timeout=120)
    (app / "package.json").write_text(json.dumps(
        {"name": "frontend", "version": "1.0.0", "private": True, "type": "module"}))
    install = subprocess.run(
        [npm, "install", "--offline", "--no-audit", "--no-fund", "--ignore-scripts",
         "--cache", str(root / "empty-cache"), *sorted(map(str, tarballs.glob("*.tgz")))],
        cwd=app, capture_output=True, text=True, timeout=300, check=False)
    assert install.returncode == 0, install.stdout + install.stderr
    return app


def test_the_tarball_holds_the_built_package_and_nothing_else():
    node = need_tool("node", "@belote/client is built by Node.js")
    npm = need_tool("npm", "@belote/client is packed by npm")
    built_package(node)
    listing = json.loads(subprocess.run([npm, "pack", "--dry-run", "--json", "--ignore-scripts"],
                                        cwd=TS_DIR, check=True, capture_output=True, text=True,
                                        timeout=120).stdout)[0]
    files = {f["path"] for f in listing["files"]}
    for module in ("index", "browser", "web", "client", "table", "fold", "errors", "storage",
                   "stream", "retry", "transport"):
        assert {f"dist/{module}.js", f"dist/{module}.d.ts"} <= files, module
    for gen in ("belote/v1/cards_pb", "belote/v1/events_pb", "belote/v1/table_service_pb",
                "belote/v1/errors_pb", "belote/v1/ledgers_pb", "google/rpc/error_details_pb"):
        assert {f"dist/gen/{gen}.js", f"dist/gen/{gen}.d.ts"} <= files, gen
    assert {f for f in files if not f.startswith("dist/")} == {"package.json", "README.md"}
    manifest = json.loads((TS_DIR / "package.json").read_text())
    assert not any(str(v).startswith(("file:", "link:")) for key in
                   ("dependencies", "peerDependencies") for v in manifest.get(key, {}).values())
    assert set(manifest["dependencies"]) == {"@bufbuild/protobuf", "@connectrpc/connect"}


def test_installed_offline_it_is_a_copy_with_no_link_into_the_repository(app):
    installed = app / "node_modules" / "@belote" / "client"
    assert installed.is_dir() and not installed.is_symlink()
    assert (installed / "dist" / "index.d.ts").is_file()
    assert not (installed / "src").exists() and not (installed / "node_modules").exists()
    lock = json.loads((app / "package-lock.json").read_text())
    for path, entry in lock["packages"].items():
        assert not entry.get("link"), path
        resolved = entry.get("resolved", "")
        assert not resolved or resolved.startswith("file:../tarballs/"), (path, resolved)
    # Everything the app resolves lies inside it.
    for module in (app / "node_modules").rglob("*"):
        assert not module.is_symlink() or Path(module.resolve()).is_relative_to(app), module


def test_the_docs_examples_type_check_strictly_against_the_installed_package(app):
    """docs/examples/minimal.ts (the front-end docs/frontend.md shows, verbatim) and
    node-player.ts compile with strict checks, the .d.ts files included; a misuse of the
    package's types is caught (they are real types, not `any`)."""
    doc = FRONTEND_DOC.read_text()
    for example in ("minimal.ts", "node-player.ts"):
        source = (EXAMPLES / example).read_text()
        assert f"```ts\n{source}```" in doc, f"docs/frontend.md does not show {example} as it is"
        shutil.copy(EXAMPLES / example, app / example)
    (app / "wrong.ts").write_text(
        'import { connect, type TableHandle } from "@belote/client";\n'
        "export function misuse(table: TableHandle): string {\n"
        '  void connect("http://x").quickPlay({ displayName: 7 });\n'
        '  void table.act("pass");\n'
        "  return table.state.version;\n"
        "}\n")
    options = {"target": "ES2022", "module": "NodeNext", "moduleResolution": "NodeNext",
               "lib": ["ES2022", "DOM", "DOM.Iterable"], "types": ["node"], "strict": True,
               "skipLibCheck": False, "noEmit": True}
    (app / "tsconfig.json").write_text(json.dumps(
        {"compilerOptions": options, "files": ["minimal.ts", "node-player.ts"]}))
    (app / "tsconfig.wrong.json").write_text(json.dumps(
        {"compilerOptions": options, "files": ["wrong.ts"]}))
    node = need_tool("node", "tsc runs on Node.js")
    good = subprocess.run([node, str(TSC), "-p", "tsconfig.json"], cwd=app, capture_output=True,
                          text=True, timeout=300, check=False)
    assert good.returncode == 0, good.stdout + good.stderr
    bad = subprocess.run([node, str(TSC), "-p", "tsconfig.wrong.json"], cwd=app,
                         capture_output=True, text=True, timeout=300, check=False)
    errors = re.findall(r"^wrong\.ts\((\d+),\d+\): error (TS\d+)", bad.stdout, re.MULTILINE)
    assert errors == [("3", "TS2322"), ("4", "TS2345"), ("5", "TS2322")], bad.stdout


def handled(metrics_url: str) -> dict[str, float]:
    """grpc_server_handled_total by method, all codes added up."""
    with urllib.request.urlopen(metrics_url, timeout=5) as reply:
        text = reply.read().decode()
    counts: dict[str, float] = {}
    for family in text_string_to_metric_families(text):
        for s in family.samples:
            if s.name == "grpc_server_handled_total" and s.labels["grpc_service"] == SERVICE:
                method = s.labels["grpc_method"]
                counts[method] = counts.get(method, 0.0) + s.value
    return counts


def test_the_handle_plays_a_whole_game_from_node_told_its_turns_by_its_stream(app, own_server):
    """docs/examples/node-player.ts, compiled and run against a server of its own: a table
    with three bots, every turn played from state.yourTurn, the game over; on the server, no
    GetTable and no GetLegalActions at all, one Act per action the player counted."""
    node = need_tool("node", "the example runs on Node.js")
    shutil.copy(EXAMPLES / "node-player.ts", app / "node-player.ts")
    (app / "tsconfig.build.json").write_text(json.dumps({"compilerOptions": {
        "target": "ES2022", "module": "NodeNext", "moduleResolution": "NodeNext",
        "lib": ["ES2022", "DOM"], "types": ["node"], "strict": True, "outDir": "out"},
        "files": ["node-player.ts"]}))
    compiled = subprocess.run([node, str(TSC), "-p", "tsconfig.build.json"], cwd=app,
                              capture_output=True, text=True, timeout=300, check=False)
    assert compiled.returncode == 0, compiled.stdout + compiled.stderr
    server = own_server()
    before = handled(server.metrics_url)
    run = subprocess.run([node, "out/node-player.js", server.address], cwd=app,
                         capture_output=True, text=True, timeout=120, check=False)
    # The stream the player closed is counted once the server has seen it go.
    deadline = time.monotonic() + 5
    while (after := handled(server.metrics_url)).get("WatchTable", 0.0) <= \
            before.get("WatchTable", 0.0) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert run.returncode == 0, run.stdout + run.stderr
    lines = run.stdout.splitlines()
    assert lines[0].startswith("table: ") and lines[-1].startswith("score: "), run.stdout
    score = re.fullmatch(r"score: (\d+) - (\d+) \((\d+) actions, 0 reconnections, 0 retries\)",
                         lines[-1])
    assert score, lines[-1]
    assert max(int(score[1]), int(score[2])) >= 1000   # the classic target: a complete game

    def delta(method: str) -> float:
        return after.get(method, 0.0) - before.get(method, 0.0)

    assert delta("GetTable") == 0 and delta("GetLegalActions") == 0
    assert delta("CreateTable") == 1 and delta("JoinTable") == 1 and delta("AddBot") == 3
    assert delta("Act") == int(score[3]) >= 8 * 3    # at least three deals' cards of one seat
    assert delta("WatchTable") == 1                   # the one stream, closed at the end


# A seat that waits, is cut off until a takeover bot plays it, then plays the game out: each
# milestone on a line of its own. Plain JavaScript on the installed package (its dist/). Two
# bots; the test plays seat 2, slowly, so that the game is still on when the seat comes back.
RECLAIM_PLAYER = """
import { createGrpcTransport } from "@connectrpc/connect-node";
import { BotLevel, Code, SeatOccupant, connect, memoryStorage } from "@belote/client";

const target = process.argv[2];
const belote = connect(`http://${target}`, {
  transport: createGrpcTransport({ baseUrl: `http://${target}` }), storage: memoryStorage(),
  retry: { maxBackoffMs: 300 },
});
const table = await belote.createTable({ options: { target: "501" }, displayName: "ana" });
await table.addBot(BotLevel.NORMAL, 1);
await table.addBot(BotLevel.NORMAL, 3);
console.log(`table ${table.tableId}`);   // seat 2: the test's own player, who starts the game
let takenOver = false;
let played = -1n;
table.onChange((state, event) => {
  const body = event?.body;
  if (body?.case === "botSeated" && body.value.seat === 0 && body.value.takeover) {
    takenOver = true;
    console.log("taken over");
  }
  if (body?.case === "seatReclaimed" && body.value.seat === 0) {
    console.log(`reclaimed: seat 0 ${SeatOccupant[state.table.seats[0].occupant]}`);
  }
  if (body?.case === "gameEnded") {
    console.log(`game over: reclaims ${table.reclaims}, reconnected ${table.reconnects > 0}`);
    table.close();
    return;
  }
  // The seat plays only once it is back: until then the table waits for it.
  const turn = state.yourTurn;
  if (!takenOver || !turn || turn.version === played) return;
  played = turn.version;
  table.act(turn.actions[0]).catch((err) => {
    if (err.code !== Code.Aborted) { console.error(err.message); process.exit(1); }
  });
});
await table.done;
"""


async def wait_for_takeover(address: str, table_id: str, seat: int, timeout: float = 20.0) -> None:
    async with BeloteClient(address) as client:
        deadline = time.monotonic() + timeout
        while True:
            held = (await client.get_table(table_id)).seats[seat]
            if held.occupant == pb.SEAT_OCCUPANT_BOT and held.bot_takeover:
                return
            assert time.monotonic() < deadline, f"no takeover bot at seat {seat}"
            await asyncio.sleep(0.1)


async def play_slowly(address: str, table_id: str) -> None:
    """Seat 2 of the table, one random legal move every 0.2 s, until the game is over."""
    rng = random.Random(2)
    async with BeloteClient(address) as client:
        bob = await client.join_table(table_id, "bob", seat=2)
        while (await bob.view()).status != pb.TABLE_STATUS_FINISHED:
            await play_turn(bob, rng)
            await asyncio.sleep(0.2)


async def test_the_handle_takes_its_seat_back_from_the_takeover_bot(app, tmp_path):
    """The player's connections are cut and refused until the server (disconnect grace 1 s) has
    left its seat to a takeover bot; let through again, the handle resumes its stream, sees the
    takeover, calls JoinTable with its kept token, and plays the game out at its seat."""
    from servers import ServerProcess

    node = need_tool("node", "the player runs on Node.js")
    (app / "reclaim.mjs").write_text(RECLAIM_PLAYER)
    server = ServerProcess(tmp_path / "server", extra_args=("--disconnect-grace", "1"))
    server.workdir.mkdir()
    server.start()
    proxy = CuttableProxy(server.address)
    await proxy.start()
    proc = await asyncio.create_subprocess_exec(
        node, "reclaim.mjs", proxy.address, cwd=app, stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE)
    bob = None
    try:
        first = (await asyncio.wait_for(proc.stdout.readline(), 30)).decode().strip()
        assert first.startswith("table "), first
        table_id = first.removeprefix("table ")
        proxy.upstream = "127.0.0.1:1"      # nothing listens there: every reconnection refused
        proxy.cut()
        bob = asyncio.ensure_future(play_slowly(server.address, table_id))   # the game starts
        await wait_for_takeover(server.address, table_id, 0)
        proxy.upstream = server.address
        out, err = await asyncio.wait_for(proc.communicate(), 120)
        await asyncio.wait_for(bob, 30)
    finally:
        if bob is not None and not bob.done():
            bob.cancel()
        if proc.returncode is None:
            proc.kill()
        await proxy.close()
        server.kill()
    assert proc.returncode == 0, (out + err).decode()
    assert out.decode().splitlines() == [
        "taken over", "reclaimed: seat 0 HUMAN", "game over: reclaims 1, reconnected true"]
