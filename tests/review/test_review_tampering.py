"""A log altered after the fact is caught, at the first altered sequence, by the check that sees it.

Each alteration is tried twice where it makes sense: as is (the hash chain gives it away) and by a
cheat who also recomputed the chain (and renumbered the sequences), so only the replay can tell.
Every case is also replayed with the fast path off (everything through decide): same findings.
"""

from __future__ import annotations

import pytest
from belote.table.codec import card_from_pb
from review_helpers import (
    card_in_trick,
    check,
    clone,
    index_of,
    legal_alternative,
    off_suit_card,
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
    i = index_of(log, "card_played", lambda m: not m.event.card_played.HasField("bot"), start=60)
    state = state_before(log, i)
    seat = log[i].event.card_played.seat
    not_held = next(c for c in range(32) if not state.game.play.hands[seat] >> c & 1
                    and c not in state.game.play.trick)
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
            if log[i].type == "card_played" and not log[i].event.card_played.HasField("bot"):
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
        if m.type == "card_played" and m.event.card_played.HasField("bot") and card_in_trick(log, i) == 0:
            alternative = legal_alternative(log, i)
            if alternative is not None:
                break
    set_card(log, i, alternative)
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
    i = next(i for i in range(30, len(log)) if log[i].type == "card_played"
             and log[i].event.card_played.bot.level == 3 and legal_alternative(log, i) is not None)
    set_card(log, i, legal_alternative(log, i))
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
    i = max(i for i, m in enumerate(log) if m.type == "deal_started")     # the last deal
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
    scored = [i for i, m in enumerate(log) if m.type == "deal_scored"][:3]
    for i in scored:
        log[i].event.deal_scored.deal_score[1] += 1
    result = findings(rechain(log), check_bots=False)
    assert [v.sequence for v in result.violations if v.message.startswith("deal_scored.deal_score")] == \
        [i + 1 for i in scored]


def _name(card: int) -> str:
    from belote.rules.cards import card_name
    return card_name(card)
