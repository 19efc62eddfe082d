"""Replay a table's log with the server's own code and check everything it claims.

``review(entries)`` takes a log as :class:`Entry` values (an export's lines or a store's events)
and returns a :class:`Review`: each violation with the sequence where it is and the check it
fails (``CHECKS``, described at ``review``), and the recomputed events the reports tell deal by
deal (:mod:`belote.review.story`). The game is replayed with table/'s ``decide`` and ``evolve``,
the hash chain checked with store/chain.py's code, as the server writes them.
"""

from __future__ import annotations

import difflib
import gc
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from functools import cached_property

from belote import bots
from belote.rules import IllegalAction, InvalidOptions
from belote.rules.actions import Bid, Play
from belote.rules.auction import PASS
from belote.rules.game import DEALING, OVER, BeloteCalled
from belote.store.chain import GENESIS_HASH, LogHasher
from belote.table import request_ids
from belote.table.codec import (
    BOT_LEVEL_NAMES,
    CARD_OF_PB,
    BadMessage,
    add_cards,
    bid_from_pb,
    card_from_pb,
    declaration_from_pb,
    decode_stored,
    encode_body,
)
from belote.table.decide import (
    Act,
    CloseTable,
    CreateTable,
    Disconnect,
    JoinSeat,
    LeaveSeat,
    NextDeal,
    PostChat,
    ReclaimSeat,
    Reconnect,
    Refused,
    SeatBot,
    TimerMove,
    VoteRematch,
    action_event,
    decide,
    deck_commitment,
    game_over_events,
    outcome_events,
)
from belote.table.state import BOT, PLAYING, TableState, evolve, evolve_body
from belote.table.views import seat_view
from belote.v1 import events_pb2 as epb

from . import text
from .head import ExportEnd, check_end

# The events a command starts with; every other event follows from one of them (a takeover
# BotSeated follows a SeatLeft, a TableClosed NO_HUMANS the end of a game: see ``is_command``).
COMMANDS = frozenset({"table_created", "seat_joined", "bot_seated", "seat_left", "seat_reclaimed",
                      "seat_disconnected", "seat_connected", "chat_posted", "rematch_voted",
                      "table_closed", "bid_made", "announcement_declared", "card_played"})
# The events a command may produce after its first one, each checked against decide's.
DERIVED = frozenset({"bot_seated", "game_started", "deal_started", "all_passed", "contract_settled",
                     "announcements_revealed", "trick_won", "deal_scored", "deck_revealed",
                     "game_ended", "table_closed"})
ACTIONS = frozenset({"bid_made", "announcement_declared", "card_played"})
CHECKS = ("sequence", "envelope", "chain", "hash", "commitment", "reveal", "legal", "derived", "bot",
          "head")

_FULL_DECK = frozenset(range(32))
_GOES_ON_AT = {"deal_started": "where the log deals again", "game_ended": "where the game ends"}
_MIN_TIME_S, _MAX_TIME_S = -62_135_596_800, 253_402_300_799     # a Timestamp's range: years 1..9999
_DECK_EVENTS = frozenset({"game_started", "deal_started", "deck_revealed"})
_PLACEHOLDER_DEAL = NextDeal(tuple(range(32)), b"")
# The rules' actions of a log, made once: most events are one of these.
_PLAYS = tuple(Play(c) for c in range(32))
_PLAY_OF = {pb: _PLAYS[card] for pb, card in CARD_OF_PB.items()}     # proto (suit, rank) -> Play
_BIDS = {c: Bid(c) for c in (PASS, 0, 1, 2, 3, 4, 5)}


@dataclass(slots=True)
class Entry:
    """One event of a log as exported (a ``LoggedEvent``), with its stored payload."""

    position: int           # 1-based place in the log (in a whole log: the sequence it must have)
    table_id: str
    sequence: int
    type: str
    schema_version: int
    request_id: str
    recorded_at_us: int     # the time the chain hashes (microseconds)
    prev_hash: bytes
    hash: bytes
    payload: bytes          # the stored body: encode_body(event)
    kind: str | None        # the body set in ``event`` (None: none)
    event: epb.TableEvent
    envelope_ok: bool = True
    command: bool = False   # the first event of a command (see is_command)
    time_ok: bool = True    # ``time`` is a valid Timestamp (else an ``envelope`` finding)
    at_us: int = 0          # the time the replay gives the event (deadlines count from it):
                            # recorded_at_us, or 0 when that is not a valid time

    @classmethod
    def from_logged(cls, msg: epb.LoggedEvent, position: int) -> Entry:
        event = msg.event
        kind = event.WhichOneof("body")
        # As Timestamp.ToMicroseconds, without its range check (a bad time is the hash's finding,
        # and the envelope's).
        t = msg.append_time
        seconds, nanos = t.seconds, t.nanos
        time_us = seconds * 1_000_000 + nanos // 1000
        time_ok = 0 <= nanos < 1_000_000_000 and _MIN_TIME_S <= seconds <= _MAX_TIME_S
        # The chain hashes the time in microseconds, as the server writes it: a finer time would
        # show what the hash does not cover.
        envelope_ok = (time_ok and event.sequence == msg.sequence and event.table_id == msg.table_id
                       and event.append_time == t and not nanos % 1000)
        entry = cls(position, msg.table_id, msg.sequence, msg.event_type, msg.schema_version, msg.request_id,
                    time_us, msg.prev_hash, msg.hash, encode_body(event) if kind else b"", kind, event,
                    envelope_ok, False, time_ok, time_us if time_ok else 0)
        entry.command = is_command(entry)
        return entry


def entries_of(messages) -> list[Entry]:
    """Entries of LoggedEvents (an export's events), in log order."""
    return [Entry.from_logged(m, i) for i, m in enumerate(messages, 1)]


def export_of(messages, key: bytes | None = None) -> tuple[list[Entry], ExportEnd]:
    """The entries of a whole export's lines (``messages``: any iterable, read once, so a file is
    never held whole) and its end: the head lines, for ``review(..., end=)``. ``key``: the
    server's public key the head must be signed by."""
    entries: list[Entry] = []
    end = ExportEnd(key=key)
    for m in messages:
        if m.HasField("head"):
            end.heads.append((len(entries), m))
        else:
            entries.append(Entry.from_logged(m, len(entries) + 1))
    return entries, end


def entries_of_stored(stored) -> list[Entry]:
    """Entries of a store's StoredEvents, hashed over the very bytes the store holds; a payload
    that does not decode is an event without a body (an ``envelope`` violation)."""
    out = []
    for i, s in enumerate(stored, 1):
        try:
            event = decode_stored(s)
            kind = event.WhichOneof("body")
        except Exception:  # noqa: BLE001 - any decoding error: the bytes are not an event
            event, kind = epb.TableEvent(sequence=s.sequence, table_id=s.table_id), None
        entry = Entry(i, s.table_id, s.sequence, s.type, s.schema_version, s.request_id,
                      s.recorded_at_us, s.prev_hash, s.hash, bytes(s.payload), kind, event,
                      at_us=s.recorded_at_us if kind else 0)
        entry.command = is_command(entry)
        out.append(entry)
    return out


@dataclass(frozen=True)
class Violation:
    sequence: int           # where: the sequence the event at that place of the log must have
    check: str              # one of CHECKS
    message: str
    expected: str = ""
    found: str = ""
    rule: str = ""          # for ``legal``: the stable reason of the rule broken

    def as_dict(self) -> dict:
        out = {"sequence": self.sequence, "check": self.check, "message": self.message}
        for name in ("expected", "found", "rule"):
            if getattr(self, name):
                out[name] = getattr(self, name)
        return out

    def __str__(self) -> str:
        out = f"seq {self.sequence}: [{self.check}] {self.message}"
        if self.rule:
            out += f" (rule {self.rule})"
        if self.expected or self.found:
            out += f"\n    expected: {self.expected or '-'}\n    found:    {self.found or '-'}"
        return out


@dataclass
class Review:
    table_id: str = ""
    events: int = 0
    violations: list[Violation] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    checks: dict[str, int] = field(default_factory=dict)     # check -> times it was made
    timeline: list[tuple[int, epb.TableEvent]] = field(default_factory=list)  # (seq, recomputed event)
    bot_check: bool = True

    @property
    def clean(self) -> bool:
        return not self.violations

    @property
    def exit_code(self) -> int:
        return 0 if self.clean else 1

    @property
    def first_violation(self) -> int | None:
        return self.violations[0].sequence if self.violations else None

    @cached_property
    def story(self):
        """What happened, deal by deal (built on demand from the recomputed events)."""
        from .story import tell
        return tell(self.timeline)


def review(entries: list[Entry], *, check_bots: bool = True, fast: bool = True,
           end: ExportEnd | None = None) -> Review:
    """Every check over a whole log (``entries`` in log order).

    Checks (a violation names its check):

    - ``sequence``: the n-th event of the log has sequence n (gapless from 1, no repeat).
    - ``envelope``: one table id; the event's envelope (sequence, table id, time) and ``type``
      agree with the LoggedEvent around it; exactly one body is set.
    - ``chain``: ``prev_hash`` is the previous event's ``hash`` (32 zero bytes for the first).
    - ``hash``: ``hash`` = :func:`belote.store.chain.event_hash` over the event's fields and its
      stored payload, which is ``encode_body(event)`` (deterministic, so JSON -> message ->
      encode_body gives back the stored bytes).
    - ``commitment``: each DealStarted deck holds the 32 cards once and
      ``deck_commitment(deck, salt)`` equals its ``deck_commitment``.
    - ``reveal``: each DeckRevealed shows the deck and salt of its deal's DealStarted.
    - ``legal``: each action (bid, declaration, card) is legal for its seat at that point under
      the table's rules; the violation names the rule broken (``IllegalAction.reason`` and its
      message). Seat and table commands (join, bot seated, leave, chat, rematch vote, closing) are
      checked the same way (``decide`` refusing them, with its reason), at the time the log gives
      them: a chat message at an open table and within its author's rate (5 per 10 s), a rematch
      vote by a human seat while the vote is open (2 minutes from GameEnded), a table closed for a
      vote that ran out only once it ran out. A timer move (``BotMove.timer``) is made for the
      human seat to act at or after its turn deadline: the time of the event that made it its turn
      plus the table's ``turn_timer_s`` (rule ``TIMER_NOT_DUE`` otherwise; the move itself is
      still replayed). A chat message of a seat carries that seat's player's name.
    - ``derived``: each event that follows from a command (ContractSettled, TrickWon,
      AnnouncementsRevealed, DealScored with its totals, DeckRevealed, DealStarted, GameStarted
      with its first dealer, pot and paying seats (a rematch's too), GameEnded with its payouts and
      rated flag, TableClosed NO_HUMANS, AllPassed, and the server-filled fields of the action's
      own event: belote call, announcement points) equals the one recomputed, field by field; none
      is missing, added or out of place.
    - ``bot``: each move carrying a ``BotMove`` was made at a bot's seat of that level, under the
      request id ``bot-<sequence>`` the server's bot loop uses, or, for a timer move, by the
      table's takeover bot level under the request id ``timer-<sequence - 1>`` of the server's
      deadline sweep; and it is what ``belote.bots.choose(level, seat_view(state, seat), seed,
      version)`` returns on the state folded up to just before it, with the bot version the move
      recorded (0 in logs from before versions were recorded).
    - ``head``: for an export, its last line is the head the server signed (table id, last sequence
      and hash), it matches the last event, and its signature is good, by the server's key when the
      reviewer gives it (:mod:`belote.review.head`): what shows an edit made with the hash chain
      recomputed, and a log cut at any event.

    ``check_bots=False`` skips recomputing bot moves (the costly check with searching bots);
    ``fast=False`` sends every command through decide (the fast path is tested against it);
    ``end``: the export's end (see ``export_of``), its signed head checked against the log (a
    log read from a store has none).

    The cyclic garbage collector is paused meanwhile: the replay allocates many small objects
    and no cycles, and each collection would rescan every object of the log; it is switched
    back on after, as it was.
    """
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        return _Replay(check_bots, fast).run(entries, end)
    finally:
        if was_enabled:
            gc.enable()


def is_command(e: Entry) -> bool:
    """True for the first event of a command; a takeover BotSeated follows a SeatLeft, and a
    TableClosed NO_HUMANS the end of a game (a closing for NO_REMATCH is the deadline sweep's
    command)."""
    kind = e.kind
    if kind == "bot_seated":
        return not e.event.bot_seated.takeover
    if kind == "table_closed":
        return e.event.table_closed.reason != epb.TABLE_CLOSED_REASON_NO_HUMANS
    return kind in COMMANDS


class _Replay:
    """The review of one log.

    Each command event (TableCreated, SeatJoined, BotSeated, SeatLeft, SeatReclaimed,
    SeatDisconnected, SeatConnected, ChatPosted, RematchVoted, TableClosed NO_REMATCH, BidMade,
    AnnouncementDeclared, CardPlayed) is turned back into the command it records, with the deck
    and salt of the DealStarted recorded after it as the deal's randomness and the event's own
    time as the command's ``now_us`` (a timer move is a ``TimerMove``); the events ``decide``
    produces must be those recorded up to the next command event, and the state moves on by
    them with ``evolve`` (what the rules say happened, at the times the log gives: deadlines
    count from those), so a wrong derived event is reported once and does not derail the rest.

    The fast path (``fast=True``) runs a bid, declaration or card that is no timer move through
    decide's own steps on the replay's game, in place instead of on a copy (``Game.apply``,
    decide's ``action_event``, ``outcome_events`` and ``game_over_events``), then folds the
    events with ``evolve_body(..., move_game=False)``; ``fast=False`` sends every command
    through ``decide`` and ``evolve`` as the server does, and tests/review expect both to give
    the same findings and states.

    A command that cannot be replayed (an illegal action, a deal with no readable deck) stops
    the game replay: the replay then takes the log's word for the game (``_from_log``: its
    events folded as logged, the actions not played) and goes on checking at the next deal the
    log starts or at the end of the game, so every violation is listed; the seat and table
    commands are checked meanwhile, and the sequence, chain and deck checks run to the end.
    """

    def __init__(self, check_bots: bool, fast: bool = True):
        self.check_bots = check_bots
        self.fast = fast
        self.out = Review(bot_check=check_bots)
        self.timeline = self.out.timeline
        self.counts = dict.fromkeys(CHECKS, 0)
        self.state = TableState("")      # the replayed table, once run
        self.decks: dict[int, list[int] | None] = {}
        self.halted = False              # the table's options cannot be played: nothing to replay
        self.log_score = None            # the log's last DealScored, while it is taken at its word

    def fail(self, sequence: int, check: str, message: str, expected="", found="", rule="") -> None:
        self.out.violations.append(Violation(sequence, check, message, str(expected), str(found), rule))

    def run(self, entries: list[Entry], end: ExportEnd | None = None) -> Review:
        out = self.out
        out.events = len(entries)
        if entries:
            out.table_id = entries[0].table_id
        self._check_log(entries)
        self._replay(entries)
        if end is not None:
            self.counts["head"] += 1
            check_end(entries, end, self.fail, out.notes)
        out.violations.sort(key=lambda v: v.sequence)     # stable: a place's findings keep their order
        if any(v.check == "bot" and v.message.endswith("from its seat's view") for v in out.violations):
            out.notes.append("bot moves are recomputed with the bots of this build, at the bot "
                             "version each move recorded: a build that changed a version's "
                             "algorithm does not match")
        out.checks = self.counts
        return out

    # The log as the store wrote it, and its decks ----------------------------------------------
    def _check_log(self, entries: list[Entry]) -> None:
        """Sequences, envelopes, the hash chain and the deck commitments, in one pass."""
        table_id = self.out.table_id
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

    # The game -----------------------------------------------------------------------------------
    def _replay(self, entries: list[Entry]) -> None:
        entries = [e for e in entries if e.kind]    # a bodiless event is an envelope violation
        state = self.state = TableState(self.out.table_id)
        n = len(entries)
        # Each command with the events recorded after it, up to the next command.
        starts = [i for i, e in enumerate(entries) if e.command]
        for e in entries[:starts[0] if starts else n]:    # only at the start: nothing produced them
            self.counts["derived"] += 1
            self.fail(e.position, "derived", f"{e.kind} follows from no action: it was added "
                      "or moved", "-", e.kind)
        fast = self.fast
        play, act, decide_ = self._play, self._act, self._decide
        stopped = 0         # where the game replay stopped (0: it did not), until it goes on
        legal = 0           # commands checked (counted here: most events are one)
        for i, j in zip(starts, [*starts[1:], n]):
            group = entries[i:j]
            kind = group[0].kind
            # After a command it could not replay, the replay takes the log's word for the game
            # until it can check again; seat and table commands are checked meanwhile (they do
            # not depend on the cards).
            if not stopped or (kind not in ACTIONS and state.exists):
                legal += 1
                if fast and kind in ACTIONS and state.status == PLAYING:
                    going = (play if kind == "card_played" else act)(state, group)
                else:
                    going = decide_(state, group)
                if going:
                    continue
                if self.halted:
                    self.counts["legal"] += legal
                    self.out.notes.append(
                        f"the game replay stopped at seq {group[0].position}: the {n - j} events "
                        "after this command's were not replayed (their sequence, chain and deck "
                        "checks were made)")
                    return
                stopped = stopped or group[0].position
            went_on = self._from_log(state, group)
            if went_on is not None:
                self.out.notes.append(
                    f"the game replay stopped at seq {stopped} (a command it could not replay) and "
                    f"went on at seq {went_on.position}, {_GOES_ON_AT[went_on.kind]}: the actions "
                    f"from seq {stopped} to {went_on.position} were not checked, the game taken as "
                    "the log gives it")
                stopped = 0
        self.counts["legal"] += legal
        if stopped:
            self.out.notes.append(
                f"the game replay stopped at seq {stopped}: the game's actions after it were not "
                "checked (their sequence, chain and deck checks were made, and the seat and table "
                "commands)")
        elif state.status == PLAYING:
            self.out.notes.append("the log ends before the game does (a table still playing, or a "
                                  "log cut short)")

    def _from_log(self, state: TableState, group: list[Entry]) -> Entry | None:
        """Move the state on by the log's own events of a command the replay could not check: the
        seats, clock, scores and game ends as the log gives them, its actions not played on the
        replay's game. Returns the event where the replay can check again, if one is here: a deal
        the log starts (its deck dealt on the replay's game, by the log's dealer, with the scores
        of the log's last DealScored), or the end of the game."""
        timeline = self.out.timeline
        went_on = None
        for e in group:
            kind = e.kind
            timeline.append((e.position, e.event))
            body = getattr(e.event, kind)
            if kind in ACTIONS:                  # not played on the replay's game
                evolve_body(state, kind, body, e.position, e.at_us, move_game=False)
                continue
            if kind == "deal_started":
                if went_on is None and self._deal_from_log(state, e):
                    went_on = e
                evolve_body(state, kind, body, e.position, e.at_us, move_game=False)
                continue
            try:
                evolve_body(state, kind, body, e.position, e.at_us)
            except Exception:  # noqa: BLE001 - an event the state cannot take: the log's word fails
                continue
            game = state.game
            if kind == "game_started":
                self.log_score = None
            elif kind == "deal_scored":
                self.log_score = e.event.deal_scored
            elif kind == "game_ended" and game is not None:
                game.phase = OVER
                went_on = went_on or e
        return went_on

    def _deal_from_log(self, state: TableState, e: Entry) -> bool:
        """Deal the log's deck of ``e`` (a DealStarted) on the replay's game, as the log sets it."""
        game, deck = state.game, self.decks.get(e.position)
        if game is None or deck is None or state.status != PLAYING:
            return False
        body = e.event.deal_started
        game.phase, game.dealer, game.deal_number, game.winner = DEALING, body.dealer & 3, \
            body.deal_number - 1, -1
        score = self.log_score
        if score is not None and len(score.totals) == 2:
            game.totals, game.reserve = list(score.totals), score.reserve_pending
        try:
            game.start_deal(deck)
        except IllegalAction:
            return False
        return True

    def _decide(self, state: TableState, group: list[Entry]) -> bool:
        """Check one command with decide and the events it produced; False when the replay
        cannot go on from it (it takes the log's word then: ``_from_log``)."""
        e = group[0]
        kind = e.kind
        at = e.position
        is_act = kind in ACTIONS
        try:
            command = Act(*self._action(e)) if is_act else self._seat_command(state, e)
        except BadMessage as err:
            self.fail(at, "legal", f"{kind}: {err}", rule="BAD_MESSAGE")
            return False
        if command is None:
            return state.exists
        if is_act and command.bot is not None:
            self._check_bot(state, e, command.seat, command.action, command.bot)
        next_deal = _next_deal(group, self.decks)
        try:
            if is_act and command.bot is not None and command.bot.timer:
                produced = self._timer_move(state, e, command, next_deal)
            else:
                produced = decide(state, command, next_deal)
        except IllegalAction as err:
            what = text.action(command.action, command.seat) if is_act else kind
            self.fail(at, "legal", f"{what}: illegal: {err.message}", rule=err.reason)
            return False
        except Refused as err:
            self.fail(at, "legal", f"{kind}: refused: {err.message}", rule=err.reason)
            return state.exists
        self._compare(group, produced)
        return self._follow(state, group, produced, next_deal)

    def _timer_move(self, state: TableState, e: Entry, command: Act, next_deal: NextDeal) -> list:
        """A timer move through decide (``TimerMove`` at the event's time); if decide finds it not
        due, that is reported and the move is replayed all the same (as an ``Act``)."""
        try:
            return decide(state, TimerMove(command.seat, command.action, command.bot, e.at_us), next_deal)
        except Refused as err:
            if err.reason != "TIMER_NOT_DUE":
                raise
            self._not_due(state, e, command.seat)
            return decide(state, command, next_deal)

    def _not_due(self, state: TableState, e: Entry, seat: int) -> None:
        """Why decide found a timer move not due at the event's time, as a finding."""
        deadline = state.turn_deadline_us()
        to_act = state.to_act()
        timer = state.created.turn_timer_seconds if state.created else 0
        what = f"{e.kind} by seat {seat}: a timer move (BotMove.timer)"
        if not timer:
            self.fail(e.position, "legal", f"{what}, but the table has no turn timer "
                      "(turn_timer_s 0): a human seat gets no timer move", "no timer move",
                      "a timer move", "TIMER_NOT_DUE")
        elif to_act != seat:
            self.fail(e.position, "legal", f"{what}, but it is not seat {seat}'s turn",
                      f"seat {to_act} to act" if to_act is not None else "nobody to act",
                      f"seat {seat}", "TIMER_NOT_DUE")
        elif deadline is None:
            self.fail(e.position, "legal", f"{what}, but no human holds seat {seat} (a bot plays "
                      "it): only a human seat gets a timer move", "a human seat",
                      f"{state.seats[seat].occupant} seat", "TIMER_NOT_DUE")
        else:
            self.fail(e.position, "legal", f"{what} {(e.at_us - state.turn_since_us) / 1e6:.3f} s "
                      f"into its turn, before its {timer} s turn timer ran out: the seat was not "
                      "late", f"at or after {_when(deadline)}", _when(e.at_us), "TIMER_NOT_DUE")

    def _act(self, state: TableState, group: list[Entry]) -> bool:
        """A bid or a declaration while the game is on: decide's ``_act``, in place (a card: ``_play``).

        decide's ``_act`` applies the action to (a copy of) the game, builds the action's own
        event, then the events that follow with ``outcome_events`` (and ``game_over_events`` when
        the game ends). Here the action is applied to the replay's game, and the events that
        follow come from those same functions (``_after_action``). The action's own event is
        compared byte for byte (its announcement is filled by the server). A bad message and a
        timer move (decide judges it due) go to ``_decide``.
        """
        e = group[0]
        try:
            seat, action, bot = self._action(e)
        except BadMessage:
            return self._decide(state, group)
        if bot is not None:
            if bot.timer:
                return self._decide(state, group)
            self._check_bot(state, e, seat, action, bot)
        game = state.game
        try:
            outcomes = game.apply(seat, action)
        except IllegalAction as err:
            self.fail(e.position, "legal", f"{text.action(action, seat)}: illegal: {err.message}",
                      rule=err.reason)
            return False
        made = action_event(game, seat, action, outcomes, bot)
        own = None if made.SerializeToString(deterministic=True) == e.payload else made
        return self._after_action(state, group, own, outcomes)

    def _play(self, state: TableState, group: list[Entry]) -> bool:
        """A card played while the game is on: ``_act`` for the most common event of a log.

        The seat, card and bot of the event are the command's, so only the server-filled belote
        call is derived: it is compared, and the event is built only when it differs. The card
        goes through ``Game.play_card`` (``apply`` for a card, with the same refusals).
        """
        e = group[0]
        body = e.event.card_played
        c = body.card
        action = _PLAY_OF.get((c.suit, c.rank))
        if action is None:                       # not a card: decide's path reports it
            return self._decide(state, group)
        seat = body.seat
        bot = None
        if body.HasField("bot"):
            bot = body.bot
            if bot.timer:
                return self._decide(state, group)
            self._check_bot(state, e, seat, action, bot)
        game = state.game
        try:
            outcomes = game.play_card(seat, action.card)
        except IllegalAction as err:
            self.fail(e.position, "legal", f"{text.action(action, seat)}: illegal: {err.message}",
                      rule=err.reason)
            return False
        if not outcomes and not body.belote and len(group) == 1:
            # Most cards: no belote call, no trick won, nothing recorded after it (_after_action's
            # first case, inlined).
            self.timeline.append((e.position, e.event))
            evolve_body(state, "card_played", body, e.position, e.at_us, False)
            return True
        belote = 0
        for o in outcomes:                       # the call action_event would fill in
            if type(o) is BeloteCalled:
                belote = epb.BELOTE_CALL_BELOTE if o.call == "belote" else epb.BELOTE_CALL_REBELOTE
        own = None if body.belote == belote else action_event(game, seat, action, outcomes, bot)
        return self._after_action(state, group, own, outcomes)

    def _after_action(self, state: TableState, group: list[Entry], own, outcomes: list) -> bool:
        """The events that follow an action the replay's game has applied (``outcomes``), as
        decide produces them, against the log's; then the state moves on. ``own``: the action's
        event as the rules make it when it differs from the logged one, else None."""
        e = group[0]
        if not outcomes and own is None and len(group) == 1:   # nothing follows, as logged
            self.timeline.append((e.position, e.event))
            evolve_body(state, e.kind, getattr(e.event, e.kind), e.position, e.at_us, False)
            return True
        game = state.game
        next_deal = _next_deal(group, self.decks) if len(group) > 1 else _PLACEHOLDER_DEAL
        follow = outcome_events(game, outcomes, state.deal_started, next_deal) if outcomes else []
        if follow and follow[-1].HasField("game_ended"):
            follow += game_over_events(state, follow[-1].game_ended)
        produced = [e.event if own is None else own, *follow]
        same = own is None and len(group) == len(produced)
        if same:
            for g, p in zip(group[1:], follow):
                if g.payload != p.SerializeToString(deterministic=True):
                    same = False
                    break
        if same:
            self.counts["derived"] += len(follow)
            kinds = [g.kind for g in group]          # the same bytes: the same bodies
        else:
            if own is None:
                produced[0] = own = epb.TableEvent()
                own.CopyFrom(e.event)
                own.ClearField("sequence"), own.ClearField("table_id"), own.ClearField("append_time")
            self._compare(group, produced)
            kinds = [p.WhichOneof("body") for p in produced]
        return self._follow_action(state, group, produced, kinds, next_deal)

    def _follow(self, state: TableState, group: list[Entry], produced: list, next_deal: NextDeal) -> bool:
        """Move the state on by the recomputed events of a seat or table command, each folded at
        the time the log gives the event in its place (the last one's for any beyond it)."""
        if next_deal is _PLACEHOLDER_DEAL and self._no_deck(group, [p.WhichOneof("body") for p in produced]):
            return False
        timeline = self.out.timeline
        last = len(group) - 1
        seq = group[0].position
        try:
            for k, p in enumerate(produced):
                timeline.append((seq, p))
                p.sequence = seq
                p.append_time.FromMicroseconds(group[min(k, last)].at_us)   # a disconnect's grace counts from it
                evolve(state, p)
                seq += 1
        except InvalidOptions as err:
            self.fail(group[0].position, "legal", f"the table's options cannot be played: {err}",
                      rule="BAD_OPTIONS")
            self.halted = True
            return False
        state.version = group[-1].position
        return True

    def _follow_action(self, state: TableState, group: list[Entry], produced: list, kinds: list,
                       next_deal: NextDeal) -> bool:
        """``_follow`` for the events of an action decide's steps made on the replay's game
        (``kinds``: their bodies): folded by ``evolve_body``, the game left as it moved."""
        if next_deal is _PLACEHOLDER_DEAL and self._no_deck(group, kinds):
            return False
        timeline = self.out.timeline
        last = len(group) - 1
        seq = group[0].position
        for k, p in enumerate(produced):
            timeline.append((seq + k, p))
            kind = kinds[k]
            evolve_body(state, kind, getattr(p, kind), seq + k, group[k if k < last else last].at_us,
                        False)
        state.version = group[-1].position
        return True

    def _no_deck(self, group: list[Entry], kinds: list) -> bool:
        """True (with a note) when the rules deal a new deck after this command (``kinds``: the
        events they produce) but the log holds no readable deck for it (the placeholder deal was
        given): the game cannot be replayed further."""
        if len(kinds) > 1 and "deal_started" in kinds:
            self.out.notes.append(f"seq {group[0].position}: a deal starts here but the log holds no "
                                  "readable deck for it: the game cannot be replayed from there")
            return True
        return False

    @staticmethod
    def _action(e: Entry) -> tuple:
        """(seat, rules action, BotMove or None) of an action event."""
        kind = e.kind
        if kind == "card_played":
            body = e.event.card_played
            action = _PLAYS[card_from_pb(body.card)]
        elif kind == "bid_made":
            body = e.event.bid_made
            action = _BIDS[bid_from_pb(body.bid)]
        else:
            body = e.event.announcement_declared
            action = declaration_from_pb(body.announcement)
        return body.seat, action, body.bot if body.HasField("bot") else None

    def _seat_command(self, state: TableState, e: Entry):
        """The seat or table command an event records (None when it cannot be one). A command
        that takes the time (chat, rematch vote, closing) is given the event's."""
        kind = e.kind
        body = getattr(e.event, kind)
        if kind == "table_created":
            return CreateTable(body)
        if kind == "seat_joined":
            return JoinSeat(body.seat, body.display_name, body.token_hash, body.player_id)
        if kind == "bot_seated":
            return SeatBot(body.seat, body.level)
        if kind == "table_closed":
            return CloseTable(e.at_us)
        if kind == "chat_posted":
            return self._chat(state, e, body)
        if not 0 <= body.seat <= 3:
            self.fail(e.position, "legal", f"{kind}: there is no seat {body.seat}", rule="BAD_SEAT")
            return None
        if kind == "seat_left":
            # As TableApp: the takeover bot is the table's takeover_bot_level (NORMAL when
            # unset), and the server takes a seat for a lost connection only from a player whose
            # connection it saw lost (SeatDisconnected) and not back.
            if body.reason == epb.SEAT_LEFT_REASON_DISCONNECTED and not state.seats[body.seat].disconnected_at_us:
                self.fail(e.position, "legal", f"seat {body.seat} is taken for a lost connection, "
                          "but the log shows it connected", rule="NOT_DISCONNECTED")
            return LeaveSeat(body.seat, _takeover_level(state), body.reason)
        if kind == "seat_disconnected":
            return Disconnect(body.seat)
        if kind == "seat_connected":
            return Reconnect(body.seat)
        if kind == "rematch_voted":
            return VoteRematch(body.seat, e.at_us)
        return ReclaimSeat(body.seat)

    def _chat(self, state: TableState, e: Entry, body: epb.ChatPosted):
        """A chat message: decide checks the table is open and the author's rate; as TableApp, a
        seat's message is its player's (a seat token was needed), under the seat's name."""
        seat = body.seat
        if not -1 <= seat <= 3:
            self.fail(e.position, "legal", f"chat_posted: there is no seat {seat} (-1 for a "
                      "spectator)", rule="BAD_SEAT")
            return None
        if seat >= 0:
            held = state.seats[seat]
            if not held.token_hash:
                self.fail(e.position, "legal", f"chat_posted: a message of seat {seat}, which no "
                          "player holds", "a seat a player joined", f"seat {seat}", "NOT_SEATED")
            elif held.display_name != body.display_name:
                self.fail(e.position, "legal", f"chat_posted: a message of seat {seat} is not "
                          "under the name its player sat with", repr(held.display_name),
                          repr(body.display_name), "NOT_THE_SEATS_NAME")
        return PostChat(seat, body.display_name, body.text, e.at_us)

    def _check_bot(self, state: TableState, e: Entry, seat: int, action, bot: epb.BotMove) -> None:
        at = e.position
        level = bot.level                      # its name (_bot_name) is built for a finding only
        if bot.timer:
            # A timer move: the deadline sweep asks the table's takeover bot level to move for the
            # human seat (whether the seat was late is the ``legal`` check's).
            takeover = _takeover_level(state)
            if level != takeover:
                name, made = BOT_LEVEL_NAMES.get(takeover, takeover), _bot_name(level)
                self.fail(at, "bot", f"a timer move is made by the table's takeover bot ({name}), "
                          f"not by a {made} bot", f"a {name} bot", f"a {made} bot")
            made_by = request_ids.deadline(request_ids.TIMER, at - 1)
            if e.request_id != made_by:
                self.fail(at, "bot", "a timer move is appended by the server's deadline sweep under "
                          "the request id timer-<sequence - 1>", made_by, e.request_id or "(none)")
        else:
            if 0 <= seat <= 3:
                occupant = state.seats[seat]
                if occupant.occupant != BOT or occupant.bot_level != level:
                    found = (f"a {BOT_LEVEL_NAMES.get(occupant.bot_level, occupant.bot_level)} bot"
                             if occupant.occupant == BOT else f"{occupant.occupant} seat")
                    name = _bot_name(level)
                    self.fail(at, "bot", f"a {name} bot's move at seat {seat}, which no {name} bot "
                              "plays", f"a {name} bot", found)
            made_by = request_ids.bot_move(at)
            if e.request_id != made_by:
                self.fail(at, "bot", "a bot's move is appended by the server's bot loop under the "
                          "request id bot-<sequence>", made_by, e.request_id or "(none)")
        if not self.check_bots or state.game is None or state.to_act() != seat:
            return                                     # not its turn: the legality check says so
        self.counts["bot"] += 1
        try:
            chosen = bots.choose(level, seat_view(state, seat), bot.seed, bot.version)
        except Exception as err:                       # noqa: BLE001 - a failing bot is a finding
            self.fail(at, "bot", f"the {_bot_name(level)} bot fails on this position with seed "
                      f"{bot.seed}: {type(err).__name__}: {err}", text.action(action, seat), "an error")
            return
        if type(chosen) is not type(action) or tuple(chosen) != tuple(action):
            self.fail(at, "bot", f"the {_bot_name(level)} bot of seat {seat} with seed {bot.seed} "
                      "does not make this move from its seat's view", text.action(chosen, seat),
                      text.action(action, seat))

    def _compare(self, group: list[Entry], produced: list[epb.TableEvent]) -> None:
        """The recorded events of a command against those decide produced, field by field."""
        self.counts["derived"] += len(produced) - 1
        if len(group) == len(produced):
            # decide's events hold only their body, so their bytes are encode_body's.
            for g, p in zip(group, produced):
                if g.payload != p.SerializeToString(deterministic=True):
                    break
            else:
                return
        matcher = difflib.SequenceMatcher(a=[p.WhichOneof("body") for p in produced],
                                          b=[g.kind for g in group], autojunk=False)
        for op, a0, a1, b0, b1 in matcher.get_opcodes():
            if op == "equal" or (op == "replace" and a1 - a0 == b1 - b0):
                for p, g in zip(produced[a0:a1], group[b0:b1]):
                    self._compare_one(g, p)
                continue
            where = group[b0].position if b0 < len(group) else group[-1].position + 1
            for p in produced[a0:a1]:
                expected = text.body(p)
                if p.HasField("deal_started") and not p.deal_started.salt:   # the placeholder's
                    d = p.deal_started
                    expected = f"deal_started {{deal_number: {d.deal_number}, dealer: {d.dealer}, a new deck}}"
                self.fail(where, "derived", f"{p.WhichOneof('body')} is missing here: the rules "
                          f"produce it after seq {group[0].position}", expected, "-")
            for g in group[b0:b1]:
                self.fail(g.position, "derived", f"{g.kind} does not follow from the action of "
                          f"seq {group[0].position}: it was added or moved", "-", text.body(g.event))

    def _compare_one(self, g: Entry, p: epb.TableEvent) -> None:
        kind = p.WhichOneof("body")
        if g.kind != kind:
            self.fail(g.position, "derived", f"the rules produce {kind} here, the log has {g.kind}",
                      text.body(p), text.body(g.event))
            return
        if g.payload == encode_body(p):
            return
        if kind in ("deal_started", "deck_revealed") and any(
                v.sequence == g.position and v.check in ("commitment", "reveal") for v in self.out.violations):
            return                                     # the deck checks reported it
        diffs = text.diff(getattr(p, kind), getattr(g.event, kind))
        for path, expected, found in diffs or [("", text.body(p), text.body(g.event))]:
            self.fail(g.position, "derived", f"{kind}.{path} is not what the rules give" if path
                      else f"{kind} is not what the rules give", expected, found)


def _next_deal(group: list[Entry], decks: dict) -> NextDeal:
    """The randomness of a deal the command may start: the deck and salt of the DealStarted
    recorded among its events (the placeholder when none is readable: if the rules deal then,
    its DealStarted is reported and the replay stops). ``decks``: position -> deck ints, as
    read by the commitment check."""
    for g in group:
        if g.kind == "deal_started":
            deck = decks.get(g.position)
            if deck is not None:
                return NextDeal(tuple(deck), g.event.deal_started.salt)
            break
    return _PLACEHOLDER_DEAL


def _bot_name(level: int) -> str:
    """A bot level's name in a finding ("level 7" for an unknown level)."""
    return BOT_LEVEL_NAMES.get(level) or f"level {level}"


def _takeover_level(state: TableState) -> int:
    """The bot level that plays for a human (a takeover, a timer move): as TableApp, the table's
    takeover_bot_level, NORMAL when unset."""
    return (state.created.takeover_bot_level if state.created else 0) or epb.BOT_LEVEL_NORMAL


_EPOCH = datetime(1970, 1, 1, tzinfo=UTC)


def _when(time_us: int) -> str:
    """A log time as an ISO 8601 UTC timestamp (microseconds)."""
    try:
        return (_EPOCH + timedelta(microseconds=time_us)).isoformat(timespec="microseconds")
    except OverflowError:
        return f"{time_us} µs"


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


__all__ = ["CHECKS", "Entry", "Review", "Violation", "entries_of", "is_command", "review"]
