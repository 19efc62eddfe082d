"""Every conversion between the rules' small values and the proto messages (the one wire and
event schema), both ways, and between stored events and the messages they hold."""

from __future__ import annotations

import functools
from typing import Any, cast

from belote.rules import announcements as ann
from belote.rules.actions import Bid, Declare, Play
from belote.rules.auction import PASS
from belote.rules.result import DealResult
from belote.v1 import cards_pb2 as cpb
from belote.v1 import events_pb2 as epb
from belote.v1 import table_service_pb2 as tpb

SCHEMA_VERSION = 1


class BadMessage(ValueError):
    """A proto value the rules cannot read; ``field`` names it for INVALID_ARGUMENT."""

    def __init__(self, field: str, message: str):
        super().__init__(message)
        self.field = field


# Proto enums start at 1, the rules' ints at 0 (their numbers are the same otherwise).
def suit_to_pb(suit: int) -> cpb.Suit:
    return cast(cpb.Suit, suit + 1)


def rank_to_pb(rank: int) -> cpb.Rank:
    return cast(cpb.Rank, rank + 1)


def card_to_pb(card: int) -> cpb.Card:
    return cpb.Card(suit=suit_to_pb(card >> 3), rank=rank_to_pb(card & 7))


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


def add_cards(message: Any, field: str, cards) -> None:
    """Append ``cards`` to ``message``'s repeated Card ``field``, merged from cached wire bytes
    instead of a Card message per card: the decks of every deal (the review rebuilds them all)."""
    message_type: type = type(message)
    entries = _card_entries(message_type, field)
    message.MergeFromString(b"".join([entries[c] for c in cards]))


def contract_to_pb(contract: int) -> cpb.Contract:
    return cast(cpb.Contract, 0 if contract < 0 else contract + 1)


def contract_from_pb(contract: int, field: str = "contract") -> int:
    if not 1 <= contract <= 6:
        raise BadMessage(field, f"{field}: unknown contract {contract} (CONTRACT_CLUBS..CONTRACT_ALL_TRUMP)")
    return contract - 1


def bid_to_pb(call: int) -> cpb.Bid:
    return cpb.Bid(passed=True) if call == PASS else cpb.Bid(contract=contract_to_pb(call))


def bid_from_pb(bid: cpb.Bid, field: str = "bid") -> int:
    """The rules' call (PASS or a contract) of a proto Bid."""
    if bid.WhichOneof("call") == "passed":
        if not bid.passed:
            raise BadMessage(f"{field}.passed", f"{field}.passed: true for a pass (else set contract)")
        return PASS
    return contract_from_pb(bid.contract, f"{field}.contract")


_KIND_TO_PB = {
    ann.TIERCE: cpb.ANNOUNCEMENT_KIND_TIERCE, ann.CINQUANTE: cpb.ANNOUNCEMENT_KIND_CINQUANTE, ann.CENT: cpb.ANNOUNCEMENT_KIND_CENT, ann.CARRE: cpb.ANNOUNCEMENT_KIND_CARRE,
    ann.COULEUR: cpb.ANNOUNCEMENT_KIND_COULEUR, ann.QUINTE_FLUSH: cpb.ANNOUNCEMENT_KIND_QUINTE_FLUSH,
    ann.CHELEM_COULEUR: cpb.ANNOUNCEMENT_KIND_CHELEM_COULEUR, ann.CAPOT_ANNONCE: cpb.ANNOUNCEMENT_KIND_CAPOT_ANNONCE,
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
        msg.suit = suit_to_pb(a.suit)
    if a.kind == ann.CARRE:
        msg.rank = rank_to_pb(a.rank)
    elif a.rank >= 0:
        msg.top = rank_to_pb(a.rank)
    return msg


def action_to_pb(action) -> cpb.Action:
    if isinstance(action, Bid):
        return cpb.Action(bid=bid_to_pb(action.contract))
    if isinstance(action, Play):
        return cpb.Action(card=card_to_pb(action.card))
    msg = cpb.Announcement(kind=_KIND_TO_PB[action.kind])
    if action.suit >= 0:
        msg.suit = suit_to_pb(action.suit)
    if action.rank >= 0 and action.kind == ann.QUINTE_FLUSH:
        msg.top = rank_to_pb(action.rank)
    elif action.rank >= 0:
        msg.rank = rank_to_pb(action.rank)
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
    "made": epb.DEAL_OUTCOME_MADE, "failed": epb.DEAL_OUTCOME_FAILED, "capot_made": epb.DEAL_OUTCOME_CAPOT_MADE,
    "capot_against": epb.DEAL_OUTCOME_CAPOT_AGAINST, "litige_reserve": epb.DEAL_OUTCOME_LITIGE_RESERVE,
    "litige_dedans": epb.DEAL_OUTCOME_LITIGE_DEDANS,
}


def team_to_pb(team: int | None) -> int:
    """A team (0 or 1) as the v1 events write it: -1 for nobody."""
    return -1 if team is None else team


def deal_scored_to_pb(result: DealResult, deal_number: int, totals) -> epb.DealScored:
    score = result.as_deal_score()
    return epb.DealScored(
        deal_number=deal_number, taker=score.taker, contract=contract_to_pb(score.contract),
        outcome=_OUTCOME_TO_PB[score.outcome], trick_points=score.trick_points, belote=score.belote,
        announcements=score.announcements, deal_score=score.deal_score, multiplier=score.multiplier,
        reserve_created=score.reserve_created, reserve_paid=score.reserve_paid,
        reserve_paid_to=score.reserve_paid_to, reserve_pending=score.reserve_pending,
        totals=list(totals), explanation=score.explanation)


def deal_score_view(scored: epb.DealScored) -> tpb.DealScore:
    """A DealScored event as a view's DealScore: the view's message has the event's fields with
    their numbers, so the event's bytes read as it."""
    return tpb.DealScore.FromString(scored.SerializeToString())


def set_turn_timer(view: tpb.Table | tpb.TableSummary, created: epb.TableCreated) -> None:
    """The table's turn timer as a view shows it (a Duration): unset without one."""
    if created.turn_timer_seconds:
        view.turn_timer.seconds = created.turn_timer_seconds


BOT_LEVELS = {"easy": epb.BOT_LEVEL_EASY, "normal": epb.BOT_LEVEL_NORMAL, "hard": epb.BOT_LEVEL_HARD}
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
    event.append_time.FromMicroseconds(stored.recorded_at_us)
    return event


def logged_event(stored) -> epb.LoggedEvent:
    """One line of an export: a StoredEvent as the full event with its chain fields."""
    out = epb.LoggedEvent(table_id=stored.table_id, sequence=stored.sequence, request_id=stored.request_id,
                          event_type=stored.type, schema_version=stored.schema_version,
                          prev_hash=stored.prev_hash, hash=stored.hash, event=decode_stored(stored))
    out.append_time.FromMicroseconds(stored.recorded_at_us)
    return out


# Exports written before belote.v1 was frozen spell enum values without their type's prefix
# ("CLUBS", "EASY", "BELOTE_CALL_NONE") and some fields by their old names (`time`, `type`,
# `private`, `turn_timer_s`, `is_pass`, `exported_at`): the JSON mapping writes names, and the
# names changed, not the numbers or wire types, so the stored bytes and the hash chain are the
# same. A line the parser refuses is read again with those names brought up to date. This step,
# rather than `allow_alias` on each enum, keeps the old names out of the schema (and out of every
# generated client), and costs nothing on an export made since: it runs only for a line the
# parser refused.
_OLD_ENUM_NAMES = {"belote.v1.BeloteCall": {"BELOTE_CALL_NONE": "BELOTE_CALL_UNSPECIFIED"}}
# Message -> {old JSON or proto name: the field's name now}.
_OLD_FIELD_NAMES = {
    "belote.v1.LoggedEvent": {"time": "append_time", "type": "event_type"},
    "belote.v1.TableEvent": {"time": "append_time"},
    "belote.v1.TableCreated": {"private": "is_private", "turnTimerS": "turn_timer_seconds",
                               "turn_timer_s": "turn_timer_seconds"},
    "belote.v1.Bid": {"isPass": "passed", "is_pass": "passed"},
    "belote.v1.ExportHead": {"exportedAt": "export_time", "exported_at": "export_time"},
}


def _enum_prefix(enum) -> str:
    return "".join("_" + c if c.isupper() and i else c for i, c in enumerate(enum.name)).upper() + "_"


def _upgraded_enum(enum, value):
    if not isinstance(value, str) or value in enum.values_by_name:
        return value
    renamed = _OLD_ENUM_NAMES.get(enum.full_name, {}).get(value)
    if renamed is not None:
        return renamed
    prefixed = _enum_prefix(enum) + value
    return prefixed if prefixed in enum.values_by_name else value


def _upgrade(descriptor, data: dict) -> dict:
    fields = descriptor.fields_by_camelcase_name
    renames = _OLD_FIELD_NAMES.get(descriptor.full_name, {})
    for key, value in list(data.items()):
        field = fields.get(key) or descriptor.fields_by_name.get(key)
        if field is None:
            renamed = renames.get(key)
            if renamed is None:
                continue
            field = descriptor.fields_by_name[renamed]
            del data[key]
            key = field.json_name
            data[key] = value
        repeated = field.is_repeated
        if field.enum_type is not None:
            enum = field.enum_type
            data[key] = [_upgraded_enum(enum, v) for v in value] if repeated and isinstance(value, list) \
                else _upgraded_enum(enum, value)
        elif field.message_type is not None and not field.message_type.GetOptions().map_entry:
            for item in (value if repeated and isinstance(value, list) else [value]):
                if isinstance(item, dict):
                    _upgrade(field.message_type, item)
    return data


def upgrade_logged_json(data: dict) -> dict:
    """An export line (a LoggedEvent in the JSON mapping) of before the freeze, as the schema of
    now spells it (in place). Anything it does not know is left for the parser to refuse."""
    return _upgrade(epb.LoggedEvent.DESCRIPTOR, data)
