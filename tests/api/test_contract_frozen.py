"""belote.v1 stays lint-clean and unbroken: `buf lint` (proto/buf.yaml) and `buf breaking` against
proto/belote-v1.binpb, the image of v1 as it was frozen. CI runs `make test`, so the check runs
here too (and in `make lint`). buf is the npm package proto/package.json pins."""

from __future__ import annotations

import os
import pathlib
import subprocess

import pytest

PROTO = pathlib.Path(__file__).resolve().parents[2] / "proto"
BUF = PROTO / "node_modules" / ".bin" / "buf"


def buf(*args) -> subprocess.CompletedProcess:
    if not BUF.exists():
        if os.environ.get("CI"):
            pytest.fail("buf is not installed: `make lint` (npm ci in proto/) installs it")
        pytest.skip("buf is not installed (make lint installs it with npm)")
    return subprocess.run([str(BUF), *args], cwd=PROTO.parent, capture_output=True, text=True,
                          timeout=120, check=False)


def test_buf_lint_is_clean():
    run = buf("lint", "proto")
    assert (run.returncode, run.stdout + run.stderr) == (0, "")


def test_no_breaking_change_against_the_frozen_v1():
    run = buf("breaking", "proto", "--against", "proto/belote-v1.binpb")
    assert (run.returncode, run.stdout + run.stderr) == (0, "")
