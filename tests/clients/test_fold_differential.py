"""The clients' folds of a WatchTable stream (clients/python/belote_client/fold.py and
clients/ts/src/fold.ts) against the server's own view, GetTable's.

For every log and every kind of viewer (each seat, a spectator, a private table's spectator),
at every version GetTable can show -- the last event of each of the server's appends -- the
server's view (service/belote/table/state.py's fold, then views.py's ``table_view``) equals the
Python fold of the events as that viewer's stream carries them (``Redactor(viewer).see``), and
the TypeScript fold (bundled by esbuild, run by node over the same events as JSON lines) equals
the Python fold at every version, in the JSON mapping (MessageToDict, protobuf-es's toJson).

The logs: a game of every preset played by the app (humans and bots of every level, seats
left, reclaimed and taken over, chat, a stake and a rematch, a turn timer run out: the review
tests' sample games), and games decided here, seeded so that every rule the sample games may
miss is played: a private table, the forced trump, the litige with either rule and its reserve
paid, both capots, SA and TA with their multipliers, classic and enhanced announcements.
"""

from __future__ import annotations

import asyncio
import json
import re
import random
import shutil
import subprocess
import uuid
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from belote.review.sample import sample_logs
from belote.rules import rules_for
from belote.rules.auction import PASS
from belote.table.codec import action_to_pb
from belote.table.decide import (
    Act,
    CloseTable,
    CreateTable,
    Disconnect,
    JoinSeat,
    LeaveSeat,
    NextDeal,
    PostChat,
    ReclaimSeat,
    Reconnect,
    SeatBot,
    TimerMove,
    VoteRematch,
    decide,
)
from belote.table.state import HUMAN, PLAYING, TableState, evolve
from belote.table.views import SPECTATOR, Redactor, table_view
from belote.v1 import cards_pb2 as cpb
from belote.v1 import events_pb2 as epb
from belote.v1 import table_service_pb2 as tpb
from belote_client.fold import NOT_A_TURN, fold_event, initial_state
from google.protobuf.json_format import MessageToDict, MessageToJson

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "tests" / "review"))
from review_helpers import EXTRA, GAMES  # noqa: E402  (tests/review is not a package)

# The npm packages make install puts in the clients' folders: @belote/client's (clients/ts:
# protoc-gen-es, tsc, @bufbuild/protobuf) and esbuild, which the web and Node clients bundle with.
CLIENTS = ROOT / "clients"
PACKAGE_MODULES = CLIENTS / "ts" / "node_modules"
VIEWERS = (0, 1, 2, 3, SPECTATOR)
T0 = 1_767_225_600_000_000          # 2026-01-01T00:00:00Z, in microseconds
S = 1_000_000


@dataclass
class Log:
    name: str
    events: list[epb.TableEvent]
    ends: frozenset[int]             # the versions that end an append: those GetTable shows

    @property
    def table_id(self) -> str:
        return self.events[0].table_id


# The logs ---------------------------------------------------------------------------------------
def app_log(preset: str, exported: list[epb.LoggedEvent]) -> Log:
    """An export as a Log: the events of one append share their request id and time."""
    def append(m: epb.LoggedEvent) -> tuple[str, int]:
        return m.request_id, m.append_time.ToMicroseconds()
    ends = frozenset(m.sequence for m, after in zip(exported, [*exported[1:], None])
                     if after is None or append(after) != append(m))
    return Log(preset, [m.event for m in exported], ends)


@dataclass(frozen=True)
class Decided:
    """A game decided here, each seat taking random legal actions (``pass_rate``: how often it
    passes when it may, for redeals and forced trumps); the humans are ``humans``, the others
    easy bots. ``around``: the events around the table too (chat, a seat left and reclaimed, a
    lost connection, a turn timer run out, a rematch)."""

    preset: str
    seed: int
    options: tuple[tuple[str, str], ...] = ()
    pass_rate: float = 0.0
    humans: tuple[int, ...] = (0, 1, 2, 3)
    private: bool = False
    around: bool = False

    @property
    def name(self) -> str:
        return f"{'private ' if self.private else ''}{self.preset} {self.seed}"


DECIDED = (
    Decided("classic", 1, (("target", "300"),), pass_rate=0.5, humans=(0, 2), private=True, around=True),
    Decided("belgian", 141, (("target", "150"),), pass_rate=0.7),       # forced, litige reserve paid
    Decided("modern", 34, (("target", "2000"),), pass_rate=0.6),        # redeal, SA x2, capot against
    Decided("enhanced", 114, (("target", "1000"),)),                     # litige dedans, capot annoncé
    Decided("enhanced", 81, (("target", "1000"),)),                      # carré, couleur declared
)


def decided_log(game: Decided) -> Log:
    rng = random.Random(game.seed)
    state = TableState(game.name)
    events: list[epb.TableEvent] = []
    ends: set[int] = set()
    clock = [T0]

    def run(command) -> None:
        new = decide(state, command, NextDeal(tuple(rng.sample(range(32), 32)), rng.randbytes(16)))
        for e in new:
            e.sequence, e.table_id = len(events) + 1, game.name
            e.append_time.FromMicroseconds(clock[0])
            events.append(e)
            evolve(state, e)
        ends.add(len(events))
        clock[0] += S

    rules = rules_for(game.preset, dict(game.options))
    timer = 20 if game.around else 0
    run(CreateTable(epb.TableCreated(
        name=game.name, preset=game.preset, options=rules.as_strings(), is_private=game.private,
        password_hash=b"p" * 32 if game.private else b"", password_salt=b"s" * 16 if game.private else b"",
        turn_timer_seconds=timer, takeover_bot_level=epb.BOT_LEVEL_NORMAL, host_token_hash=b"h" * 32)))
    for seat in range(4):
        run(JoinSeat(seat, f"human {seat}", bytes([seat]) * 32) if seat in game.humans
            else SeatBot(seat, epb.BOT_LEVEL_EASY))
    games = 2 if game.around else 1
    moves = 0
    while True:
        if game.around:
            run(PostChat(game.humans[0], "human 0", "good luck", clock[0]))
        while state.status == PLAYING:
            seat = state.to_act()
            assert seat is not None and state.game is not None
            legal = state.game.legal_actions(seat)
            passing = [a for a in legal if getattr(a, "contract", None) == PASS]
            action = passing[0] if passing and rng.random() < game.pass_rate else rng.choice(legal)
            moves += 1
            if game.around and moves == 6:
                run(PostChat(SPECTATOR, "kibitzer", "what a lead!", clock[0]))
            if game.around and moves == 10:
                run(LeaveSeat(2, epb.BOT_LEVEL_NORMAL))
            if game.around and moves == 30:
                run(ReclaimSeat(2))
            if game.around and moves == 40:
                run(Disconnect(0))
            if game.around and moves == 44:
                run(Reconnect(0))
            if game.around and moves == 50 and state.seats[seat].occupant == HUMAN:
                clock[0] += (timer + 1) * S         # its turn timer runs out: a timer move
                run(TimerMove(seat, action, epb.BotMove(level=epb.BOT_LEVEL_NORMAL, seed=7), clock[0]))
                continue
            run(Act(seat, action))
        games -= 1
        if not games:
            break
        for seat in state.humans():
            run(VoteRematch(seat, clock[0]))
    run(CloseTable(clock[0] + 121 * S))
    return Log(game.name, events, frozenset(ends))


@pytest.fixture(scope="session")
def logs() -> dict[str, Log]:
    """The sample games of tests/review (GAMES, EXTRA: the same games, played afresh), then
    the decided ones."""
    games = [(preset, seats, {"options": options, "seed": i, **EXTRA.get(preset, {})})
             for i, (preset, (seats, options)) in enumerate(GAMES.items())]
    exports = asyncio.run(sample_logs(games))
    played = [app_log(preset, exported[:-1]) for preset, exported in zip(GAMES, exports)]
    return {log.name: log for log in [*played, *(decided_log(game) for game in DECIDED)]}


# The server, the folds, and the comparison -------------------------------------------------------
@dataclass
class Served:
    """One log through the server, for every viewer at once."""

    streams: dict[int, list[epb.TableEvent]]     # the events as each viewer's stream carries them
    views: dict[int, dict[int, tpb.Table]]       # GetTable's answer to each viewer at each append's end


def served(log: Log) -> Served:
    """The server's fold of ``log``: each viewer's stream (``Redactor.see``; on a seat's own
    stream, as app/turns.py sends it live, ``your_turn`` on the last event of each append after
    which the table waits for the seat, with what GetLegalActions answers then), and GetTable's
    answer (``table_view``) at each version that ends an append."""
    state = TableState(log.table_id)
    redactors = {viewer: Redactor(viewer) for viewer in VIEWERS}
    streams: dict[int, list[epb.TableEvent]] = {viewer: [] for viewer in VIEWERS}
    views: dict[int, dict[int, tpb.Table]] = {viewer: {} for viewer in VIEWERS}
    for event in log.events:
        evolve(state, event)
        end = event.sequence in log.ends
        for viewer in VIEWERS:
            shown = epb.TableEvent()
            shown.CopyFrom(redactors[viewer].see(event))
            if end and viewer >= 0 and state.to_act() == viewer and state.seats[viewer].occupant == HUMAN:
                assert state.game is not None
                shown.your_turn.version = state.version
                shown.your_turn.actions.extend(action_to_pb(a) for a in state.game.legal_actions(viewer))
                deadline = state.turn_deadline_us()
                if deadline is not None:
                    shown.your_turn.deadline_time.FromMicroseconds(deadline)
            streams[viewer].append(shown)
            if end:
                views[viewer][event.sequence] = table_view(state, viewer)
    return Served(streams, views)


@pytest.fixture(scope="session")
def server(logs):
    """``server(name)``: the log of that name through the server (made once)."""
    made: dict[str, Served] = {}

    def through(name: str) -> Served:
        if name not in made:
            made[name] = served(logs[name])
        return made[name]
    return through


def json_of(value) -> Any:
    """A fold's value in the JSON mapping (MessageToDict, as protobuf-es's toJson writes it)."""
    if isinstance(value, tuple):
        return [json_of(v) for v in value]
    if value is None or isinstance(value, int):
        return value
    return MessageToDict(value)


def python_states(log: Log, stream: list[epb.TableEvent], viewer: int) -> Iterator[tuple[int, Any]]:
    """(version, state) after each event of ``stream``, folded by the Python fold."""
    state = initial_state(log.table_id, viewer)
    for event in stream:
        state = fold_event(state, event)
        yield event.sequence, state


def difference(expected: Any, actual: Any, path: str = "") -> str | None:
    """The first field where two JSON values differ, as ``path: expected != actual``."""
    if expected == actual:
        return None
    if isinstance(expected, dict) and isinstance(actual, dict):
        for key in sorted(set(expected) | set(actual)):
            found = difference(expected.get(key), actual.get(key), f"{path}.{key}" if path else key)
            if found:
                return found
    if isinstance(expected, list) and isinstance(actual, list) and len(expected) == len(actual):
        for i, (e, a) in enumerate(zip(expected, actual)):
            found = difference(e, a, f"{path}[{i}]")
            if found:
                return found
    return f"{path}: {expected!r} != {actual!r}"


# What the TypeScript driver prints besides the table and the turn, when it changed.
EXTRAS = {"deals": "deals", "chat": "chat", "rematchVotes": "rematch_votes",
          "disconnected": "disconnected", "botsFillTime": "bots_fill_time"}


def fold_difference(log: Log, served: Served, viewer: int, ts: dict[int, dict] | None,
                    stream: list[epb.TableEvent] | None = None) -> str | None:
    """The first difference of the folds of ``viewer``'s stream (``stream`` instead, if given),
    as ``version N: <fold>: field: expected != folded``. At each version that ends an append,
    each fold against GetTable; at every other version, the TypeScript fold's states ``ts``
    (None: not judged) against the Python fold's: the table, the turn, and the rest whenever it
    changes."""
    views, last = served.views[viewer], {}
    for version, state in python_states(log, served.streams[viewer] if stream is None else stream, viewer):
        end = version in log.ends
        table = MessageToDict(views[version] if end else state.table)
        if ts is not None:
            expected = {"table": table, "yourTurn": json_of(state.your_turn), "version": str(version)}
            for key, name in EXTRAS.items():
                value = getattr(state, name)
                if key not in last or last[key] != value:
                    last[key] = value
                    expected[key] = json_of(value)
            found = difference(expected, ts.get(version))
            if found:
                return f"version {version}: typescript fold: {found}"
        if end and state.table != views[version]:
            return f"version {version}: python fold: {difference(table, MessageToDict(state.table))}"
    return None


# The TypeScript fold, bundled with a driver that prints its state after each event -------------
DRIVER = """\
// node fold.mjs EVENTS TABLE_ID VIEWER [check]: folds the TableEvent JSON lines of EVENTS for
// VIEWER and prints, after each event, a JSON line of the state: the table, the turn, and
// each other field when it changed (test_fold_differential.py's fold_difference reads it). With
// "check", checks on the way that foldEvent changes neither its state nor its event, that an
// event folded already changes nothing and that one after a gap throws.
import { fromJson, toBinary, toJson } from "@bufbuild/protobuf";
import { TimestampSchema } from "@bufbuild/protobuf/wkt";
import { readFileSync } from "node:fs";
import { ChatPostedSchema, DealScoredSchema, TableEventSchema, YourTurnSchema } from "./gen/belote/v1/events_pb.js";
import { TableSchema } from "./gen/belote/v1/table_service_pb.js";
import { foldEvent, initialState, type TableState } from "./fold.js";

const [file, tableId, viewer, check] = process.argv.slice(2);
const same = (a: Uint8Array, b: Uint8Array) => a.length === b.length && a.every((x, i) => x === b[i]);
const events = readFileSync(file!, "utf8").split("\\n").filter((l) => l)
  .map((l) => fromJson(TableEventSchema, JSON.parse(l)));
let state: TableState = initialState(tableId!, Number(viewer));
const out: string[] = [];
const last = new Map<string, string>();
for (const event of events) {
  const before = state;
  const bytes = check ? [toBinary(TableSchema, state.table), toBinary(TableEventSchema, event)] : [];
  state = foldEvent(state, event);
  if (check && !(same(bytes[0]!, toBinary(TableSchema, before.table)) && same(bytes[1]!, toBinary(TableEventSchema, event)))) {
    throw new Error(`foldEvent changed its input at ${event.sequence}`);
  }
  const shown: Record<string, unknown> = {
    table: toJson(TableSchema, state.table),
    yourTurn: state.yourTurn ? toJson(YourTurnSchema, state.yourTurn) : null,
    version: state.version.toString(),
  };
  const extras: Record<string, unknown> = {
    deals: state.deals.map((d) => toJson(DealScoredSchema, d)),
    chat: state.chat.map((c) => toJson(ChatPostedSchema, c)),
    rematchVotes: state.rematchVotes,
    disconnected: state.disconnected,
    botsFillTime: state.botsFillTime ? toJson(TimestampSchema, state.botsFillTime) : null,
  };
  for (const [key, value] of Object.entries(extras)) {
    const text = JSON.stringify(value);
    if (last.get(key) !== text) {
      last.set(key, text);
      shown[key] = value;
    }
  }
  out.push(JSON.stringify(shown));
}
if (check) {
  if (events.some((e) => foldEvent(state, e) !== state)) throw new Error("an event folded again changed the state");
  const gap = { ...events[events.length - 1]!, sequence: state.version + 2n };
  let threw = false;
  try { foldEvent(state, gap); } catch { threw = true; }
  if (!threw) throw new Error("an event after a gap was folded");
}
process.stdout.write(out.join("\\n") + "\\n");
"""
# How clients/ts compiles its sources (its tsconfig.json): strict, NodeNext, no Node types.
TSCONFIG = {"compilerOptions": {
    "target": "ES2022", "module": "NodeNext", "moduleResolution": "NodeNext", "lib": ["ES2022"],
    "types": [], "strict": True, "noEmit": True, "skipLibCheck": True, "isolatedModules": True,
    "verbatimModuleSyntax": True}, "include": ["src/fold.ts"]}


def tool(name: str) -> Path:
    """An npm package's command, from the first client folder that has it installed."""
    for folder in ("ts", "web", "node"):
        path = CLIENTS / folder / "node_modules" / ".bin" / name
        if path.exists():
            return path
    pytest.fail(f"no clients/*/node_modules/.bin/{name}: run `make install`")


@pytest.fixture(scope="session")
def ts_fold(tmp_path_factory) -> Path:
    """clients/ts/src/fold.ts beside belote.v1 generated afresh from proto/ (as clients/ts's
    build does, protobuf-es with ".js" imports) and the driver, bundled into one file for node.
    Returns the folder (the bundle is fold.mjs)."""
    if shutil.which("node") is None or not (PACKAGE_MODULES / "@bufbuild" / "protobuf").is_dir():
        pytest.fail(f"node, or {PACKAGE_MODULES}, is missing: run `make install`")
    import grpc_tools

    work = tmp_path_factory.mktemp("ts-fold")
    src = work / "src"
    (src / "gen").mkdir(parents=True)
    (work / "node_modules").symlink_to(PACKAGE_MODULES)
    (work / "package.json").write_text('{"type": "module"}\n')
    (work / "tsconfig.json").write_text(json.dumps(TSCONFIG))
    shutil.copy(CLIENTS / "ts" / "src" / "fold.ts", src / "fold.ts")
    (src / "driver.ts").write_text(DRIVER)
    subprocess.run(
        [sys.executable, "-m", "grpc_tools.protoc", f"-I{ROOT / 'proto'}",
         f"-I{Path(grpc_tools.__file__).parent / '_proto'}",
         f"--plugin=protoc-gen-es={tool('protoc-gen-es')}",
         f"--es_out={src / 'gen'}", "--es_opt=target=ts,import_extension=js",
         *(f"belote/v1/{name}.proto" for name in ("cards", "events", "table_service"))],
        check=True)
    subprocess.run([tool("esbuild"), src / "driver.ts", "--bundle", "--platform=node",
                    "--format=esm", f"--outfile={work / 'fold.mjs'}", "--log-level=warning"], check=True)
    return work


class TypeScriptFold:
    """A node process folding one viewer's stream of one log: started at once, read by
    ``result()`` (what the driver printed after each version, by version)."""

    def __init__(self, ts_fold: Path, log: Log, events: list[epb.TableEvent], viewer: int,
                 check: bool = False):
        self.file = ts_fold / f"{uuid.uuid4().hex}.jsonl"
        self.file.write_text("".join(MessageToJson(e, indent=None) + "\n" for e in events))
        self.process = subprocess.Popen(
            ["node", ts_fold / "fold.mjs", self.file, log.table_id, str(viewer), *(["check"] if check else [])],
            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)

    def result(self) -> dict[int, dict]:
        out, err = self.process.communicate()
        self.file.unlink()
        assert self.process.returncode == 0, err
        states = [json.loads(line) for line in out.splitlines()]
        return {int(s["version"]): s for s in states}


# The tests ---------------------------------------------------------------------------------------
LOG_NAMES = [*GAMES, *(game.name for game in DECIDED)]


@pytest.mark.parametrize("name", LOG_NAMES)
def test_both_folds_equal_get_table_at_every_version(logs, server, ts_fold, name):
    log, through = logs[name], server(name)
    running = {viewer: TypeScriptFold(ts_fold, log, through.streams[viewer], viewer) for viewer in VIEWERS}
    game_started = max(i for i, e in enumerate(log.events) if e.HasField("game_started"))
    for viewer, node in running.items():
        assert fold_difference(log, through, viewer, node.result()) is None, f"{name}, viewer {viewer}"
        # What GetTable does not show: this game's deals, the chat, the seat's turn.
        stream = through.streams[viewer]
        for version, state in python_states(log, stream, viewer):
            if version in log.ends:
                game = state.table.game
                waits = viewer >= 0 and state.table.status == tpb.TABLE_STATUS_PLAYING \
                    and game.to_act == viewer and state.table.seats[viewer].occupant == tpb.SEAT_OCCUPANT_HUMAN
                assert (state.your_turn is not None) == waits, (name, viewer, version)
        assert list(state.deals) == [e.deal_scored for e in log.events[game_started:] if e.HasField("deal_scored")]
        assert list(state.chat) == [e.chat_posted for e in stream if e.HasField("chat_posted")]


def test_every_kind_of_viewer_and_every_rule_is_played(logs):
    """The logs hold what the folds must follow: each preset, a private table, every event, and
    every figure of DealScored (the decided games alone hold them all: the sample games are
    dealt fresh decks at each run)."""
    assert {log.events[0].table_created.preset for log in logs.values()} >= set(GAMES)
    assert any(log.events[0].table_created.is_private for log in logs.values())
    played = set()
    for game in DECIDED:
        for event in logs[game.name].events:
            kind = event.WhichOneof("body")
            played.add(kind)
            if kind == "deal_scored":
                d = event.deal_scored
                played |= {epb.DealOutcome.Name(d.outcome), f"contract {d.contract}", f"x{d.multiplier}"}
                played |= {name for name in ("belote", "announcements", "trick_points", "deal_score", "totals")
                           if any(getattr(d, name))}
                played |= {name for name in ("reserve_created", "reserve_paid", "reserve_pending")
                           if getattr(d, name)}
                if d.reserve_paid_to >= 0:
                    played.add("reserve_paid_to")
            if kind == "contract_settled" and event.contract_settled.forced:
                played.add("forced")
            if kind == "announcement_declared":
                played.add(cpb.AnnouncementKind.Name(event.announcement_declared.announcement.kind))
            if kind == "announcements_revealed" and event.announcements_revealed.announcements:
                played.add("revealed")
    assert {f.name for f in epb.TableEvent.DESCRIPTOR.oneofs_by_name["body"].fields} <= played
    assert {*epb.DealOutcome.keys()} - {"DEAL_OUTCOME_UNSPECIFIED"} <= played
    assert {f"contract {c}" for c in range(1, 7)} | {"x1", "x2", "x3"} <= played
    assert {"belote", "announcements", "trick_points", "deal_score", "totals", "reserve_created",
            "reserve_paid", "reserve_paid_to", "reserve_pending", "forced", "revealed",
            "ANNOUNCEMENT_KIND_CAPOT_ANNONCE", "ANNOUNCEMENT_KIND_CARRE",
            "ANNOUNCEMENT_KIND_COULEUR"} <= played


def test_events_come_in_the_appends_docs_events_md_says(logs):
    """docs/events.md's Append line of each event against the logs: the app's (an append is
    the events the store recorded with one request id and time) and the decided ones (one
    decide, one append). "starts an append", "follows ..." or, for the events that do either,
    "starts an append ..., or follows ...": each seen as the page says, both ways for those."""
    page = (ROOT / "docs" / "events.md").read_text()
    claims = {}
    for kind, text in re.findall(r"^## \w+ \(`(\w+)`\)$(.*?)(?=^## |\Z)", page, re.M | re.S):
        found = re.search(r"^- \*\*Append:\*\* (.*?)(?=^- \*\*)", text, re.M | re.S)
        assert found, kind
        append = " ".join(found[1].split())
        claims[kind] = {False, True} if "or follows" in append else {False} if append.startswith("starts") else {True}
    del claims["your_turn"]                           # no event of the log
    follows: dict[str, set[bool]] = {kind: set() for kind in claims}
    for log in logs.values():
        for event in log.events:
            follows[event.WhichOneof("body")].add(event.sequence > 1 and event.sequence - 1 not in log.ends)
    assert follows == claims

def changed(ts: dict[int, dict], version: int, change) -> dict[int, dict]:
    """``ts`` with ``change`` made to a copy of its state at ``version``."""
    out = dict(ts)
    out[version] = json.loads(json.dumps(ts[version]))
    change(out[version])
    return out


def test_a_changed_field_is_named_with_its_version(logs, server, ts_fold):
    log, through = logs["classic"], server("classic")
    ts = TypeScriptFold(ts_fold, log, through.streams[1], 1).result()
    assert fold_difference(log, through, 1, ts) is None
    version = sorted(v for v in log.ends if through.views[1][v].game.to_act > 0)[10]
    to_act = through.views[1][version].game.to_act

    def moved(state):
        state["table"]["game"]["toAct"] = (to_act + 1) & 3
    assert fold_difference(log, through, 1, changed(ts, version, moved)) == (
        f"version {version}: typescript fold: table.game.toAct: {to_act} != {(to_act + 1) & 3}")

    def lost(state):
        del state["table"]["game"]["lastTrick"]
    assert fold_difference(log, through, 1, changed(ts, version, lost)).startswith(
        f"version {version}: typescript fold: table.game.lastTrick: {{'trickNumber': ")
    between = min(v for v in ts if v not in log.ends)       # a version inside an append
    assert fold_difference(log, through, 1, changed(ts, between, lambda s: s.update(version="0"))) == (
        f"version {between}: typescript fold: version: '{between}' != '0'")


def test_a_tampered_event_is_caught_by_both_folds(logs, server, ts_fold):
    log, through = logs["belgian 141"], server("belgian 141")
    stream = [epb.TableEvent() for _ in through.streams[SPECTATOR]]
    for copy, event in zip(stream, through.streams[SPECTATOR]):
        copy.CopyFrom(event)
    # The first card that leads a trick and ends its append: shown alone in the current trick.
    i = next(i for i, e in enumerate(stream) if e.HasField("card_played") and e.sequence in log.ends
             and stream[i - 1].WhichOneof("body") in ("contract_settled", "trick_won"))
    card = stream[i].card_played.card
    rank = cpb.Rank.Name(card.rank)
    card.rank = card.rank % 8 + 1
    wrong = f"game.currentTrick[0].card.rank: '{rank}' != '{cpb.Rank.Name(card.rank)}'"
    ts = TypeScriptFold(ts_fold, log, stream, SPECTATOR).result()
    assert fold_difference(log, through, SPECTATOR, ts, stream) == \
        f"version {stream[i].sequence}: typescript fold: table.{wrong}"
    assert fold_difference(log, through, SPECTATOR, None, stream) == \
        f"version {stream[i].sequence}: python fold: {wrong}"


def test_a_turn_holds_across_events_that_do_not_change_it(logs, server, ts_fold):
    """A stream reading a backlog sends your_turn on its newest event only: a chat or a seat's
    connection after the event that gave the seat its turn may come without one. The turn, and
    its actions, hold."""
    log, through = logs["private classic 1"], server("private classic 1")
    stream = []
    for event in through.streams[0]:
        copy = epb.TableEvent()
        copy.CopyFrom(event)
        if copy.WhichOneof("body") in NOT_A_TURN:
            copy.ClearField("your_turn")
        stream.append(copy)
    node = TypeScriptFold(ts_fold, log, stream, 0)
    states = dict(python_states(log, stream, 0))
    kept = [e.sequence for e, before in zip(stream[1:], stream) if e.sequence in log.ends
            and e.WhichOneof("body") in NOT_A_TURN and before.HasField("your_turn")]
    assert kept                                      # chat and connections during seat 0's turns
    for version in kept:
        assert states[version].your_turn == states[version - 1].your_turn == stream[version - 2].your_turn
    assert fold_difference(log, through, 0, node.result(), stream) is None


def test_a_fold_resumes_after_a_reconnect_and_refuses_a_gap(logs, server):
    log, stream = logs["private classic 1"], server("private classic 1").streams[2]
    whole = resumed = cut = initial_state(log.table_id, 2)
    for event in stream:
        whole = fold_event(whole, event)
    for event in [*stream[:100], *stream[90:]]:       # the stream opened again from sequence 91
        resumed = fold_event(resumed, event)
    assert resumed == whole
    for event in stream[:100]:
        cut = fold_event(cut, event)
    with pytest.raises(ValueError, match=r"^event 102 after version 100: events 101\.\.101 are missing$"):
        fold_event(cut, stream[101])


def test_fold_event_changes_neither_its_state_nor_its_event(logs, server, ts_fold):
    log, stream = logs["enhanced 81"], server("enhanced 81").streams[0]
    node = TypeScriptFold(ts_fold, log, stream, 0, check=True)      # the same checks, in node
    state = initial_state(log.table_id, 0)
    for event in stream:
        table, sent = state.table.SerializeToString(), event.SerializeToString()
        after = fold_event(state, event)
        assert state.table.SerializeToString() == table and event.SerializeToString() == sent
        assert after.table is not state.table
        state = after
    assert len(node.result()) == len(stream)


def test_the_typescript_fold_compiles_as_clients_ts_compiles_it(ts_fold):
    ran = subprocess.run([tool("tsc"), "-p", ts_fold], capture_output=True, text=True)
    assert ran.returncode == 0, ran.stdout + ran.stderr
