"""`make install` twice at once (the README's `make run` and `make test` on a fresh clone): both
succeed and the virtualenv is built once.

The repository's Makefile runs in a copy of the repository's layout, with a stand-in for python
that records each step and fails when two pip runs overlap (as two real ones break each other's
half-installed packages): seconds instead of the minutes of a real install.
"""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest
from deploy_helpers import ROOT

pytestmark = pytest.mark.timeout(60)

# python -m venv DIR | python -m pip ... | python -m grpc_tools.protoc ... FILE.proto...
STAND_IN_PYTHON = r"""#!/bin/sh
case "$1 $2" in
  "-m venv")
    mkdir -p "$3/bin" && cp "$0" "$3/bin/python" ;;
  "-m pip")
    if ! mkdir "$PIP_BUSY" 2>/dev/null; then
      echo "another pip is installing into the same virtualenv" >&2; exit 1
    fi
    echo "pip $3" >> "$STEPS"
    sleep 1
    rmdir "$PIP_BUSY" ;;
  "-m grpc_tools.protoc")
    echo protoc >> "$STEPS"
    for arg in "$@"; do
      case "$arg" in
        *.proto) name=$(basename "$arg" .proto)
                 touch "service/belote/v1/${name}_pb2.py" "service/belote/v1/${name}_pb2_grpc.py" ;;
      esac
    done ;;
  *) echo "unexpected: python $*" >&2; exit 2 ;;
esac
"""


def test_two_installs_at_once_both_succeed_and_build_once(tmp_path: Path):
    make = shutil.which("make")
    assert make, "make is needed (the README's first command)"
    repo = tmp_path / "repo"
    (repo / "service" / "belote" / "v1").mkdir(parents=True)
    shutil.copy(ROOT / "Makefile", repo / "Makefile")
    shutil.copy(ROOT / "pyproject.toml", repo / "pyproject.toml")
    shutil.copytree(ROOT / "proto", repo / "proto")
    python = tmp_path / "python"
    python.write_text(STAND_IN_PYTHON)
    python.chmod(0o755)
    steps = tmp_path / "steps.txt"
    env = {**os.environ, "STEPS": str(steps), "PIP_BUSY": str(tmp_path / "pip-busy")}
    env.pop("MAKEFLAGS", None)
    env.pop("MAKELEVEL", None)

    command = [make, "--no-print-directory", "install", f"PYTHON={python}"]
    runs = [subprocess.Popen(command, cwd=repo, env=env, stdout=subprocess.PIPE,
                             stderr=subprocess.STDOUT, text=True) for _ in range(2)]
    outputs = [run.communicate(timeout=45)[0] for run in runs]
    assert [run.returncode for run in runs] == [0, 0], "\n---\n".join(outputs)
    # One build: pip upgraded and the project installed once, the stubs generated once.
    assert steps.read_text().split("\n")[:-1] == ["pip install", "pip install", "protoc"]
    protos = sorted(p.stem for p in (repo / "proto" / "belote" / "v1").glob("*.proto"))
    assert protos
    assert all((repo / "service" / "belote" / "v1" / f"{name}_pb2.py").is_file()
               for name in protos)

    # Up to date afterwards: nothing runs again.
    again = subprocess.run(command, cwd=repo, env=env, capture_output=True, text=True,
                           timeout=30, check=False)
    assert again.returncode == 0, again.stdout + again.stderr
    assert steps.read_text().count("\n") == 3
