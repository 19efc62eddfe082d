"""Chips and ratings as projections of the table logs: Elo on known games, the monthly reset,
what a bot or a guest changes (nothing), and the ledgers rebuilt from the logs alone."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest
from belote.app.ledgers import (
    ChipMove,
    Hold,
    Ledgers,
    NotEnoughChips,
    RatedGame,
    Rating,
    month_of,
    rate,
    rebuild,
    team_changes,
)
from belote.store import NewEvent, SqliteStore, TableIndexEntry
from belote.table.codec import encode_body, event_type
from belote.table.state import fold
from belote.v1 import ledgers_pb2 as lpb
from timed_log import S, TimedLog, game_won_by

PLAYERS = ["ana", "bob", "cyd", "dan"]          # seats 0..3: team 0 = ana + cyd


def us(text: str) -> int:
    return int(datetime.fromisoformat(text).replace(tzinfo=UTC).timestamp()) * S


def game(players, winning_team, number=1, month="2026-01") -> RatedGame:
    return RatedGame("t", number, "classic", month, 0,
                     tuple((p, p, i % 2) for i, p in enumerate(players)), winning_team)


def apply(ratings: dict, played: RatedGame) -> dict:
    for change in rate(ratings, played):
        ratings[change.player_id] = Rating(change.after, change.games, change.display_name)
    return ratings


def test_elo_of_two_fresh_teams_then_of_the_same_teams_again():
    assert team_changes((1500, 1500), 0) == (16.0, -16.0)
    ratings = apply({}, game(PLAYERS, 0))
    assert {p: r.rating for p, r in ratings.items()} == {"ana": 1516, "cyd": 1516, "bob": 1484, "dan": 1484}
    # Team 0 (1516) expected 1 / (1 + 10^(-32/400)) = 0.5459: a win brings 32 * 0.4541 = 14.53.
    second = rate(ratings, game(PLAYERS, 0, number=2))
    assert [(c.player_id, c.before, c.change, c.after, c.games) for c in second] == [
        ("ana", 1516.0, 14.53, 1530.53, 2), ("bob", 1484.0, -14.53, 1469.47, 2),
        ("cyd", 1516.0, 14.53, 1530.53, 2), ("dan", 1484.0, -14.53, 1469.47, 2)]
    # The upset instead: the weaker team wins 17.47.
    assert team_changes((1516, 1484), 1) == (-17.47, 17.47)


def test_a_team_is_rated_at_the_mean_of_its_players():
    ratings = apply({}, game(PLAYERS, 0))               # ana, cyd 1516; bob, dan 1484
    # Reseated: ana + bob (mean 1500) against cyd + dan (mean 1500): an even game again.
    mixed = rate(ratings, game(["ana", "cyd", "bob", "dan"], 0, number=2))
    assert {c.player_id: c.after for c in mixed} == {"ana": 1532, "bob": 1500, "cyd": 1500, "dan": 1468}


def test_months_are_utc_calendar_months():
    assert month_of(us("2026-01-31T23:59:59")) == "2026-01"
    assert month_of(us("2026-02-01T00:00:00")) == "2026-02"


async def _stored(store, log: TimedLog, table_id: str):
    """Put a decider's log into the store, each event at its own time; its state."""
    for event in log.events:
        await store.events.append(table_id, event.sequence - 1, [NewEvent(event_type(event), encode_body(event))],
                           request_id=f"r{event.sequence}", recorded_at_us=event.append_time.ToMicroseconds(),
                           index=TableIndexEntry("finished", False, b""))
    return fold(table_id, (e for e in log.events))


def _ended_at(log: TimedLog, when_us: int) -> TimedLog:
    """Move a finished game's events to end at `when_us` (one second apart)."""
    for i, event in enumerate(reversed(log.events)):
        event.append_time.FromMicroseconds(when_us - i * S)
    return log


async def test_a_game_ending_on_the_first_starts_from_1500_and_the_ledgers_rebuild(tmp_path):
    store = SqliteStore(str(tmp_path / "belote.db"))
    ledgers = Ledgers(store, starting_chips=1000)
    january = _ended_at(game_won_by(0, players=PLAYERS, stake=5), us("2026-01-31T23:59:00"))
    february = _ended_at(game_won_by(0, players=PLAYERS, stake=5), us("2026-02-01T00:00:30"))
    for table_id, log in (("jan", january), ("feb", february)):
        state = await _stored(store, log, table_id)
        await ledgers.settle_stakes(state)          # as when the game started...
        await ledgers.settle_game(state)            # ...and ended
        await ledgers.settle_game(state)            # a second try changes nothing
    await Ledgers(store, 1000).settle_game(state)   # nor does another replica's
    jan = await ledgers.ratings("classic", "2026-01")
    feb = await ledgers.ratings("classic", "2026-02")
    assert {p: (r.rating, r.games) for p, r in jan.items()} == \
        {"ana": (1516, 1), "cyd": (1516, 1), "bob": (1484, 1), "dan": (1484, 1)}
    assert {p: (r.rating, r.games) for p, r in feb.items()} == \
        {"ana": (1516, 1), "cyd": (1516, 1), "bob": (1484, 1), "dan": (1484, 1)}
    # Stake 5 from each of four players, twice; team 0 (ana, cyd) wins 10 each time.
    balances = {p: await ledgers.balance(p) for p in PLAYERS}
    assert balances == {"ana": 1010, "bob": 990, "cyd": 1010, "dan": 990}
    rebuilt = await rebuild(store, starting_chips=1000)
    assert rebuilt.balances == balances
    assert rebuilt.ratings == {("classic", "2026-01"): jan, ("classic", "2026-02"): feb}
    await store.close()


async def test_a_game_with_a_bot_or_a_guest_changes_no_rating(tmp_path):
    store = SqliteStore(str(tmp_path / "belote.db"))
    ledgers = Ledgers(store, starting_chips=1000)
    with_bot = game_won_by(0, humans=(0, 1, 2), players=["ana", "bob", "cyd", ""])
    with_guest = game_won_by(0, players=["ana", "bob", "cyd", ""])
    for table_id, log in (("bot", with_bot), ("guest", with_guest)):
        await ledgers.settle_game(await _stored(store, log, table_id))
    month = month_of(with_bot.events[-1].append_time.ToMicroseconds())
    assert await ledgers.ratings("classic", month) == {}
    assert (await rebuild(store, 1000)).ratings == {}
    await store.close()


async def test_a_stake_is_held_until_paid_and_a_hold_its_table_let_go_is_released(tmp_path):
    store = SqliteStore(str(tmp_path / "ledgers.db"))
    try:
        ledgers = Ledgers(store, 10)
        seated = {"a": True, "b": True}

        async def still_held(hold: Hold) -> bool:
            return seated[hold.table_id]

        await ledgers.hold_stake("ana", Hold("a", 1, 6, 0), still_held)
        await ledgers.hold_stake("ana", Hold("a", 1, 6, 0), still_held)   # again: not counted twice
        with pytest.raises(NotEnoughChips) as refused:
            await ledgers.hold_stake("ana", Hold("b", 1, 6, 0), still_held)
        assert (refused.value.balance, refused.value.held) == (10, 6)
        assert await ledgers.purse("ana", still_held) == (10, 6)
        seated["a"] = False                                  # table a let her go
        assert await ledgers.purse("ana", still_held) == (10, 0)
        await ledgers.hold_stake("ana", Hold("b", 1, 6, 0), still_held)
        kinds = [lpb.LedgerEvent.FromString(e.payload).WhichOneof("body")
                 for e in await store.events.read("player:ana")]
        assert kinds == ["stake_held", "stake_released", "stake_held"]
        # Table b's game starts: the stake is paid and the hold ends with it.
        await ledgers.move_chips([ChipMove("ana", -6, lpb.CHIPS_REASON_STAKE, "b", 1, "b#1#stake")])
        assert await ledgers.purse("ana", still_held) == (4, 0)
        await ledgers.release_stake("ana", "b", 1)                       # nothing to release
        assert len(await store.events.read("player:ana")) == 5       # + the starting balance, the stake
    finally:
        await store.close()
