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

    if args.table and (args.option or args.preset):
        print("belote play: --preset and --option make a new table; they do not go with --table",
              file=sys.stderr)
        return 2
    app = PlayApp(args.target, table_id=args.table, preset=args.preset or "classic",
                  options=_options(args.option), name=args.name, seat=args.seat,
                  password=args.password, bot_level=LEVELS[args.bots])
    app.run()
    return app.return_code or 0


def add_commands(subparsers: argparse._SubParsersAction) -> None:
    """Add ``play`` to the ``belote`` command's subparsers."""
    play = subparsers.add_parser(
        "play", help="play at a table in the terminal (against bots, or with friends)",
        description="Sit at a table in the terminal. Without --table: a new table where you "
                    "play seat 0 against three bots. With --table: join a friend's table "
                    "(the id the table's screen shows). Keys: 1-8 play the card with that "
                    "number, p c d h s n a pass or bid (pass, clubs, diamonds, hearts, spades, "
                    "no trump, all trump), u-z announce, q quits.")
    play.add_argument("--target", default=os.environ.get("BELOTE_TARGET") or DEFAULT_TARGET,
                      help=f"HOST:PORT of the server (env BELOTE_TARGET; default {DEFAULT_TARGET})")
    play.add_argument("--preset", default=None,
                      help="rule preset of the new table (default classic; `belote presets`)")
    play.add_argument("--option", action="append", default=[], metavar="NAME=VALUE",
                      help="override a rule option of the new table, e.g. --option target=501 "
                           "(repeatable)")
    play.add_argument("--table", default=None, metavar="ID",
                      help="join this table instead of creating one")
    play.add_argument("--name", default=_player_name(),
                      help="your name at the table (default: your user name)")
    play.add_argument("--seat", type=int, choices=range(4), default=None,
                      help="the seat to take (default: 0 at a new table, else the first free)")
    play.add_argument("--password", default="", help="the password of a private table")
    play.add_argument("--bots", choices=sorted(LEVELS), default="normal",
                      help="level of the three bots of a new table (default normal)")
    play.set_defaults(run=cmd_play)
