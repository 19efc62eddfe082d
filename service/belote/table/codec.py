"""Every conversion between the rules' small values and the proto messages (the one wire and
event schema), both ways, and between stored events and the messages they hold."""

from __future__ import annotations

import functools

from belote.rules import announcements as ann
from belote.rules.actions import Bid, Declare, Play
from belote.rules.auction import PASS
from belote.rules.result import DealResult
from belote.v1 import cards_pb2 as cpb
from belote.v1 import events_pb2 as epb

SCHEMA_VERSION = 1


class BadMessage(ValueError):
    """A proto value the rules cannot read; ``field`` names it for INVALID_ARGUMENT."""

    def __init__(self, field: str, message: str):
        super().__init__(message)
        self.field = field


# Cards: proto enums start at 1, the rules' ints at 0.
def card_to_pb(card: int) -> cpb.Card:
    return cpb.Card(suit=(card >> 3) + 1, rank=(card & 7) + 1)


# (proto suit, proto rank) -> the rules' card: card_to_pb read backwards, for every reader of a
# proto card (a dict lookup: the review reads every card of a log).
CARD_OF_PB = {(pb.suit, pb.rank): card for card in range(32) for pb in (card_to_pb(card),)}


def card_from_pb(card: cpb.Card, field: str = "card") -> int:
    found = CARD_OF_PB.get((card.suit, card.rank))
    if found is None:
        raise BadMessage(field, f"{field}: a card needs a suit (CLUBS..SPADES) and a rank (SEVEN..ACE)")
    return found


def cards_to_pb(cards) -> list[cpb.Card]:
    return [card_to_pb(c) for c in cards]


@functools.cache
def _card_entries(message_type, field: str) -> tuple[bytes, ...]:
    """Each card's wire bytes as one element of the repeated Card ``field`` of ``message_type``
    (protobuf appends repeated elements when wire bytes are merged)."""
    entries = []
    for card in range(32):
        one = message_type()
        getattr(one, field).append(card_to_pb(card))
        entries.append(one.SerializeToString())
    return tuple(entries)


def add_cards(message, field: str, cards) -> None:
    """Append ``cards`` to ``message``'s repeated Card ``field``, merged from cached wire bytes
    instead of a Card message per card: the decks of every deal (the review rebuilds them all)."""
    entries = _card_entries(type(message), field)
    message.MergeFromString(b"".join([entries[c] for c in cards]))


def contract_to_pb(contract: int) -> int:
    return 0 if contract < 0 else contract + 1


def contract_from_pb(contract: int, field: str = "contract") -> int:
    if not 1 <= contract <= 6:
        raise BadMessage(field, f"{field}: unknown contract {contract} (CONTRACT_CLUBS..CONTRACT_ALL_TRUMP)")
    return contract - 1


def bid_to_pb(call: int) -> cpb.Bid:
    return cpb.Bid(is_pass=True) if call == PASS else cpb.Bid(contract=contract_to_pb(call))


def bid_from_pb(bid: cpb.Bid, field: str = "bid") -> int:
    """The rules' call (PASS or a contract) of a proto Bid."""
    return PASS if bid.is_pass else contract_from_pb(bid.contract, f"{field}.contract")


_KIND_TO_PB = {
    ann.TIERCE: cpb.TIERCE, ann.CINQUANTE: cpb.CINQUANTE, ann.CENT: cpb.CENT, ann.CARRE: cpb.CARRE,
    ann.COULEUR: cpb.COULEUR, ann.QUINTE_FLUSH: cpb.QUINTE_FLUSH,
    ann.CHELEM_COULEUR: cpb.CHELEM_COULEUR, ann.CAPOT_ANNONCE: cpb.CAPOT_ANNONCE,
}
_KIND_FROM_PB = {v: k for k, v in _KIND_TO_PB.items()}


def declaration_from_pb(a: cpb.Announcement, field: str = "announcement") -> Declare:
    """The rules' Declare of a declared Announcement: its kind, and its suit or (a carré) rank."""
    kind = _KIND_FROM_PB.get(a.kind)
    if kind is None:
        raise BadMessage(f"{field}.kind", f"{field}.kind: unknown announcement kind {a.kind}")
    if kind == ann.CARRE:
        return Declare(kind, -1, a.rank - 1 if a.rank else -1)
    # A quinte keeps its top rank (the stored announcement's, and the one legal actions offer).
    top = a.top - 1 if kind == ann.QUINTE_FLUSH and a.top else -1
    return Declare(kind, a.suit - 1 if a.suit else -1, top)


def announcement_to_pb(a: ann.Announcement) -> cpb.Announcement:
    msg = cpb.Announcement(kind=_KIND_TO_PB[a.kind], length=a.length, points=a.points)
    if a.suit >= 0:
        msg.suit = a.suit + 1
    if a.kind == ann.CARRE:
        msg.rank = a.rank + 1
    elif a.rank >= 0:
        msg.top = a.rank + 1
    return msg


def action_to_pb(action) -> cpb.Action:
    if isinstance(action, Bid):
        return cpb.Action(bid=bid_to_pb(action.contract))
    if isinstance(action, Play):
        return cpb.Action(card=card_to_pb(action.card))
    msg = cpb.Announcement(kind=_KIND_TO_PB[action.kind])
    if action.suit >= 0:
        msg.suit = action.suit + 1
    if action.rank >= 0 and action.kind == ann.QUINTE_FLUSH:
        msg.top = action.rank + 1
    elif action.rank >= 0:
        msg.rank = action.rank + 1
    return cpb.Action(announce=msg)


def action_from_pb(action: cpb.Action):
    """The rules' action for a proto Action, or BadMessage naming the field."""
    which = action.WhichOneof("action")
    if which == "card":
        return Play(card_from_pb(action.card, "action.card"))
    if which == "bid":
        return Bid(bid_from_pb(action.bid, "action.bid"))
    if which == "announce":
        a = action.announce
        if a.kind not in _KIND_FROM_PB:
            raise BadMessage("action.announce.kind", "action.announce.kind: unknown announcement kind")
        declared = declaration_from_pb(a, "action.announce")
        if declared.kind in (ann.COULEUR, ann.QUINTE_FLUSH, ann.CHELEM_COULEUR) and declared.suit < 0:
            raise BadMessage("action.announce.suit", f"action.announce.suit: a {declared.kind} needs its suit")
        if declared.kind == ann.CARRE and declared.rank < 0:
            raise BadMessage("action.announce.rank", "action.announce.rank: a carré needs its rank")
        return declared
    raise BadMessage("action", "action: set one of bid, announce or card")


_OUTCOME_TO_PB = {
    "made": epb.MADE, "failed": epb.FAILED, "capot_made": epb.CAPOT_MADE,
    "capot_against": epb.CAPOT_AGAINST, "litige_reserve": epb.LITIGE_RESERVE,
    "litige_dedans": epb.LITIGE_DEDANS,
}


def deal_scored_to_pb(result: DealResult, deal_number: int, totals) -> epb.DealScored:
    score = result.as_deal_score()
    return epb.DealScored(
        deal_number=deal_number, taker=score.taker, contract=contract_to_pb(score.contract),
        outcome=_OUTCOME_TO_PB[score.outcome], trick_points=score.trick_points, belote=score.belote,
        announcements=score.announcements, deal_score=score.deal_score, multiplier=score.multiplier,
        reserve_created=score.reserve_created, reserve_paid=score.reserve_paid,
        reserve_paid_to=score.reserve_paid_to, reserve_pending=score.reserve_pending,
        totals=list(totals), explanation=score.explanation)


BOT_LEVELS = {"easy": epb.EASY, "normal": epb.NORMAL, "hard": epb.HARD}
BOT_LEVEL_NAMES = {v: k for k, v in BOT_LEVELS.items()}


# Stored form: the TableEvent with only its body set, serialized deterministically.
def event_type(event: epb.TableEvent) -> str:
    return event.WhichOneof("body")


def encode_body(event: epb.TableEvent) -> bytes:
    return epb.TableEvent(**{event_type(event): getattr(event, event_type(event))}).SerializeToString(
        deterministic=True)


def decode_stored(stored) -> epb.TableEvent:
    """A StoredEvent from the store as a full TableEvent (envelope filled in)."""
    event = epb.TableEvent.FromString(stored.payload)
    event.sequence = stored.sequence
    event.table_id = stored.table_id
    event.time.FromMicroseconds(stored.recorded_at_us)
    return event


def logged_event(stored) -> epb.LoggedEvent:
    """One line of an export: a StoredEvent as the full event with its chain fields."""
    out = epb.LoggedEvent(table_id=stored.table_id, sequence=stored.sequence, request_id=stored.request_id,
                          type=stored.type, schema_version=stored.schema_version,
                          prev_hash=stored.prev_hash, hash=stored.hash, event=decode_stored(stored))
    out.time.FromMicroseconds(stored.recorded_at_us)
    return out
