"""``belote export`` and ``belote replay``: a table's log out of a store, and its review.

Wire into the main parser with ``add_commands(subparsers)``. Each handler returns the exit
status: 0 clean, 1 a violation found (replay), 2 unreadable input (a message on stderr, never a
traceback).
"""

from __future__ import annotations

import argparse
import asyncio
import os
import sys

DEFAULT_STORE = "sqlite:///./belote.db"


def _default_store() -> str:
    return os.environ.get("BELOTE_STORE") or DEFAULT_STORE


def add_commands(subparsers) -> None:
    """Add ``export`` and ``replay`` to an argparse subparsers object."""
    store_help = f"event store URL (env BELOTE_STORE; default {DEFAULT_STORE})"
    export = subparsers.add_parser(
        "export", help="print a table's full log, one LoggedEvent per line (protobuf JSON)",
        description="Print the full log of a table (nothing redacted), one belote.v1.LoggedEvent "
                    "per line in the protobuf JSON mapping: what the ExportLog RPC returns.")
    export.add_argument("table_id", metavar="TABLE_ID")
    export.add_argument("--store", default=_default_store(), help=store_help)
    export.set_defaults(func=cmd_export, run=cmd_export)

    replay = subparsers.add_parser(
        "replay", help="replay a table's log with the rules engine and check it",
        description="Replay a table's log (from a store, or an export file) with the rules engine; "
                    "print each deal and every check made. Exit 0 clean, 1 a violation found, "
                    "2 unreadable input.")
    replay.add_argument("table_id", metavar="TABLE_ID", nargs="?",
                        help="the table to read from --store (or give --file)")
    replay.add_argument("--file", metavar="FILE",
                        help="an export (JSON lines, as written by `belote export`); - for stdin")
    replay.add_argument("--store", default=_default_store(), help=store_help)
    replay.add_argument("--json", action="store_true", help="print the review as JSON, for tools")
    replay.add_argument("--html", metavar="FILE",
                        help="also write the review as one self-contained HTML page")
    replay.add_argument("--no-bot-check", action="store_true",
                        help="do not recompute bot moves (the slow check with searching bots)")
    replay.set_defaults(func=cmd_replay, run=cmd_replay)


def _error(command: str, message: str) -> int:
    print(f"belote {command}: {message}", file=sys.stderr)
    return 2


def cmd_export(args: argparse.Namespace) -> int:
    from .load import Unreadable, read_store, to_json_line

    try:
        messages = asyncio.run(read_store(args.store, args.table_id))
    except Unreadable as err:
        return _error("export", str(err))
    try:
        out = sys.stdout
        for msg in messages:
            out.write(to_json_line(msg) + "\n")
        out.flush()
    except BrokenPipeError:
        # The reader went away (e.g. `| head`): not an error of ours; keep Python quiet at exit.
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
    return 0


def cmd_replay(args: argparse.Namespace) -> int:
    from . import report
    from .load import Unreadable, read_file, read_stored
    from .verify import entries_of, entries_of_stored, review

    if bool(args.file) == bool(args.table_id):
        return _error("replay", "give a TABLE_ID (read from --store) or --file FILE, not both"
                      if args.file else "give a TABLE_ID (read from --store) or --file FILE")
    try:
        # From a store, the entries are the stored events themselves (hashed over the bytes the
        # store holds); from a file, the export's LoggedEvents.
        entries = (entries_of(read_file(args.file)) if args.file
                   else entries_of_stored(asyncio.run(read_stored(args.store, args.table_id))))
    except Unreadable as err:
        return _error("replay", str(err))
    result = review(entries, check_bots=not args.no_bot_check)
    if args.html:
        try:
            with open(args.html, "w", encoding="utf-8") as f:
                f.write(report.as_html(result))
        except OSError as err:
            return _error("replay", f"cannot write {args.html}: {err.strerror or err}")
    try:
        sys.stdout.write(report.as_json(result) + "\n" if args.json else report.as_text(result))
        sys.stdout.flush()
    except BrokenPipeError:
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
    return result.exit_code


def main(argv: list[str] | None = None) -> int:
    """``python -m belote.review.cli replay ...`` until the commands are wired into ``belote``."""
    parser = argparse.ArgumentParser(prog="belote")
    add_commands(parser.add_subparsers(dest="command", required=True, metavar="COMMAND"))
    args = parser.parse_args(argv)
    return args.func(args)


if __name__ == "__main__":
    raise SystemExit(main())
