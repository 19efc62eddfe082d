"""``review(entries)``: every check over a table's log, replayed with the server's own code.

The entry point of the review; the checks themselves live beside it (``integrity``,
``commands``, ``derived``, ``bot_check``, driven by ``replay``).
"""

from __future__ import annotations

import gc

from .entries import (
    ACTIONS,
    COMMANDS,
    DERIVED,
    Entry,
    entries_of,
    entries_of_stored,
    export_of,
    is_command,
)
from .findings import CHECKS, Review, Violation
from .head import ExportEnd
from .replay import Replay


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
      request id the server's bot loop gives it (``request_ids.bot_move(sequence)``), or, for a
      timer move, by the table's takeover bot level under the request id of the server's deadline
      sweep (``request_ids.deadline(TIMER, sequence - 1)``); and it is what ``belote.bots.choose(level, seat_view(state, seat), seed,
      version)`` returns on the state folded up to just before it, with the bot version the move
      recorded (0 in logs from before versions were recorded).
    - ``head``: for an export, its last line is the head the server signed (table id, last sequence
      and hash), it matches the last event, and its signature is good, by the server's key when the
      reviewer gives it (:mod:`belote.review.head`): what shows an edit made with the hash chain
      recomputed, and a log cut at any event. Else by a key the reviewer pinned: a good head by
      another key is no violation but ``Review.unknown_key`` (exit code 3).

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
        return Replay(check_bots, fast).run(entries, end)
    finally:
        if was_enabled:
            gc.enable()


__all__ = ["ACTIONS", "CHECKS", "COMMANDS", "DERIVED", "Entry", "Review", "Violation", "entries_of",
           "entries_of_stored", "export_of", "is_command", "review"]
