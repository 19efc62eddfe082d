"""Coming back to a game in `belote play`: the seat token kept in the user's state directory,
`q` telling the table and how to come back, and a seat taken back from the takeover bot (or
still ours, back within the server's grace). Against a real server (its grace is 3 s)."""

from __future__ import annotations

import asyncio
import stat
import time

import pytest
from belote.cli import main as belote_main
from belote.play.app import PlayApp
from belote.play.kept_seats import MAX_KEPT, KeptSeat, KeptSeats, state_dir
from belote.v1 import table_service_pb2 as pb
from belote_client import BeloteClient
from test_terminal import SIZE, until


async def wait_for_takeover(address: str, table_id: str, seat: int, timeout: float = 20.0):
    """The table as a spectator sees it once a takeover bot plays ``seat``."""
    async with BeloteClient(address) as client:
        deadline = time.monotonic() + timeout
        while True:
            table = await client.get_table(table_id)
            if table.seats[seat].occupant == pb.SEAT_OCCUPANT_BOT and table.seats[seat].bot_takeover:
                return table
            assert time.monotonic() < deadline, f"no takeover bot at seat {seat}: {table.seats}"
            await asyncio.sleep(0.1)


@pytest.fixture(scope="module")
def short_grace_server(tmp_path_factory):
    """A server whose players get a takeover bot 2 s after their stream is gone."""
    from servers import ServerProcess

    proc = ServerProcess(tmp_path_factory.mktemp("short-grace"),
                         extra_args=("--disconnect-grace", "2"))
    proc.start()
    yield proc
    proc.kill()


async def test_quit_says_how_to_come_back_and_the_seat_is_taken_back(short_grace_server, tmp_path):
    address = short_grace_server.address
    kept = KeptSeats(tmp_path / "state" / "belote")
    async with BeloteClient(address) as client:
        # Bob (seat 1) never plays: the game waits for him, whatever the bots do meanwhile.
        table = await client.create_table("classic", {"target": "1000"})
        await table.join("Bob", seat=1)
        app = PlayApp(address, table_id=table.table_id, name="Ana", kept_seats=kept)
        async with app.run_test(size=SIZE) as pilot:
            await until(pilot, app.ready.is_set, what="the first view")
            await table.add_bot()
            await table.add_bot()
            await until(pilot, lambda: "Game 1 starts" in app.log_lines, what="the game")
            table_id, token = app.table_id, app.token
            await pilot.press("q")
    assert app.return_code == 0
    assert app.farewell.splitlines() == [
        f"Table {table_id}, seat 0 as Ana: you left the game.",
        "A bot plays for you after the server's grace, until you come back.",
        f"Your seat token is kept in {kept.path}.",
        "Come back with:  belote play --resume",
        f"    or with:  belote play --target {address} --table {table_id}"]
    # The seat token, for the user only.
    assert kept.last() == KeptSeat(table_id, address, 0, token, "Ana", kept.last().kept_at)
    assert stat.S_IMODE(kept.path.stat().st_mode) == 0o600
    assert stat.S_IMODE(kept.directory.stat().st_mode) == 0o700

    # The server's grace runs out: a takeover bot plays the seat. Then --resume (what
    # cmd_play makes of it: the last kept table) takes it back.
    await wait_for_takeover(address, table_id, 0)
    back = PlayApp(address, table_id=kept.last().table_id, name="someone else", kept_seats=kept)
    async with back.run_test(size=SIZE) as pilot:
        await until(pilot, back.ready.is_set, what="the view after coming back")
        assert (back.seated_how, back.seat, back.token) == ("reclaimed", 0, token)
        await until(pilot, lambda: "You took your seat back from the bot" in back.log_lines,
                    what="the seat_reclaimed line")
        seat = back.model.table.seats[0]
        assert (seat.occupant, seat.display_name, seat.bot_takeover) == (pb.SEAT_OCCUPANT_HUMAN, "Ana", False)
        assert "you: Ana, seat 0" in back.screen_text()
        await pilot.press("q")
    assert back.farewell.startswith(f"Table {table_id}, seat 0 as Ana: you left the game.\n")


async def test_back_within_the_grace_the_seat_is_still_ours(server, tmp_path):
    kept = KeptSeats(tmp_path / "state")
    app = PlayApp(server.address, options={"target": "1000"}, name="Ana", kept_seats=kept)
    async with app.run_test(size=SIZE) as pilot:
        await until(pilot, app.ready.is_set, what="the first view")
        await pilot.press("q")
    back = PlayApp(server.address, table_id=app.table_id, name="Ana", kept_seats=kept)
    async with back.run_test(size=SIZE) as pilot:
        await until(pilot, back.ready.is_set, what="the view after coming back")
        # JoinTable refused SEAT_NOT_LEFT: nobody took the seat, the kept token still acts.
        assert (back.seated_how, back.seat, back.token) == ("kept", 0, app.token)
        await until(pilot, lambda: len(back.model.hand()) in (5, 8), what="our hand")
        await pilot.press("q")


async def test_a_kept_token_the_table_no_longer_knows_joins_afresh(server, tmp_path):
    async with BeloteClient(server.address) as client:
        table = await client.create_table("classic", {"target": "1"})
        kept = KeptSeats(tmp_path / "state")
        kept.keep(KeptSeat(table.table_id, server.address, 2, "not-a-token", "Ana"))
        app = PlayApp(server.address, table_id=table.table_id, name="Ana", kept_seats=kept)
        async with app.run_test(size=SIZE) as pilot:
            await until(pilot, app.ready.is_set, what="the first view")
            assert (app.seated_how, app.seat) == ("joined", 0)
            await pilot.press("q")
    # The stale token is gone; the new seat is kept in its place.
    assert [(s.table_id, s.seat, s.token) for s in kept.all()] == [(table.table_id, 0, app.token)]
    assert app.farewell.startswith(f"Table {table.table_id}, seat 0 as Ana: you left before "
                                   "the game started")


async def test_a_state_directory_that_cannot_be_written_warns_and_plays_on(server, tmp_path):
    (tmp_path / "not-a-directory").write_text("")
    kept = KeptSeats(tmp_path / "not-a-directory" / "belote")
    app = PlayApp(server.address, options={"target": "1"}, name="Ana", kept_seats=kept)
    async with app.run_test(size=SIZE) as pilot:
        await until(pilot, app.ready.is_set, what="the first view")
        assert app.model.message.plain.startswith("Your seat token cannot be kept (")
        assert app.model.message.plain.endswith("): q will lose the seat")
        await until(pilot, lambda: len(app.model.hand()) in (5, 8), what="a hand")
        await pilot.press("q")
    assert app.farewell == (f"Table {app.table_id}, seat 0 as Ana: you left the game.\n"
                            "A bot plays for you after the server's grace.")


def test_kept_seats_file(tmp_path):
    kept = KeptSeats(tmp_path / "belote")
    assert kept.all() == [] and kept.last() is None
    for i in range(MAX_KEPT + 3):
        kept.keep(KeptSeat(f"t{i}", "h:1", i % 4, f"tok{i}", "Ana"))
    seats = kept.all()
    assert len(seats) == MAX_KEPT and seats[0].table_id == "t3" and kept.last().table_id == f"t{MAX_KEPT + 2}"
    kept.keep(KeptSeat("t5", "h:2", 1, "tok5b", "Bob"))  # again: it becomes the last
    assert kept.last() == KeptSeat("t5", "h:2", 1, "tok5b", "Bob", kept.last().kept_at)
    assert [s.table_id for s in kept.all()].count("t5") == 1 and kept.get("t5").token == "tok5b"
    kept.forget("t5")
    assert kept.get("t5") is None and len(kept.all()) == MAX_KEPT - 1
    kept.path.write_text("{not json")
    assert kept.all() == []  # unreadable: nothing kept, and the next seat writes a good file
    kept.keep(KeptSeat("t9", "h:1", 0, "tok9", "Ana"))
    assert [s.table_id for s in kept.all()] == ["t9"]
    assert stat.S_IMODE(kept.path.stat().st_mode) == 0o600


def test_state_dir_follows_xdg_state_home(tmp_path, monkeypatch):
    assert state_dir({"XDG_STATE_HOME": str(tmp_path)}) == tmp_path / "belote"
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    default = tmp_path / "home" / ".local" / "state" / "belote"
    assert state_dir({}) == default
    assert state_dir({"XDG_STATE_HOME": "relative/dir"}) == default  # the spec ignores it


@pytest.mark.parametrize("args, words", [
    (["--resume"], "no seat to resume: none is kept in "),
    (["--resume", "--table", "t1"], "--resume takes back the last seat you held"),
    (["--resume", "--seat", "1"], "--resume takes back the last seat you held"),
])
def test_resume_errors(tmp_path, monkeypatch, capsys, args, words):
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path))
    # main() would point the process's logging at this test's captured stderr, which closes
    # with the test: every later test's log line would then fail.
    monkeypatch.setattr("belote.cli.configure_logging", lambda *a, **kw: None)
    assert belote_main(["play", *args]) == 2
    err = capsys.readouterr().err
    assert err.startswith("belote play: ") and words in err
    assert not (tmp_path / "belote" / "seats.json").exists()


def test_the_name_comes_from_the_flag_or_the_environment(monkeypatch):
    from belote.cli import build_parser

    monkeypatch.setenv("BELOTE_NAME", "Zoé")
    assert build_parser().parse_args(["play"]).name == "Zoé"
    assert build_parser().parse_args(["play", "--name", "Bob"]).name == "Bob"
    monkeypatch.delenv("BELOTE_NAME")
    assert build_parser().parse_args(["play"]).name  # the user's name, or "player"
