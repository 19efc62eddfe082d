"""The README's curl walk-through, run as written against the web port of a live server."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
from pathlib import Path

import pytest

MARKER = re.compile(r"<!-- tests/web/test_readme_curl\.py runs this block -->\n```bash\n(.*?)\n```",
                    re.DOTALL)
README_URL = "http://127.0.0.1:8080"
ROOT = Path(__file__).resolve().parents[2]


def test_the_curl_walk_through(server, tmp_path):
    for tool in ("curl", "jq"):
        if not shutil.which(tool):
            if os.environ.get("CI"):
                pytest.fail(f"the README's curl walk-through needs {tool}")
            pytest.skip(f"the README's curl walk-through needs {tool}")
    blocks = MARKER.findall((ROOT / "README.md").read_text())
    assert len(blocks) == 1 and README_URL in blocks[0]
    script = blocks[0].replace(README_URL, server.web_url)
    run = subprocess.run(["bash", "-eu", "-o", "pipefail", "-c", script], cwd=tmp_path,
                         capture_output=True, text=True, timeout=60, check=False)
    assert run.returncode == 0, run.stdout + run.stderr
    lines = run.stdout.splitlines()
    assert lines[:3] == ['{"seat":1}', '{"seat":2}', '{"seat":3}']
    hand = json.loads(lines[3])
    assert len(hand) in (5, 8) and all(re.fullmatch(r"RANK_[A-Z]+ SUIT_(CLUBS|DIAMONDS|HEARTS|SPADES)", c) for c in hand)
    assert '"code":"failed_precondition"' in lines[4].replace(" ", "") and lines[4].endswith("(HTTP 400)")
    assert '"type":"google.rpc.ErrorInfo"' in lines[4].replace(" ", "")
