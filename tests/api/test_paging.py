"""Page tokens (AIP-158) on ListTables and GetLeaderboard: every table once, in order, across
pages; a token the server did not give, or for another request, is INVALID_PAGE_TOKEN."""

from __future__ import annotations

import base64

import grpc
import pytest
from belote.app.paging import PageTokens
from belote.v1 import table_service_pb2 as pb
from embedded import embedded_server
from players import rid, rpc_error
from test_errors import field_of, reason_of

pytestmark = pytest.mark.timeout(60)
C = grpc.StatusCode


async def _create(stub, n: int) -> list[str]:
    return [(await stub.CreateTable(pb.CreateTableRequest(name=f"t{i}", request_id=rid()))).table_id
            for i in range(n)]


async def _pages(stub, size: int) -> list[list[str]]:
    pages, token = [], ""
    while True:
        reply = await stub.ListTables(pb.ListTablesRequest(page_size=size, page_token=token))
        pages.append([t.table_id for t in reply.tables])
        token = reply.next_page_token
        if not token:
            return pages


async def test_list_tables_pages_through_every_table_once(tmp_path):
    async with embedded_server(tmp_path) as (_app, stub):
        made = await _create(stub, 7)
        newest_first = list(reversed(made))
        assert [t.table_id for t in (await stub.ListTables(pb.ListTablesRequest())).tables] == newest_first
        assert await _pages(stub, 3) == [newest_first[:3], newest_first[3:6], newest_first[6:]]
        assert await _pages(stub, 7) == [newest_first]       # exactly one page: no empty one after
        # Tables made while paging come before the first page: the next page still follows on.
        first = await stub.ListTables(pb.ListTablesRequest(page_size=3))
        await _create(stub, 2)
        second = await stub.ListTables(pb.ListTablesRequest(page_size=3, page_token=first.next_page_token))
        assert [t.table_id for t in second.tables] == newest_first[3:6]


async def test_a_bad_page_token_is_invalid_argument(tmp_path):
    async with embedded_server(tmp_path) as (_app, stub):
        await _create(stub, 3)
        token = (await stub.ListTables(pb.ListTablesRequest(page_size=1))).next_page_token
        assert token
        raw = bytearray(base64.urlsafe_b64decode(token + "=" * (-len(token) % 4)))
        raw[-2] ^= 1                                           # the cursor edited, the MAC kept
        edited = base64.urlsafe_b64encode(bytes(raw)).decode().rstrip("=")
        for bad in ("not-a-token", "", edited, token[:-3], "%%%"):
            if not bad:
                continue
            err = await rpc_error(stub.ListTables(pb.ListTablesRequest(page_token=bad)))
            assert (err.code(), reason_of(err), field_of(err)) == \
                (C.INVALID_ARGUMENT, "INVALID_PAGE_TOKEN", "page_token"), bad
        # A ListTables token is no leaderboard token.
        err = await rpc_error(stub.GetLeaderboard(pb.GetLeaderboardRequest(page_token=token)))
        assert (err.code(), reason_of(err)) == (C.INVALID_ARGUMENT, "INVALID_PAGE_TOKEN")


async def test_a_leaderboard_token_holds_for_its_preset_and_month_only(tmp_path):
    async with embedded_server(tmp_path) as (app, stub):
        token = app.lobby.page_tokens.issue("GetLeaderboard\x00classic\x002026-02", 50, "p50")
        reply = await stub.GetLeaderboard(pb.GetLeaderboardRequest(month="2026-02", page_token=token))
        assert (len(reply.entries), reply.next_page_token) == (0, "")
        for request in (pb.GetLeaderboardRequest(month="2026-03", page_token=token),
                        pb.GetLeaderboardRequest(preset="belgian", month="2026-02", page_token=token)):
            err = await rpc_error(stub.GetLeaderboard(request))
            assert (err.code(), reason_of(err)) == (C.INVALID_ARGUMENT, "INVALID_PAGE_TOKEN")


def test_pages_follow_the_last_item_shown():
    tokens = PageTokens(b"k" * 32)
    ranked = [f"p{i}" for i in range(10)]
    offset, last, limit = tokens.cursor("q", "", 4)
    page, token = tokens.cut("q", ranked[:limit], offset, last, 4, str)
    assert page == ranked[:4] and token
    # p1 moved below the page's end (its rating fell): the next page starts after p3 still.
    moved = ["p0", "p2", "p3", "p4", "p1", *ranked[5:]]
    offset, last, limit = tokens.cursor("q", token, 4)
    page, token = tokens.cut("q", moved[:limit], offset, last, 4, str)
    assert page == ["p4", "p1", "p5", "p6"]
    offset, last, limit = tokens.cursor("q", token, 4)
    assert tokens.cut("q", moved[:limit], offset, last, 4, str) == (["p7", "p8", "p9"], "")
    with pytest.raises(Exception, match="page_token"):
        tokens.cursor("other query", token, 4)
