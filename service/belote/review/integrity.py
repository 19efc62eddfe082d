"""The log as the store wrote it: sequences, envelopes, the hash chain and the decks.

One pass over a log's entries with store/chain.py's ``LogHasher`` (the one hash layout) and
table/'s ``deck_commitment``; the decks it reads are those the replay deals.
"""

from __future__ import annotations

from belote.store.chain import GENESIS_HASH, LogHasher
from belote.table.codec import CARD_OF_PB, add_cards
from belote.table.decide import deck_commitment
from belote.v1 import events_pb2 as epb

from . import text
from .entries import Entry

_FULL_DECK = frozenset(range(32))
_DECK_EVENTS = frozenset({"game_started", "deal_started", "deck_revealed"})


class LogCheck:
    """The ``sequence``, ``envelope``, ``chain``, ``hash``, ``commitment`` and ``reveal`` checks of
    one log: findings go to ``fail`` (``Replay.fail``'s arguments), counts to ``counts``."""

    def __init__(self, fail, counts: dict[str, int]):
        self.fail = fail
        self.counts = counts
        self.decks: dict[int, list[int] | None] = {}   # DealStarted position -> its deck's ints

    def run(self, entries: list[Entry], table_id: str) -> dict[int, list[int] | None]:
        """Check every entry in one pass; returns the decks the log deals (None: unreadable)."""
        started: dict[int, tuple] = {}
        prev = GENESIS_HASH
        for e, h in zip(entries, LogHasher().hashes(entries)):
            kind = e.kind
            prev_hash = e.prev_hash
            if (e.sequence != e.position or e.table_id != table_id or kind is None or e.type != kind
                    or not e.envelope_ok or prev_hash != prev):
                self._envelope(e, prev, table_id)
            if h != e.hash:
                self._hash(e, h)
            prev = e.hash
            if kind in _DECK_EVENTS:
                self._deck_event(e, kind, started)
        for check in ("sequence", "envelope", "chain", "hash"):
            self.counts[check] += len(entries)
        return self.decks

    def _envelope(self, e: Entry, prev: bytes, table_id: str) -> None:
        at, fail = e.position, self.fail
        if e.sequence != at:
            fail(at, "sequence", f"the event at place {at} of the log has sequence {e.sequence}: "
                 + ("an event is missing before it" if e.sequence > at else
                    "an event is repeated or out of order"), f"sequence {at}", f"sequence {e.sequence}")
        if e.table_id != table_id:
            fail(at, "envelope", "the event belongs to another table", table_id, e.table_id)
        if e.kind is None:
            fail(at, "envelope", "the event has no body (none of table_created ... game_ended), or "
                 "its stored bytes do not decode")
        elif e.type != e.kind:
            fail(at, "envelope", "the LoggedEvent's type is not its event's body", e.kind, e.type)
        if not e.time_ok:
            fail(at, "envelope", "the event's time is not a valid timestamp (years 1 to 9999, "
                 "nanos 0 to 999999999): the replay counts deadlines from time 0 for it",
                 "a valid time", f"seconds {e.event.append_time.seconds}, nanos {e.event.append_time.nanos}")
        elif e.event.append_time.nanos % 1000:
            fail(at, "envelope", "the event's time has a part finer than a microsecond: the server "
                 "writes microseconds, and the hash chain covers no more", "a whole microsecond",
                 f"nanos {e.event.append_time.nanos}")
        elif not e.envelope_ok:
            fail(at, "envelope", "the event's own sequence, table id or time differ from its "
                 "LoggedEvent's", f"sequence {e.sequence} of table {e.table_id}",
                 f"sequence {e.event.sequence} of table {e.event.table_id}")
        if e.prev_hash != prev:
            fail(at, "chain", "prev_hash is not the previous event's hash: an event before this one "
                 "was changed, removed or added", prev.hex(), e.prev_hash.hex())

    def _hash(self, e: Entry, h: bytes | ValueError) -> None:
        if isinstance(h, ValueError):
            self.fail(e.position, "hash", f"the event's fields cannot be hashed: {h}")
        else:
            self.fail(e.position, "hash", "the hash does not match the event: it was changed after "
                      "it was written", h.hex(), e.hash.hex())

    def _deck_event(self, e: Entry, kind: str, started: dict) -> None:
        """Provably fair: each deck matches its commitment, and each reveal the deck dealt."""
        if kind == "game_started":
            started.clear()
        elif kind == "deal_started":
            body = e.event.deal_started
            self.counts["commitment"] += 1
            deck = self.decks[e.position] = _deck(body.deck)
            if deck is None:
                self.fail(e.position, "commitment", f"deal {body.deal_number}: the deck is not the "
                          "32 cards once each", "32 distinct cards", text.cards(body.deck))
            elif deck_commitment(deck, body.salt) != body.deck_commitment:
                self.fail(e.position, "commitment", f"deal {body.deal_number}: sha256(deck + salt) is "
                          "not the commitment shown when the deal started: the deck or salt was "
                          "changed after the commitment", body.deck_commitment.hex(),
                          deck_commitment(deck, body.salt).hex())
            started[body.deal_number] = (deck, body.salt, body.deck_commitment, e.position)
        else:
            self._reveal(e, started)

    def _reveal(self, e: Entry, started: dict) -> None:
        body = e.event.deck_revealed
        self.counts["reveal"] += 1
        if body.deal_number not in started:
            self.fail(e.position, "reveal", f"deal {body.deal_number} was not dealt in this game, "
                      "yet a deck is revealed for it")
            return
        dealt, salt, commitment, where = started[body.deal_number]
        if dealt is not None and e.payload == _revealed_bytes(body.deal_number, dealt, salt):
            deck = dealt                 # the deck and salt dealt, no card read one by one
        else:
            deck = _deck(body.deck)
        if deck is None or deck != dealt or body.salt != salt:
            self.fail(e.position, "reveal", f"deal {body.deal_number}: the revealed deck and salt "
                      f"are not those dealt at seq {where}",
                      f"{text.cards(dealt) if dealt else '-'} / salt {salt.hex()}",
                      f"{text.cards(body.deck)} / salt {body.salt.hex()}")
        elif deck_commitment(deck, body.salt) != commitment:
            self.fail(e.position, "reveal", f"deal {body.deal_number}: sha256(revealed deck + salt) "
                      f"is not the commitment of seq {where}", commitment.hex(),
                      deck_commitment(deck, body.salt).hex())


def _revealed_bytes(deal_number: int, deck: list[int], salt: bytes) -> bytes:
    """The stored bytes (``encode_body``'s) of the DeckRevealed that shows ``deck`` and ``salt``."""
    revealed = epb.DeckRevealed(deal_number=deal_number, salt=salt)
    add_cards(revealed, "deck", deck)
    return epb.TableEvent(deck_revealed=revealed).SerializeToString(deterministic=True)


def _deck(cards) -> list[int] | None:
    """A deck's card ints, or None unless it holds each of the 32 cards once."""
    try:
        deck = [CARD_OF_PB[c.suit, c.rank] for c in list(cards)]
    except KeyError:
        return None
    return deck if len(deck) == 32 and frozenset(deck) == _FULL_DECK else None
