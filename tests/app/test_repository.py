"""The repository in isolation, on a real SQLite store: its cache is checked by version, a
version conflict re-reads and decides again (RETRIES times at most, then ABORTED), and a
refusal met after a lost race says the table changed."""

from __future__ import annotations

import pytest
from belote.app import errors as err
from belote.app.deals import deciding
from belote.app.ledgers import ChipMove, LedgerLogs, Ledgers
from belote.api.errors import STATUS_OF_REASON
from belote.app.repository import RETRIES, Repository, TableLogs
from belote.rules import rules_for
from belote.store import VersionConflict, open_store
from belote.table.decide import CreateTable, JoinSeat, Refused
from belote.v1 import events_pb2 as epb
from belote.v1 import ledgers_pb2 as lpb

T0 = 1_700_000_000_000_000


def code_of(error: err.AppError) -> str:
    """The status code a client receives for the error (the API decides it from the reason)."""
    return STATUS_OF_REASON[error.reason].name


class Clock:
    def __init__(self) -> None:
        self.now = T0

    def __call__(self) -> int:
        self.now += 1
        return self.now


class Spy:
    """The SQLite store, with its reads counted and a rival writer (or a conflict) slipped in
    before chosen appends."""

    def __init__(self, store) -> None:
        self.store = store
        self.reads: list[tuple[str, int]] = []       # (log, after_sequence) of every read
        self.appends: list[tuple[str, int]] = []     # (log, expected version) of every append
        self.before_append = []                      # one coroutine function per coming append
        self.always_conflict = False
        self.events = self                           # the repository reads store.events

    async def read(self, log_id, after_sequence=0, limit=None):
        self.reads.append((log_id, after_sequence))
        return await self.store.events.read(log_id, after_sequence=after_sequence, limit=limit)

    async def request_events(self, *args, **kwargs):
        return await self.store.events.request_events(*args, **kwargs)

    async def append(self, log_id, expected_version, events, **kwargs):
        self.appends.append((log_id, expected_version))
        if self.always_conflict:
            raise VersionConflict(expected_version, expected_version + 1)
        if self.before_append:
            await self.before_append.pop(0)()
        return await self.store.events.append(log_id, expected_version, events, **kwargs)


@pytest.fixture
async def spy(tmp_path):
    store = open_store(f"sqlite:///{tmp_path}/repo.db")
    yield Spy(store)
    await store.close()


def created() -> CreateTable:
    return CreateTable(epb.TableCreated(name="t", preset="classic",
                                        options=rules_for("classic").as_strings()))


def join(name: str, seat: int | None = None) -> JoinSeat:
    return JoinSeat(seat, name, name.encode().ljust(32, b"."))


async def test_a_stale_cache_is_refreshed_by_version_reading_only_newer_events(spy):
    mine, theirs = Repository(spy, TableLogs(), Clock()), Repository(spy, TableLogs(), Clock())
    await mine.execute("t1", "create", deciding(created()))
    assert mine.cached("t1").version == 1
    await theirs.execute("t1", "ana", deciding(join("ana")))      # another replica writes
    assert mine.cached("t1").version == 1                          # mine is behind the log
    spy.reads.clear()
    state = await mine.load("t1")
    assert spy.reads == [("t1", 1)]                                # only the event after it
    assert (state.version, [s.display_name for s in state.seats]) == (2, ["ana", "", "", ""])
    assert mine.cached("t1") is state
    spy.reads.clear()
    assert await mine.load("t1") is state                          # up to date: the same fold
    assert spy.reads == [("t1", 2)]


async def test_the_cache_keeps_the_most_recent_tables(spy):
    tables = Repository(spy, TableLogs(), Clock(), cache_size=2)
    for table_id in ("a", "b", "c"):
        await tables.execute(table_id, "create", deciding(created()))
    assert [tables.cached(t) is not None for t in ("a", "b", "c")] == [False, True, True]
    await tables.load("b")
    await tables.load("a")                                         # read again: b is older now
    assert [tables.cached(t) is not None for t in ("a", "b", "c")] == [True, True, False]


async def test_a_version_conflict_decides_again_on_the_new_state_and_appends(spy):
    tables, rival = Repository(spy, TableLogs(), Clock()), Repository(spy, TableLogs(), Clock())
    await tables.execute("t1", "create", deciding(created()))
    spy.before_append.append(lambda: rival.execute("t1", "bob", deciding(join("bob", 0))))
    judged: list[int] = []

    def decide(state):
        judged.append(state.version)
        return deciding(join("ana"))(state)

    events, state = await tables.execute("t1", "ana", decide)
    assert judged == [1, 2]                      # decided again on the log with bob's seat
    assert [(e.sequence, e.seat_joined.seat, e.seat_joined.display_name) for e in events] == \
        [(3, 1, "ana")]
    assert [s.display_name for s in state.seats] == ["bob", "ana", "", ""]
    assert spy.appends == [("t1", 0), ("t1", 1), ("t1", 1), ("t1", 2)]   # mine, bob's, mine again


async def test_conflicts_give_up_with_aborted_after_the_retry_limit(spy):
    tables = Repository(spy, TableLogs(), Clock())
    await tables.execute("t1", "create", deciding(created()))
    spy.appends.clear()
    spy.always_conflict = True
    with pytest.raises(err.AppError) as raised:
        await tables.execute("t1", "ana", deciding(join("ana")))
    assert (code_of(raised.value), raised.value.reason) == ("ABORTED", "VERSION_CONFLICT")
    assert raised.value.message == "the table is too busy right now: retry with the same request_id"
    assert spy.appends == [("t1", 1)] * RETRIES == [("t1", 1)] * 8


async def test_a_stale_expected_version_is_aborted_without_a_retry(spy):
    tables = Repository(spy, TableLogs(), Clock())
    await tables.execute("t1", "create", deciding(created()))
    await tables.execute("t1", "ana", deciding(join("ana")))
    spy.appends.clear()
    with pytest.raises(err.AppError) as raised:
        await tables.execute("t1", "bob", deciding(join("bob")), expected=1)
    assert (code_of(raised.value), raised.value.reason, raised.value.message) == \
        ("ABORTED", "VERSION_CONFLICT", "the table is at version 2, not 1")
    assert spy.appends == []


async def test_a_conflict_on_an_expected_version_is_aborted_at_once(spy):
    tables, rival = Repository(spy, TableLogs(), Clock()), Repository(spy, TableLogs(), Clock())
    await tables.execute("t1", "create", deciding(created()))
    spy.before_append.append(lambda: rival.execute("t1", "bob", deciding(join("bob"))))
    with pytest.raises(err.AppError) as raised:
        await tables.execute("t1", "ana", deciding(join("ana")), expected=1)
    assert (code_of(raised.value), raised.value.message) == \
        ("ABORTED", "the table changed: your expected_version is stale")
    assert (await tables.load("t1")).version == 2                  # bob's seat only


async def test_a_refusal_after_a_lost_race_says_the_table_changed(spy):
    tables, rival = Repository(spy, TableLogs(), Clock()), Repository(spy, TableLogs(), Clock())
    await tables.execute("t1", "create", deciding(created()))
    # Bob takes seat 2 between Ana's decision and her append: seat 2 is then refused to her.
    spy.before_append.append(lambda: rival.execute("t1", "bob", deciding(join("bob", 2))))
    with pytest.raises(err.AppError) as raised:
        await tables.execute("t1", "ana", deciding(join("ana", 2)))
    assert (code_of(raised.value), raised.value.reason, raised.value.message) == \
        ("ABORTED", "TABLE_CHANGED",
         "the table changed while your request was handled: seat 2 is taken")


async def test_a_refusal_without_a_race_is_failed_precondition(spy):
    tables = Repository(spy, TableLogs(), Clock())
    await tables.execute("t1", "create", deciding(created()))
    await tables.execute("t1", "bob", deciding(join("bob", 2)))
    with pytest.raises(err.AppError) as raised:
        await tables.execute("t1", "ana", deciding(join("ana", 2)))
    assert (code_of(raised.value), raised.value.reason) == ("FAILED_PRECONDITION", "SEAT_TAKEN")


async def test_a_refusal_on_a_cached_state_behind_the_log_is_judged_again(spy):
    mine, theirs = Repository(spy, TableLogs(), Clock()), Repository(spy, TableLogs(), Clock())
    await mine.execute("t1", "create", deciding(created()))
    await theirs.execute("t1", "bob", deciding(join("bob", 0)))
    behind = mine.cached("t1")
    judged: list[int] = []

    def needs_bob(state):
        judged.append(state.version)
        if not state.seats[0].display_name:
            raise Refused("NO_BOB", "bob is not seated")
        return deciding(join("ana"))(state)

    events, state = await mine.execute("t1", "ana", needs_bob, loaded=behind)
    assert judged == [1, 2]          # refused on the cache, which the log had moved past
    assert [(e.sequence, e.seat_joined.seat) for e in events] == [(3, 1)]
    assert state.version == 3


async def test_a_conflict_from_a_cached_state_then_a_refusal_is_failed_precondition(spy):
    mine, theirs = Repository(spy, TableLogs(), Clock()), Repository(spy, TableLogs(), Clock())
    await mine.execute("t1", "create", deciding(created()))
    await theirs.execute("t1", "bob", deciding(join("bob", 0)))
    behind = mine.cached("t1")
    spy.appends.clear()
    judged: list[int] = []

    def ana_on_seat_zero(state):
        judged.append(state.version)
        return deciding(join("ana", 0))(state)

    with pytest.raises(err.AppError) as raised:
        await mine.execute("t1", "ana", ana_on_seat_zero, loaded=behind)
    # Seat 0 is free on the cached state (version 1): its append meets the newer log. That the
    # cache was behind says nothing of a race, so the refusal on the log is the plain one.
    assert judged == [1, 2]
    assert (code_of(raised.value), raised.value.reason) == ("FAILED_PRECONDITION", "SEAT_TAKEN")
    assert spy.appends == [("t1", 1)]


async def test_a_retried_request_gets_its_first_events_and_writes_nothing(spy):
    tables = Repository(spy, TableLogs(), Clock())
    await tables.execute("t1", "create", deciding(created()))
    first, _ = await tables.execute("t1", "ana", deciding(join("ana")))
    again, state = await tables.execute("t1", "ana", deciding(join("ana")))
    assert [(e.sequence, e.seat_joined.display_name) for e in again] == [(2, "ana")]
    assert again == first
    assert (state.version, [s.display_name for s in state.seats]) == (2, ["ana", "", "", ""])


async def test_the_ledgers_retry_through_the_same_loop(spy):
    ledgers = Ledgers(spy, starting_chips=1000, clock=Clock())
    rival = Ledgers(spy, starting_chips=1000, clock=Clock())

    await ledgers.move_chips([ChipMove("ana", -10, lpb.CHIPS_REASON_STAKE, "t1", 1, "t1#1#stake")])
    assert await ledgers.balance("ana") == 990
    spy.before_append.append(lambda: rival.move_chips(
        [ChipMove("ana", 25, lpb.CHIPS_REASON_WINNINGS, "t0", 1, "t0#1#pot")]))
    await ledgers.move_chips([ChipMove("ana", -10, lpb.CHIPS_REASON_STAKE, "t2", 1, "t2#1#stake")])
    assert await ledgers.balance("ana") == 1005                   # 1000 - 10 + 25 - 10
    spy.always_conflict = True
    spy.appends.clear()
    with pytest.raises(VersionConflict):
        await ledgers.move_chips([ChipMove("ana", 5, lpb.CHIPS_REASON_WINNINGS, "t3", 1, "t3#1#pot")])
    assert spy.appends == [("player:ana", 4)] * RETRIES
    assert isinstance(LedgerLogs.too_busy(), VersionConflict)
