"""A real `belote serve` process for the API tests, and the `belote` command itself."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

from players import REVIEWER_TOKEN

_BIN = Path(sys.executable).parent / "belote"
# The console script `make install` builds; `python -m belote.cli` when run from elsewhere.
BELOTE = [str(_BIN)] if _BIN.exists() else [sys.executable, "-m", "belote.cli"]


class ServerProcess:
    """`belote serve` on 127.0.0.1:<any port> over one sqlite file; restartable on the same store.

    stdout and stderr go to files (never a pipe that could fill up and block the server), kept
    across restarts so a test can search everything the server ever printed.
    """

    def __init__(self, workdir: Path, reviewer_token: str | None = REVIEWER_TOKEN,
                 extra_args: tuple[str, ...] = (), env: dict[str, str] | None = None):
        self.workdir = workdir
        self.extra_args = extra_args
        self.extra_env = env or {}
        self.store_url = f"sqlite:///{workdir / 'belote.db'}"  # absolute path: four slashes
        self.reviewer_token = reviewer_token
        self.proc: subprocess.Popen | None = None
        self.address = ""
        self.metrics_url = ""
        self.web_url = ""
        self.runs = 0

    def start(self, timeout: float = 20.0) -> str:
        assert self.proc is None, "already running"
        self.runs += 1
        self.address = self.metrics_url = self.web_url = ""
        out = self.workdir / f"stdout.{self.runs}.txt"
        err = self.workdir / f"stderr.{self.runs}.txt"
        cmd = [*BELOTE, "--log-level", "debug", "serve", "--listen", "127.0.0.1:0",
               "--metrics-listen", "127.0.0.1:0", "--web-listen", "127.0.0.1:0",
               "--store", self.store_url, "--grace", "3",
               "--tables-per-minute", "0"]   # every test calls from 127.0.0.1: no quota (unless extra_args)
        if self.reviewer_token:
            cmd += ["--reviewer-token", self.reviewer_token]
        cmd += self.extra_args
        env = {k: v for k, v in os.environ.items() if not k.startswith("BELOTE_")} | self.extra_env
        with open(out, "wb") as o, open(err, "wb") as e:
            self.proc = subprocess.Popen(cmd, stdout=o, stderr=e, stdin=subprocess.DEVNULL,
                                         cwd=self.workdir, env=env)
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            for line in out.read_text().splitlines():
                if line.startswith("listening on "):
                    self.address = line.removeprefix("listening on ").strip()
                if line.startswith("metrics on "):
                    self.metrics_url = line.removeprefix("metrics on ").strip()
                if line.startswith("web on "):
                    self.web_url = line.removeprefix("web on ").strip()
            if self.address and self.metrics_url and self.web_url:
                return self.address
            if self.proc.poll() is not None:
                break
            time.sleep(0.02)
        self.kill()
        raise RuntimeError(f"server did not start:\n{self.output()}")

    def kill(self) -> None:
        """SIGKILL: no graceful anything, as in a crash."""
        if self.proc is not None:
            self.proc.kill()
            self.proc.wait(10)
            self.proc = None

    def terminate(self, timeout: float = 15.0) -> int:
        """SIGTERM and wait: the exit code."""
        assert self.proc is not None
        self.proc.send_signal(signal.SIGTERM)
        try:
            return self.proc.wait(timeout)
        finally:
            self.kill()

    def restart(self) -> str:
        self.kill()
        return self.start()

    def output(self) -> str:
        """Everything the server printed, stdout and stderr, over all its runs."""
        return "".join(p.read_text(errors="replace") for p in sorted(self.workdir.glob("std*.txt")))
