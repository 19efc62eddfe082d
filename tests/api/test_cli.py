"""The `belote` command: presets, demo (embedded and against a server), health."""

from __future__ import annotations

import json
import re
import subprocess
import uuid

import grpc
import pytest
from belote.rules.options import PRESETS, describe_choices
from belote.v1 import table_service_pb2 as pb
from belote.v1 import table_service_pb2_grpc
from servers import BELOTE

pytestmark = pytest.mark.timeout(60)


def belote(*args: str, timeout: float = 45) -> subprocess.CompletedProcess:
    return subprocess.run([*BELOTE, *args], capture_output=True, text=True, timeout=timeout,
                          stdin=subprocess.DEVNULL, check=False)


def test_presets_lists_every_preset_and_accepted_value_in_100_columns():
    run = belote("presets")
    assert run.returncode == 0, run.stderr
    lines = run.stdout.splitlines()
    assert max(len(line) for line in lines) <= 100
    headers = " ".join(line for line in lines if line.startswith("option "))
    assert [w for w in headers.split() if w != "option"] == list(PRESETS)
    target_rows = " ".join(line for line in lines if line.startswith("target "))
    assert target_rows.split() == ["target", "1000", "501", "101", "1010", "1000", "target",
                                   "1000", "1000", "1000"]
    for name, accepted in describe_choices().items():
        assert re.search(rf"^  {name} +{re.escape(accepted)}$", run.stdout, re.MULTILINE), name


def _score_lines(stdout: str) -> tuple[str, int, int]:
    *deals, table_line, score_line = stdout.splitlines()
    assert deals and all(line.startswith("deal ") for line in deals)
    table = re.fullmatch(r"table: (\S+)", table_line)
    score = re.fullmatch(r"score: (\d+) - (\d+)", score_line)
    assert table and score, stdout
    assert deals[-1].endswith(f"totals {score[1]} - {score[2]}")
    return table[1], int(score[1]), int(score[2])


def test_demo_runs_its_own_server():
    run = belote("demo", "--option", "target=150")
    assert run.returncode == 0, run.stderr
    _, a, b = _score_lines(run.stdout)
    assert max(a, b) >= 150
    # The server it runs in this process logs nothing on the terminal below a warning (its
    # lines interleaved with the demo's before).
    assert run.stderr == ""


def test_demo_writes_its_servers_log_to_a_file(tmp_path):
    log = tmp_path / "server.log"
    run = belote("--log-format", "json", "demo", "--option", "target=150",
                 "--server-log", str(log))
    assert (run.returncode, run.stderr) == (0, "")
    table_id, a, b = _score_lines(run.stdout)
    lines = [json.loads(line) for line in log.read_text().splitlines()]
    assert [line["seat"] for line in lines if line["event"] == "bot seated"] == [0, 1, 2, 3]
    ended = [line for line in lines if line["event"] == "game ended"]
    assert [(e["table_id"], e["totals"]) for e in ended] == [(table_id, [a, b])]


async def test_demo_against_a_server(server):
    run = belote("demo", "--target", server.address, "--preset", "kamikaze",
                 "--option", "target=300")
    assert run.returncode == 0, run.stderr
    table_id, a, b = _score_lines(run.stdout)
    async with grpc.aio.insecure_channel(server.address) as channel:
        table = await table_service_pb2_grpc.TableServiceStub(channel).GetTable(
            pb.GetTableRequest(table_id=table_id))
    assert table.status == pb.TABLE_STATUS_FINISHED and table.preset == "kamikaze"
    assert list(table.game.totals) == [a, b]
    assert [s.occupant for s in table.seats] == [pb.SEAT_OCCUPANT_BOT] * 4


def test_demo_reports_a_refused_option():
    run = belote("demo", "--option", "target=lots")
    assert run.returncode == 1
    assert "INVALID_ARGUMENT" in run.stderr and "Traceback" not in run.stderr


def test_health(server):
    run = belote("health", "--target", server.address)
    assert (run.returncode, run.stdout.strip()) == (0, f"{server.address}: SERVING")
    run = belote("health", "--target", server.address, "--service", "belote.v1.TableService")
    assert run.returncode == 0
    run = belote("health", "--target", "127.0.0.1:1", "--timeout", "1")
    assert run.returncode == 1 and "UNAVAILABLE" in run.stderr


def test_serve_refuses_a_bad_store_url():
    run = belote("serve", "--listen", "127.0.0.1:0", "--store", "mysql://nope")
    assert run.returncode == 2
    assert "unsupported store URL" in run.stderr and "Traceback" not in run.stderr


def test_serve_refuses_a_negative_table_quota():
    run = belote("serve", "--listen", "127.0.0.1:0", "--tables-per-minute", "-1")
    assert run.returncode == 2
    assert run.stderr == "belote serve: --tables-per-minute: 0 (no quota) or more\n"


def test_serve_refuses_a_busy_port(server, tmp_path):
    run = belote("serve", "--listen", server.address, "--store", f"sqlite:///{tmp_path}/b.db")
    assert run.returncode == 2
    assert f"cannot listen on {server.address}" in run.stderr


def test_load_plays_tables_of_thinking_players_and_reports(server_factory):
    server = server_factory()
    run = belote("load", "--target", server.address, "--tables", "2", "--duration", "2",
                 "--think-ms", "40", "--server-pid", str(server.proc.pid))
    assert run.returncode == 0, run.stderr
    lines = run.stdout.splitlines()
    assert lines[0] == "tables: 2, 2 s, players think 20-60 ms per action"
    cards = float(re.fullmatch(r"cards played: ([\d.]+)/s", lines[1]).group(1))
    # Two tables of players thinking 40 ms on average play at most 2 / 0.02 cards a second.
    assert 5 < cards < 100
    assert re.fullmatch(r"act latency: p50 [\d.]+ ms, p99 [\d.]+ ms \(\d+ acts\)", lines[2])
    assert lines[4] == "errors: 0"
    assert re.fullmatch(r"server: cpu \d+% of a core, rss \d+ KB", lines[5])


def test_load_plays_tables_of_one_human_and_three_bots_and_reports_the_humans_wait(server_factory):
    server = server_factory()
    run = belote("load", "--target", server.address, "--tables", "2", "--duration", "3",
                 "--think-ms", "40", "--humans-per-table", "1", "--bots", "hard",
                 "--server-pid", str(server.proc.pid))
    assert run.returncode == 0, run.stderr
    lines = run.stdout.splitlines()
    assert lines[0] == "tables: 2, 1 human(s) and 3 hard bots per table, 3 s, players think 20-60 ms per action"
    acts = float(re.fullmatch(r"human acts: ([\d.]+)/s; wait \(Act answered -> next turn\): "
                              r"p50 [\d.]+ ms, p99 [\d.]+ ms", lines[3]).group(1))
    assert acts > 1
    assert lines[5] == "errors: 0"
    # The bots decide in the server's worker processes (one per core by default).
    assert re.fullmatch(r"server: cpu \d+% of a core, bot workers \d+% of a core, rss \d+ KB", lines[6])


def test_serve_refuses_a_negative_number_of_bot_workers(tmp_path):
    run = belote("serve", "--listen", "127.0.0.1:0", "--store", f"sqlite:///{tmp_path}/b.db",
                 "--bot-workers", "-1")
    assert run.returncode == 2
    assert "--bot-workers: 0 (bots decide in the server's process) or more" in run.stderr


async def test_serve_takes_the_reviewer_token_from_a_file_kept_off_the_command_line(
        server_factory, tmp_path):
    token_file = tmp_path / "reviewer.token"
    token_file.write_text("reviewer-from-a-file-0123456789\n")
    proc = server_factory(reviewer_token=None, extra_args=("--reviewer-token-file", str(token_file)))
    assert not any("reviewer-from-a-file" in arg for arg in proc.proc.args)   # what `ps` shows
    async with grpc.aio.insecure_channel(proc.address) as channel:
        stub = table_service_pb2_grpc.TableServiceStub(channel)
        created = await stub.CreateTable(pb.CreateTableRequest(request_id=str(uuid.uuid4())))
        export = stub.ExportLog(pb.ExportLogRequest(table_id=created.table_id),
                                metadata=(("authorization", "Bearer reviewer-from-a-file-0123456789"),))
        # The one event, then the export's signed head.
        assert [e.event_type or ("head" if e.HasField("head") else "?")
                async for e in export] == ["table_created", "head"]


def test_serve_refuses_a_missing_or_empty_reviewer_token_file_or_both_flags(tmp_path):
    empty = tmp_path / "empty"
    empty.write_text("\n")
    for args, said in (((str(tmp_path / "absent"),), "cannot read the reviewer token file"),
                       ((str(empty),), "is empty"),
                       ((str(empty), "--reviewer-token", "t"), "not both")):
        run = belote("serve", "--listen", "127.0.0.1:0", "--metrics-listen", "",
                     "--store", f"sqlite:///{tmp_path}/x.db", "--reviewer-token-file", *args)
        assert run.returncode == 2 and said in run.stderr, run.stderr
