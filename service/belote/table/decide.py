"""The decider: ``decide(state, command)`` returns the events a command produces, or raises.

Pure: the deck of a deal that may start, its salt and any bot seed come in with the command,
chosen by the caller, so the log holds every random choice and a replay needs no RNG.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass

from belote.rules import Game, IllegalAction
from belote.rules.actions import Bid, Declare, Play
from belote.rules.cards import cards_of
from belote.rules.game import (
    AllPassed,
    AnnouncementsRevealed,
    BeloteCalled,
    ContractSettled,
    GameOver,
    TrickWon,
)
from belote.rules.chips import share_pot
from belote.rules.result import DealResult
from belote.v1 import events_pb2 as epb

from .codec import (
    add_cards,
    announcement_to_pb,
    bid_to_pb,
    card_to_pb,
    cards_to_pb,
    contract_to_pb,
    deal_scored_to_pb,
    team_to_pb,
)
from .state import (
    BOT,
    CHAT_BURST,
    CHAT_WINDOW_S,
    FINISHED,
    HUMAN,
    PLAYING,
    WAITING,
    TableState,
    chat_author,
    evolve,
)


class Refused(Exception):
    """A command the table's state does not allow (FAILED_PRECONDITION with ``reason``)."""

    def __init__(self, reason: str, message: str):
        super().__init__(message)
        self.reason = reason
        self.message = message


@dataclass(frozen=True)
class NextDeal:
    """The randomness of a deal that may start: deck order (top first) and commitment salt.
    (Any object with these two attributes will do: the app shuffles only when one is read.)"""

    deck: tuple
    salt: bytes


@dataclass(frozen=True)
class CreateTable:
    created: epb.TableCreated


@dataclass(frozen=True)
class JoinSeat:
    seat: int | None
    display_name: str
    token_hash: bytes
    player_id: str = ""


@dataclass(frozen=True)
class SeatBot:
    seat: int | None
    level: epb.BotLevel


@dataclass(frozen=True)
class LeaveSeat:
    seat: int
    bot_level: epb.BotLevel
    reason: epb.SeatLeftReason = epb.SEAT_LEFT_REASON_LEFT          # or DISCONNECTED: its grace ran out


@dataclass(frozen=True)
class Disconnect:
    seat: int


@dataclass(frozen=True)
class Reconnect:
    seat: int


@dataclass(frozen=True)
class ReclaimSeat:
    seat: int


@dataclass(frozen=True)
class Act:
    seat: int
    action: Bid | Declare | Play
    bot: epb.BotMove | None = None


@dataclass(frozen=True)
class TimerMove:
    """A bot's move for a human seat whose turn timer ran out by ``now_us``."""

    seat: int
    action: Bid | Declare | Play
    bot: epb.BotMove
    now_us: int


@dataclass(frozen=True)
class PostChat:
    seat: int                       # -1: a spectator
    display_name: str
    text: str
    now_us: int


@dataclass(frozen=True)
class VoteRematch:
    seat: int
    now_us: int


@dataclass(frozen=True)
class CloseTable:
    """Close a table whose rematch vote ran out by ``now_us``."""

    now_us: int


def deck_commitment(deck, salt: bytes) -> bytes:
    """sha256 over the 32 card numbers (suit*8 + rank, one byte each, top first) then the salt."""
    return hashlib.sha256(bytes(deck) + salt).digest()


def _ev(**body) -> epb.TableEvent:
    return epb.TableEvent(**body)


def decide(state: TableState, command, next_deal: NextDeal) -> list[epb.TableEvent]:
    if isinstance(command, CreateTable):
        if state.exists:
            raise Refused("TABLE_EXISTS", "this table already exists")
        return [_ev(table_created=command.created)]
    if not state.exists:
        raise Refused("TABLE_NOT_FOUND", "no such table")
    if isinstance(command, PostChat):
        return _chat(state, command)
    if state.closed:
        raise Refused("TABLE_CLOSED", "this table is closed")
    if isinstance(command, JoinSeat):
        seat = _free_seat(state, command.seat)
        if command.player_id and any(s.player_id == command.player_id for s in state.seats):
            raise Refused("ALREADY_SEATED", "you already hold a seat at this table")
        return _start_if_full(state, _ev(seat_joined=epb.SeatJoined(
            seat=seat, display_name=command.display_name, token_hash=command.token_hash,
            player_id=command.player_id)), next_deal)
    if isinstance(command, SeatBot):
        seat = _free_seat(state, command.seat)
        return _start_if_full(state, _ev(bot_seated=epb.BotSeated(seat=seat, level=command.level)),
                              next_deal)
    if isinstance(command, LeaveSeat):
        if state.status == FINISHED:
            raise Refused("GAME_OVER", "the game is over")
        if state.seats[command.seat].occupant != HUMAN:
            raise Refused("NOT_SEATED", "this seat was already left")
        events = [_ev(seat_left=epb.SeatLeft(seat=command.seat, reason=command.reason))]
        if state.status == PLAYING:      # a bot takes the seat at once
            events.append(_ev(bot_seated=epb.BotSeated(seat=command.seat, level=command.bot_level,
                                                       takeover=True)))
        return events
    if isinstance(command, Disconnect):
        held = state.seats[command.seat]
        if state.status != PLAYING or held.occupant != HUMAN or held.disconnected_at_us:
            raise Refused("NOT_CONNECTED", "this seat is not connected")
        return [_ev(seat_disconnected=epb.SeatDisconnected(seat=command.seat))]
    if isinstance(command, Reconnect):
        if not state.seats[command.seat].disconnected_at_us:
            raise Refused("NOT_DISCONNECTED", "this seat is connected")
        return [_ev(seat_connected=epb.SeatConnected(seat=command.seat))]
    if isinstance(command, ReclaimSeat):
        held = state.seats[command.seat]
        if state.status == FINISHED:
            raise Refused("GAME_OVER", "the game is over")
        if held.occupant != BOT or not held.takeover:
            raise Refused("SEAT_NOT_LEFT", "you hold this seat already")
        return [_ev(seat_reclaimed=epb.SeatReclaimed(seat=command.seat))]
    if isinstance(command, Act):
        return _act(state, command, next_deal)
    if isinstance(command, TimerMove):
        deadline = state.turn_deadline_us()
        if deadline is None or state.to_act() != command.seat or command.now_us < deadline:
            raise Refused("TIMER_NOT_DUE", "this seat's turn timer has not run out")
        bot = epb.BotMove(level=command.bot.level, seed=command.bot.seed, timer=True,
                         version=command.bot.version)
        return _act(state, Act(command.seat, command.action, bot), next_deal)
    if isinstance(command, VoteRematch):
        return _vote_rematch(state, command, next_deal)
    if isinstance(command, CloseTable):
        deadline = state.rematch_deadline_us()
        if deadline is None:
            raise Refused("GAME_NOT_OVER", "no game is over at this table")
        if command.now_us < deadline:
            raise Refused("REMATCH_VOTE_OPEN", "the rematch vote is still open")
        return [_ev(table_closed=epb.TableClosed(reason=epb.TABLE_CLOSED_REASON_NO_REMATCH))]
    raise TypeError(f"not a command: {command!r}")


def _free_seat(state: TableState, wanted: int | None) -> int:
    if state.status == FINISHED:
        raise Refused("GAME_OVER", "the game is over")
    free = state.free_seats() if state.status == WAITING else []
    if wanted is None:
        if not free:
            raise Refused("TABLE_FULL", "the table is full")
        return free[0]
    if wanted not in free:
        raise Refused("SEAT_TAKEN", f"seat {wanted} is taken")
    return wanted


def _start_if_full(state: TableState, seated: epb.TableEvent,
                   next_deal: NextDeal) -> list[epb.TableEvent]:
    """The seating event, then the game's start if it filled the 4th seat."""
    after = evolve(state.copy(), seated)
    if after.free_seats():
        return [seated]
    assert after.rules is not None  # a table with seats was created, with its rules
    return [seated] + _new_game(after, after.rules.first_dealer, next_deal)


def _new_game(state: TableState, first_dealer: int, next_deal: NextDeal) -> list[epb.TableEvent]:
    """GameStarted (every human seat pays the stake into the pot) and its first deal."""
    assert state.created is not None and state.rules is not None
    game = Game(state.rules)
    game.dealer = first_dealer
    stake = state.created.stake
    paying = state.humans() if stake else []
    started = epb.GameStarted(game_number=state.game_number + 1, first_dealer=first_dealer,
                              pot=stake * len(paying), paying_seats=paying)
    return [_ev(game_started=started)] + _deal(game, next_deal)


def _chat(state: TableState, command: PostChat) -> list[epb.TableEvent]:
    if state.closed:
        raise Refused("TABLE_CLOSED", "this table is closed")
    chat = epb.ChatPosted(seat=command.seat, display_name=command.display_name, text=command.text)
    # A seat's rate is the log's; a spectator's is its caller's (the app's), never its name's:
    # anyone may give a name, and would hold back who else gives it.
    if chat.seat >= 0 and state.chats_of(chat_author(chat), command.now_us) >= CHAT_BURST:
        raise Refused("CHAT_TOO_FAST", f"at most {CHAT_BURST} messages per {CHAT_WINDOW_S} seconds")
    return [_ev(chat_posted=chat)]


def _vote_rematch(state: TableState, command: VoteRematch,
                  next_deal: NextDeal) -> list[epb.TableEvent]:
    deadline = state.rematch_deadline_us()
    if deadline is None:
        raise Refused("GAME_NOT_OVER", "no game is over at this table")
    if command.now_us >= deadline:
        raise Refused("REMATCH_VOTE_OVER", "the rematch vote is over")
    if state.seats[command.seat].occupant != HUMAN:
        raise Refused("NOT_SEATED", "you no longer hold this seat")
    if command.seat in state.rematch_votes:
        raise Refused("ALREADY_VOTED", "you have voted for a rematch already")
    events = [_ev(rematch_voted=epb.RematchVoted(seat=command.seat))]
    if set(state.humans()) <= state.rematch_votes | {command.seat}:
        events += _new_game(state, (state.first_dealer + 1) & 3, next_deal)
    return events


def _deal(game, next_deal: NextDeal) -> list[epb.TableEvent]:
    """DealStarted for the next deal (and, with bidding=none, its contract at once)."""
    deck = list(next_deal.deck)
    outcomes = game.start_deal(deck)
    started = epb.DealStarted(deal_number=game.deal_number, dealer=game.dealer,
                              salt=next_deal.salt, deck_commitment=deck_commitment(deck, next_deal.salt))
    add_cards(started, "deck", deck)
    if game.turned_card >= 0:
        started.turned_card.CopyFrom(card_to_pb(game.turned_card))
    return [_ev(deal_started=started)] + outcome_events(game, outcomes, None, next_deal)


def action_event(game, seat: int, action, outcomes, bot: epb.BotMove | None) -> epb.TableEvent:
    """The event of a seat's action, once ``game`` has applied it (and returned ``outcomes``)."""
    if isinstance(action, Bid):
        return _ev(bid_made=epb.BidMade(seat=seat, bid=bid_to_pb(action.contract), bot=bot))
    if isinstance(action, Declare):
        made = game.declared[seat]
        return _ev(announcement_declared=epb.AnnouncementDeclared(
            seat=seat, announcement=announcement_to_pb(made), bot=bot,
            cards=cards_to_pb(cards_of(made.cards))))
    assert isinstance(action, Play)
    return _ev(card_played=epb.CardPlayed(seat=seat, card=card_to_pb(action.card), bot=bot,
                                          belote=belote_call(outcomes)))


def belote_call(outcomes) -> epb.BeloteCall:
    """The BeloteCall a card's event carries, from the outcomes of playing it."""
    for o in outcomes:
        if isinstance(o, BeloteCalled):
            return epb.BELOTE_CALL_BELOTE if o.call == "belote" else epb.BELOTE_CALL_REBELOTE
    return epb.BELOTE_CALL_UNSPECIFIED


def _act(state: TableState, command: Act, next_deal: NextDeal) -> list[epb.TableEvent]:
    if state.status == WAITING:
        raise Refused("GAME_NOT_STARTED", "the game has not started: four seats must be filled")
    if state.status == FINISHED:
        raise Refused("GAME_OVER", "the game is over")
    assert state.game is not None  # a table playing or finished has its game
    game = state.game.copy()
    outcomes = game.apply(command.seat, command.action)       # raises IllegalAction
    events = [action_event(game, command.seat, command.action, outcomes, command.bot)]
    events += outcome_events(game, outcomes, state.deal_started, next_deal)
    if events[-1].HasField("game_ended"):
        events += game_over_events(state, events[-1].game_ended)
    return events


def game_over_events(state: TableState, ended: epb.GameEnded) -> list[epb.TableEvent]:
    """Fill the game's chips and rating flag in; with no human left, the table closes at once."""
    if state.pot and state.created is not None:
        ended.payouts.extend(share_pot(state.created.stake, state.paying_seats, ended.winning_team))
    ended.rated = state.rated
    if state.humans():
        return []
    return [_ev(table_closed=epb.TableClosed(reason=epb.TABLE_CLOSED_REASON_NO_HUMANS))]


def outcome_events(game, outcomes, deal_started: epb.DealStarted | None,
                    next_deal: NextDeal) -> list[epb.TableEvent]:
    events = []
    for o in outcomes:
        if isinstance(o, ContractSettled):
            events.append(_ev(contract_settled=epb.ContractSettled(
                taker=o.taker, contract=contract_to_pb(o.contract),
                forced=o.forced)))
        elif isinstance(o, AllPassed):
            events.append(_ev(all_passed=epb.AllPassed(deal_number=o.deal_number)))
            events.append(_reveal(deal_started, game.deck))
            events += _deal(game, next_deal)
        elif isinstance(o, TrickWon):
            events.append(_ev(trick_won=epb.TrickWon(trick_number=o.number, winner=o.winner,
                                                     points=o.points)))
        elif isinstance(o, AnnouncementsRevealed):
            shown = [epb.SeatAnnouncement(seat=s, announcement=announcement_to_pb(a),
                                          cards=cards_to_pb(cards_of(a.cards)))
                     for s, a in o.by_seat]
            events.append(_ev(announcements_revealed=epb.AnnouncementsRevealed(
                announcements=shown, scoring_team=team_to_pb(o.scoring_team))))
        elif isinstance(o, DealResult):
            events.append(_ev(deal_scored=deal_scored_to_pb(o, game.deal_number, game.totals)))
            events.append(_reveal(deal_started, game.deck))
            if game.phase == "dealing":
                events += _deal(game, next_deal)
        elif isinstance(o, GameOver):
            events.append(_ev(game_ended=epb.GameEnded(winning_team=o.winning_team,
                                                       totals=list(o.totals))))
    # The game-over event must follow the reveal of the last deck: move it last.
    events.sort(key=lambda e: e.WhichOneof("body") == "game_ended")
    return events


def _reveal(deal_started: epb.DealStarted | None, deck: list[int]) -> epb.TableEvent:
    """The deck and salt of the deal that ended (``deck``: the game's, the same cards as
    ``deal_started.deck``)."""
    assert deal_started is not None  # a deal that ends was started
    revealed = epb.DeckRevealed(deal_number=deal_started.deal_number, salt=deal_started.salt)
    add_cards(revealed, "deck", deck)
    return _ev(deck_revealed=revealed)


__all__ = [
    "BOT",
    "HUMAN",
    "Act",
    "CloseTable",
    "CreateTable",
    "IllegalAction",
    "JoinSeat",
    "LeaveSeat",
    "NextDeal",
    "PostChat",
    "Refused",
    "SeatBot",
    "TimerMove",
    "VoteRematch",
    "decide",
    "deck_commitment",
    "game_over_events",
    "share_pot",
]
