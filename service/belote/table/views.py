"""What a viewer may see: the one place that hides cards and secrets.

Viewers are a seat 0..3, a spectator or a reviewer. A seat sees its own cards when they are
dealt and every card when it is played; nobody sees a deck before its deal ends (only its
commitment); token and password hashes are shown to nobody. Streams, GetTable and the bots all
go through :class:`Redactor` and :func:`table_view`.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from belote.rules.announcements import Announcement
from belote.rules.auction import PASS
from belote.rules.cards import cards_of
from belote.rules.game import (
    AUCTION,
    CHOOSING_TRUMP,
    OVER,
    PLAYING,
    Game,
    complete_hands,
    deal_all_eight,
    deal_first_five,
)
from belote.rules.options import Rules
from belote.v1 import events_pb2 as epb
from belote.v1 import table_service_pb2 as tpb

from .codec import (
    announcement_to_pb,
    bid_to_pb,
    card_from_pb,
    card_to_pb,
    cards_to_pb,
    contract_to_pb,
    deal_score_view,
    set_turn_timer,
)
from .state import BOT, EMPTY, FINISHED, HUMAN, WAITING, TableState
from .state import PLAYING as TABLE_PLAYING

SPECTATOR = -1
REVIEWER = -2


class Redactor:
    """Follows one table's log in order and shows each event as ``viewer`` may see it."""

    def __init__(self, viewer: int):
        self.viewer = viewer
        self.bidding = "two_rounds"
        self.forced_trump = False                     # all_pass=forced_trump
        self._deal: epb.DealStarted | None = None     # the current deal, its deck read when needed
        self.eldest = 0
        self._passes = 0                              # of this deal's auction, while all are

    def prime(self, state: TableState) -> None:
        """Start mid-log: take the rules and the current deal from a folded state."""
        rules = _rules(state)
        self.bidding = rules.bidding
        self.forced_trump = rules.all_pass == "forced_trump"
        if state.deal_started is not None:
            self._deal = state.deal_started
            self.eldest = (state.deal_started.dealer + 1) & 3
        auction = state.game.auction if state.game is not None else None
        calls = auction.calls if auction is not None else ()
        self._passes = len(calls) if all(call == PASS for _seat, call in calls) else -1

    def _decoded_deck(self) -> list[int]:
        # Most events hide nothing: the deck is decoded only for the few that show a hand.
        return [card_from_pb(c) for c in self._deal.deck] if self._deal is not None else []

    def see(self, event: epb.TableEvent) -> epb.TableEvent:
        """The event as the viewer sees it (a copy when anything is hidden or added)."""
        kind = event.WhichOneof("body")
        if kind == "table_created":
            self.bidding = event.table_created.options.get("bidding", "two_rounds")
            self.forced_trump = event.table_created.options.get("all_pass") == "forced_trump"
        elif kind == "deal_started":
            self._deal = event.deal_started
            self.eldest = (event.deal_started.dealer + 1) & 3
            self._passes = 0
        elif kind == "bid_made":
            self._passes = self._passes + 1 if event.bid_made.bid.passed and self._passes >= 0 else -1
        if self.viewer == REVIEWER or kind not in _HIDES:
            return event
        shown = epb.TableEvent()
        shown.CopyFrom(event)
        _HIDES[kind](self, getattr(shown, kind))
        return shown

    def _hand_now(self, taker: int | None) -> list[int]:
        deck = self._decoded_deck()
        if self.bidding == "none":
            return cards_of(deal_all_eight(deck, self.eldest)[self.viewer])
        five = deal_first_five(deck, self.eldest)
        if taker is None:
            return cards_of(five[self.viewer])
        return cards_of(complete_hands(deck, self.eldest, taker, five)[self.viewer])

    def _table_created(self, body: epb.TableCreated) -> None:
        body.ClearField("password_hash")
        body.ClearField("password_salt")
        body.ClearField("host_token_hash")

    def _seat_joined(self, body: epb.SeatJoined) -> None:
        body.ClearField("token_hash")

    def _deal_started(self, body: epb.DealStarted) -> None:
        body.ClearField("deck")
        body.ClearField("salt")
        if self.viewer >= 0:
            body.hand.extend(cards_to_pb(self._hand_now(None)))

    def _bid_made(self, body: epb.BidMade) -> None:
        # SPEC §2 forced_trump: at the eighth pass every hand is completed, the eldest's with the
        # turned card, and the eldest then chooses holding its 8.
        if self.viewer >= 0 and self._passes == 8 and self.forced_trump:
            body.hand.extend(cards_to_pb(self._hand_now(self.eldest)))

    def _contract_settled(self, body: epb.ContractSettled) -> None:
        if self.viewer >= 0:
            body.hand.extend(cards_to_pb(self._hand_now(body.taker)))

    def _chat_posted(self, body: epb.ChatPosted) -> None:
        body.spectator = body.seat < 0


# Each takes the body its event type names.
_HIDES: dict[str, Callable[[Redactor, Any], None]] = {
    "table_created": Redactor._table_created,
    "seat_joined": Redactor._seat_joined,
    "deal_started": Redactor._deal_started,
    "bid_made": Redactor._bid_made,
    "contract_settled": Redactor._contract_settled,
    "chat_posted": Redactor._chat_posted,
}

_STATUS: dict[str, tpb.TableStatus] = {WAITING: tpb.TABLE_STATUS_WAITING_FOR_PLAYERS, TABLE_PLAYING: tpb.TABLE_STATUS_PLAYING, FINISHED: tpb.TABLE_STATUS_FINISHED}
_OCCUPANT: dict[str, tpb.SeatOccupant] = {EMPTY: tpb.SEAT_OCCUPANT_EMPTY, HUMAN: tpb.SEAT_OCCUPANT_HUMAN, BOT: tpb.SEAT_OCCUPANT_BOT}


def status_to_pb(status: str) -> int:
    return _STATUS[status]


# A view is asked of a created table, most of them of a game in progress: what the caller knows.
def _created(state: TableState) -> epb.TableCreated:
    assert state.created is not None, "a view of a table that was not created"
    return state.created


def _rules(state: TableState) -> Rules:
    assert state.rules is not None, "a view of a table that was not created"
    return state.rules


def _game(state: TableState) -> Game:
    assert state.game is not None, "a game view without a game"
    return state.game


def table_view(state: TableState, viewer: int) -> tpb.Table:
    """The table as ``viewer`` (a seat or SPECTATOR) sees it now."""
    created = _created(state)
    table = tpb.Table(table_id=state.table_id, name=created.name, preset=created.preset,
                      options=dict(created.options), is_private=created.is_private, stake=created.stake,
                      status=_STATUS[state.status], version=state.version,
                      your_seat=viewer if viewer >= 0 else -1,
                      pot=state.pot if state.status == TABLE_PLAYING else 0,
                      rematch_votes=sorted(state.rematch_votes), closed=state.closed)
    set_turn_timer(table, created)
    for i, s in enumerate(state.seats):
        table.seats.add(seat=i, occupant=_OCCUPANT[s.occupant], display_name=s.display_name,
                        bot_level=s.bot_level if s.occupant == BOT else 0, bot_takeover=s.takeover,
                        player_id=s.player_id)
    if state.game is not None:
        table.game.CopyFrom(_game_view(state, viewer))
    turn_deadline = state.turn_deadline_us()
    if turn_deadline is not None:
        table.turn_deadline_time.FromMicroseconds(turn_deadline)
    rematch_deadline = state.rematch_deadline_us()
    if rematch_deadline is not None:
        table.rematch_deadline_time.FromMicroseconds(rematch_deadline)
    return table


def _game_view(state: TableState, viewer: int) -> tpb.GameView:
    game = _game(state)
    view = tpb.GameView(game_number=state.game_number, totals=game.totals, reserve=game.reserve,
                        deal_number=game.deal_number, dealer=game.dealer,
                        taker=game.taker, contract=contract_to_pb(game.contract),
                        winning_team=state.winning_team)
    to_act = state.to_act()
    view.to_act = -1 if to_act is None else to_act
    if game.phase in (AUCTION, CHOOSING_TRUMP):
        view.phase = tpb.DEAL_PHASE_AUCTION
    elif game.phase == PLAYING:
        view.phase = tpb.DEAL_PHASE_CARD_PLAY
    elif game.phase == OVER:
        view.phase = tpb.DEAL_PHASE_GAME_OVER
    else:
        view.phase = tpb.DEAL_PHASE_DEAL_OVER
    if state.deal_started is not None and game.phase in (AUCTION, CHOOSING_TRUMP, PLAYING):
        view.deck_commitment = state.deal_started.deck_commitment
        if game.turned_card >= 0:
            view.turned_card.CopyFrom(card_to_pb(game.turned_card))
        if game.auction is not None:
            for seat, call in game.auction.calls:
                view.bids.add(seat=seat, bid=bid_to_pb(call))
        if viewer >= 0:
            view.your_hand.extend(cards_to_pb(cards_of(game.hand(viewer))))
    play = game.play
    if play is not None and game.phase == PLAYING:
        for i, card in enumerate(play.trick):
            view.current_trick.add(seat=(play.leader + i) & 3, card=card_to_pb(card))
        view.trick_number = play.trick_number + 1
        view.tricks_won.extend(play.tricks_won)
        view.announcements.extend(_shown_announcements(state))
    # The deal's play, and its tricks, stay until the next deal starts (Game._reset_deal): the
    # 8th trick shows once the game is over, and a new deal or game clears it.
    if play is not None and play.tricks:
        leader, cards, winner, _points = play.tricks[-1]
        last = view.last_trick
        last.trick_number, last.winner = len(play.tricks), winner
        for i, card in enumerate(cards):
            last.cards.add(seat=(leader + i) & 3, card=card_to_pb(card))
    if state.last_score is not None:
        view.last_deal.CopyFrom(deal_score_view(state.last_score))
    return view


def _shown_announcements(state: TableState) -> list[epb.SeatAnnouncement]:
    game, rules = _game(state), _rules(state)
    shown = []
    if rules.announcements == "classic" and game.play is not None and game.play.trick_number >= 1:
        for seat in range(4):
            for a in game.classic[seat]:
                shown.append(epb.SeatAnnouncement(seat=seat, announcement=announcement_to_pb(a),
                                                  cards=cards_to_pb(cards_of(a.cards))))
    elif rules.announcements == "enhanced":
        for seat, declared in enumerate(game.declared):
            if declared is not None:
                shown.append(epb.SeatAnnouncement(seat=seat, announcement=announcement_to_pb(declared),
                                                  cards=cards_to_pb(cards_of(declared.cards))))
    return shown


@dataclass(frozen=True)
class SeatView:
    """Everything one seat knows now, as the rules' small values: what a bot decides from.

    The same information as the seat's GetTable view plus the history of the deal in its
    stream: its own hand, the auction, the played tricks, the announcements shown.
    """

    seat: int
    rules: Rules
    hand: int                        # mask of the seat's own cards
    dealer: int
    turned_card: int                 # the turned-up card; -1 with bidding=none
    bids: tuple                      # ((seat, call), ...) of this deal
    taker: int                       # -1 during the auction
    contract: int                    # -1 during the auction
    tricks: tuple                    # finished tricks: ((leader, cards, winner, points), ...)
    trick_leader: int
    trick: tuple                     # cards of the trick in progress, in play order
    announcements: tuple             # ((seat, Announcement), ...) shown so far
    totals: tuple
    reserve: int
    legal: tuple                     # the seat's legal actions now
    # ((seat, card, "belote" | "rebelote"), ...): called aloud as the card was played (SPEC §5)
    belote_calls: tuple = ()


def seat_view(state: TableState, seat: int) -> SeatView:
    """What ``seat`` knows of the deal in progress (nothing of another hand)."""
    game, rules = _game(state), _rules(state)
    play = game.play
    shown: tuple[tuple[int, Announcement], ...] = ()
    if play is not None:
        if rules.announcements == "classic" and play.trick_number >= 1:
            shown = tuple((s, a) for s in range(4) for a in game.classic[s])
        elif rules.announcements == "enhanced":
            shown = tuple((s, a) for s, a in enumerate(game.declared) if a is not None)
    return SeatView(
        seat=seat, rules=rules, hand=game.hand(seat), dealer=game.dealer,
        turned_card=game.turned_card, bids=tuple(game.auction.calls) if game.auction else (),
        taker=game.taker, contract=game.contract,
        tricks=tuple(play.tricks) if play else (), trick_leader=play.leader if play else -1,
        trick=tuple(play.trick) if play else (), announcements=shown,
        totals=tuple(game.totals), reserve=game.reserve,
        legal=tuple(game.legal_actions(seat)),
        belote_calls=tuple(play.belote_calls) if play else ())
