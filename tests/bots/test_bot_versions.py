"""Bot versions: each bot move records its level's version (BotMove.version), and every version
a log may carry is still played exactly, so logs made before a bot changed still verify."""

from __future__ import annotations

import asyncio
import multiprocessing

import pytest
from belote import bots
from belote.bots import bidding, hard
from belote.review.sample import sample_logs
from belote.review.verify import entries_of, review
from belote.rules import card_name
from belote.rules.auction import PASS
from belote.store.chain import GENESIS_HASH, event_hash
from belote.table.codec import encode_body
from bot_helpers import EASY, HARD, NORMAL, random_deals

# The hard bot's cards on the views of ``searched_views(preset)`` with seed 1000 + i, as the
# bot played them before versions were recorded (commit bd6ac2a): what version 0 must replay.
BEFORE_VERSIONS = {
    "classic": "AC QH 7C 10C 8D JD 10C AS JH 8C 9S KH QC 9S KH 9C JC QH 8H JC 10S QH KH 10H KS JH 10S AC 7H QS KS 7H 7S 7H QD 8H 8C QH 10H 10H 9S QC",
    "belgian": "10S 7H 8H JC KC AD 9S AS 10D QD AS AH 10C 7S 8S QH 9H KH 9S 8S JH 10D 10S 10H QS 8D 9D 7D 10S QH JS 7H QD 8S 10H 9H KD 9S JD QS AS",
    "enhanced": "AH 8D JD QC AH 7H JS AS AC 9H AD JC 10S QC JH 9S 7S KS 10S 10C 7C 8C AC AC JH AH AH 9C AC JH JC 9H JH JH 7S 10H AS 9S 8S JS 9D QD AH",
}
# The same decisions as later versions made them: version 1 (commit 3b9987d), version 2
# (16c0849), version 3 (c5be24c) and version 4.
PINNED = {
    1: {
        "classic": "AC QH 7C 10C 8D JD 10C AS JH 8C 9S KH QC 9S KH 9C JC QH 8H JC 10S QH KH 10H KS JH 10S AC 7H QS KS 7H 7S 7H QD 8H 8C QH 10H 10H 9S QC",
        "belgian": "10S 7H 8H JC KC AD 9S AS 10D QD AS AH 10C 7S 8S QH 9H KH 9S 8S JH 10D 10S 10H QS 8D 9D 7D 10S QH JS 7H QD 8S 10H 9H KD 9S JD QS AS",
        "enhanced": "AH 8D JD QC AH 7H JS AS AC 9H AD JC 10S QC JH 9S 7S KS 10S 10H 7C 8C AC AC JH AH AH 9C AC JH JC 9H JH JH 7S 10H AS 9S 8S JS 9D QD AH",
    },
    2: {
        "classic": "AC KH 7C 7D 8D JD 10C AS JH 8C 9S KH QC 9S KH 9C JC QH 8H JC 10S QH KH 10H KS JH 10S AC 7H QS KS 7H 7S 7H QD 8H 8C QH 10H 10H 9S QC",
        "belgian": "10S 7H 8H JC KC AD 9S AS 10D QD AS AH 10C QC 8S QH 9H KH 9S 8S JH 10D 10S 10H QS JS 9D 7D 10S QH JS 7H QD 8S 10H 9H KD 9S JD QS AS",
        "enhanced": "AH 8D JD QC AH 7H JS AS AC 9H AD JC 10S QC AS 9S 7S KS 10S 10H 7C 8C AC AC JH AH AH 9C AC JH JC 9H JH JH 7S 10H AS 9S 8S JS 9D QD AH",
    },
    3: {
        "classic": "7D KH 7C 10C 8D JD 7D AS JH 8C 10D KH QC 10H KH 9C JC QH 8H JC 10S QH KH 7H KS JH 10S AC 7H JD 8H 7H 7S 7H QD KH 8C QH 10H 10H 9S QC",
        "belgian": "10D 7H 8H 8S KC 10D 9S AS AD QD AS AH 10C QC 8S QH 9H KH 9S 8S JH 10D JS 10H QS JS 9D 7D 7S QH JS 7H QD 8S 10H 9H KD 9S JD QS AS",
        "enhanced": "AH 9D JD AC 8H 7H JS JH AC 9H AD JC 10S QC JH 9S 7S KS QS 10H JH 8C AC AC QH KH AH 9C AC JH AD 9H JH JH 8D 10H AS 9S 8S JS 9D 10S AH",
    },
    4: {
        "classic": "AC KH 7C 10C 8D QD 10C AS JD 8C 10D KH QC 10H KH 9C 7H JS 8H 7S QS QH KH 10H KS JH 10S AC JC JD 8H 10D 7S 10D QD 8H 7H QH KH 10H 9S QC",
        "belgian": "AD 7H KH JC KC QH 8S QS AH QD AS AH 10C QC 7H QH 10H AH 9S 8S JH 10D JS 10H QS 8D 9D 7D AS 9H JS JC QD 8S 10H JD KD 9S JD QS AS",
        "enhanced": "AH 9D AD QC 8H QH JS JH AC 9H AD JC 10S QC AS 9S 7S KS QS 10H JH 8C AC 9H QH KH AH 9C AC JH JC 9H JH 10C 7S 10H AS 9S 8S JS 9D 10S AH",
    },
}


def searched_views(preset: str):
    """Card decisions the hard bot searches (trick 3 on, a choice to make), on normal bots' deals."""
    views = []
    random_deals(preset, (NORMAL, EASY, NORMAL, EASY), 3, seed=21,
                 on_decision=lambda game, seat, view, action: views.append(view))
    return [v for v in views if v.contract >= 0 and len(v.tricks) >= 2 and len(v.legal) >= 2]


@pytest.mark.parametrize("preset", list(BEFORE_VERSIONS))
def test_version_0_plays_as_the_hard_bot_before_versions(preset):
    views = searched_views(preset)
    played = " ".join(card_name(bots.choose(HARD, v, 1000 + i, 0).card) for i, v in enumerate(views))
    assert played == BEFORE_VERSIONS[preset]


@pytest.mark.parametrize(("version", "preset"), [(v, p) for v in PINNED for p in PINNED[v]])
def test_each_version_still_plays_its_recorded_cards(version, preset):
    views = searched_views(preset)
    played = " ".join(card_name(bots.choose(HARD, v, 1000 + i, version).card)
                      for i, v in enumerate(views))
    assert played == PINNED[version][preset]


def test_new_moves_record_the_current_version():
    assert bots.current_version(HARD) == hard.CURRENT == max(bots.VERSIONS[HARD])
    record = bots.move_record(HARD, 5)
    assert (record.level, record.seed, record.version) == (HARD, 5, hard.CURRENT)
    assert bots.move_record(NORMAL, 5).version == 0


def test_an_unknown_version_is_refused():
    view = searched_views("classic")[0]
    with pytest.raises(bots.UnknownVersion, match="no version 99 of the hard bot"):
        bots.choose(HARD, view, 1, 99)


def _choices(job):
    preset, seeds = job
    views = searched_views(preset)
    return [bots.choose(HARD, views[i], seed) for i, seed in seeds]


def test_a_decision_is_the_same_in_another_process():
    """Nothing but the view and the seed reaches the decision: a fresh interpreter (spawned, so
    no state is inherited) makes the same moves."""
    seeds = [(i, 7 * i + 3) for i in range(0, 40, 3)]
    here = _choices(("enhanced", seeds))
    with multiprocessing.get_context("spawn").Pool(1) as pool:
        there = pool.map(_choices, [("enhanced", seeds)])[0]
    assert there == here


def _rechain(log):
    prev = GENESIS_HASH
    for m in log:
        m.prev_hash = prev
        m.hash = event_hash(prev, m.table_id, m.sequence, m.event_type, m.schema_version, m.request_id,
                            m.append_time.ToMicroseconds(), encode_body(m.event))
        prev = m.hash
    return log


def _hard_moves(log):
    return [getattr(m.event, m.event_type).bot for m in log
            if m.event_type in ("bid_made", "card_played", "announcement_declared")
            and getattr(m.event, m.event_type).HasField("bot")
            and getattr(m.event, m.event_type).bot.level == HARD]


@pytest.fixture(scope="module")
def game_before_versions(tmp_path_factory):
    """A game of three hard bots played by the app as a server from before versions: the moves
    record no version (0) and are made by version 0."""
    patch = pytest.MonkeyPatch()
    patch.setitem(bots.VERSIONS, HARD, (0,))
    try:
        directory = str(tmp_path_factory.mktemp("before-versions"))
        games = [("online-classic", ("hard", "human", "hard", "hard"), {"options": {"target": "300"},
                                                                       "seed": 3})]
        log = asyncio.run(sample_logs(games, directory=directory))[0][:-1]
    finally:
        patch.undo()
    return log


def test_a_log_from_before_versions_still_verifies(game_before_versions):
    log = game_before_versions
    moves = _hard_moves(log)
    assert moves and all(b.version == 0 for b in moves)
    result = review(entries_of(log))
    assert result.violations == [], "\n".join(map(str, result.violations))
    assert result.checks["bot"] >= len(moves)


def test_the_review_recomputes_each_move_at_its_recorded_version(game_before_versions):
    """A hard move relabelled with a version this build does not have is a finding there."""
    log = [type(m)() for m in game_before_versions]
    for new, old in zip(log, game_before_versions):
        new.CopyFrom(old)
    i = next(i for i, m in enumerate(log) if m.event_type == "card_played"
             and m.event.card_played.bot.level == HARD)
    log[i].event.card_played.bot.version = 99
    result = review(entries_of(_rechain(log)))
    found = [v for v in result.violations if v.check == "bot"]
    assert [v.sequence for v in found] == [log[i].sequence]
    assert "no version 99 of the hard bot" in found[0].message


@pytest.fixture
def counted(monkeypatch):
    """``counted["n"]``: the hard bot's rollouts since the test last set it."""
    counted = {"n": 0}
    real = hard.rollout

    def rollout(pos):
        counted["n"] += 1
        return real(pos)

    monkeypatch.setattr(hard, "rollout", rollout)
    return counted


def test_version_1_plays_fewer_rollouts_for_the_same_decisions(counted):
    """Version 1 searches one card per group of equivalent ones and stops sampling on a clear
    lead: on the same views and seeds, far fewer rollouts, and nearly always the same card."""
    views = searched_views("classic")
    made = {}
    for version in (0, 1):
        counted["n"] = 0
        made[version] = [bots.choose(HARD, v, 1000 + i, version) for i, v in enumerate(views)]
        made[version, "rollouts"] = counted["n"]
    assert made[1, "rollouts"] < 0.8 * made[0, "rollouts"]
    same = sum(a == b for a, b in zip(made[0], made[1]))
    assert same >= 0.9 * len(views)
    assert all(a in v.legal for a, v in zip(made[1], views))


def _auction_views(preset: str):
    views = []
    random_deals(preset, (NORMAL, NORMAL, NORMAL, NORMAL), 200, seed=5,
                 on_decision=lambda game, seat, view, action: views.append((view, action))
                 if view.contract < 0 else None)
    return views


@pytest.mark.parametrize("preset", ["classic", "belgian"])
def test_version_2_takes_suits_a_little_weaker_than_the_normal_bot(preset):
    """Versions 0 and 1 bid as the normal bot; version 2 takes a suit the normal bot would
    pass only when its strength is short of the threshold by less than ``suit_take_below``."""
    below = hard.VERSIONS[2].suit_take_below
    assert below > 0
    auctions = _auction_views(preset)
    taken_more = 0
    for view, normal_bid in auctions:
        for version in (0, 1):
            assert bots.choose(HARD, view, 1, version) == normal_bid
        bid = bots.choose(HARD, view, 1, 2)
        if bid != normal_bid:
            assert normal_bid.contract == PASS and 0 <= bid.contract < 4
            assert -below <= bidding.bid_margin(view, bid.contract) < 0
            taken_more += 1
    assert taken_more >= 10


def test_version_2_keeps_each_decision_within_its_rollout_budget(counted):
    """Version 1 spends more rollouts than version 2's budget on some decisions (many close
    cards); version 2 never does, and stops short of a sample that would pass it."""
    budget = hard.VERSIONS[2].rollout_budget
    spent = {1: [], 2: []}
    for preset in ("classic", "belgian"):
        for i, view in enumerate(searched_views(preset)):
            for version in (1, 2):
                counted["n"] = 0
                bots.choose(HARD, view, 1000 + i, version)
                spent[version].append(counted["n"])
    assert max(spent[1]) > budget
    assert 0 < max(spent[2]) <= budget
    assert sum(spent[2]) < sum(spent[1])


def test_version_4_plays_out_with_club_players_within_its_budget(monkeypatch):
    """Version 4 plays every sampled deal out by the club players' rules (no open-handed
    rollout, no exact endgame), within its play-out budget."""
    counted = {"n": 0}
    real = hard.club_playout

    def club_playout(*args):
        counted["n"] += 1
        return real(*args)

    monkeypatch.setattr(hard, "club_playout", club_playout)
    monkeypatch.setattr(hard, "rollout", lambda pos: pytest.fail("an open-handed rollout"))
    monkeypatch.setattr(hard, "solve", lambda *args: pytest.fail("the exact endgame"))
    spent = []
    for i, view in enumerate(searched_views("classic")):
        counted["n"] = 0
        bots.choose(HARD, view, 1000 + i, 4)
        spent.append(counted["n"])
    assert 0 < max(spent) <= hard.VERSIONS[4].rollout_budget
