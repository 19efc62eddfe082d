"""``belote export``, ``belote replay`` and ``belote trust-key``: a table's log out of a store,
its review, and the reviewer's pinned export keys (see :mod:`belote.review.known_keys`).

Wire into the main parser with ``add_commands(subparsers)``. Each handler returns the exit
status (``findings.EXIT_*``): 0 clean (for an export, its head signed by a key the reviewer
trusts), 1 a violation found (replay), 2 unreadable input or a usage error (a message on stderr,
never a traceback), 3 no violation but the export's head signed by an unknown key (replay).
"""

from __future__ import annotations

import argparse
import asyncio
import os
import sys
from pathlib import Path

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
                    "print each deal and every check made. An export's head must be signed by "
                    "--key, or else by a key pinned with `belote trust-key`. Exit 0 clean, 1 a "
                    "violation found, 2 unreadable input or usage error, 3 no violation but the "
                    "head signed by an unknown key (neither --key nor pinned).")
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
                             "head must be signed by it (env BELOTE_EXPORT_KEY; default: by a key "
                             "of --known-keys)")
    known_help = ("the file of export keys pinned with `belote trust-key`, one a line (env "
                  "BELOTE_KNOWN_KEYS; default $XDG_CONFIG_HOME/belote/known_keys, i.e. "
                  "~/.config/belote/known_keys)")
    replay.add_argument("--known-keys", metavar="FILE", default=_known_keys_default(),
                        help=known_help + "; not read with --key")
    replay.add_argument("--max-events", type=_positive,
                        help="refuse a file of more events than this (default 500,000: far more "
                             "than a table's log)")
    replay.set_defaults(func=cmd_replay, run=cmd_replay)

    # The reviewer pins a key given by hand, never one read from an export: a head names its own
    # key, so pinning from the file under review would trust whoever wrote it.
    trust = subparsers.add_parser(
        "trust-key", help="pin a server's export key, so `belote replay` trusts exports it signed",
        description="Pin a server's export key in the known-keys file and print its fingerprint "
                    "(SHA256:<base64>, to compare by eye). Take KEY from the server: `belote "
                    "serve` prints it (`export key: ed25519:...`), the GetExportKey RPC serves it.")
    trust.add_argument("key", metavar="KEY",
                       help="the key as --key takes it: ed25519:<64 hex digits> (or its hex, its "
                            "base64, a PEM public key, or a file holding one)")
    trust.add_argument("--comment", default="",
                       help="a note kept after the key on its line (e.g. the server's name)")
    trust.add_argument("--known-keys", metavar="FILE", default=_known_keys_default(),
                       help=known_help)
    trust.set_defaults(func=cmd_trust_key, run=cmd_trust_key)


def _known_keys_default() -> str | None:
    # None: the user's config dir, resolved when used (known_keys.path_of).
    return os.environ.get("BELOTE_KNOWN_KEYS") or None


def _positive(text: str) -> int:
    try:
        n = int(text)
    except ValueError:
        n = 0
    if n < 1:
        raise argparse.ArgumentTypeError(f"want a whole number of 1 or more, got {text!r}")
    return n


def _error(command: str, message: str) -> int:
    from .findings import EXIT_UNREADABLE
    print(f"belote {command}: {message}", file=sys.stderr)
    return EXIT_UNREADABLE


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

    from . import known_keys, report
    from .findings import EXIT_UNKNOWN_KEY
    from .load import MAX_EVENTS, Unreadable, iter_file, read_stored
    from .verify import entries_of_stored, export_of, review

    if bool(args.file) == bool(args.table_id):
        return _error("replay", "give a TABLE_ID (read from --store) or --file FILE, not both"
                      if args.file else "give a TABLE_ID (read from --store) or --file FILE")
    try:
        key = parse_public_key(args.key) if args.key else None
    except ValueError as err:
        return _error("replay", f"--key: {err}")
    known_path = known_keys.path_of(args.known_keys)
    trusted: frozenset[bytes] = frozenset()
    if args.file and key is None:
        # Read before the review, so a broken file is an error of its own, not a verdict.
        try:
            trusted = frozenset(known_keys.read(known_path))
        except known_keys.KnownKeysError as err:
            return _error("replay", str(err))
    try:
        # From a store, the entries are the stored events themselves (hashed over the bytes the
        # store holds); from a file, the export's LoggedEvents, read line by line, and its head.
        if args.file:
            entries, end = export_of(iter_file(args.file, args.max_events or MAX_EVENTS), key,
                                     trusted)
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
    if result.exit_code == EXIT_UNKNOWN_KEY and result.unknown_key is not None:
        print(_unknown_key_message(result.unknown_key, known_path), end="", file=sys.stderr)
    return result.exit_code


def _unknown_key_message(public: bytes, known_path: Path) -> str:
    """How to tell the server's key, and pin it: the key to pin is the server's, as the reviewer
    has it from the server, so the command shows no key taken from the export."""
    from belote.app.export_signing import key_text

    from .known_keys import fingerprint
    return (f"belote replay: not verified: the export's head is good, but signed by a key you do "
            f"not trust\n"
            f"  key:         {key_text(public)}\n"
            f"  fingerprint: {fingerprint(public)}\n"
            f"Compare it with the server's export key (`belote serve` prints `export key: "
            f"ed25519:...`; the GetExportKey RPC serves it). If that is another key, this export "
            f"is not the server's. To trust the server's key, pin it, then replay again:\n"
            f"  belote trust-key <the server's export key> --known-keys {known_path}\n"
            f"(or give it with --key)\n")


def cmd_trust_key(args: argparse.Namespace) -> int:
    from belote.app.export_signing import key_text, parse_public_key

    from . import known_keys

    try:
        public = parse_public_key(args.key)
    except ValueError as err:
        return _error("trust-key", str(err))
    path = known_keys.path_of(args.known_keys)
    try:
        added = known_keys.pin(path, public, args.comment)
    except ValueError as err:
        return _error("trust-key", f"--comment: {err}")
    except known_keys.KnownKeysError as err:
        return _error("trust-key", str(err))
    print(f"fingerprint {known_keys.fingerprint(public)} ({key_text(public)})")
    print(f"{'pinned' if added else 'already pinned'} in {path}")
    return 0


def main(argv: list[str] | None = None) -> int:
    """``python -m belote.review.cli replay ...`` until the commands are wired into ``belote``."""
    parser = argparse.ArgumentParser(prog="belote")
    add_commands(parser.add_subparsers(dest="command", required=True, metavar="COMMAND"))
    args = parser.parse_args(argv)
    return args.func(args)


if __name__ == "__main__":
    raise SystemExit(main())
