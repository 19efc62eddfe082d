"""The terminal table: a Textual app over ``belote_client``.

On start it creates a table, takes a seat and seats three bots, or joins the table it was
given: with the seat token kept from an earlier run there (``kept_seats``), it takes that seat
back. The seat it holds is kept at once, for ``belote play --resume``. Then two tasks run: one
follows the table's watch stream (resumed after any disconnection) and writes each event to the
log and folds it into the table's state (``belote_client.fold``: what GetTable would show);
one redraws the screen from that state whenever an event came. The seat's legal actions come
with the stream (``your_turn`` on the event that starts its turn): nothing polls during the
game, one GetTable at the start. Keys act: the server decides, and a refused action shows the server's own
message ("you must follow hearts").
"""

from __future__ import annotations

import asyncio
from typing import ClassVar

import grpc
from belote_client import BeloteClient, BeloteError, RetryPolicy, Seat, TableWatch, action_text
from belote_client.fold import TableState, fold_event, initial_state
from rich.text import Text
from textual.app import App, ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal
from textual.widgets import Input, Static

from belote.play.kept_seats import KeptSeat, KeptSeats
from belote.play.log_pane import LogPane
from belote.play.model import (
    ANNOUNCE_KEYS,
    BID_KEYS,
    Player,
    TableModel,
    hand_text,
    prompt_text,
    rematch_possible,
    status_text,
    table_text,
)
from belote.v1 import events_pb2 as ev
from belote.v1 import table_service_pb2 as pb

ACTION_KEYS = frozenset("123456789") | frozenset(BID_KEYS) | frozenset(ANNOUNCE_KEYS)


class PlayApp(App):
    """One seat at a Belote table.

    Without ``table_id``: a new table (``preset`` and ``options``), the player at ``seat``
    (default 0) and three bots of ``bot_level``. With it: join that table (``seat``, or the
    lowest free one; ``password`` for a private table). ``kept_seats``: where the seat taken is
    kept (and a seat kept at ``table_id`` taken back); None keeps nothing.
    """

    TITLE = "belote"
    AUTO_FOCUS = None  # keys go to the table; the chat input takes them only once opened (m)
    CSS = """
    Screen { layout: vertical; }
    #status { height: auto; border: round $primary; padding: 0 1; }
    #middle { height: 1fr; }
    #table { width: 3fr; height: 100%; border: round $secondary; padding: 0 1; }
    #log { width: 2fr; height: 100%; border: round $secondary; padding: 0 1;
           overflow-x: hidden; scrollbar-gutter: stable; }
    #hand { height: auto; border: round $accent; padding: 0 1; }
    #prompt { height: auto; padding: 0 1; }
    #message { height: auto; padding: 0 1; }
    #chat { display: none; }
    #chat.open { display: block; }
    """
    BINDINGS: ClassVar = [Binding("q", "quit", "quit"), Binding("ctrl+q", "quit", "quit", show=False)]

    def __init__(self, target: str, *, table_id: str | None = None, preset: str = "classic",
                 options: dict[str, str] | None = None, name: str = "player",
                 seat: int | None = None, password: str = "", bot_level: int = ev.BOT_LEVEL_NORMAL,
                 retry: RetryPolicy | None = None, kept_seats: KeptSeats | None = None) -> None:
        super().__init__()
        self.target = target
        self.table_id = table_id
        self.preset = preset
        self.options = dict(options or {})
        self.player_name = name
        self.wanted_seat = seat
        self.password = password
        self.bot_level = bot_level
        self.retry = retry
        self.kept_seats = kept_seats
        #: How the seat was taken: "new", "joined", "reclaimed" (from a takeover bot) or "kept"
        #: (still ours: back within the server's grace, or after the game's end).
        self.seated_how = ""
        #: What to print once the screen is gone (the table id and how to come back).
        self.farewell = ""
        self.client: BeloteClient | None = None
        self.token = ""
        self.model: TableModel | None = None
        #: Every line written to the log, in order (what the log pane shows).
        self.log_lines: list[str] = []
        self._unlogged: list[str] = []
        self._dirty = asyncio.Event()
        self._watch: TableWatch | None = None
        self._state: TableState = initial_state("", -1)   # the table folded from the stream
        self._acting = False
        #: Set once the first view of the table is on screen.
        self.ready = asyncio.Event()

    # -- layout -------------------------------------------------------------------------------

    def compose(self) -> ComposeResult:
        yield Static("Connecting…", id="status")
        with Horizontal(id="middle"):
            yield Static("", id="table")
            yield LogPane(id="log")
        yield Static("", id="hand")
        yield Static("", id="prompt")
        yield Static("", id="message")
        yield Input(placeholder="Say something to the table (Enter: send, Escape: close)",
                    id="chat", max_length=500)

    def screen_text(self) -> str:
        """The text on screen, pane by pane (the log's last lines included), without colours."""
        parts = [self.query_one(f"#{name}", Static).visual for name in
                 ("status", "table", "hand", "prompt", "message")]
        text = "\n".join(getattr(p, "plain", str(p)) for p in parts)
        return text + "\n" + "\n".join(self.log_lines[-20:])

    # -- start and stop ---------------------------------------------------------------------

    async def on_mount(self) -> None:
        self.run_worker(self._start(), name="start", exit_on_error=False)

    async def _start(self) -> None:
        self.client = BeloteClient(self.target, retry=self.retry)
        try:
            seat = await self._take_seat()
            table = await self.client.get_table(seat.table_id, seat.token)
        except BeloteError as err:
            self.exit(return_code=1, message=f"belote play: {err}")
            return
        self._state = initial_state(seat.table_id, table.your_seat)
        clockwise = table.options.get("play_direction") == "clockwise"
        self.model = TableModel(Player(table.your_seat, clockwise), table=table)
        if self.kept_seats is not None:
            try:
                self.kept_seats.keep(KeptSeat(seat.table_id, self.target, table.your_seat,
                                              seat.token, self.player_name))
            except OSError as err:  # play on; only coming back after q is lost
                self.kept_seats = None
                self._say(f"Your seat token cannot be kept ({err}): q will lose the seat",
                          "bold red")
        self.run_worker(self._refresh_loop(), name="refresh", exit_on_error=False)
        self.run_worker(self._watch_loop(), name="watch", exit_on_error=False)
        self._dirty.set()

    async def _take_seat(self) -> Seat:
        assert self.client is not None
        kept = self.kept_seats.get(self.table_id) if self.kept_seats and self.table_id else None
        if kept is not None:
            me = await self._take_back(kept)
            if me is not None:
                self.player_name, self.token = kept.name or self.player_name, me.token
                return me
        if self.table_id is None:
            created = await self.client.create_table(self.preset, self.options,
                                                     name=f"{self.player_name}'s table")
            self.table_id = created.table_id
            me = await created.join(self.player_name, seat=self.wanted_seat or 0)
            for _ in range(3):
                await created.add_bot(self.bot_level)
            self.seated_how = "new"
        else:
            me = await self.client.join_table(self.table_id, self.player_name,
                                              seat=self.wanted_seat, password=self.password)
            self.seated_how = "joined"
        self.token = me.token
        return me

    async def _take_back(self, kept: KeptSeat) -> Seat | None:
        """Back at a seat kept from an earlier run: JoinTable with its token takes it back from
        the takeover bot. None when the table no longer knows the token (a seat given up before
        the game started): then we join as anyone would."""
        assert self.client is not None
        try:
            me = await self.client.join_table(kept.table_id, kept.name or self.player_name,
                                              reclaim_token=kept.token)
        except BeloteError as err:
            if err.code == grpc.StatusCode.FAILED_PRECONDITION:
                # SEAT_NOT_LEFT: back within the server's grace, the seat is still ours;
                # GAME_OVER: nothing to take back, but the seat's view of the end is ours.
                self.seated_how = "kept"
                return Seat(self.client, kept.table_id, kept.seat, kept.token)
            if err.code in (grpc.StatusCode.UNAUTHENTICATED, grpc.StatusCode.PERMISSION_DENIED):
                assert self.kept_seats is not None
                self.kept_seats.forget(kept.table_id)
                return None
            raise
        self.seated_how = "reclaimed"
        return me

    async def action_quit(self) -> None:
        self.farewell = self.farewell_text()
        self.exit(return_code=0)

    def farewell_text(self) -> str:
        """What the terminal says once the screen is gone: the table, and how to come back."""
        if self.model is None or not self.table_id:
            return ""
        table, seat = self.model.table, self.model.player.seat
        where = f"Table {self.table_id}, seat {seat} as {self.player_name}"
        if getattr(table, "closed", False):
            return f"{where}: the table is closed."
        if table.status == pb.TABLE_STATUS_FINISHED:
            lines = [f"{where}: the game is over."]
        elif table.status == pb.TABLE_STATUS_PLAYING:
            until = ", until you come back" if self.kept_seats else ""
            lines = [f"{where}: you left the game.",
                     f"A bot plays for you after the server's grace{until}."]
        else:
            lines = [f"{where}: you left before the game started."]
        if self.kept_seats is not None:
            lines.append(f"Your seat token is kept in {self.kept_seats.path}.")
            lines.append("Come back with:  belote play --resume")
            lines.append(f"    or with:  belote play --target {self.target} --table {self.table_id}")
        return "\n".join(lines)

    async def on_unmount(self) -> None:
        if self.client is not None:
            await self.client.close()

    # -- the two loops -----------------------------------------------------------------------

    async def _watch_loop(self) -> None:
        assert self.client is not None and self.model is not None
        self._watch = self.client.watch(self.table_id, self.token)
        try:
            async for event in self._watch:
                self._state = fold_event(self._state, event)
                line = self.model.on_event(event)
                if line:
                    self._unlogged.append(line)  # written with the next redraw
                self._dirty.set()
        except BeloteError as err:
            self._say(f"Lost the table: {err}", "bold red")

    async def _refresh_loop(self) -> None:
        """Redraw from the table folded from the stream (no GetTable during the game)."""
        assert self.client is not None and self.model is not None
        while True:
            await self._dirty.wait()
            self._dirty.clear()
            if self._state.version < self.model.table.version:
                continue            # the stream has not caught up with the first view yet
            table = self._state.table
            self.model.table, self.model.legal = table, self._legal_at(table)
            self._draw()
            self.ready.set()

    def _legal_at(self, table: pb.Table) -> pb.GetLegalActionsResponse:
        """What the seat may do at the view's version, as the stream told it: the turn its
        newest event carried when that event is the view's version. Otherwise nothing yet: a
        view ahead of the stream waits for the events to come, which redraw (a turn always
        comes on the table's newest event)."""
        legal = pb.GetLegalActionsResponse(version=table.version, seat=table.your_seat)
        turn = self._watch.your_turn if self._watch is not None else None
        if turn is not None and turn.version == table.version:
            legal.your_turn = True
            legal.actions.extend(turn.actions)
        return legal

    def _draw(self) -> None:
        """Redraw everything at once, log included: the screen changes in one step, never
        half (a prompt older than the log it sits under)."""
        model = self.model
        assert model is not None
        log = self.query_one("#log", LogPane)
        for line in self._unlogged:
            self.log_lines.append(line)
            log.write(Text(line))
        self._unlogged.clear()
        self.query_one("#status", Static).update(status_text(model, self.target))
        self.query_one("#table", Static).update(table_text(model))
        self.query_one("#hand", Static).update(hand_text(model))
        self.query_one("#prompt", Static).update(prompt_text(model))
        self.query_one("#message", Static).update(model.message)

    def _say(self, text: str, style: str = "") -> None:
        if self.model is not None:
            self.model.message = Text(text, style=style)
        self.query_one("#message", Static).update(Text(text, style=style))

    # -- keys ---------------------------------------------------------------------------------

    async def on_key(self, event) -> None:
        chat = self.query_one("#chat", Input)
        if chat.has_focus:
            if event.key == "escape":
                self._close_chat()
                event.stop()
            return  # typing a message
        key = event.character if event.character and event.character.isprintable() else None
        if key is None or self.model is None:
            return
        if key == "m":
            event.stop()
            self._open_chat()
            return
        if key == "r":
            event.stop()
            self._rematch()
            return
        if key not in ACTION_KEYS:
            return
        event.stop()
        action = self.model.action_for_key(key)
        if action is None:
            self._say(f"No card {key} in your hand" if key.isdigit() else
                      f"Nothing to announce with {key} now", "yellow")
            return
        if self._acting:
            self._say("Wait: your last action is on its way", "yellow")
            return
        self._acting = True
        self.run_worker(self._act(action), name="act", exit_on_error=False)

    async def _act(self, action) -> None:
        assert self.client is not None and self.model is not None
        try:
            await self.client.act(self.table_id, self.token, action)
        except BeloteError as err:
            # The server's own words: "you must follow hearts", "it is not your turn", ...
            self._say(f"✗ {action_text(action)} refused: {err.message}", "bold red")
            self.log_lines.append(f"Refused: {action_text(action)}: {err.message}")
        else:
            self.model.message = Text()  # cleared with the redraw that shows the action done
        finally:
            self._acting = False
            self._dirty.set()

    # -- chat and rematch --------------------------------------------------------------------

    def _open_chat(self) -> None:
        if not hasattr(pb, "PostChatRequest"):
            self._say("This client's contract has no chat", "yellow")
            return
        chat = self.query_one("#chat", Input)
        chat.add_class("open")
        chat.focus()

    def _close_chat(self) -> None:
        chat = self.query_one("#chat", Input)
        chat.value = ""
        chat.remove_class("open")
        self.set_focus(None)

    async def on_input_submitted(self, message: Input.Submitted) -> None:
        text = message.value.strip()
        self._close_chat()
        if text:
            self.run_worker(self._post_chat(text), name="chat", exit_on_error=False)

    async def _post_chat(self, text: str) -> None:
        assert self.client is not None
        try:
            await self.client.post_chat(self.table_id, text, self.token)
        except BeloteError as err:
            self._say(f"✗ message not sent: {err.message}", "bold red")

    def _rematch(self) -> None:
        if self.model is None or not rematch_possible(self.model):
            self._say("A rematch can be asked for once the game is over", "yellow")
            return
        self.run_worker(self._vote_rematch(), name="rematch", exit_on_error=False)

    async def _vote_rematch(self) -> None:
        assert self.client is not None
        try:
            await self.client.vote_rematch(self.table_id, self.token)
        except BeloteError as err:
            self._say(f"✗ rematch refused: {err.message}", "bold red")
        else:
            self._say("You voted for a rematch: waiting for the others", "green")
        self._dirty.set()

    @property
    def seat(self) -> int | None:
        return self.model.player.seat if self.model else None

    @property
    def status(self) -> int:
        return self.model.table.status if self.model else pb.TABLE_STATUS_UNSPECIFIED
