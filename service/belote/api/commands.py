"""The wire requests as the app's commands: each request checked field by field (INVALID_ARGUMENT
with the field a front-end can point at), its key derived, its player verified, then mapped to
a command of app/commands.py.

:class:`ProtoTables` is the app as the servicer (and an in-process caller speaking protobuf:
the demo, a benchmark, the review's samples) calls it: one method per RPC, the request and the
caller's credentials in, the app's answer out. Whatever it does not map it hands to the app.
"""

from __future__ import annotations

import re
import weakref
from collections.abc import AsyncIterator

from belote.app import errors as err
from belote.app.commands import (
    AddBot,
    Chat,
    Join,
    Leaderboard,
    Leave,
    Look,
    Move,
    NewTable,
    Rematch,
)
from belote.app.paging import page_size
from belote.app.requests import Caller
from belote.rules import InvalidOptions, rules_for
from belote.table.codec import BadMessage, action_from_pb
from belote.v1 import events_pb2 as epb
from belote.v1 import table_service_pb2 as tpb

MAX_NAME = 64
MAX_CHAT = 500
MAX_TURN_TIMER_S = 3600
_MONTH = re.compile(r"\d{4}-(0[1-9]|1[0-2])")
_LEVELS = (0, epb.BOT_LEVEL_EASY, epb.BOT_LEVEL_NORMAL, epb.BOT_LEVEL_HARD)       # 0: the default, NORMAL


class ProtoTables:
    def __init__(self, app) -> None:
        self.app = app

    def __getattr__(self, name: str):
        return getattr(self.app, name)      # the app's own (store, resume, enforce_deadlines...)

    def _key(self, rpc: str, req, token: str | None, caller: Caller | None):
        return self.app.requests.key(rpc, req, token, caller)

    async def create_table(self, req: tpb.CreateTableRequest, player_token: str | None = None, *,
                           caller: Caller | None = None,
                           bots_fill_at_us: int = 0) -> tpb.CreateTableResponse:
        key = self._key("CreateTable", req, None, caller or Caller(player_token=player_token))
        player = self.app.identity.player_id(player_token)
        preset = req.preset or "classic"
        try:
            rules = rules_for(preset, dict(req.options))
        except InvalidOptions as e:
            raise err.invalid("preset" if e.field == "preset" else f"options[{e.field}]", str(e)) from None
        if len(req.name) > MAX_NAME:
            raise err.invalid("name", f"name: at most {MAX_NAME} characters")
        if req.stake < 0:
            raise err.invalid("stake", "stake: must be 0 or more")
        if req.is_private and not req.password:
            raise err.invalid("password", "password: a private table needs one")
        if req.takeover_bot_level not in _LEVELS:
            raise err.invalid("takeover_bot_level", "takeover_bot_level: EASY, NORMAL or HARD")
        timer = req.turn_timer
        if timer.nanos or not 0 <= timer.seconds <= MAX_TURN_TIMER_S:
            raise err.invalid("turn_timer", f"turn_timer: whole seconds, 0 (no timer) to {MAX_TURN_TIMER_S}")
        return await self.app.create_table(NewTable(
            key, caller, player, name=req.name or f"{preset} table", preset=preset,
            options=rules.as_strings(), is_private=req.is_private, password=req.password,
            stake=req.stake, takeover_bot_level=req.takeover_bot_level or epb.BOT_LEVEL_NORMAL,
            turn_timer_s=timer.seconds, bots_fill_at_us=bots_fill_at_us))

    async def list_tables(self, req: tpb.ListTablesRequest) -> tpb.ListTablesResponse:
        return await self.app.list_tables(page_size(req.page_size), req.page_token)

    async def join_table(self, req: tpb.JoinTableRequest, token: str | None,
                         player_token: str | None = None, *,
                         caller: Caller | None = None) -> tpb.JoinTableResponse:
        key = self._key("JoinTable", req, token, caller or Caller(player_token=player_token))
        seat = _seat(req.seat if req.HasField("seat") else None)
        player = self.app.identity.player_id(player_token)
        return await self.app.join_table(Join(key, caller, req.table_id, token, player, seat,
                                              req.display_name, req.password))

    async def add_bot(self, req: tpb.AddBotRequest, token: str | None, *,
                      caller: Caller | None = None) -> tpb.AddBotResponse:
        key = self._key("AddBot", req, token, caller)
        seat = _seat(req.seat if req.HasField("seat") else None)
        if req.level not in _LEVELS:
            raise err.invalid("level", "level: EASY, NORMAL or HARD")
        return await self.app.add_bot(AddBot(key, req.table_id, token, seat, req.level or epb.BOT_LEVEL_NORMAL))

    async def leave_table(self, req: tpb.LeaveTableRequest, token: str | None, *,
                          caller: Caller | None = None) -> tpb.LeaveTableResponse:
        key = self._key("LeaveTable", req, token, caller)
        return await self.app.leave_table(Leave(key, req.table_id, token))

    async def get_legal_actions(self, req: tpb.GetLegalActionsRequest,
                                token: str | None) -> tpb.GetLegalActionsResponse:
        return await self.app.get_legal_actions(req.table_id, token)

    async def act(self, req: tpb.ActRequest, token: str | None, *,
                  caller: Caller | None = None) -> tpb.ActResponse:
        key = self._key("Act", req, token, caller)
        try:
            action = action_from_pb(req.action)
        except BadMessage as e:
            raise err.invalid(e.field, str(e)) from None
        expected = req.expected_version if req.HasField("expected_version") else None
        return await self.app.act(Move(key, req.table_id, token, action, expected))

    async def get_table(self, req: tpb.GetTableRequest, token: str | None, *,
                        caller: Caller | None = None) -> tpb.Table:
        return await self.app.get_table(Look(caller, req.table_id, token, req.password))

    def watch_table(self, req: tpb.WatchTableRequest, token: str | None, *,
                    caller: Caller | None = None) -> AsyncIterator[epb.TableEvent]:
        if req.from_sequence < 0:
            raise err.invalid("from_sequence", "from_sequence: 0 or more (0 and 1 both mean from the start)")
        return self.app.watch_table(Look(caller, req.table_id, token, req.password, req.from_sequence))

    async def post_chat(self, req: tpb.PostChatRequest, token: str | None, *,
                        caller: Caller | None = None) -> tpb.PostChatResponse:
        key = self._key("PostChat", req, token, caller)
        if not 1 <= len(req.text) <= MAX_CHAT or not req.text.strip():
            raise err.invalid("text", f"text: 1 to {MAX_CHAT} characters, not only spaces")
        return await self.app.post_chat(Chat(key, caller, req.table_id, token, req.text,
                                             req.display_name, req.password))

    async def vote_rematch(self, req: tpb.VoteRematchRequest, token: str | None, *,
                           caller: Caller | None = None) -> tpb.VoteRematchResponse:
        key = self._key("VoteRematch", req, token, caller)
        return await self.app.vote_rematch(Rematch(key, req.table_id, token))

    async def get_balance(self, req: tpb.GetBalanceRequest,
                          player_token: str | None) -> tpb.GetBalanceResponse:
        if not player_token:
            raise err.unauthenticated("GetBalance needs your x-player-token")
        return await self.app.get_balance(self.app.identity.player_id(player_token))

    async def get_leaderboard(self, req: tpb.GetLeaderboardRequest,
                              player_token: str | None) -> tpb.GetLeaderboardResponse:
        preset = req.preset or "classic"
        try:
            rules_for(preset)
        except InvalidOptions as e:
            raise err.invalid("preset", str(e)) from None
        if req.month and not _MONTH.fullmatch(req.month):
            raise err.invalid("month", "month: yyyy-mm, e.g. 2026-03")
        size = page_size(req.page_size)
        player = self.app.identity.player_id(player_token)
        return await self.app.get_leaderboard(Leaderboard(preset, req.month, size, req.page_token, player))

    def export_log(self, req: tpb.ExportLogRequest, token: str | None) -> AsyncIterator[epb.LoggedEvent]:
        return self.app.export_log(req.table_id, token)

    async def get_export_key(self, req: tpb.GetExportKeyRequest) -> tpb.GetExportKeyResponse:
        return await self.app.get_export_key()


_OF_APP: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()


def proto_tables(app) -> ProtoTables:
    """The app's ProtoTables, one per app: what the servicer and QuickPlay (whose memory of
    answers and wait are per app) both call."""
    tables = _OF_APP.get(app)
    if tables is None:
        tables = _OF_APP[app] = ProtoTables(app)
    return tables


def _seat(seat: int | None) -> int | None:
    if seat is not None and not 0 <= seat <= 3:
        raise err.invalid("seat", f"seat: {seat} is not a seat (0, 1, 2 or 3)")
    return seat
