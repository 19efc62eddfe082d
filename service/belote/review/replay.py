"""The replay of one log: each command sent through table/'s ``decide``, the state moved on by
table/'s ``evolve``, as the server does it; the checks of each step in their own modules."""

from __future__ import annotations

from belote.rules import IllegalAction, InvalidOptions
from belote.rules.game import DEALING, OVER
from belote.table.codec import BadMessage
from belote.table.decide import (
    Act,
    NextDeal,
    Refused,
    TimerMove,
    action_event,
    belote_call,
    decide,
    game_over_events,
    outcome_events,
)
from belote.table.state import PLAYING, TableState, evolve, evolve_body
from belote.v1 import events_pb2 as epb

from . import text
from .bot_check import MOVE_DIFFERS, BotCheck
from .commands import PLAY_OF, action_of, not_due, seat_command
from .derived import compare
from .entries import ACTIONS, Entry
from .findings import CHECKS, Review, Violation
from .head import ExportEnd, check_end
from .integrity import LogCheck

_GOES_ON_AT = {"deal_started": "where the log deals again", "game_ended": "where the game ends"}
_PLACEHOLDER_DEAL = NextDeal(tuple(range(32)), b"")


class Replay:
    """The review of one log.

    Each command event is turned back into the command it records (:mod:`.commands`), with the
    deck and salt of the DealStarted recorded after it as the deal's randomness and the event's
    own time as the command's ``now_us``; the events ``decide`` produces must be those recorded
    up to the next command event (:mod:`.derived`), and the state moves on by them with
    ``evolve``, so a wrong derived event is reported once and does not derail the rest.

    The fast path (``fast=True``) runs a bid, declaration or card that is no timer move through
    decide's own steps on the replay's game, in place instead of on a copy (``Game.apply``,
    ``action_event``, ``outcome_events``, ``game_over_events``), then folds the events with
    ``evolve_body(..., move_game=False)``; ``fast=False`` sends every command through ``decide``
    and ``evolve``, and tests/review expect both to give the same findings and states.

    A command that cannot be replayed (an illegal action, a deal with no readable deck) stops
    the game replay: the replay then takes the log's word for the game (``_from_log``) and goes
    on checking at the next deal the log starts or at the end of the game, so every violation
    is listed; the seat and table commands are checked meanwhile.
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
        self.bots = BotCheck(self.fail, check_bots, self.counts)

    def fail(self, sequence: int, check: str, message: str, expected="", found="", rule="") -> None:
        self.out.violations.append(Violation(sequence, check, message, str(expected), str(found), rule))

    def run(self, entries: list[Entry], end: ExportEnd | None = None) -> Review:
        out = self.out
        out.events = len(entries)
        if entries:
            out.table_id = entries[0].table_id
        self.decks = LogCheck(self.fail, self.counts).run(entries, out.table_id)
        self._replay(entries)
        if end is not None:
            self.counts["head"] += 1
            out.unknown_key = check_end(entries, end, self.fail, out.notes)
        out.violations.sort(key=lambda v: v.sequence)     # stable: a place's findings keep their order
        if any(v.check == "bot" and v.message.endswith(MOVE_DIFFERS) for v in out.violations):
            out.notes.append("bot moves are recomputed with the bots of this build, at the bot "
                             "version each move recorded: a build that changed a version's "
                             "algorithm does not match")
        out.checks = self.counts
        return out

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
            # decide refuses any action at a closed table, which only the log's word can close
            # during a game: from there every command goes through decide.
            fast = fast and not state.closed
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

    # After a command it could not replay: the log's word ---------------------------------------
    def _from_log(self, state: TableState, group: list[Entry]) -> Entry | None:
        """Move the state on by the log's own events of a command the replay could not check: the
        seats, clock, scores and game ends as the log gives them, its actions not played on the
        replay's game. Returns the event where the replay can check again, if one is here: a deal
        the log starts (its deck dealt on the replay's game, by the log's dealer, with the scores
        of the log's last DealScored), or the end of the game."""
        timeline = self.timeline
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

    # Through decide, as the server -------------------------------------------------------------
    def _decide(self, state: TableState, group: list[Entry]) -> bool:
        """Check one command with decide and the events it produced; False when the replay
        cannot go on from it (it takes the log's word then: ``_from_log``)."""
        e = group[0]
        kind = e.kind
        at = e.position
        is_act = kind in ACTIONS
        try:
            command = Act(*action_of(e)) if is_act else seat_command(state, e, self.fail)
        except BadMessage as err:
            self.fail(at, "legal", f"{kind}: {err}", rule="BAD_MESSAGE")
            return False
        if command is None:
            return state.exists
        if is_act and command.bot is not None:
            self.bots.check(state, e, command.seat, command.action, command.bot)
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
            not_due(state, e, command.seat, self.fail)
            return decide(state, command, next_deal)

    def _follow(self, state: TableState, group: list[Entry], produced: list, next_deal: NextDeal) -> bool:
        """Move the state on by the recomputed events of a seat or table command, each folded at
        the time the log gives the event in its place (the last one's for any beyond it)."""
        if next_deal is _PLACEHOLDER_DEAL and self._no_deck(group, [p.WhichOneof("body") for p in produced]):
            return False
        timeline = self.timeline
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

    # Decide's steps of an action, in place ------------------------------------------------------
    def _act(self, state: TableState, group: list[Entry]) -> bool:
        """A bid or a declaration while the game is on: decide's ``_act``, in place (a card: ``_play``).

        decide's ``_act`` applies the action to (a copy of) the game, builds the action's own
        event with ``action_event``, then the events that follow with ``outcome_events`` (and
        ``game_over_events`` when the game ends); here the same functions run on the replay's
        game. A bad message and a timer move (decide judges it due) go to ``_decide``.
        """
        e = group[0]
        try:
            seat, action, bot = action_of(e)
        except BadMessage:
            return self._decide(state, group)
        if bot is not None:
            if bot.timer:
                return self._decide(state, group)
            self.bots.check(state, e, seat, action, bot)
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
        """A card played while the game is on: ``_act`` for the most common event of a log, the
        card through ``Game.play_card`` (``apply`` for a card, with the same refusals)."""
        e = group[0]
        body = e.event.card_played
        c = body.card
        action = PLAY_OF.get((c.suit, c.rank))
        if action is None:                       # not a card: decide's path reports it
            return self._decide(state, group)
        seat = body.seat
        bot = None
        if body.HasField("bot"):
            bot = body.bot
            if bot.timer:
                return self._decide(state, group)
            self.bots.check(state, e, seat, action, bot)
        try:
            outcomes = state.game.play_card(seat, action.card)
        except IllegalAction as err:
            self.fail(e.position, "legal", f"{text.action(action, seat)}: illegal: {err.message}",
                      rule=err.reason)
            return False
        if not outcomes and not body.belote and len(group) == 1:
            # Most cards: no outcome (so no belote call for action_event to fill in, the event
            # read back as logged) and nothing recorded after it.
            self.timeline.append((e.position, e.event))
            evolve_body(state, "card_played", body, e.position, e.at_us, False)
            return True
        # The seat, card and bot are the logged event's: only its belote call is the rules'.
        own = (None if body.belote == belote_call(outcomes)
               else action_event(state.game, seat, action, outcomes, bot))
        return self._after_action(state, group, own, outcomes)

    def _after_action(self, state: TableState, group: list[Entry], own, outcomes: list) -> bool:
        """The events that follow an action the replay's game has applied (``outcomes``), made by
        decide's steps, against the log's; then the state moves on. ``own``: the action's event
        as the rules make it when it differs from the logged one, else None."""
        e = group[0]
        game = state.game
        if not outcomes and own is None and len(group) == 1:   # nothing follows, as logged
            self.timeline.append((e.position, e.event))
            evolve_body(state, e.kind, getattr(e.event, e.kind), e.position, e.at_us, False)
            return True
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
            if own is None:                          # the logged event, as decide's hold it
                produced[0] = own = epb.TableEvent()
                own.CopyFrom(e.event)
                own.ClearField("sequence"), own.ClearField("table_id"), own.ClearField("append_time")
            self._compare(group, produced)
            kinds = [p.WhichOneof("body") for p in produced]
        return self._follow_action(state, group, produced, kinds, next_deal)

    def _follow_action(self, state: TableState, group: list[Entry], produced: list, kinds: list,
                       next_deal: NextDeal) -> bool:
        """``_follow`` for the events of an action decide's steps made on the replay's game
        (``kinds``: their bodies): folded by ``evolve_body``, the game left as it moved."""
        if next_deal is _PLACEHOLDER_DEAL and self._no_deck(group, kinds):
            return False
        timeline = self.timeline
        last = len(group) - 1
        seq = group[0].position
        for k, p in enumerate(produced):
            timeline.append((seq + k, p))
            kind = kinds[k]
            evolve_body(state, kind, getattr(p, kind), seq + k, group[k if k < last else last].at_us,
                        False)
        state.version = group[-1].position
        return True

    # The checks of a step ----------------------------------------------------------------------
    def _compare(self, group: list[Entry], produced: list) -> None:
        self.counts["derived"] += len(produced) - 1
        compare(group, produced, self.fail, self.out.violations)

    def _no_deck(self, group: list[Entry], kinds: list) -> bool:
        """True (with a note) when the rules deal a new deck after this command (``kinds``: the
        events they produce) but the log holds no readable deck for it (the placeholder deal was
        given): the game cannot be replayed further."""
        if len(kinds) > 1 and "deal_started" in kinds:
            self.out.notes.append(f"seq {group[0].position}: a deal starts here but the log holds no "
                                  "readable deck for it: the game cannot be replayed from there")
            return True
        return False


def _next_deal(group: list[Entry], decks: dict) -> NextDeal:
    """The randomness of a deal the command may start: the deck and salt of the DealStarted
    recorded among its events (the placeholder when none is readable: if the rules deal then,
    its DealStarted is reported and the replay stops). ``decks``: position -> deck ints, as
    read by the deck checks."""
    for g in group:
        if g.kind == "deal_started":
            deck = decks.get(g.position)
            if deck is not None:
                return NextDeal(tuple(deck), g.event.deal_started.salt)
            break
    return _PLACEHOLDER_DEAL
