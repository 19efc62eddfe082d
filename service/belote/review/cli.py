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
                    "per line in the protobuf JSON mapping, then its head signed with the server's "
                    "key: what the ExportLog RPC returns.")
    export.add_argument("table_id", metavar="TABLE_ID")
    export.add_argument("--store", default=_default_store(), help=store_help)
    export.add_argument("--key-file", default=os.environ.get("BELOTE_KEY_FILE"),
                        help="the server's key file, which signs the export (env BELOTE_KEY_FILE; "
                             "default as `belote serve`)")
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
    replay.add_argument("--key", default=os.environ.get("BELOTE_EXPORT_KEY"),
                        help="the server's export key (ed25519:<hex>, as `belote serve` prints it "
                             "and GetExportKey returns it), or a file holding it: the export's "
                             "head must be signed by it (env BELOTE_EXPORT_KEY; default: the key "
                             "the export names, with a note)")
    replay.add_argument("--max-events", type=_positive,
                        help="refuse a file of more events than this (default 500,000: far more "
                             "than a table's log)")
    replay.set_defaults(func=cmd_replay, run=cmd_replay)


def _positive(text: str) -> int:
    try:
        n = int(text)
    except ValueError:
        n = 0
    if n < 1:
        raise argparse.ArgumentTypeError(f"want a whole number of 1 or more, got {text!r}")
    return n


def _error(command: str, message: str) -> int:
    print(f"belote {command}: {message}", file=sys.stderr)
    return 2


def cmd_export(args: argparse.Namespace) -> int:
    from belote.app.export_signing import signed_head
    from belote.app.server_key import KeyError_, load_server_key

    from .load import Unreadable, read_store, to_json_line

    try:
        server_key = load_server_key(args.key_file, args.store)
    except KeyError_ as err:
        return _error("export", str(err))
    try:
        messages = asyncio.run(read_store(args.store, args.table_id))
    except Unreadable as err:
        return _error("export", str(err))
    head = signed_head(server_key, args.table_id, messages[-1], _now_us())
    try:
        out = sys.stdout
        for msg in [*messages, head]:
            out.write(to_json_line(msg) + "\n")
        out.flush()
    except BrokenPipeError:
        # The reader went away (e.g. `| head`): not an error of ours; keep Python quiet at exit.
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
    return 0


def _now_us() -> int:
    import time
    return time.time_ns() // 1000


def cmd_replay(args: argparse.Namespace) -> int:
    from belote.app.export_signing import parse_public_key

    from . import report
    from .load import MAX_EVENTS, Unreadable, iter_file, read_stored
    from .verify import entries_of_stored, export_of, review

    if bool(args.file) == bool(args.table_id):
        return _error("replay", "give a TABLE_ID (read from --store) or --file FILE, not both"
                      if args.file else "give a TABLE_ID (read from --store) or --file FILE")
    try:
        key = parse_public_key(args.key) if args.key else None
    except ValueError as err:
        return _error("replay", f"--key: {err}")
    try:
        # From a store, the entries are the stored events themselves (hashed over the bytes the
        # store holds); from a file, the export's LoggedEvents, read line by line, and its head.
        if args.file:
            entries, end = export_of(iter_file(args.file, args.max_events or MAX_EVENTS), key)
        else:
            entries, end = entries_of_stored(asyncio.run(read_stored(args.store, args.table_id))), None
    except Unreadable as err:
        return _error("replay", str(err))
    except MemoryError:
        return _error("replay", f"{args.file}: out of memory after reading part of it: too large "
                      "to review here (--max-events)")
    result = review(entries, check_bots=not args.no_bot_check, end=end)
    if key is not None and end is None:
        result.notes.append("--key: a log read from a store has no signed head to check (an "
                            "export file has)")
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
