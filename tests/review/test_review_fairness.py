"""Provably fair: what a seat is shown lets it check the deck was fixed before the deal."""

from __future__ import annotations

import hashlib

import pytest
from belote.rules.game import complete_hands, deal_all_eight, deal_first_five
from belote.table.views import SPECTATOR, Redactor
from review_helpers import GAMES


def card_int(c) -> int:
    return (c.suit - 1) * 8 + c.rank - 1


@pytest.mark.parametrize("preset", ["classic", "kamikaze", "belgian"])
@pytest.mark.parametrize("viewer", [0, 1, SPECTATOR])
def test_the_commitment_shown_at_deal_start_matches_the_revealed_deck(samples, preset, viewer):
    redactor = Redactor(viewer)
    bidding = dict(samples.logs[preset][0].event.table_created.options)["bidding"]
    commitments, hands, checked = {}, {}, 0
    for m in samples.logs[preset]:
        shown = redactor.see(m.event)
        kind = shown.WhichOneof("body")
        if kind == "deal_started":
            d = shown.deal_started
            assert not d.deck and not d.salt                    # nothing of the deck leaks...
            assert len(d.deck_commitment) == 32                 # ...but its commitment is shown
            commitments[d.deal_number] = (d.deck_commitment, (d.dealer + 1) & 3)
            hands[d.deal_number] = [card_int(c) for c in d.hand]
            assert len(hands[d.deal_number]) == (0 if viewer == SPECTATOR else 8 if bidding == "none" else 5)
        elif kind == "contract_settled" and viewer != SPECTATOR:
            hands["full"] = [card_int(c) for c in shown.contract_settled.hand]
            hands["taker"] = shown.contract_settled.taker
        elif kind == "deck_revealed":
            r = shown.deck_revealed
            deck = [card_int(c) for c in r.deck]
            commitment, eldest = commitments[r.deal_number]
            assert hashlib.sha256(bytes(deck) + r.salt).digest() == commitment
            if viewer != SPECTATOR:                             # and it is the deck this seat was dealt from
                first = deal_all_eight(deck, eldest) if bidding == "none" else deal_first_five(deck, eldest)
                assert sorted(hands[r.deal_number]) == [c for c in range(32) if first[viewer] >> c & 1]
                if "full" in hands and bidding != "none":
                    full = complete_hands(deck, eldest, hands["taker"], first)[viewer]
                    assert sorted(hands.pop("full")) == [c for c in range(32) if full >> c & 1]
            checked += 1
    assert checked == sum(m.event_type == "deal_started" for m in samples.logs[preset]) > 0


def test_presets_cover_the_spec():
    from belote.rules.options import PRESETS
    assert set(GAMES) == set(PRESETS)
