"""What a browser page costs per card played, before and after TableEvent.your_turn, in one run
against one server (about 45 s): tables of four pages over the web port (load/pages.py), each
page a stream of its seat, players thinking 0.1 to 0.3 s per action.

- ``web_client_rpcs_per_card``, ``web_client_cpu_us_per_card``: pages that learn their turns
  from their streams (your_turn) and call nothing but Act: the unary RPCs of the four pages of a
  table per card played, and the server's CPU time per card;
- ``web_client_polling_rpcs_per_card``, ``web_client_polling_cpu_us_per_card``: the page as it
  was, GetTable and GetLegalActions after each event of its stream (coalesced while one is in
  flight), then Act on its turn;
- ``web_client_cpu_ratio``: after / before.

The polling pages run first, then the streaming ones, each on tables of their own.
"""

from __future__ import annotations

import asyncio
import os
import tempfile

from belote.bench.web_bench import start_server
from belote.load.pages import PagesReport, run_pages

TABLES = 16
SECONDS = 12.0
THINK_S = 0.2


def run() -> list[tuple[str, float, str]]:
    # The first phase's tables stay idle behind the second: no takeover bot may start playing
    # them (a seat whose stream closed) while the second is measured.
    os.environ.setdefault("BELOTE_DISCONNECT_GRACE", "3600")
    reports: dict[str, PagesReport] = {}
    with tempfile.TemporaryDirectory() as tmp:
        proc, _target, web = start_server(f"sqlite:///{tmp}/pages.db")
        try:
            for kind in ("polling", "streaming"):
                reports[kind] = asyncio.run(run_pages(web, kind, TABLES, SECONDS,
                                                      server_pid=proc.pid, think_s=THINK_S))
        finally:
            proc.terminate()
            proc.wait(10)
    before, after = reports["polling"], reports["streaming"]
    for report in (before, after):
        calls = ", ".join(f"{rpc} {n / max(1, report.cards):.2f}" for rpc, n in sorted(report.calls.items()))
        errors = f", errors {dict(report.errors)}" if report.errors else ""
        print(f"# {report.kind}: {report.cards} cards in {report.seconds:.1f} s "
              f"({report.cards / report.seconds:.1f}/s) at {report.tables} tables; per card: "
              f"{calls}{errors}")
    return [("web_client_rpcs_per_card", after.rpcs_per_card, "rpcs"),
            ("web_client_cpu_us_per_card", after.cpu_us_per_card, "us"),
            ("web_client_polling_rpcs_per_card", before.rpcs_per_card, "rpcs"),
            ("web_client_polling_cpu_us_per_card", before.cpu_us_per_card, "us"),
            ("web_client_cpu_ratio", after.cpu_us_per_card / before.cpu_us_per_card, "after/before")]


if __name__ == "__main__":
    for name, value, unit in run():
        print(f"bench: {name} {value:.2f} {unit}")
