"""`belote replay` / `belote export`: exit 0 clean, 1 a violation, 2 unreadable input (a clear
message on stderr, never a traceback); --json for tools, --html for people."""

from __future__ import annotations

import argparse
import json
import os
import re
import resource
import subprocess
import sys
from html.parser import HTMLParser

import pytest
from belote.app.export_signing import key_text, public_key
from belote.review import cli
from belote.review.load import to_json_line
from review_helpers import SERVER_KEY, clone, index_of, rechain


def parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="belote")
    cli.add_commands(p.add_subparsers(dest="command", required=True))
    return p


def run(*argv) -> int:
    args = parser().parse_args(list(argv))
    return args.func(args)


def write(path, log, head=None) -> str:
    """An export file of ``log``'s events, ending with ``head`` (a LoggedEvent) if given."""
    path.write_text("".join(to_json_line(m) + "\n" for m in [*log, *([head] if head else [])]))
    return str(path)


def test_a_clean_file_exits_0_and_tells_the_game(samples, tmp_path, capsys):
    path = write(tmp_path / "t.jsonl", samples.logs["classic"], samples.heads["classic"])
    assert run("replay", "--file", path, "--key", key_text(public_key(SERVER_KEY))) == 0
    out = capsys.readouterr().out
    assert "CLEAN: no violation" in out and "Result: team" in out
    assert "the export ends with its head signed by ed25519:" in out


def test_a_violation_exits_1_and_lists_it(samples, tmp_path, capsys):
    log = clone(samples.logs["classic"])
    i = index_of(log, "deal_scored")
    log[i].event.deal_scored.totals[0] += 100
    path = write(tmp_path / "t.jsonl", rechain(log), samples.heads["classic"])
    assert run("replay", "--file", path) == 1
    out = capsys.readouterr().out
    # The score, and the head: the chain was recomputed, so it no longer ends as the server signed.
    assert f"2 VIOLATIONS, the first at seq {i + 1}" in out
    assert f"seq {i + 1}: [derived] deal_scored.totals is not what the rules give" in out
    assert f"seq {len(log) + 1}: [head] the hash of seq {len(log)} is not the one the server signed" in out
    assert re.search(r"expected: \[\d+ \d+\]\n\s+found:\s+\[\d+ \d+\]", out)


def test_replay_reads_a_table_from_the_store(samples, capsys):
    table_id = samples.table_id("enhanced")
    assert run("replay", table_id, "--store", samples.store_url, "--json") == 0
    data = json.loads(capsys.readouterr().out)
    assert data["table_id"] == table_id and data["clean"] and data["exit_code"] == 0
    assert data["events"] == len(samples.logs["enhanced"])


def test_export_prints_what_export_log_returns(samples, tmp_path, capsys):
    from belote.app.export_signing import key_text, public_key
    from belote.app.server_key import read_key_file
    table_id = samples.table_id("kamikaze")
    assert run("export", table_id, "--store", samples.store_url) == 0
    out = capsys.readouterr().out
    *lines, head = out.splitlines()
    assert lines == [to_json_line(m) for m in samples.logs["kamikaze"]]
    assert all(json.loads(line)["tableId"] == table_id for line in lines)
    # Its end: the head, signed with the key of the key file (BELOTE_KEY_FILE, as `serve`).
    head = json.loads(head)["head"]
    assert (head["tableId"], head["lastSequence"]) == (table_id, str(len(lines)))
    (tmp_path / "t.jsonl").write_text(out)
    server = key_text(public_key(read_key_file(os.environ["BELOTE_KEY_FILE"])))
    assert run("replay", "--file", str(tmp_path / "t.jsonl"), "--key", server) == 0


def test_the_store_defaults_to_the_environment(samples, monkeypatch, capsys):
    monkeypatch.setenv("BELOTE_STORE", samples.store_url)
    assert run("export", samples.table_id("modern")) == 0
    assert len(capsys.readouterr().out.splitlines()) == len(samples.logs["modern"]) + 1   # + head


def test_html_is_one_self_contained_page(samples, tmp_path, capsys):
    log = clone(samples.logs["belgian"])
    i = index_of(log, "trick_won", start=30)
    log[i].event.trick_won.points += 1
    page = tmp_path / "review.html"
    path = write(tmp_path / "t.jsonl", rechain(log), samples.heads["belgian"])
    assert run("replay", "--file", path, "--html", str(page)) == 1
    html = page.read_text()
    capsys.readouterr()

    class Tags(HTMLParser):
        def __init__(self):
            super().__init__()
            self.tags, self.external = [], []

        def handle_starttag(self, tag, attrs):
            self.tags.append(tag)
            self.external += [v for k, v in attrs if k in ("src", "href") and v and not v.startswith("#")]

    tags = Tags()
    tags.feed(html)
    assert tags.external == [] and "link" not in tags.tags and "script" not in tags.tags
    assert "<style>" in html and html.count('class="trick"') == sum(m.event_type == "trick_won" for m in log)
    assert f"seq {i + 1}</b> [derived] trick_won.points" in html
    assert "♥" in html or "♠" in html


@pytest.mark.parametrize("content, words", [
    ('{"tableId": "t", "sequence": "1"\n', "line 1: not JSON"),
    ('{"tableId": "t", "seque', "line 1: truncated line"),
    ('{"tableId": "t", "sequence": "1", "colour": "red"}\n', "line 1: not a belote.v1.LoggedEvent"),
    ('{"tableId": "t", "sequence": "one"}\n', "line 1: not a belote.v1.LoggedEvent"),
    ('{"event": {"cardPlayed": {"card": {"suit": "TRUMPS"}}}}\n', "line 1: not a belote.v1.LoggedEvent"),
    ('[1, 2]\n', "line 1: expected a JSON object"),
    ("", "no events"),
    ("\n\n", "no events"),
])
def test_unreadable_files_exit_2_with_a_message(tmp_path, capsys, content, words):
    path = tmp_path / "bad.jsonl"
    path.write_text(content)
    assert run("replay", "--file", str(path)) == 2
    err = capsys.readouterr().err
    assert words in err and "Traceback" not in err and err.startswith("belote replay: ")


def test_a_log_cut_mid_line_exits_2(samples, tmp_path, capsys):
    text = "".join(to_json_line(m) + "\n" for m in samples.logs["modern"][:40])
    path = tmp_path / "cut.jsonl"
    path.write_text(text[: len(text) - 30])
    assert run("replay", "--file", str(path)) == 2
    assert "line 40: truncated line" in capsys.readouterr().err


def test_a_binary_file_exits_2(tmp_path, capsys):
    path = tmp_path / "bin.jsonl"
    path.write_bytes(b"\xff\xfe\x00garbage")
    assert run("replay", "--file", str(path)) == 2
    assert "not UTF-8" in capsys.readouterr().err


def test_missing_inputs_exit_2(samples, tmp_path, capsys):
    assert run("replay", "--file", str(tmp_path / "nowhere.jsonl")) == 2
    assert "cannot read" in capsys.readouterr().err
    assert run("replay", "no-such-table", "--store", samples.store_url) == 2
    assert "no table 'no-such-table'" in capsys.readouterr().err
    assert run("export", "no-such-table", "--store", samples.store_url) == 2
    assert "no table 'no-such-table'" in capsys.readouterr().err
    missing = f"sqlite:///{tmp_path}/absent.db"
    assert run("replay", "t", "--store", missing) == 2
    assert "no store at" in capsys.readouterr().err
    assert not (tmp_path / "absent.db").exists()          # looking did not create one
    assert run("replay", "t", "--store", "mysql://x") == 2
    assert "cannot open the store" in capsys.readouterr().err
    assert run("replay") == 2
    assert "give a TABLE_ID" in capsys.readouterr().err
    assert run("replay", "t", "--file", "x.jsonl") == 2
    assert "not both" in capsys.readouterr().err


def test_a_partial_log_is_told_as_such(samples, tmp_path, capsys):
    log = samples.logs["classic"]
    # Cut inside a command's events, the events the rules produce are missing: that is reported
    # (and the cut, by the head: tests/review/test_review_signed_export.py).
    end = index_of(log, "trick_won", start=100)
    assert run("replay", "--file", write(tmp_path / "t.jsonl", log[:end])) == 1
    out = capsys.readouterr().out
    assert f"seq {end + 1}: [derived] trick_won is missing here" in out
    assert f"seq {end + 1}: [head] the export has no signed head at its end" in out


def tampered_store(samples, tmp_path, preset, sql, params) -> str:
    """A copy of the sample store where a cheat with database access ran ``sql``."""
    import sqlite3
    source = samples.store_url.removeprefix("sqlite:///")
    copy = tmp_path / "tampered.db"
    with sqlite3.connect(source) as src, sqlite3.connect(copy) as dst:
        src.backup(dst)
    with sqlite3.connect(copy) as db:
        db.execute("DROP TRIGGER events_no_update")
        assert db.execute(sql, params).rowcount == 1
    return f"sqlite:///{copy}"


def test_a_payload_altered_in_the_database_is_caught(samples, tmp_path, capsys):
    from belote.table.codec import encode_body
    log = samples.logs["belgian"]
    i = index_of(log, "trick_won", start=20)
    changed = clone([log[i]])[0].event
    changed.trick_won.winner = (changed.trick_won.winner + 1) % 4
    url = tampered_store(samples, tmp_path, "belgian",
                         "UPDATE events SET payload = ? WHERE table_id = ? AND sequence = ?",
                         (encode_body(changed), log[0].table_id, i + 1))
    assert run("replay", log[0].table_id, "--store", url, "--no-bot-check") == 1
    out = capsys.readouterr().out
    assert f"seq {i + 1}: [hash]" in out and f"seq {i + 1}: [derived] trick_won.winner" in out


def test_a_payload_that_does_not_decode_is_a_violation_not_a_crash(samples, tmp_path, capsys):
    log = samples.logs["kamikaze"]
    url = tampered_store(samples, tmp_path, "kamikaze",
                         "UPDATE events SET payload = ? WHERE table_id = ? AND sequence = ?",
                         (b"\xff\xff\xff garbage", log[0].table_id, 30))
    assert run("replay", log[0].table_id, "--store", url) == 1
    out = capsys.readouterr().out
    assert "seq 30: [envelope] the event has no body" in out and "seq 30: [hash]" in out
    assert run("export", log[0].table_id, "--store", url) == 2     # JSON cannot carry it
    assert "event 30" in capsys.readouterr().err


# Huge or hostile files: read line by line, each line bounded, under a memory limit ------------
MEMORY_LIMIT = 512 << 20       # address space of the `belote replay` process


def replay_limited(*args) -> subprocess.CompletedProcess:
    """`belote replay` in a process of its own whose address space is capped at MEMORY_LIMIT."""
    def cap():
        resource.setrlimit(resource.RLIMIT_AS, (MEMORY_LIMIT, MEMORY_LIMIT))
    return subprocess.run([sys.executable, "-m", "belote.review.cli", "replay", *args],
                          preexec_fn=cap, capture_output=True, text=True, timeout=120)


def test_dev_zero_exits_2_within_a_memory_limit():
    done = replay_limited("--file", "/dev/zero")
    assert done.returncode == 2, done.stderr[-2000:]
    assert done.stderr == ("belote replay: /dev/zero, line 1: longer than 1,048,576 bytes: not a "
                           "line of an export (its lines are a few kilobytes)\n")


def test_a_huge_file_that_turns_out_no_log_exits_2_within_a_memory_limit(samples, tmp_path):
    # A real export's first lines, then 4 GB of zeros (a sparse file: no disk used).
    path = tmp_path / "huge.jsonl"
    write(path, samples.logs["classic"][:50])
    with open(path, "r+b") as f:
        f.truncate(4 << 30)
    done = replay_limited("--file", str(path))
    assert done.returncode == 2, done.stderr[-2000:]
    assert f"{path}, line 51: longer than 1,048,576 bytes: not a line of an export" in done.stderr
    assert "Traceback" not in done.stderr


def test_many_lines_that_are_no_events_exit_2(tmp_path, capsys):
    path = tmp_path / "objects.jsonl"
    path.write_text("{}\n" * 100_000)
    assert run("replay", "--file", str(path)) == 2
    assert "line 1: a LoggedEvent with neither an event nor the export's head" in capsys.readouterr().err


def test_more_events_than_the_bound_exit_2(samples, tmp_path, capsys):
    path = write(tmp_path / "t.jsonl", samples.logs["classic"], samples.heads["classic"])
    assert run("replay", "--file", path, "--max-events", "100") == 2
    assert "more than 100 lines of events: no table's log is this long" in capsys.readouterr().err
