"""Quick play: a seat at the open public table of a preset with the most players waiting, or a
new table whose empty seats bots fill after a wait.

Every seat is taken through the app's own JoinTable, so the table's log decides who gets a seat:
two callers racing for the last one (on one replica or two) get one seat each or a refusal that
sends the loser to the next table, never a fifth player. The bots are seated through AddBot
with the new table's host token, by the process that opened the table.
"""

from __future__ import annotations

import asyncio
import hashlib
import weakref
from collections import OrderedDict

import structlog

from belote.rules import InvalidOptions, rules_for
from belote.table.state import WAITING
from belote.v1 import table_service_pb2 as tpb

from . import errors as err
from .requests import Caller, request_uuid
from .tables import MAX_DISPLAY_NAME

DEFAULT_WAIT_S = 20.0
QUICK_PLAY_NAME = "quick play"
CANDIDATES = 50            # open tables looked at, newest first
REMEMBERED_ANSWERS = 4096  # retries this process answers from memory
BOT_TRIES = 5

log = structlog.get_logger("belote.quickplay")


class QuickPlay:
    def __init__(self, app, wait_s: float = DEFAULT_WAIT_S) -> None:
        self.app = app
        self.wait_s = wait_s
        # request key -> table joined: a retry joins the same table again (JoinTable's own
        # idempotency then returns the first answer) instead of seating the caller twice.
        self._answered: OrderedDict[str, str] = OrderedDict()

    async def quick_play(self, req: tpb.QuickPlayRequest, player_token: str | None = None, *,
                         peer: str | None = None,
                         caller: Caller | None = None) -> tpb.JoinTableResponse:
        preset = req.preset or "classic"
        try:
            options = rules_for(preset, dict(req.options)).as_strings()
        except InvalidOptions as e:
            raise err.invalid("preset" if e.field == "preset" else f"options[{e.field}]", str(e)) from None
        if not 1 <= len(req.display_name) <= MAX_DISPLAY_NAME:
            raise err.invalid("display_name", f"display_name: 1 to {MAX_DISPLAY_NAME} characters")
        digits = request_uuid(req.request_id)
        who = caller or Caller(None, player_token, peer or "")
        key = hashlib.sha256(f"{who.player_token or ''}|{who.peer}|{digits}".encode()).hexdigest()

        async def join(table_id: str) -> tpb.JoinTableResponse:
            return await self.app.join_table(
                tpb.JoinTableRequest(table_id=table_id, display_name=req.display_name,
                                     request_id=derived_id(digits, "seat")),
                None, player_token, peer=peer, caller=caller)

        known = self._answered.get(key)
        if known is not None:
            return await join(known)
        for table_id in await self._open_tables(preset, options):
            try:
                joined = await join(table_id)
            except err.AppError as e:
                # Filled or started meanwhile (ABORTED: by a join that won the race): the next.
                if e.code in (err.FAILED_PRECONDITION, err.ABORTED):
                    continue
                raise
            return self._remember(key, table_id, joined)
        created = await self.app.create_table(tpb.CreateTableRequest(
            preset=preset, options=dict(req.options), name=QUICK_PLAY_NAME,
            request_id=derived_id(digits, "table")), player_token, peer=peer, caller=caller)
        joined = await join(created.table_id)
        self.app._spawn(self._fill_with_bots(created.table_id, created.host_token, digits))
        return self._remember(key, created.table_id, joined)

    def _remember(self, key: str, table_id: str, joined: tpb.JoinTableResponse) -> tpb.JoinTableResponse:
        self._answered[key] = table_id
        self._answered.move_to_end(key)
        while len(self._answered) > REMEMBERED_ANSWERS:
            self._answered.popitem(last=False)
        return joined

    async def _open_tables(self, preset: str, options: dict[str, str]) -> list[str]:
        """Public waiting tables with these rules, no stake: the most players waiting first."""
        rows = await self.app.store.lobby.list_tables(status=WAITING, listed=True, limit=CANDIDATES)
        found = []
        for table_id, entry, _ in rows:
            summary = tpb.TableSummary.FromString(entry.summary)
            if summary.preset != preset or summary.stake or not summary.free_seats:
                continue
            state = await self.app._existing(table_id)
            if dict(state.created.options) == options:
                found.append((summary.free_seats, table_id))
        return [table_id for _, table_id in sorted(found)]

    async def _fill_with_bots(self, table_id: str, host_token: str, digits: str) -> None:
        """After the wait, a bot on every seat still empty (humans who came meanwhile keep
        theirs: a seat taken in between is refused to the bot, not to them)."""
        await asyncio.sleep(self.wait_s)
        for seat in range(4):
            for _ in range(BOT_TRIES):
                try:
                    await self.app.add_bot(tpb.AddBotRequest(
                        table_id=table_id, seat=seat, request_id=derived_id(digits, f"bot{seat}")),
                        host_token)
                    break
                except err.AppError as e:
                    if e.code == err.ABORTED:  # a join raced the bot for this seat: look again
                        continue
                    if e.code != err.FAILED_PRECONDITION:  # FAILED_PRECONDITION: taken, fine
                        log.warning("quick play could not seat a bot", table_id=table_id,
                                    seat=seat, reason=e.reason)
                    break


def derived_id(digits: str, step: str) -> str:
    """The request id of one step of a quick play (its table, its seat, a bot): one id per
    operation, as the store wants, each a function of the caller's, so a retry repeats them."""
    return hashlib.sha256(f"quick-play|{digits}|{step}".encode()).hexdigest()[:32]


_players: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()


def quick_play_of(app, wait_s: float | None = None) -> QuickPlay:
    """The app's QuickPlay (one per app, so its memory of answers is shared by every call);
    `wait_s` sets its wait before bots fill a new table."""
    player = _players.get(app)
    if player is None:
        player = _players[app] = QuickPlay(app)
    if wait_s is not None:
        player.wait_s = wait_s
    return player
