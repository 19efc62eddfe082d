"""The real `belote play` command in a real terminal (tmux): read the screen with capture-pane,
type with send-keys, play a whole game against three bots, and quit with exit status 0; quit a
table and come back to it with --resume, in a terminal narrowed meanwhile."""

from __future__ import annotations

import asyncio
import json
import os
import re
import subprocess
import time
import uuid

from belote_client import BeloteClient
from client_helpers import need_tool
from servers import BELOTE

GAME_TIMEOUT = 40.0


class Terminal:
    """One tmux server of our own (its own socket), one window of 120x40."""

    def __init__(self, tmux: str, socket: str, command: str, state_home: str,
                 size: tuple[int, int] = (120, 40)) -> None:
        self.tmux, self.socket, self.name = tmux, socket, f"play-{uuid.uuid4().hex[:8]}"
        env = {k: v for k, v in os.environ.items() if not k.startswith(("BELOTE_", "TMUX"))}
        # The kept seat tokens go to the test's own state directory, never the user's.
        env["XDG_STATE_HOME"] = state_home
        # tmux gives a new session the server's environment, not the client's: pass it on.
        subprocess.run([tmux, "-S", socket, "new-session", "-d", "-s", self.name,
                        "-x", str(size[0]), "-y", str(size[1]),
                        "-e", f"XDG_STATE_HOME={state_home}", command], check=True, env=env)

    def screen(self) -> str:
        return subprocess.run([self.tmux, "-S", self.socket, "capture-pane", "-p", "-t",
                               self.name], capture_output=True, text=True, check=True).stdout

    def keys(self, *keys: str) -> None:
        subprocess.run([self.tmux, "-S", self.socket, "send-keys", "-t", self.name, *keys],
                       check=True)

    def wait(self, predicate, timeout: float = 10.0, what: str = "") -> str:
        """The screen once `predicate` holds for it and it stays the same for 50 ms (a frame
        may reach the terminal in more than one write: never act on half of one)."""
        deadline = time.monotonic() + timeout
        previous = None
        while True:
            screen = self.screen()
            if predicate(screen) and screen == previous:
                return screen
            assert time.monotonic() < deadline, f"timed out waiting for {what}:\n{screen}"
            previous = screen
            time.sleep(0.05)

    def act(self, key: str, screen: str) -> str:
        """Press `key` and wait until the table has moved on: its event number grows."""
        seen = event_number(screen)
        self.keys(key)
        return self.wait(lambda s: event_number(s) > seen, 5, f"the answer to {key}")

    def resize(self, width: int, height: int) -> None:
        subprocess.run([self.tmux, "-S", self.socket, "resize-window", "-t", self.name,
                        "-x", str(width), "-y", str(height)], check=True)

    def close(self) -> None:
        subprocess.run([self.tmux, "-S", self.socket, "kill-server"], capture_output=True,
                       check=False)


def choices(screen: str) -> tuple[list[str], list[str]]:
    """From the prompt line: (the keys of the legal actions, the digits of forbidden cards)."""
    prompt = next((line for line in screen.splitlines() if "Your turn" in line), "")
    keys = re.findall(r"\b([a-z])=", prompt)
    playable = re.search(r"playable ([\d ]+)", prompt)
    if playable:
        keys += playable.group(1).split()
    hand = next((line for line in screen.splitlines() if "Your hand:" in line), "")
    forbidden = re.findall(r"(?<!\[)\b(\d):", hand) if playable else []
    return keys, forbidden


def event_number(screen: str) -> int:
    """The table's version, on the status line ("· event #42")."""
    found = re.search(r"event #(\d+)", screen)
    return int(found.group(1)) if found else 0


def test_belote_play_in_tmux(server, tmp_path):
    tmux = need_tool("tmux", "the terminal test drives `belote play` in tmux")
    command = (f"{' '.join(BELOTE)} play --target {server.address} --name Ana "
               "--option target=1; echo EXIT=$?; sleep 30")
    term = Terminal(tmux, str(tmp_path / "tmux.sock"), command, str(tmp_path / "state"))
    refused = ""
    try:
        screen = term.wait(lambda s: "Your hand:" in s and "Score:" in s, 15, "the table")
        assert "North (partner): normal bot" in screen
        deadline = time.monotonic() + GAME_TIMEOUT
        while "Game over:" not in screen:
            assert time.monotonic() < deadline, screen
            keys, forbidden = choices(screen)
            if not keys:
                screen = term.wait(lambda s, before=screen: s != before, 10, "a change")
                continue
            if forbidden and not refused:
                # Once: a card the rules forbid. The server's words come on screen.
                term.keys(forbidden[0])
                screen = term.wait(lambda s: "refused:" in s, 5, "the refusal")
                refused = next(line for line in screen.splitlines() if "refused:" in line)
            screen = term.act(keys[0], screen)  # a legal action: accepted
            assert "refused:" not in screen, screen
        assert "Press" in screen
        term.keys("q")
        screen = term.wait(lambda s: "EXIT=" in s, 10, "the exit")
        assert "EXIT=0" in screen
    finally:
        term.close()
    assert refused and "you must" in refused, refused


def log_pane(screen: str) -> str:
    """The log pane's text (the right-hand column of the middle row), its wrapped lines joined."""
    rows = [line.split("││", 1)[1] for line in screen.splitlines() if "││" in line]
    return " ".join(" ".join(row.rstrip().rstrip("│").split()) for row in rows)


def test_quit_then_resume_in_a_narrowed_terminal(server, tmp_path):
    """q prints the table and how to come back; `belote play --resume` (no --target: the kept
    seat's) sits down again. That one starts at 120x40 and is narrowed to 80x30: the log's lines
    are wrapped anew (none cut), and it follows the newest events once the game starts."""
    tmux = need_tool("tmux", "the terminal test drives `belote play` in tmux")
    state, play = str(tmp_path / "state"), f"{' '.join(BELOTE)} play"

    async def new_table() -> tuple[str, str]:
        async with BeloteClient(server.address) as client:
            table = await client.create_table("classic")
            await table.add_bot(seat=2)
            return table.table_id, table.host_token

    async def two_bots(table_id: str, host_token: str) -> None:
        async with BeloteClient(server.address) as client:
            for seat in (1, 3):
                await client.add_bot(table_id, host_token, seat=seat)

    table_id, host_token = asyncio.run(new_table())
    term = Terminal(tmux, str(tmp_path / "tmux1.sock"), f"{play} --target {server.address} "
                    f"--table {table_id} --name Ana; echo EXIT=$?; sleep 30", state, size=(80, 30))
    try:
        term.wait(lambda s: "Waiting for players: 2/4" in s, 15, "the table")
        term.keys("q")
        screen = term.wait(lambda s: "EXIT=" in s, 10, "the exit")
    finally:
        term.close()
    said = " ".join(screen.split())
    assert f"Table {table_id}, seat 0 as Ana: you left before the game started" in said
    assert "Come back with: belote play --resume" in said
    assert f"or with: belote play --target {server.address} --table {table_id}" in said
    assert "EXIT=0" in screen
    kept = json.loads((tmp_path / "state" / "belote" / "seats.json").read_text())["seats"]
    assert [(s["table_id"], s["seat"], s["target"], s["name"]) for s in kept] == \
        [(table_id, 0, server.address, "Ana")]

    # A tmux server of its own: the first one may still be on its way out.
    term = Terminal(tmux, str(tmp_path / "tmux2.sock"), f"{play} --resume; echo EXIT=$?; sleep 30",
                    state)
    try:
        screen = term.wait(lambda s: f"Table {table_id}" in s and "You sat down as Ana" in s, 15,
                           "the table again")
        assert "you: Ana, seat 0" in screen
        term.resize(80, 30)
        # Each line whole, wrapped to the narrower pane ("…sat down North" takes two rows now).
        screen = term.wait(lambda s: "A normal bot sat down North" in log_pane(s), 10,
                           "the log wrapped anew")
        assert "Table created (classic, to 1000 points) A normal bot sat down North You sat " \
            "down as Ana" in log_pane(screen)
        # The game starts: the newest events come into view, past the pane's 18 rows.
        asyncio.run(two_bots(table_id, host_token))
        deadline = time.monotonic() + GAME_TIMEOUT
        while log_pane(screen).count(" won trick ") < 2:
            assert time.monotonic() < deadline, screen
            keys, _ = choices(screen)
            if keys:
                screen = term.act(keys[0], screen)
            else:
                screen = term.wait(lambda s, before=screen: s != before, 10, "a change")
        assert "Table created" not in log_pane(screen)
        term.keys("q")
        screen = term.wait(lambda s: "EXIT=" in s, 10, "the exit")
        assert "EXIT=0" in screen
    finally:
        term.close()
