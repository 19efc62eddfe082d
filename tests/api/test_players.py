"""Registered players over gRPC: who they are (JWT), one seat each, chips and ratings as the
ledgers keep them, and the ledgers rebuilt from the table logs."""

from __future__ import annotations

import asyncio
import random
import time

import grpc
import pytest
from belote.app.ledgers import Hold, rebuild, team_changes
from belote.app.stakes import HOLD_PENDING_S
from belote.v1 import table_service_pb2 as pb
from embedded import as_player, embedded_server, seated_table
from players import Table, bearer, rid, rpc_error, watch
from test_errors import reason_of, refused

pytestmark = pytest.mark.timeout(120)
C = grpc.StatusCode
PLAYERS = {0: "ana", 1: "bob", 2: "cyd", 3: "dan"}


def join(table: Table, seat: int, name: str, metadata=None):
    return table.stub.JoinTable(pb.JoinTableRequest(table_id=table.table_id, seat=seat,
                                                    display_name=name, request_id=rid()),
                                metadata=metadata)


async def new_empty_table(stub, **create) -> Table:
    created = await stub.CreateTable(pb.CreateTableRequest(preset="classic", request_id=rid(), **create))
    return Table(stub, created.table_id, created.host_token, 1000)


async def eventually(check, timeout: float = 10.0):
    """`check()` once it is true: a bot's last card settles the ledgers right after it is logged."""
    deadline = time.monotonic() + timeout
    while not (result := await check()):
        assert time.monotonic() < deadline, "timed out"
        await asyncio.sleep(0.05)
    return result


async def balance(stub, player: str) -> int:
    return (await stub.GetBalance(pb.GetBalanceRequest(), metadata=as_player(player))).balance


async def board(stub, player: str | None = None) -> pb.GetLeaderboardResponse:
    return await stub.GetLeaderboard(pb.GetLeaderboardRequest(preset="classic"),
                                     metadata=as_player(player) if player else None)


async def test_a_bad_signature_or_an_expired_token_is_unauthenticated(tmp_path):
    async with embedded_server(tmp_path) as (_app, stub):
        table = await new_empty_table(stub)
        for bad in (as_player("ana", secret="not-the-site-key-but-just-as-long-0"), as_player("ana", expires_in=-5),
                    (("x-player-token", "not-a-jwt"),)):
            err = await refused(table, join(table, 0, "ana", bad), C.UNAUTHENTICATED)
            assert "token" in err.details()
            for call in (stub.GetBalance(pb.GetBalanceRequest(), metadata=bad),
                         stub.GetLeaderboard(pb.GetLeaderboardRequest(), metadata=bad),
                         stub.CreateTable(pb.CreateTableRequest(request_id=rid()), metadata=bad)):
                assert (await rpc_error(call)).code() == C.UNAUTHENTICATED
        expired = await rpc_error(join(table, 0, "ana", as_player("ana", expires_in=-5)))
        assert "expired" in expired.details()
        assert (await rpc_error(stub.GetBalance(pb.GetBalanceRequest()))).code() == C.UNAUTHENTICATED


async def test_a_server_without_the_key_accepts_no_player_token(tmp_path):
    async with embedded_server(tmp_path, auth_secret=None) as (_app, stub):
        table = await new_empty_table(stub)
        await refused(table, join(table, 0, "ana", as_player("ana")), C.UNAUTHENTICATED)
        assert (await join(table, 0, "a guest")).seat == 0


async def test_a_player_holds_one_seat_of_a_table(tmp_path):
    async with embedded_server(tmp_path) as (_app, stub):
        table = await new_empty_table(stub)
        await join(table, 0, "Ana", as_player("ana"))
        err = await refused(table, join(table, 1, "Ana again", as_player("ana")),
                            C.FAILED_PRECONDITION, "ALREADY_SEATED")
        assert "already" in err.details()
        await join(table, 1, "Bob", as_player("bob"))
        await join(table, 2, "a guest")
        assert [s.player_id for s in (await table.view()).seats] == ["ana", "bob", "", ""]
        other = await new_empty_table(stub)                    # another table: another seat
        assert (await join(other, 3, "Ana", as_player("ana"))).seat == 3


async def test_a_stake_table_seats_players_who_can_pay(tmp_path):
    async with embedded_server(tmp_path, starting_chips=4) as (_app, stub):
        table = await new_empty_table(stub, stake=5)
        await refused(table, join(table, 0, "a guest"), C.FAILED_PRECONDITION, "STAKE_NEEDS_PLAYER")
        await refused(table, join(table, 0, "Ana", as_player("ana")), C.FAILED_PRECONDITION,
                      "NOT_ENOUGH_CHIPS")
        assert await balance(stub, "ana") == 4
        cheap = await new_empty_table(stub, stake=4)
        assert (await join(cheap, 0, "Ana", as_player("ana"))).seat == 0


async def purse(stub, player: str) -> tuple[int, int]:
    reply = await stub.GetBalance(pb.GetBalanceRequest(), metadata=as_player(player))
    return reply.balance, reply.held


async def test_chips_held_for_one_table_cannot_pay_another_even_on_another_replica(tmp_path):
    # Ana has 5 chips and two replicas seat her at two stake-5 tables at the same moment: only
    # one seats her. Her balance can then pay that game's stake and never goes below zero.
    async with embedded_server(tmp_path, starting_chips=5) as (_, one), \
            embedded_server(tmp_path, starting_chips=5) as (_, two):
        tables = [await new_empty_table(one, stake=5), await new_empty_table(one, stake=5)]
        on_two = Table(two, tables[1].table_id, tables[1].host_token, 1000)
        results = await asyncio.gather(join(tables[0], 0, "Ana", as_player("ana")),
                                       join(on_two, 0, "Ana", as_player("ana")), return_exceptions=True)
        refusals = [r for r in results if isinstance(r, grpc.aio.AioRpcError)]
        assert len(refusals) == 1 and (refusals[0].code(), reason_of(refusals[0])) == (
            C.FAILED_PRECONDITION, "NOT_ENOUGH_CHIPS")
        assert "5 of your 5 are held for other tables" in refusals[0].details()
        seated = tables[results.index(next(r for r in results if not isinstance(r, Exception)))]
        assert await purse(one, "ana") == (5, 5)
        for seat in (1, 2, 3):
            await seated.add_bot(seat)                               # the game starts
        assert await eventually(lambda: _purse_is(one, "ana", (0, 0)))
        other = tables[1 - tables.index(seated)]
        await refused(other, join(other, 0, "Ana", as_player("ana")), C.FAILED_PRECONDITION,
                      "NOT_ENOUGH_CHIPS")


async def _purse_is(stub, player: str, expected: tuple[int, int]) -> bool:
    return await purse(stub, player) == expected


async def test_a_stake_is_held_while_seated_and_released_on_leaving_or_on_a_refused_seat(tmp_path):
    async with embedded_server(tmp_path, starting_chips=5) as (_app, stub):
        first, second = await new_empty_table(stub, stake=5), await new_empty_table(stub, stake=5)
        await join(first, 0, "Bob", as_player("bob"))
        # Seat 0 is Bob's: Ana is refused that seat, and holds nothing for it.
        await refused(first, join(first, 0, "Ana", as_player("ana")), C.FAILED_PRECONDITION)
        assert await purse(stub, "ana") == (5, 0)
        reply = await join(first, 1, "Ana", as_player("ana"))
        first.tokens[1] = reply.seat_token
        assert await purse(stub, "ana") == (5, 5)
        await refused(second, join(second, 0, "Ana", as_player("ana")), C.FAILED_PRECONDITION,
                      "NOT_ENOUGH_CHIPS")
        await stub.LeaveTable(pb.LeaveTableRequest(table_id=first.table_id, request_id=rid()),
                              metadata=bearer(first.tokens[1]))
        assert await purse(stub, "ana") == (5, 0)
        assert (await join(second, 0, "Ana", as_player("ana"))).seat == 0


async def test_a_hold_whose_seat_never_reached_the_log_counts_only_for_a_while(tmp_path):
    # A replica held Ana's stake and died before appending her seat: after HOLD_PENDING_S the
    # table's log, which does not seat her, is what counts.
    now = [time.time_ns() // 1000]
    async with embedded_server(tmp_path, starting_chips=5, clock=lambda: now[0]) as (app, stub):
        lost = await new_empty_table(stub, stake=5)
        await app.ledgers.hold_stake("ana", Hold(lost.table_id, 1, 5, now[0]), app.stakes.still_held("ana"))
        table = await new_empty_table(stub, stake=5)
        await refused(table, join(table, 0, "Ana", as_player("ana")), C.FAILED_PRECONDITION,
                      "NOT_ENOUGH_CHIPS")
        now[0] += int(HOLD_PENDING_S * 1e6)
        assert await purse(stub, "ana") == (5, 0)
        assert (await join(table, 0, "Ana", as_player("ana"))).seat == 0
        assert await purse(stub, "ana") == (5, 5)


async def test_the_pot_is_shared_by_the_humans_of_the_winning_team(tmp_path):
    # Stake 5, three players and a bot on seat 3: the pot is 15. Team 0 (seats 0, 2: two
    # players) shares it 8 + 7, the remainder to seat 0; team 1 (seat 1 and the bot) gives seat 1
    # all 15. A game with a bot changes no rating.
    async with embedded_server(tmp_path) as (app, stub):
        table = await seated_table(stub, {0: "ana", 1: "bob", 2: "cyd"}, options={"target": "1"}, stake=5)
        assert (await table.view()).pot == 15
        assert [await balance(stub, p) for p in ("ana", "bob", "cyd")] == [995, 995, 995]
        end = await table.play(random.Random(3))
        expected = {0: {"ana": 1003, "bob": 995, "cyd": 1002},
                    1: {"ana": 995, "bob": 1010, "cyd": 995}}[end.game.winning_team]

        async def settled():
            return {p: await balance(stub, p) for p in expected} == expected
        await eventually(settled)
        log = await watch(stub, table.table_id, count=end.version)
        ended = log[-1].game_ended
        assert (ended.rated, sum(ended.payouts)) == (False, 15)
        assert not (await board(stub)).entries
        rebuilt = await rebuild(app.store, 1000)
        assert rebuilt.balances == expected and rebuilt.ratings == {}


async def test_a_game_of_four_players_is_rated_and_a_rematch_rated_again(tmp_path):
    async with embedded_server(tmp_path) as (app, stub):
        table = await seated_table(stub, PLAYERS, options={"target": "1"})
        first = (await table.play(random.Random(5))).game.winning_team
        winners = {p for s, p in PLAYERS.items() if s % 2 == first}
        ranks = await board(stub, "ana")
        assert [(e.rank, e.rating, e.games) for e in ranks.entries] == \
            [(1, 1516.0, 1), (2, 1516.0, 1), (3, 1484.0, 1), (4, 1484.0, 1)]
        assert {e.player_id for e in ranks.entries[:2]} == winners
        assert ranks.you.player_id == "ana" and ranks.you.rating == (1516.0 if "ana" in winners else 1484.0)
        # All four vote: the same seats play again, and the ratings move from 1516 / 1484.
        for seat in range(4):
            voted = await stub.VoteRematch(pb.VoteRematchRequest(table_id=table.table_id, request_id=rid()),
                                           metadata=(("authorization", f"Bearer {table.tokens[seat]}"),))
        assert (voted.table.status, voted.table.game.game_number) == (pb.TABLE_STATUS_PLAYING, 2)
        second = (await table.play(random.Random(6))).game.winning_team
        change = team_changes((1516, 1484) if first == 0 else (1484, 1516), second)
        after = {p: round((1516 if p in winners else 1484) + change[s % 2], 2) for s, p in PLAYERS.items()}
        ranks = await board(stub)
        assert {e.player_id: (e.rating, e.games) for e in ranks.entries} == {p: (r, 2) for p, r in after.items()}
        month = ranks.month
        rebuilt = await rebuild(app.store, 1000)
        stored = await app.ledgers.ratings("classic", month)
        assert rebuilt.ratings == {("classic", month): stored}
        assert {p: r.rating for p, r in stored.items()} == after


async def test_a_guest_at_the_table_means_no_rating(tmp_path):
    async with embedded_server(tmp_path) as (_app, stub):
        table = await seated_table(stub, {**PLAYERS, 3: None}, options={"target": "1"})
        await table.play(random.Random(7))
        assert not (await board(stub)).entries
        you = (await board(stub, "ana")).you
        assert (you.rank, you.rating, you.games) == (0, 1500.0, 0)


async def test_leaderboard_arguments(tmp_path):
    async with embedded_server(tmp_path) as (_app, stub):
        for request, field in ((pb.GetLeaderboardRequest(preset="poker"), "preset"),
                               (pb.GetLeaderboardRequest(month="2026-13"), "month"),
                               (pb.GetLeaderboardRequest(page_size=-1), "page_size")):
            err = await rpc_error(stub.GetLeaderboard(request))
            assert err.code() == C.INVALID_ARGUMENT, field
        reply = await stub.GetLeaderboard(pb.GetLeaderboardRequest(preset="belgian", month="2026-02"))
        assert (reply.preset, reply.month, len(reply.entries)) == ("belgian", "2026-02", 0)
        assert reason_of(await rpc_error(stub.GetBalance(pb.GetBalanceRequest()))) == "UNAUTHENTICATED"
