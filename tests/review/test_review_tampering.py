"""A log altered after the fact is caught, at the first altered sequence, by the check that sees it.

Each alteration is tried twice where it makes sense: as is (the hash chain gives it away) and by a
cheat who also recomputed the chain (and renumbered the sequences), so only the replay can tell.
Every case is also replayed with the fast path off (everything through decide): same findings.
"""

from __future__ import annotations

import pytest
from belote.table.codec import card_from_pb
from belote.table.state import NOT_A_TURN
from belote.v1 import events_pb2 as epb
from review_helpers import (
    a_card_not_held,
    card_in_trick,
    check,
    clone,
    index_of,
    legal_alternative,
    off_suit_card,
    play_instead,
    rechain,
    set_card,
    state_before,
)


def findings(log, **kw):
    result = check(log, **kw)
    assert check(log, fast=False, **kw).violations == result.violations   # the fast path is decide's
    return result


def at(result, seq):
    return [v for v in result.violations if v.sequence == seq]


def checks_at(result, seq):
    return {v.check for v in at(result, seq)}


def test_a_changed_card_breaks_the_chain_there(samples):
    log = clone(samples.logs["classic"])
    i = index_of(log, "card_played", start=100)
    body = log[i].event.card_played
    set_card(log, i, (card_from_pb(body.card) + 1) % 32)
    result = findings(log)
    assert result.exit_code == 1
    assert result.first_violation == i + 1
    assert "hash" in checks_at(result, i + 1)
    # Its hash field was left alone, so the next event still links to it: one broken link only.
    assert not any(v.check == "chain" for v in result.violations)


def test_a_card_not_held_is_illegal_even_with_the_chain_recomputed(samples):
    log = clone(samples.logs["classic"])
    i, not_held = a_card_not_held(log, start=60)
    set_card(log, i, not_held)
    result = findings(rechain(log))
    assert result.first_violation == i + 1
    (v,) = at(result, i + 1)
    assert (v.check, v.rule) == ("legal", "CARD_NOT_IN_HAND")
    assert "not in your hand" in v.message
    assert any("replay stopped" in n for n in result.notes)


def test_an_illegal_card_names_the_rule_broken(samples):
    for preset in ("classic", "classic-501", "online-classic", "belgian-open"):
        log = clone(samples.logs[preset])
        for i in range(len(log)):
            if log[i].event_type == "card_played" and not log[i].event.card_played.HasField("bot"):
                card = off_suit_card(log, i)
                if card is not None:
                    break
        else:
            continue
        set_card(log, i, card)
        result = findings(rechain(log))
        assert result.first_violation == i + 1
        v = at(result, i + 1)[0]
        assert (v.check, v.rule) == ("legal", "MUST_FOLLOW_SUIT")
        assert "you must follow" in v.message
        return
    pytest.fail("no human ever held the led suit and another one")


@pytest.mark.parametrize("field", ["deal_score", "totals", "trick_points"])
def test_a_changed_score_is_caught(samples, field):
    log = clone(samples.logs["online-classic"])
    i = index_of(log, "deal_scored")
    getattr(log[i].event.deal_scored, field)[0] += 10
    result = findings(log, check_bots=False)
    assert result.first_violation == i + 1
    assert {"hash", "derived"} <= checks_at(result, i + 1)
    result = findings(rechain(log), check_bots=False)
    assert result.first_violation == i + 1
    (v,) = at(result, i + 1)
    assert v.check == "derived" and v.message == f"deal_scored.{field} is not what the rules give"
    assert v.expected != v.found


def test_a_changed_game_result_is_caught(samples):
    log = clone(samples.logs["kamikaze"])
    i = index_of(log, "game_ended")
    log[i].event.game_ended.winning_team ^= 1
    result = findings(rechain(log))
    assert result.first_violation == i + 1
    assert [v.check for v in result.violations] == ["derived"]


def test_two_swapped_events_are_caught(samples):
    log = clone(samples.logs["modern"])
    i = index_of(log, "card_played", lambda m: card_in_trick(log, log.index(m)) == 0, start=40)
    log[i], log[i + 1] = log[i + 1], log[i]
    result = findings(log)
    assert result.first_violation == i + 1
    assert {"sequence", "chain"} <= checks_at(result, i + 1)
    result = findings(rechain(log, renumber=True))
    assert result.first_violation == i + 1
    assert [(v.check, v.rule) for v in at(result, i + 1)][-1] == ("legal", "NOT_YOUR_TURN")


def test_a_deleted_event_is_caught(samples):
    log = clone(samples.logs["belgian"])
    i = index_of(log, "bid_made", start=30)
    del log[i]
    result = findings(log)
    assert result.first_violation == i + 1
    assert {"sequence", "chain"} <= checks_at(result, i + 1)
    result = findings(rechain(log, renumber=True))
    assert result.first_violation == i + 1
    # The next call is out of turn, or (the take deleted) its contract follows from nothing.
    assert checks_at(result, i + 1) & {"legal", "derived"}


def test_a_deleted_derived_event_is_reported_missing(samples):
    log = clone(samples.logs["classic"])
    i = index_of(log, "trick_won", lambda m: 2 <= m.event.trick_won.trick_number <= 7, start=50)
    del log[i]
    result = findings(rechain(log, renumber=True))
    assert result.first_violation == i + 1
    v = at(result, i + 1)[0]
    assert v.check == "derived" and v.message.startswith("trick_won is missing here")
    # Renumbering moved every later bot move off its request id bot-<sequence>: caught too.
    assert all(v.check == "bot" and "request id" in v.message for v in at(result, i + 1)[1:])


def test_an_inserted_event_is_caught(samples):
    log = clone(samples.logs["enhanced"])
    i = index_of(log, "card_played", lambda m: card_in_trick(log, log.index(m)) == 0, start=50)
    extra = clone([log[i]])[0]
    log.insert(i + 1, extra)
    result = findings(log)
    assert result.first_violation == i + 2
    result = findings(rechain(log, renumber=True))
    assert result.first_violation == i + 2
    assert "legal" in checks_at(result, i + 2)


def test_an_inserted_derived_event_is_caught(samples):
    log = clone(samples.logs["classic-501"])
    i = index_of(log, "trick_won", start=40)
    log.insert(i + 1, clone([log[i]])[0])
    result = findings(rechain(log, renumber=True))
    assert result.first_violation == i + 2
    (v,) = at(result, i + 2)
    assert v.check == "derived" and "added or moved" in v.message


def test_a_replaced_bot_move_is_caught_by_the_bot_check_alone(samples):
    log = clone(samples.logs["classic"])
    for i in range(60, len(log)):
        m = log[i]
        if m.event_type == "card_played" and m.event.card_played.HasField("bot") and card_in_trick(log, i) == 0:
            alternative = legal_alternative(log, i)
            if alternative is not None:
                break
    play_instead(log, i, alternative)
    result = findings(rechain(log))
    assert result.first_violation == i + 1
    (v,) = at(result, i + 1)
    assert v.check == "bot"
    assert "does not make this move" in v.message
    assert v.found.endswith(f"plays {_name(alternative)}")
    # Without the bot check, the move itself is legal: nothing is found at that sequence.
    assert at(check(log, check_bots=False), i + 1) == []


def test_a_replaced_hard_bot_move_is_caught(samples):
    log = clone(samples.logs["online-classic"])
    i = next(i for i in range(30, len(log)) if log[i].event_type == "card_played"
             and log[i].event.card_played.bot.level == 3 and legal_alternative(log, i) is not None)
    play_instead(log, i, legal_alternative(log, i))
    result = check(rechain(log))
    assert result.first_violation == i + 1
    assert at(result, i + 1)[0].check == "bot"


def test_a_bot_move_made_for_a_human_seat_is_caught(samples):
    log = clone(samples.logs["classic"])
    i = index_of(log, "card_played", lambda m: not m.event.card_played.HasField("bot"), start=30)
    log[i].event.card_played.bot.level = 1
    log[i].event.card_played.bot.seed = 7
    result = check(rechain(log))
    assert result.first_violation == i + 1
    assert any(v.check == "bot" and "which no easy bot plays" in v.message for v in at(result, i + 1))


def test_a_deck_changed_after_its_commitment_is_caught(samples):
    log = clone(samples.logs["belgian-open"])
    i = max(i for i, m in enumerate(log) if m.event_type == "deal_started")     # the last deal
    deck = log[i].event.deal_started.deck
    first, last = type(deck[0])(), type(deck[0])()
    first.CopyFrom(deck[0])
    last.CopyFrom(deck[31])
    deck[0].CopyFrom(last)
    deck[31].CopyFrom(first)
    result = findings(rechain(log), check_bots=False)
    assert result.first_violation == i + 1
    (v,) = at(result, i + 1)
    assert v.check == "commitment" and "changed after the commitment" in v.message
    reveal = index_of(log, "deck_revealed", start=i)
    assert "reveal" in checks_at(result, reveal + 1) or any("replay stopped" in n for n in result.notes)


def test_a_changed_reveal_is_caught(samples):
    log = clone(samples.logs["kamikaze"])
    i = index_of(log, "deck_revealed")
    log[i].event.deck_revealed.salt = b"another salt"
    result = findings(rechain(log))
    assert result.first_violation == i + 1
    assert [v.check for v in at(result, i + 1)] == ["reveal"]


def test_an_event_of_another_table_is_caught(samples):
    log = clone(samples.logs["kamikaze"])
    log[20].table_id = log[20].event.table_id = "someone-else"
    result = findings(rechain(log))
    assert result.first_violation == 21
    assert checks_at(result, 21) == {"envelope"}


def test_every_violation_is_listed_not_just_the_first(samples):
    log = clone(samples.logs["classic"])
    scored = [i for i, m in enumerate(log) if m.event_type == "deal_scored"][:3]
    for i in scored:
        log[i].event.deal_scored.deal_score[1] += 1
    result = findings(rechain(log), check_bots=False)
    assert [v.sequence for v in result.violations if v.message.startswith("deal_scored.deal_score")] == \
        [i + 1 for i in scored]


# Around the table ------------------------------------------------------------------------------
S = 1_000_000


def set_time(m, time_us: int) -> None:
    m.append_time.FromMicroseconds(time_us)
    m.event.append_time.CopyFrom(m.append_time)


def is_timer_move(m) -> bool:
    return m.event_type in ("bid_made", "card_played", "announcement_declared") and \
        getattr(m.event, m.event_type).bot.timer


@pytest.mark.parametrize("field, value", [("payouts", [0, 15, 0, 0]), ("payouts", []),
                                          ("rated", True), ("winning_team", None)])
def test_a_changed_payout_or_rating_flag_is_caught(samples, field, value):
    log = clone(samples.logs["kamikaze"])
    i = index_of(log, "game_ended")
    ended = log[i].event.game_ended
    if field == "winning_team":          # the other team wins: its payouts do not follow
        ended.winning_team ^= 1
    elif field == "payouts":
        ended.ClearField("payouts")
        ended.payouts.extend(value)
    else:
        setattr(ended, field, value)
    result = findings(log, check_bots=False)
    assert result.first_violation == i + 1 and {"hash", "derived"} <= checks_at(result, i + 1)
    result = findings(rechain(log), check_bots=False)
    assert {(v.sequence, v.check) for v in result.violations} == {(i + 1, "derived")}
    if field != "winning_team":
        (v,) = result.violations
        assert v.message == f"game_ended.{field} is not what the rules give"


@pytest.mark.parametrize("field, value", [("pot", 20), ("paying_seats", [1, 3]), ("first_dealer", 0),
                                          ("game_number", 1)])
def test_a_changed_rematch_start_is_caught(samples, field, value):
    log = clone(samples.logs["kamikaze"])
    vote = index_of(log, "rematch_voted")
    i = index_of(log, "game_started", start=vote)
    started = log[i].event.game_started
    if field == "paying_seats":
        started.ClearField(field)
        started.paying_seats.extend(value)
    else:
        setattr(started, field, value)
    result = findings(rechain(log), check_bots=False)
    (v,) = result.violations
    assert (v.sequence, v.check, v.message) == (i + 1, "derived", f"game_started.{field} is not what the rules give")


def test_a_rematch_vote_is_checked_against_the_vote(samples):
    log = clone(samples.logs["kamikaze"])
    i = index_of(log, "rematch_voted")
    ended = index_of(log, "game_ended")
    # Cast by a bot's seat: refused (and its game never starts: what follows is refused too).
    bot_seat = clone(log)
    bot_seat[i].event.rematch_voted.seat = 0
    result = findings(rechain(bot_seat), check_bots=False)
    assert result.first_violation == i + 1
    assert [(v.check, v.rule) for v in at(result, i + 1)] == [("legal", "NOT_SEATED")]
    # Cast when the 2 minutes of the vote were over.
    late = clone(log)
    set_time(late[i], log[ended].append_time.ToMicroseconds() + 120 * S)
    result = findings(rechain(late), check_bots=False)
    assert result.first_violation == i + 1
    assert [(v.check, v.rule) for v in at(result, i + 1)] == [("legal", "REMATCH_VOTE_OVER")]


def test_a_table_closed_before_its_vote_ran_out_is_caught(samples):
    log = clone(samples.logs["classic"])
    i = index_of(log, "table_closed")
    ended = index_of(log, "game_ended")
    set_time(log[i], log[ended].append_time.ToMicroseconds() + 120 * S - 1)
    result = findings(rechain(log), check_bots=False)
    assert [(v.sequence, v.check, v.rule) for v in result.violations] == [(i + 1, "legal", "REMATCH_VOTE_OPEN")]
    set_time(log[i], log[ended].append_time.ToMicroseconds() + 120 * S)        # the deadline itself: due
    assert findings(rechain(log), check_bots=False).violations == []


def test_a_table_closed_for_want_of_humans_follows_the_game_end(samples):
    log = clone(samples.logs["enhanced"])
    assert log[-1].event.table_closed.reason == epb.TABLE_CLOSED_REASON_NO_HUMANS
    # Deleted: the rules close the table as the game ends.
    result = findings(rechain(log[:-1]), check_bots=False)
    (v,) = result.violations
    assert (v.sequence, v.check, v.expected) == (len(log), "derived", "table_closed {reason: TABLE_CLOSED_REASON_NO_HUMANS}")
    assert v.message.startswith("table_closed is missing here")
    # Passed off as the end of a rematch vote: the closing the rules give is missing, and
    # the table they closed takes no command.
    log[-1].event.table_closed.reason = epb.TABLE_CLOSED_REASON_NO_REMATCH
    result = findings(rechain(log), check_bots=False)
    assert [(v.sequence, v.check, v.rule) for v in result.violations] == [
        (len(log), "derived", ""), (len(log), "legal", "TABLE_CLOSED")]
    # A table with a human is not closed at the game's end.
    log = clone(samples.logs["classic"])
    i = index_of(log, "game_ended")
    closing = clone([log[-1]])[0]
    closing.event.table_closed.reason = epb.TABLE_CLOSED_REASON_NO_HUMANS
    log.insert(i + 1, closing)
    result = findings(rechain(log, renumber=True), check_bots=False)
    (v,) = result.violations
    assert (v.sequence, v.check) == (i + 2, "derived")
    assert v.message.startswith("table_closed does not follow from the action of seq")


def test_nothing_is_appended_to_a_closed_table(samples):
    log = clone(samples.logs["classic"])
    chat = clone([log[index_of(log, "chat_posted")]])[0]
    set_time(chat, log[-1].append_time.ToMicroseconds())
    log.append(chat)
    result = findings(rechain(log, renumber=True), check_bots=False)
    assert [(v.sequence, v.check, v.rule) for v in result.violations] == [(len(log), "legal", "TABLE_CLOSED")]


def test_chat_is_checked_for_its_author_and_rate(samples):
    log = clone(samples.logs["classic"])
    i = index_of(log, "chat_posted", lambda m: m.event.chat_posted.text == "gg")
    # Five more messages at once from the same seat: the sixth within 10 s is refused.
    flood = clone(log)
    for _ in range(5):
        flood.insert(i + 1, clone([flood[i]])[0])
    result = findings(rechain(flood, renumber=True), check_bots=False)
    assert {(v.check, v.rule) for v in result.violations} == {("legal", "CHAT_TOO_FAST")}
    assert i + 6 in {v.sequence for v in result.violations}
    assert all(i + 2 <= v.sequence <= i + 6 for v in result.violations)
    # Under another name than the seat's player's, or from a seat no player holds.
    renamed = clone(log)
    renamed[i].event.chat_posted.display_name = "human 0"
    (v,) = findings(rechain(renamed), check_bots=False).violations
    assert (v.sequence, v.check, v.rule) == (i + 1, "legal", "NOT_THE_SEATS_NAME")
    moved = clone(log)
    moved[i].event.chat_posted.seat = 2                     # an easy bot's seat
    (v,) = findings(rechain(moved), check_bots=False).violations
    assert (v.sequence, v.check, v.rule) == (i + 1, "legal", "NOT_SEATED")


def test_a_changed_chat_text_is_only_caught_by_the_hash_chain(samples):
    # Nothing in the rules follows from what a message says: the hash chain is its only witness.
    log = clone(samples.logs["classic"])
    i = index_of(log, "chat_posted")
    log[i].event.chat_posted.text = "something else entirely"
    result = findings(log, check_bots=False)
    assert [(v.sequence, v.check) for v in result.violations] == [(i + 1, "hash")]
    assert findings(rechain(log), check_bots=False).violations == []


def test_a_timer_move_by_a_seat_that_was_not_late_is_caught(samples):
    log = clone(samples.logs["modern"])
    i = next(i for i, m in enumerate(log) if is_timer_move(m))
    # The turn began with the last event that changed whose turn it is: a (dis)connection or a
    # chat just before the timer move does not.
    turn_began = next(log[j].append_time.ToMicroseconds() for j in range(i - 1, -1, -1)
                      if log[j].event_type not in NOT_A_TURN)
    set_time(log[i], turn_began + 29 * S)                  # the timer is 30 s
    result = findings(rechain(log))
    (v,) = result.violations
    assert (v.sequence, v.check, v.rule) == (i + 1, "legal", "TIMER_NOT_DUE")
    assert "29.000 s into its turn, before its 30 s turn timer ran out" in v.message
    set_time(log[i], turn_began + 30 * S)                  # on the dot: due
    assert findings(rechain(log)).violations == []


def test_a_timer_move_needs_a_turn_timer(samples):
    log = clone(samples.logs["modern"])
    i = next(i for i, m in enumerate(log) if is_timer_move(m))
    log[0].event.table_created.turn_timer_seconds = 0
    result = findings(rechain(log))
    (v,) = result.violations
    assert (v.sequence, v.check, v.rule) == (i + 1, "legal", "TIMER_NOT_DUE")
    assert "the table has no turn timer" in v.message


def test_a_timer_move_is_the_takeover_bots_at_a_human_seat(samples):
    log = clone(samples.logs["modern"])
    i = next(i for i, m in enumerate(log) if is_timer_move(m))
    move = getattr(log[i].event, log[i].event_type)
    # Another level than the table's takeover level (NORMAL).
    other = clone(log)
    getattr(other[i].event, other[i].event_type).bot.level = epb.BOT_LEVEL_EASY
    result = findings(rechain(other), check_bots=False)
    (v,) = result.violations
    assert (v.sequence, v.check) == (i + 1, "bot") and "made by the table's takeover bot (normal)" in v.message
    # Passed off as the bot loop's move: no bot plays that seat.
    plain = clone(log)
    getattr(plain[i].event, plain[i].event_type).bot.timer = False
    plain[i].request_id = f"bot-{i + 1}"
    result = findings(rechain(plain), check_bots=False)
    (v,) = result.violations
    assert (v.sequence, v.check) == (i + 1, "bot") and f"at seat {move.seat}, which no normal bot plays" in v.message
    # A human's own move passed off as a timer move: made at once, it was not due.
    j = next(j for j, m in enumerate(log) if j > i and m.event_type == "card_played"
             and m.event.card_played.seat == move.seat and not m.event.card_played.HasField("bot"))
    dressed = clone(log)
    dressed[j].event.card_played.bot.CopyFrom(epb.BotMove(level=epb.BOT_LEVEL_NORMAL, seed=1, timer=True))
    dressed[j].request_id = f"timer-{j}"
    result = findings(rechain(dressed))
    assert ("legal", "TIMER_NOT_DUE") in [(v.check, v.rule) for v in at(result, j + 1)]
    assert result.first_violation == j + 1


def test_a_timer_move_is_recomputed_as_a_bot_move(samples):
    from belote.rules.actions import Bid
    from belote.table.codec import bid_to_pb
    log = clone(samples.logs["modern"])
    i = next(i for i, m in enumerate(log) if is_timer_move(m))
    if log[i].event_type == "card_played":                        # the sample's has a choice
        play_instead(log, i, legal_alternative(log, i))
    else:                                                   # a bid: another legal call
        made = log[i].event.bid_made
        other = next(a for a in state_before(log, i).game.legal_actions(made.seat)
                     if isinstance(a, Bid) and bid_to_pb(a.contract) != made.bid)
        made.bid.CopyFrom(bid_to_pb(other.contract))
    result = findings(rechain(log))
    assert result.first_violation == i + 1
    found = at(result, i + 1)
    assert len(found) == 1, [str(v) for v in found]
    (v,) = found
    assert v.check == "bot" and "does not make this move" in v.message


@pytest.mark.parametrize("kind, checks", [("seat_joined", {"envelope", "hash"}),
                                          ("game_ended", {"envelope", "hash"}),
                                          # the replay counts from time 0: the vote was open
                                          ("table_closed", {"envelope", "hash", "legal"})])
def test_a_time_that_is_no_timestamp_is_a_finding_not_a_crash(samples, kind, checks):
    log = clone(samples.logs["classic"])
    i = index_of(log, kind)
    log[i].append_time.nanos = log[i].event.append_time.nanos = 1_500_000_000
    result = findings(log, check_bots=False)
    assert result.first_violation == i + 1
    assert checks_at(result, i + 1) == checks
    assert any("not a valid timestamp" in v.message for v in at(result, i + 1))


def _name(card: int) -> str:
    from belote.rules.cards import card_name
    return card_name(card)


def test_every_illegal_card_is_listed_the_replay_going_on_at_the_next_deal(samples):
    # Two cards not held, in two deals: the replay cannot play the first, takes the log's word for
    # the rest of that deal, deals the next deal's deck on its game and finds the second too.
    log = clone(samples.logs["classic"])
    deals = [i for i, m in enumerate(log) if m.event_type == "deal_started"]
    assert len(deals) >= 3
    changed = []
    for start in (deals[0], deals[2]):           # chosen on the log as it was
        changed.append(a_card_not_held(log, start))
    for i, card in changed:
        set_card(log, i, card)
    changed = [i + 1 for i, _ in changed]
    result = findings(rechain(log))
    assert [(v.sequence, v.check, v.rule) for v in result.violations] == \
        [(changed[0], "legal", "CARD_NOT_IN_HAND"), (changed[1], "legal", "CARD_NOT_IN_HAND")]
    went_on = [n for n in result.notes if "went on at seq" in n]
    assert len(went_on) == 2
    assert f"stopped at seq {changed[0]}" in went_on[0] and "where the log deals again" in went_on[0]
    assert f"stopped at seq {changed[1]}" in went_on[1]


def test_an_illegal_card_and_a_wrong_score_later_are_both_listed(samples):
    log = clone(samples.logs["classic-501"])
    i, not_held = a_card_not_held(log, start=20)
    set_card(log, i, not_held)
    later = [k for k, m in enumerate(log) if m.event_type == "deal_scored"][-1]
    log[later].event.deal_scored.totals[0] += 20
    result = findings(rechain(log), check_bots=False)
    assert [(v.sequence, v.check) for v in result.violations] == \
        [(i + 1, "legal"), (later + 1, "derived")]
    assert result.violations[1].message == "deal_scored.totals is not what the rules give"


def test_a_time_finer_than_the_hash_covers_is_caught(samples):
    # The chain hashes microseconds: nanoseconds added to a time leave every hash as it was.
    log = clone(samples.logs["classic"])
    i = index_of(log, "chat_posted")
    log[i].append_time.nanos = log[i].event.append_time.nanos = log[i].append_time.nanos + 500
    assert rechain(clone(log))[i].hash == log[i].hash
    (v,) = findings(log, check_bots=False).violations
    assert (v.sequence, v.check) == (i + 1, "envelope")
    assert v.message.startswith("the event's time has a part finer than a microsecond")


@pytest.mark.parametrize("where", ["called", "mid-trick", "trick's end"])
def test_a_changed_belote_call_is_caught(samples, where):
    # The belote call is the one field of a card the server fills in (decide's belote_call):
    # dropped where the rules call it, or added to a card that calls nothing, whether or not the
    # card ends a trick (the replay's two ways through a card).
    log = clone(samples.logs["classic"])
    if where == "called":
        # A sample game's decks depend on its random table id: take the first game with a call
        # (a classic game of easy bots and a random human can have none).
        log = clone(next(log for log in samples.logs.values() if any(
            m.event.WhichOneof("body") == "card_played" and m.event.card_played.belote != 0
            for m in log)))
        i = index_of(log, "card_played", lambda m: m.event.card_played.belote != 0)
        log[i].event.card_played.belote = epb.BELOTE_CALL_UNSPECIFIED
    else:
        ends = where == "trick's end"
        i = next(i for i in range(40, len(log) - 1) if log[i].event_type == "card_played"
                 and log[i].event.card_played.belote == 0 and (log[i + 1].event_type == "trick_won") == ends)
        log[i].event.card_played.belote = epb.BELOTE_CALL_BELOTE
    result = findings(rechain(log), check_bots=False)
    assert result.first_violation == i + 1
    (v,) = at(result, i + 1)
    assert (v.check, v.message) == ("derived", "card_played.belote is not what the rules give")
    assert v.expected != v.found


def test_no_card_is_played_at_a_table_the_log_closed_during_a_game(samples):
    # After an illegal card the replay takes the log's word for the game, a TableClosed too;
    # from the next deal on, decide refuses every action at the closed table, and so does the
    # fast path (findings checks both ways agree).
    log = clone(samples.logs["classic"])
    i, not_held = a_card_not_held(log, start=60)
    set_card(log, i, not_held)
    closed = epb.LoggedEvent()
    closed.CopyFrom(log[i + 1])
    closed.event_type = "table_closed"
    closed.event.table_closed.CopyFrom(epb.TableClosed(reason=epb.TABLE_CLOSED_REASON_NO_HUMANS))
    log.insert(i + 2, closed)
    result = findings(rechain(log, renumber=True))
    deal = index_of(log, "deal_started", start=i + 2)
    refused = [v for v in result.violations if v.sequence > deal + 1 and v.check == "legal"]
    assert refused and {v.rule for v in refused} == {"TABLE_CLOSED"}
