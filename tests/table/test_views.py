"""What each viewer sees: its own cards when dealt, every card once played, nothing else."""

from __future__ import annotations

import random

import pytest
from belote.rules.cards import cards_of
from belote.table.codec import card_from_pb
from belote.table.decide import Act
from belote.table.state import FINISHED, TableState, evolve
from belote.table.views import REVIEWER, SPECTATOR, Redactor, seat_view
from belote.v1 import cards_pb2 as cpb
from table_log import Log

PRESETS = ["classic", "classic-501", "belgian", "belgian-open", "online-classic", "modern",
           "kamikaze", "enhanced"]


def whole_game(preset: str, seed: int) -> Log:
    log = Log(preset, target="120" if preset != "belgian" else "15").seat_all()
    rng = random.Random(seed)
    while log.state.status != FINISHED:
        state = log.state
        seat = state.to_act()
        log.when(Act(seat, rng.choice(state.game.legal_actions(seat))),
                 deck=tuple(rng.sample(range(32), 32)))
    return log


def cards_in(message) -> list[int]:
    """Every Card anywhere inside a message."""
    found = []
    for field, value in message.ListFields():
        if field.message_type is None:
            continue
        values = value if field.is_repeated else [value]
        for v in values:
            if isinstance(v, cpb.Card):
                found.append(card_from_pb(v))
            elif hasattr(v, "ListFields"):
                found += cards_in(v)
    return found


@pytest.mark.parametrize("preset", PRESETS)
def test_no_stream_shows_a_card_of_another_hand_before_it_is_played(preset):
    log = whole_game(preset, seed=len(preset))
    for viewer in (0, 1, 2, 3, SPECTATOR):
        redactor = Redactor(viewer)
        known: set[int] = set()            # cards this viewer may know of in this deal
        for event in log.events:
            shown = redactor.see(event)
            kind = shown.WhichOneof("body")
            body = getattr(shown, kind)
            if kind == "deal_started":
                assert not body.deck and not body.salt and len(body.deck_commitment) == 32
                own = [card_from_pb(c) for c in body.hand]
                known = set(own)
                if body.HasField("turned_card"):
                    known.add(card_from_pb(body.turned_card))
                assert len(own) == (0 if viewer == SPECTATOR else 8 if preset == "kamikaze" else 5)
                continue
            if kind == "contract_settled":
                own = [card_from_pb(c) for c in body.hand]
                assert len(own) == (0 if viewer == SPECTATOR else 8)
                known |= set(own)
                continue
            # Revealed to all: a played card, a finished deal's deck, announcements shown (classic at
            # trick 2; enhanced when declared: sheet 004 "se dire et se montrer").
            if kind in ("card_played", "deck_revealed", "announcements_revealed", "announcement_declared"):
                known |= set(cards_in(body))
                continue
            assert set(cards_in(body)) <= known, (viewer, kind)
            if kind == "table_created":
                assert not body.password_hash and not body.host_token_hash
            if kind == "seat_joined":
                assert not body.token_hash


def test_a_seat_sees_exactly_its_own_dealt_cards():
    log = whole_game("classic", seed=3)
    state_deal = next(e.deal_started for e in log.events if e.HasField("deal_started"))
    deck = [card_from_pb(c) for c in state_deal.deck]
    eldest = (state_deal.dealer + 1) & 3
    for seat in range(4):
        redactor = Redactor(seat)
        shown = [redactor.see(e) for e in log.events]
        first = next(e.deal_started for e in shown if e.HasField("deal_started"))
        offset = (seat - eldest) & 3
        expected = deck[3 * offset:3 * offset + 3] + deck[12 + 2 * offset:14 + 2 * offset]
        assert sorted(card_from_pb(c) for c in first.hand) == sorted(expected)


def test_the_reviewer_sees_everything():
    log = whole_game("classic", seed=5)
    redactor = Redactor(REVIEWER)
    assert all(redactor.see(e) is e for e in log.events)


def test_a_bot_view_holds_only_its_own_hand_and_public_cards():
    log = whole_game("belgian-open", seed=7)
    state = TableState("t")
    for event in log.events:
        if state.to_act() is not None:
            for seat in range(4):
                view = seat_view(state, seat)
                assert view.hand == state.game.hand(seat)
                public = {c for t in view.tricks for c in t[1]} | set(view.trick)
                public |= {c for _s, a in view.announcements for c in cards_of(a.cards)}
                public |= {view.turned_card} - {-1}
                in_other_hands = {c for s in range(4) if s != seat for c in cards_of(state.game.hand(s))}
                # A card still in another hand shows only if its owner revealed it (turned, announced).
                revealed = {view.turned_card} | {c for _s, a in view.announcements for c in cards_of(a.cards)}
                assert public & in_other_hands <= revealed
                assert view.legal == tuple(state.game.legal_actions(seat))
        evolve(state, event)
    assert state.status == FINISHED
