"""The codec: each proto value read back as the value it was written from, and bad ones refused."""

from __future__ import annotations

import pytest
from belote.rules import announcements as ann
from belote.rules.actions import Bid, Declare, Play
from belote.rules.auction import PASS
from belote.table.codec import (
    CARD_OF_PB,
    BadMessage,
    action_from_pb,
    action_to_pb,
    bid_from_pb,
    bid_to_pb,
    card_from_pb,
    card_to_pb,
    declaration_from_pb,
)
from belote.v1 import cards_pb2 as cpb


def test_every_card_reads_back_as_the_card_written():
    assert [card_from_pb(card_to_pb(card)) for card in range(32)] == list(range(32))
    assert sorted(CARD_OF_PB.values()) == list(range(32))
    assert CARD_OF_PB[cpb.SUIT_HEARTS, cpb.RANK_JACK] == 2 * 8 + 4       # the jack of hearts, as rules/cards.py


@pytest.mark.parametrize("suit, rank", [(0, 1), (5, 1), (1, 0), (1, 9)])
def test_a_card_out_of_range_is_refused_naming_its_field(suit, rank):
    with pytest.raises(BadMessage) as refused:
        card_from_pb(cpb.Card(suit=suit, rank=rank), "action.card")
    assert refused.value.field == "action.card"


def test_bids_read_back_and_an_unknown_contract_is_refused():
    assert [bid_from_pb(bid_to_pb(call)) for call in (PASS, 0, 1, 2, 3, 4, 5)] == [PASS, 0, 1, 2, 3, 4, 5]
    with pytest.raises(BadMessage) as refused:
        bid_from_pb(cpb.Bid(contract=7), "bid")
    assert refused.value.field == "bid.contract"


def test_a_declaration_reads_back_as_the_action_declared():
    declared = [Declare(ann.TIERCE), Declare(ann.COULEUR, suit=2), Declare(ann.CARRE, rank=4),
                Declare(ann.QUINTE_FLUSH, suit=0), Declare(ann.CAPOT_ANNONCE)]
    for action in declared:
        assert declaration_from_pb(action_to_pb(action).announce) == action
        assert action_from_pb(action_to_pb(action)) == action
    with pytest.raises(BadMessage) as refused:
        declaration_from_pb(cpb.Announcement(kind=99))
    assert refused.value.field == "announcement.kind"


def test_actions_read_back():
    for action in (Play(31), Play(0), Bid(PASS), Bid(5)):
        assert action_from_pb(action_to_pb(action)) == action
