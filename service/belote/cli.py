"""Command line: ``belote serve | demo | presets | health``.

Every setting is a flag whose default comes from a ``BELOTE_*`` environment variable, so the
same binary is configured by flags on a laptop and by the environment in a container.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import sys
import tempfile
import uuid

from belote.observability import configure_logging

DEFAULT_LISTEN = "127.0.0.1:50051"
DEFAULT_STORE = "sqlite:///./belote.db"
DEFAULT_METRICS_LISTEN = "127.0.0.1:9464"
DEFAULT_WEB_LISTEN = "127.0.0.1:8080"


def _env(name: str, default: str | None = None) -> str | None:
    return os.environ.get(name) or default


# ---------------------------------------------------------------------------------------- serve

class SecretFileError(Exception):
    pass


def reviewer_token(args: argparse.Namespace) -> str | None:
    """The reviewer token: from --reviewer-token-file (a secret on the command line shows in
    `ps`), else --reviewer-token; both at once is a mistake."""
    if not args.reviewer_token_file:
        return args.reviewer_token
    if args.reviewer_token:
        raise SecretFileError("give --reviewer-token or --reviewer-token-file (env "
                              "BELOTE_REVIEWER_TOKEN or BELOTE_REVIEWER_TOKEN_FILE), not both")
    try:
        with open(args.reviewer_token_file, encoding="utf-8") as source:
            token = source.read().strip()
    except (OSError, UnicodeDecodeError) as exc:
        raise SecretFileError(f"cannot read the reviewer token file "
                              f"{args.reviewer_token_file}: {exc}") from None
    if not token:
        raise SecretFileError(f"the reviewer token file {args.reviewer_token_file} is empty")
    return token


def cmd_serve(args: argparse.Namespace) -> int:
    from belote.api.server import BindError, serve
    from belote.app.server_key import KeyError_
    from belote.store import StoreError

    if args.spectators_per_caller < 1:
        print("belote serve: --spectators-per-caller: 1 or more", file=sys.stderr)
        return 2
    if args.quick_play_seats_per_caller < 1:
        print("belote serve: --quick-play-seats-per-caller: 1 or more", file=sys.stderr)
        return 2
    if args.tables_per_minute < 0:
        print("belote serve: --tables-per-minute: 0 (no quota) or more", file=sys.stderr)
        return 2
    if args.bot_workers is not None and args.bot_workers < 0:
        print("belote serve: --bot-workers: 0 (bots decide in the server's process) or more",
              file=sys.stderr)
        return 2
    for flag, value in (("--web-header-timeout", args.web_header_timeout),
                        ("--web-body-timeout", args.web_body_timeout),
                        ("--web-keepalive-timeout", args.web_keepalive_timeout),
                        ("--web-max-connections", args.web_max_connections)):
        if value <= 0:
            print(f"belote serve: {flag}: more than 0", file=sys.stderr)
            return 2
    from belote.api.web_limits import WebLimits
    web_limits = WebLimits(args.web_header_timeout, args.web_body_timeout,
                           args.web_keepalive_timeout, args.web_max_connections)
    from belote.api.callers import TrustedProxies
    try:
        trusted_proxies = TrustedProxies.parse(args.trusted_proxies)
    except ValueError as exc:
        print(f"belote serve: --trusted-proxies: {exc}", file=sys.stderr)
        return 2
    try:
        return asyncio.run(serve(args.listen, args.store, reviewer_token(args), grace=args.grace,
                                 disconnect_grace=args.disconnect_grace, key_file=args.key_file,
                                 tables_per_minute=args.tables_per_minute,
                                 spectators_per_caller=args.spectators_per_caller,
                                 metrics_listen=args.metrics_listen or None,
                                 web_listen=args.web_listen or None,
                                 web_origins=tuple(o for o in args.web_origins.split(",") if o),
                                 quick_play_wait=args.quick_play_wait,
                                 quick_play_seats=args.quick_play_seats_per_caller,
                                 bot_workers=args.bot_workers,
                                 trusted_proxies=trusted_proxies, web_limits=web_limits))
    except (BindError, StoreError, KeyError_, SecretFileError) as exc:
        print(f"belote serve: {exc}", file=sys.stderr)
        return 2


# ----------------------------------------------------------------------------------------- demo

def _parse_options(pairs: list[str]) -> dict[str, str]:
    options = {}
    for pair in pairs:
        name, sep, value = pair.partition("=")
        if not sep or not name:
            raise SystemExit(f"belote demo: --option wants NAME=VALUE, got {pair!r}")
        options[name.strip()] = value.strip()
    return options


class DemoInterrupted(Exception):
    pass


async def _demo_client(target: str, preset: str, options: dict[str, str]) -> tuple[str, list[int]]:
    """Create a table, seat four EASY bots, print each deal's score; return (table id, totals)."""
    import grpc

    from belote.v1 import events_pb2, table_service_pb2_grpc
    from belote.v1 import table_service_pb2 as pb

    async with grpc.aio.insecure_channel(target) as channel:
        stub = table_service_pb2_grpc.TableServiceStub(channel)
        created = await stub.CreateTable(pb.CreateTableRequest(
            preset=preset, options=options, name="demo", request_id=str(uuid.uuid4())))
        host = (("authorization", f"Bearer {created.host_token}"),)
        for _ in range(4):
            await stub.AddBot(pb.AddBotRequest(
                table_id=created.table_id, level=events_pb2.BOT_LEVEL_EASY, request_id=str(uuid.uuid4())),
                metadata=host)
        # From the first event: the bots may have played a deal before the stream opens.
        async for event in stub.WatchTable(pb.WatchTableRequest(table_id=created.table_id,
                                                                from_sequence=1)):
            kind = event.WhichOneof("body")
            if kind == "deal_scored":
                print(_deal_line(event.deal_scored), flush=True)
            elif kind == "game_ended":
                return created.table_id, list(event.game_ended.totals)
    # The server ended the stream (it is shutting down): the game goes on without us.
    raise DemoInterrupted(f"the server ended the stream of table {created.table_id} before "
                          "the game was over")


def _deal_line(deal) -> str:
    from belote.v1 import cards_pb2, events_pb2

    contract = cards_pb2.Contract.Name(deal.contract).removeprefix("CONTRACT_").lower()
    outcome = events_pb2.DealOutcome.Name(deal.outcome).removeprefix("DEAL_OUTCOME_").lower()
    return (f"deal {deal.deal_number}: seat {deal.taker} took {contract}, {outcome}: "
            f"+{deal.deal_score[0]} / +{deal.deal_score[1]}, "
            f"totals {deal.totals[0]} - {deal.totals[1]}")


async def _demo(target: str | None, preset: str, options: dict[str, str]) -> tuple[str, list[int]]:
    if target:
        return await _demo_client(target, preset, options)
    # No server given: run one in this process on a free port, with a throw-away store.
    from belote.api.server import start
    from belote.app.tables import TableApp

    with tempfile.TemporaryDirectory(prefix="belote-demo-") as tmp:
        app = await TableApp.open(f"sqlite:///{os.path.join(tmp, 'demo.db')}")
        running = await start("127.0.0.1:0", app)
        try:
            return await _demo_client(running.address, preset, options)
        finally:
            await running.stop(grace=1.0)


def _embedded_server_logging(args: argparse.Namespace):
    """The demo's own lines go to stdout; the log lines of the server it runs in this process
    stay out of them: all of them in --server-log FILE (returned, to be closed), else only its
    warnings and errors, on stderr."""
    fmt = args.log_format or "console"
    if not args.server_log:
        configure_logging("warning", fmt, sys.stderr)
        return None
    try:
        log_file = open(args.server_log, "a", encoding="utf-8")  # noqa: SIM115 (closed by the caller)
    except OSError as exc:
        raise SystemExit(f"belote demo: cannot write the server log: {exc}") from None
    configure_logging(args.log_level, fmt, log_file)
    return log_file


def cmd_demo(args: argparse.Namespace) -> int:
    import grpc

    log_file = None if args.target else _embedded_server_logging(args)
    try:
        table_id, totals = asyncio.run(_demo(args.target, args.preset, _parse_options(args.option)))
    except grpc.aio.AioRpcError as err:
        print(f"belote demo: {err.code().name}: {err.details()}", file=sys.stderr)
        return 1
    except DemoInterrupted as exc:
        print(f"belote demo: {exc}", file=sys.stderr)
        return 1
    finally:
        if log_file:
            log_file.close()
    print(f"table: {table_id}")
    print(f"score: {totals[0]} - {totals[1]}")
    return 0


# -------------------------------------------------------------------------------------- presets

def presets_text(width: int = 100) -> str:
    """Options down, presets across, split into as many blocks of presets as `width` needs."""
    from belote.rules.options import PRESETS, describe_choices, rules_for

    names = list(PRESETS)
    values = {p: rules_for(p).as_strings() for p in names}
    label = max(len(o) for o in values[names[0]])
    # Options every preset sets alike get one line at the end instead of a row: narrower columns.
    same = {o: v for o, v in values[names[0]].items() if all(values[p][o] == v for p in names)}
    options = [o for o in values[names[0]] if o not in same]
    col = {p: max(len(p), *(len(values[p][o]) for o in options)) for p in names}

    blocks, block, used = [], [], label
    for p in names:
        if block and used + 2 + col[p] > width:
            blocks.append(block)
            block, used = [], label
        block.append(p)
        used += 2 + col[p]
    blocks.append(block)

    def row(block: list[str], first: str, cells: list[str]) -> str:
        padded = [cell.ljust(col[p]) for p, cell in zip(block, cells)]
        return "  ".join([first.ljust(label), *padded]).rstrip()

    lines = []
    for block in blocks:
        lines.append(row(block, "option", block))
        lines.append(row(block, "-" * label, ["-" * col[p] for p in block]))
        lines.extend(row(block, o, [values[p][o] for p in block]) for o in options)
        lines.append("")
    if same:
        lines.append("in every preset: " + ", ".join(f"{o}={v}" for o, v in same.items()))
        lines.append("")
    lines.append("accepted values (CreateTable options, e.g. target=501):")
    choices = describe_choices()
    lines.extend(f"  {name.ljust(label)}  {accepted}" for name, accepted in choices.items())
    return "\n".join(lines)


def cmd_presets(args: argparse.Namespace) -> int:
    print(presets_text())
    return 0


# --------------------------------------------------------------------------------------- health

def cmd_health(args: argparse.Namespace) -> int:
    import grpc
    from grpc_health.v1 import health_pb2, health_pb2_grpc

    from belote.api.server import LIVENESS

    service = LIVENESS if args.live else args.service
    with grpc.insecure_channel(args.target) as channel:
        try:
            reply = health_pb2_grpc.HealthStub(channel).Check(
                health_pb2.HealthCheckRequest(service=service), timeout=args.timeout)
        except grpc.RpcError as err:
            print(f"{args.target}: {err.code().name}: {err.details()}", file=sys.stderr)
            return 1
    status = health_pb2.HealthCheckResponse.ServingStatus.Name(reply.status)
    print(f"{args.target}: {status}")
    return 0 if reply.status == health_pb2.HealthCheckResponse.SERVING else 1


# --------------------------------------------------------------------------------------- parser

def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="belote", description="Belote gRPC game server.")
    parser.add_argument("--log-level", default=_env("BELOTE_LOG_LEVEL", "info"),
                        choices=["debug", "info", "warning", "error"],
                        help="log level (env BELOTE_LOG_LEVEL; default info)")
    parser.add_argument("--log-format", default=_env("BELOTE_LOG_FORMAT"),
                        choices=["console", "json"],
                        help="one JSON object a line or readable lines (env BELOTE_LOG_FORMAT; "
                             "default: json for serve, console for the other commands)")
    commands = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")

    serve = commands.add_parser("serve", help="run the gRPC server")
    serve.add_argument("--listen", default=_env("BELOTE_LISTEN", DEFAULT_LISTEN),
                       help=f"HOST:PORT to listen on, port 0 for any (env BELOTE_LISTEN; "
                            f"default {DEFAULT_LISTEN})")
    serve.add_argument("--store", default=_env("BELOTE_STORE", DEFAULT_STORE),
                       help=f"event store URL (env BELOTE_STORE; default {DEFAULT_STORE})")
    serve.add_argument("--reviewer-token", default=_env("BELOTE_REVIEWER_TOKEN"),
                       help="token allowed to call ExportLog (env BELOTE_REVIEWER_TOKEN; "
                            "default: none, export disabled); prefer --reviewer-token-file")
    serve.add_argument("--reviewer-token-file", default=_env("BELOTE_REVIEWER_TOKEN_FILE"),
                       help="file holding the reviewer token, kept off the command line (env "
                            "BELOTE_REVIEWER_TOKEN_FILE)")
    serve.add_argument("--key-file", default=_env("BELOTE_KEY_FILE"),
                       help="file holding the server's key (32+ bytes or their hex), which tokens "
                            "and signatures derive from; the same on every replica (env "
                            "BELOTE_KEY_FILE; default for a SQLite store: "
                            "~/.local/state/belote/server.key, made on first start)")
    serve.add_argument("--metrics-listen",
                       default=os.environ.get("BELOTE_METRICS_LISTEN", DEFAULT_METRICS_LISTEN),
                       help="HOST:PORT for Prometheus metrics at /metrics, empty for none "
                            f"(env BELOTE_METRICS_LISTEN; default {DEFAULT_METRICS_LISTEN})")
    serve.add_argument("--web-listen",
                       default=os.environ.get("BELOTE_WEB_LISTEN", DEFAULT_WEB_LISTEN),
                       help="HOST:PORT of the web port: the API for browsers (Connect, gRPC-Web) "
                            "and the web client at /; empty for none (env BELOTE_WEB_LISTEN; "
                            f"default {DEFAULT_WEB_LISTEN})")
    serve.add_argument("--web-origins", default=_env("BELOTE_WEB_ORIGINS", ""),
                       help="comma-separated origins whose pages may call the web port "
                            "(CORS), or * for any (env BELOTE_WEB_ORIGINS; default: none, only "
                            "the page the web port serves itself)")
    serve.add_argument("--web-header-timeout", type=float,
                       default=float(_env("BELOTE_WEB_HEADER_TIMEOUT", "10")),
                       help="seconds a web client has to send a request's head (request line "
                            "and headers), from connecting or from the head's first byte; then "
                            "its connection is closed (env BELOTE_WEB_HEADER_TIMEOUT; default 10)")
    serve.add_argument("--web-body-timeout", type=float,
                       default=float(_env("BELOTE_WEB_BODY_TIMEOUT", "30")),
                       help="seconds a web client has to send a request's body once its head is "
                            "in; responses, such as a WatchTable stream, are never timed (env "
                            "BELOTE_WEB_BODY_TIMEOUT; default 30)")
    serve.add_argument("--web-keepalive-timeout", type=float,
                       default=float(_env("BELOTE_WEB_KEEPALIVE_TIMEOUT", "5")),
                       help="seconds a web connection may stay idle between two requests; "
                            "behind a proxy that keeps idle connections to the server, more "
                            "than that proxy's idle timeout (env BELOTE_WEB_KEEPALIVE_TIMEOUT; "
                            "default 5)")
    serve.add_argument("--web-max-connections", type=int,
                       default=int(_env("BELOTE_WEB_MAX_CONNECTIONS", "1000")),
                       help="connections the web port serves at once (a WatchTable stream holds "
                            "one); a request over them is answered 503 and its connection closed "
                            "(env BELOTE_WEB_MAX_CONNECTIONS; default 1000)")
    serve.add_argument("--trusted-proxies", default=_env("BELOTE_TRUSTED_PROXIES", ""),
                       help="comma-separated networks (CIDR, e.g. 10.244.0.0/16) of the proxies "
                            "in front of either port: a call from one of them counts as the "
                            "client it names in Forwarded or X-Forwarded-For, for per-caller "
                            "limits; from anywhere else those headers are ignored (env "
                            "BELOTE_TRUSTED_PROXIES; default: none, every caller is its direct "
                            "peer)")
    serve.add_argument("--quick-play-wait", type=float,
                       default=float(_env("BELOTE_QUICK_PLAY_WAIT", "20")),
                       help="seconds a table QuickPlay opened waits for players before bots fill "
                            "its empty seats (env BELOTE_QUICK_PLAY_WAIT; default 20)")
    serve.add_argument("--quick-play-seats-per-caller", type=int,
                       default=int(_env("BELOTE_QUICK_PLAY_SEATS_PER_CALLER", "2")),
                       help="seats one caller (its registered player, else its address) may hold "
                            "through QuickPlay at once, across tables whose game is not over, "
                            "never two of one table (env BELOTE_QUICK_PLAY_SEATS_PER_CALLER; "
                            "default 2)")
    serve.add_argument("--grace", type=float, default=float(_env("BELOTE_GRACE", "5")),
                       help="seconds in-flight calls get to finish on SIGTERM (env BELOTE_GRACE; "
                            "default 5)")
    serve.add_argument("--disconnect-grace", type=float,
                       default=float(_env("BELOTE_DISCONNECT_GRACE", "60")),
                       help="seconds a seated player's watch stream may stay gone before a bot "
                            "takes the seat (env BELOTE_DISCONNECT_GRACE; default 60)")
    serve.add_argument("--tables-per-minute", type=int,
                       default=int(_env("BELOTE_TABLES_PER_MINUTE", "30")),
                       help="CreateTable calls one caller (a guest's address, or a registered "
                            "player) may make per minute, 0 for no quota (env "
                            "BELOTE_TABLES_PER_MINUTE; default 30)")
    serve.add_argument("--spectators-per-caller", type=int,
                       default=int(_env("BELOTE_SPECTATORS_PER_CALLER", "10")),
                       help="spectator streams of one table that one caller (an address, with "
                            "the token it shows) may hold open, of the table's 50 (env "
                            "BELOTE_SPECTATORS_PER_CALLER; default 10)")
    serve.add_argument("--bot-workers", type=int, default=_env("BELOTE_BOT_WORKERS"),
                       help="processes the bots decide in, off the loop that serves the calls; 0: "
                            "in the server's own process (env BELOTE_BOT_WORKERS; default one per "
                            "core)")
    serve.set_defaults(run=cmd_serve)

    demo = commands.add_parser("demo", help="play a game of four bots and print its score")
    demo.add_argument("--target", default=_env("BELOTE_TARGET"),
                      help="HOST:PORT of a running server (env BELOTE_TARGET; default: start one "
                           "in this process with a temporary store)")
    demo.add_argument("--preset", default="classic", help="rule preset (default classic)")
    demo.add_argument("--option", action="append", default=[], metavar="NAME=VALUE",
                      help="override a rule option, e.g. --option target=501 (repeatable)")
    demo.add_argument("--server-log", default=_env("BELOTE_DEMO_SERVER_LOG"), metavar="FILE",
                      help="append the log of the server the demo runs itself to FILE, at "
                           "--log-level (env BELOTE_DEMO_SERVER_LOG; default: only its warnings "
                           "and errors, on stderr)")
    demo.set_defaults(run=cmd_demo)

    presets = commands.add_parser("presets", help="list the rule presets and their options")
    presets.set_defaults(run=cmd_presets)

    health = commands.add_parser("health", help="check a server's readiness or liveness "
                                                 "(exit 0 if SERVING)")
    health.add_argument("--target", default=_env("BELOTE_TARGET", DEFAULT_LISTEN),
                        help=f"HOST:PORT of the server (env BELOTE_TARGET; default {DEFAULT_LISTEN})")
    asked = health.add_mutually_exclusive_group()
    asked.add_argument("--live", action="store_true",
                       help="liveness: is the process working (SERVING while its store is "
                            "down too); for probes that restart it")
    asked.add_argument("--ready", action="store_true",
                       help="readiness (the default): can it serve games, its store answering")
    asked.add_argument("--service", default="",
                       help="service name to check (default \"\": the whole server, readiness)")
    health.add_argument("--timeout", type=float, default=5.0, help="seconds (default 5)")
    health.set_defaults(run=cmd_health)

    from belote.fuzz import add_commands as add_fuzz
    from belote.load.report import add_commands as add_load
    from belote.review.cli import add_commands as add_review
    add_load(commands, _env)
    add_fuzz(commands, _env)
    add_review(commands)
    # Listed here for --help; main() hands its arguments to the bots' own parser.
    commands.add_parser("bots-match", add_help=False,
                        help="duplicate deals between two bot levels: mean points A - B (--help)")
    from belote.play.cli import add_commands as add_play
    add_play(commands)
    return parser


def _bots_match(argv: list[str]) -> int:
    from belote.bots.match import main as match_main
    return match_main(argv) or 0


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    if argv[:1] == ["bots-match"]:
        configure_logging("warning", "console", sys.stderr)
        return _bots_match(argv[1:])
    args = build_parser().parse_args(argv)
    # The server logs on stdout (what a container runtime collects); the other commands keep
    # stdout for what they print and log on stderr.
    serving = args.command == "serve"
    configure_logging(args.log_level, args.log_format or ("json" if serving else "console"),
                      sys.stdout if serving else sys.stderr)
    return args.run(args)


if __name__ == "__main__":
    raise SystemExit(main())
