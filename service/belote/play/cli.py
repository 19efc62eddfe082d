"""``belote play``: the terminal table's subcommand.

``add_commands(subparsers)`` adds it to the ``belote`` parser (service/belote/cli.py calls it).
"""

from __future__ import annotations

import argparse
import getpass
import os
import sys

DEFAULT_TARGET = "127.0.0.1:50051"
LEVELS = {"easy": 1, "normal": 2, "hard": 3}  # belote.v1.BotLevel


def _player_name() -> str:
    try:
        name = getpass.getuser()
    except Exception:  # noqa: BLE001 - no user name on this system
        name = ""
    return (name or "player")[:32]


def _options(pairs: list[str]) -> dict[str, str]:
    options = {}
    for pair in pairs:
        name, sep, value = pair.partition("=")
        if not sep or not name.strip():
            raise SystemExit(f"belote play: --option wants NAME=VALUE, got {pair!r}")
        options[name.strip()] = value.strip()
    return options


def cmd_play(args: argparse.Namespace) -> int:
    from belote.play.app import PlayApp
    from belote.play.kept_seats import KeptSeats, state_dir

    if args.table and (args.option or args.preset):
        print("belote play: --preset and --option make a new table; they do not go with --table",
              file=sys.stderr)
        return 2
    kept_seats = KeptSeats(state_dir())
    table_id, target = args.table, args.target
    if args.resume:
        if args.table or args.option or args.preset or args.seat is not None:
            print("belote play: --resume takes back the last seat you held; it does not go "
                  "with --table, --seat, --preset or --option", file=sys.stderr)
            return 2
        last = kept_seats.last()
        if last is None:
            print(f"belote play: no seat to resume: none is kept in {kept_seats.path} (start a "
                  "table with `belote play`, or join one with --table ID)", file=sys.stderr)
            return 2
        table_id, target = last.table_id, target or last.target
    target = target or os.environ.get("BELOTE_TARGET") or DEFAULT_TARGET
    app = PlayApp(target, table_id=table_id, preset=args.preset or "classic",
                  options=_options(args.option), name=args.name, seat=args.seat,
                  password=args.password, bot_level=LEVELS[args.bots], kept_seats=kept_seats)
    app.run()
    if app.farewell:
        print(app.farewell)
    return app.return_code or 0


def add_commands(subparsers: argparse._SubParsersAction) -> None:
    """Add ``play`` to the ``belote`` command's subparsers."""
    play = subparsers.add_parser(
        "play", help="play at a table in the terminal (against bots, or with friends)",
        description="Sit at a table in the terminal. Without --table: a new table where you "
                    "play seat 0 against three bots. With --table: join a friend's table "
                    "(the id the table's screen shows). With --resume: back to your seat at "
                    "the last table you left (q says how to come back). Keys: 1-8 play the "
                    "card with that number, p c d h s n a pass or bid (pass, clubs, diamonds, "
                    "hearts, spades, no trump, all trump), u-z announce, q quits.")
    play.add_argument("--target", default=None,
                      help="HOST:PORT of the server (default: with --resume the server of the seat "
                           f"kept, else env BELOTE_TARGET, else {DEFAULT_TARGET})")
    play.add_argument("--preset", default=None,
                      help="rule preset of the new table (default classic; `belote presets`)")
    play.add_argument("--option", action="append", default=[], metavar="NAME=VALUE",
                      help="override a rule option of the new table, e.g. --option target=501 "
                           "(repeatable)")
    play.add_argument("--table", default=None, metavar="ID",
                      help="join this table instead of creating one (your seat there, if you "
                           "held one: its token is kept)")
    play.add_argument("--resume", action="store_true",
                      help="take back the seat of the last table you played at (its token is "
                           "kept in $XDG_STATE_HOME/belote/, by default ~/.local/state/belote/)")
    play.add_argument("--name", default=os.environ.get("BELOTE_NAME") or _player_name(),
                      help="your name at the table (env BELOTE_NAME; default: your user name)")
    play.add_argument("--seat", type=int, choices=range(4), default=None,
                      help="the seat to take (default: 0 at a new table, else the first free)")
    play.add_argument("--password", default="", help="the password of a private table")
    play.add_argument("--bots", choices=sorted(LEVELS), default="normal",
                      help="level of the three bots of a new table (default normal)")
    play.set_defaults(run=cmd_play)
