"""The lobby: the index of tables others may join, new tables' ids, and the quota on new tables.

A table's lobby entry is written with the append that changes what it shows (status, free
seats), so the index never lags the log.
"""

from __future__ import annotations

import base64
import secrets

from belote.store import StoreUnavailable, TableIndexEntry
from belote.table.codec import set_turn_timer
from belote.table.state import WAITING, TableState
from belote.table.views import status_to_pb
from belote.v1 import table_service_pb2 as tpb

from . import errors as err
from .limits import caller_key
from .paging import PageTokens
from .requests import RequestKey

CLOSED = "closed"                 # the index status of a closed table (TableStatus stays FINISHED)


def index_key(state: TableState) -> tuple:
    """What of a table its lobby entry shows that can change (the rest is fixed at creation)."""
    return state.status, state.closed, len(state.free_seats())


def index_entry(state: TableState) -> TableIndexEntry:
    summary = tpb.TableSummary(table_id=state.table_id, name=state.created.name,
                               preset=state.created.preset, free_seats=len(state.free_seats()),
                               stake=state.created.stake, status=status_to_pb(state.status))
    set_turn_timer(summary, state.created)
    return TableIndexEntry(status=CLOSED if state.closed else state.status,
                           listed=not state.created.is_private and state.status == WAITING,
                           summary=summary.SerializeToString(deterministic=True))


class Lobby:
    def __init__(self, store, tables_created, page_tokens: PageTokens) -> None:
        self.store = store
        self.page_tokens = page_tokens
        self._tables_created = tables_created       # a limits.Window, or None: no quota

    async def open_tables(self, size: int, page_token: str) -> tpb.ListTablesResponse:
        """A page of the open public tables, oldest first, and the next page's token."""
        offset, last, limit = self.page_tokens.cursor("ListTables", page_token, size)
        rows = await self.store.lobby.list_tables(status=WAITING, listed=True, limit=limit)
        page, next_token = self.page_tokens.cut("ListTables", rows, offset, last, size, lambda row: row[0])
        return tpb.ListTablesResponse(tables=[tpb.TableSummary.FromString(e.summary) for _, e, _ in page],
                                      next_page_token=next_token)

    async def table_id(self, request: RequestKey) -> str:
        """A random id for a new table; a retried CreateTable gets the one its request claimed."""
        try:
            return await self.store.lobby.claim_table(request.key, base64.b32encode(
                secrets.token_bytes(10)).decode().lower())
        except StoreUnavailable as e:
            raise err.AppError("STORE_UNAVAILABLE", "the store cannot be reached") from e

    async def count_table_created(self, key: RequestKey, peer: str | None, player: str) -> None:
        """A registered player's tables count against it, a guest's against its peer; a retry
        (the same request key) counts once."""
        window = self._tables_created
        if window is None or peer is None:
            return
        caller = caller_key(f"player:{player}" if player else peer)
        if await window.take(caller, holder=str(key)) is None:
            raise err.AppError("TOO_MANY_TABLES",
                               f"at most {window.limit} new tables per minute from one caller: "
                               "retry within a minute")
