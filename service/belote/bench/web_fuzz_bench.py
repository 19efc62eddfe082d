"""``web_fuzz_5xx``: the 5xx answers of the web port to a fuzz of 3000 malformed and hostile
requests (belote.web_fuzz, the one tests/web/test_web_fuzz.py sends) against a real ``belote
serve``. Anything but 0 is a bug. About 10 s.
"""

from __future__ import annotations

import asyncio
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from urllib.parse import urlsplit

from belote.web_fuzz import fuzz

REQUESTS = 3000


def start_server(workdir: Path) -> tuple[subprocess.Popen, str]:
    """``belote serve`` with its web port on a free loopback port: (process, web URL). Its log
    goes to a file: the fuzz makes it write a warning per malformed request, which would fill
    a pipe nobody reads."""
    env = {**os.environ, "BELOTE_LOG_LEVEL": "warning", "BELOTE_METRICS_LISTEN": "",
           "BELOTE_WEB_LISTEN": "127.0.0.1:0"}
    log = workdir / "server.log"
    with open(log, "wb") as out:
        proc = subprocess.Popen([sys.executable, "-m", "belote.cli", "serve",
                                 "--listen", "127.0.0.1:0", "--store",
                                 f"sqlite:///{workdir}/fuzz.db"],
                                stdout=out, stderr=subprocess.STDOUT, env=env)
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline and proc.poll() is None:
        for line in log.read_text(errors="replace").splitlines():
            if line.startswith("web on "):
                return proc, line.removeprefix("web on ").strip()
        time.sleep(0.05)
    proc.kill()
    raise RuntimeError(f"the server did not start:\n{log.read_text(errors='replace')}")


def run() -> list[tuple[str, float, str]]:
    with tempfile.TemporaryDirectory() as tmp:
        proc, web = start_server(Path(tmp))
        try:
            parts = urlsplit(web)
            outcome = asyncio.run(fuzz(parts.hostname or "127.0.0.1", parts.port or 0, REQUESTS))
        finally:
            proc.terminate()
            proc.wait(10)
    return [("web_fuzz_5xx", outcome.server_error_count, "responses")]


if __name__ == "__main__":
    for name, value, unit in run():
        print(f"bench: {name} {value} {unit}")
