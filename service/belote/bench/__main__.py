"""Run every benchmark module in turn (or those named on the command line)."""

from __future__ import annotations

import subprocess
import sys

MODULES = ["rules_bench", "table_bench", "app_bench", "review_bench", "bots_bench", "pg_bench",
           "load_bench", "bots_load_bench", "abuse_bench", "slow_reader_bench", "sweep_bench", "web_bench",
           "web_fuzz_bench", "web_client_bench", "web_page_bench"]


def main(argv: list[str]) -> int:
    failed = 0
    for module in argv or MODULES:
        # A module that is not there yet (or fails) is reported, and the others still run.
        done = subprocess.run([sys.executable, "-m", f"belote.bench.{module}"], check=False)
        if done.returncode:
            print(f"bench: {module} failed (exit {done.returncode})", file=sys.stderr)
            failed += 1
    return 1 if failed else 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
