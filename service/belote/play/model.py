"""The table as one player sees it, and how to say it: pure functions, no I/O, no Textual.

The player sits South. The others are named by where they sit: North is the partner, and the
screen says so (the compass, the legend, the scores: "you & partner" against "East & West"); East
and West depend on the table's ``play_direction`` (counter-clockwise, the French way, play passes
to the right: South, East, North, West).
"""

from __future__ import annotations

from dataclasses import dataclass, field

# belote.play (imported first, as this module's package) makes belote_client importable.
from belote_client.cards import (
    RED_SUITS,
    action_text,
    announcement_text,
    bid_text,
    card_text,
    contract_text,
    sort_hand,
    trump_suits,
)
from rich.text import Text

from belote.v1 import cards_pb2 as c
from belote.v1 import events_pb2 as ev
from belote.v1 import table_service_pb2 as pb

POSITIONS = ("South", "East", "North", "West")  # counter-clockwise from the player
US, THEM = "you & partner", "East & West"
BOT_LEVEL = {ev.BOT_LEVEL_EASY: "easy", ev.BOT_LEVEL_NORMAL: "normal", ev.BOT_LEVEL_HARD: "hard"}
BID_KEYS = {"p": None, "c": c.CONTRACT_CLUBS, "d": c.CONTRACT_DIAMONDS, "h": c.CONTRACT_HEARTS,
            "s": c.CONTRACT_SPADES, "n": c.CONTRACT_NO_TRUMP, "a": c.CONTRACT_ALL_TRUMP}
ANNOUNCE_KEYS = "uvwxyz"
OUTCOME = {ev.DEAL_OUTCOME_MADE: "made", ev.DEAL_OUTCOME_FAILED: "failed", ev.DEAL_OUTCOME_CAPOT_MADE: "capot",
           ev.DEAL_OUTCOME_CAPOT_AGAINST: "capot against the taker", ev.DEAL_OUTCOME_LITIGE_RESERVE: "litige (reserve)",
           ev.DEAL_OUTCOME_LITIGE_DEDANS: "litige (dedans)"}


def card_markup(card: c.Card, style: str = "") -> Text:
    """A card in its suit's colour (red for hearts and diamonds)."""
    colour = "red" if card.suit in RED_SUITS else ""
    return Text(card_text(card), style=" ".join(s for s in (colour, style) if s))


@dataclass
class Player:
    """Who the player is: seat and token (to act), and how the others sit around."""

    seat: int
    clockwise: bool = False

    def position(self, seat: int) -> str:
        """``You``, ``East``, ``North`` or ``West``."""
        offset = (seat - self.seat) % 4
        if offset == 0:
            return "You"
        if self.clockwise and offset in (1, 3):
            offset = 4 - offset
        return POSITIONS[offset]

    def team(self, seat: int | None = None) -> int:
        return (self.seat if seat is None else seat) % 2


@dataclass
class TableModel:
    """What the screen shows: the latest view and legal actions, the last trick, the log."""

    player: Player
    table: pb.Table = field(default_factory=pb.Table)
    legal: pb.GetLegalActionsResponse = field(default_factory=pb.GetLegalActionsResponse)
    last_trick: list[ev.CardPlayed] = field(default_factory=list)
    last_trick_winner: int = -1
    _trick: list[ev.CardPlayed] = field(default_factory=list)
    message: Text = field(default_factory=Text)

    # -- names ------------------------------------------------------------------------------

    def name(self, seat: int) -> str:
        """``You``, ``East (Bob)``, ``North, your partner (Ann)``, ``West (normal bot)``."""
        if seat == self.player.seat:
            return "You"
        partner = ", your partner" if self.player.team(seat) == self.player.team() else ""
        return f"{self.player.position(seat)}{partner} ({who(self, seat)})"

    def teams(self, values) -> str:
        us, them = values[self.player.team()], values[1 - self.player.team()]
        return f"{US} {us} · {THEM} {them}"

    def team_name(self, team: int) -> str:
        """Who a team is, as the player sees it: ``you and your partner`` or ``East and West``."""
        return "you and your partner" if team == self.player.team() else "East and West"

    # -- events -> the log --------------------------------------------------------------------

    def on_event(self, event: ev.TableEvent) -> str | None:
        """Note what an event changes that a view does not keep (the last trick) and return
        the log line for it (None: nothing worth a line)."""
        kind = event.WhichOneof("body")
        body = getattr(event, kind) if kind else None
        if kind == "card_played":
            self._trick.append(body)
        elif kind == "trick_won":
            self.last_trick, self.last_trick_winner = self._trick, body.winner
            self._trick = []
        elif kind in ("deal_started", "all_passed"):
            self._trick = []
            if kind == "deal_started":
                self.last_trick, self.last_trick_winner = [], -1
        return describe(self, event)

    # -- what may be done ------------------------------------------------------------------------

    def hand(self) -> list[c.Card]:
        game = self.table.game
        return sort_hand(game.your_hand, game.contract) if self.table.HasField("game") else []

    def legal_keys(self) -> dict[str, c.Action]:
        """Each legal action under the key that takes it: 1..8 for the cards of the hand,
        p/c/d/h/s/n/a for bids, u..z for announcements."""
        keys: dict[str, c.Action] = {}
        if not self.legal.your_turn:
            return keys
        hand = [(x.suit, x.rank) for x in self.hand()]
        announce = iter(ANNOUNCE_KEYS)
        for action in self.legal.actions:
            kind = action.WhichOneof("action")
            if kind == "card" and (action.card.suit, action.card.rank) in hand:
                keys[str(hand.index((action.card.suit, action.card.rank)) + 1)] = action
            elif kind == "bid":
                contract = None if action.bid.passed else action.bid.contract
                for key, value in BID_KEYS.items():
                    if value == contract:
                        keys[key] = action
            elif kind == "announce":
                key = next(announce, None)
                if key:
                    keys[key] = action
        return keys

    def action_for_key(self, key: str) -> c.Action | None:
        """The action a key asks for, legal or not (the server says why not): a card of the
        hand by its number, a bid by its letter, an announcement offered now by its letter."""
        legal = self.legal_keys()
        if key in legal:
            return legal[key]
        hand = self.hand()
        if key.isdigit() and 1 <= int(key) <= len(hand):
            return c.Action(card=hand[int(key) - 1])
        if key in BID_KEYS:
            contract = BID_KEYS[key]
            return c.Action(bid=c.Bid(passed=True) if contract is None else
                            c.Bid(contract=contract))
        return None

    def to_act_name(self) -> str | None:
        game = self.table.game
        if not self.table.HasField("game") or game.to_act < 0:
            return None
        return self.name(game.to_act)


def who(model: TableModel, seat: int) -> str:
    """``Bob``, ``normal bot``, ``hard takeover bot`` or ``empty``."""
    seats = model.table.seats
    info = seats[seat] if seat < len(seats) else None
    if info is None or info.occupant in (pb.SEAT_OCCUPANT_EMPTY, pb.SEAT_OCCUPANT_UNSPECIFIED):
        return "empty"
    if info.occupant == pb.SEAT_OCCUPANT_HUMAN:
        return info.display_name
    kind = "takeover bot" if info.bot_takeover else "bot"
    return f"{BOT_LEVEL.get(info.bot_level, '')} {kind}".strip()


# ------------------------------------------------------------------------------- log lines

def describe(model: TableModel, event: ev.TableEvent) -> str | None:
    kind = event.WhichOneof("body")
    if kind is None:
        return None
    b = getattr(event, kind)
    name = model.player.position  # short: the players' names are on the table's legend
    if kind == "table_created":
        return f"Table created ({b.preset}, to {b.options.get('target', '?')} points)"
    if kind == "seat_joined":
        if b.seat == model.player.seat:
            return f"You sat down as {b.display_name}"
        return f"{b.display_name} sat down {name(b.seat)}"
    if kind == "seat_left":
        if b.reason != ev.SEAT_LEFT_REASON_DISCONNECTED:
            return f"{name(b.seat)} left"
        return "You were disconnected" if b.seat == model.player.seat else \
            f"{name(b.seat)} was disconnected"
    if kind == "bot_seated":
        level = BOT_LEVEL.get(b.level, "")
        if b.takeover:
            return f"A {level} bot takes over {model.player.position(b.seat)}"
        return f"A {level} bot sat down {model.player.position(b.seat)}"
    if kind == "seat_reclaimed":
        if b.seat == model.player.seat:
            return "You took your seat back from the bot"
        return f"{name(b.seat)} is back"
    if kind == "seat_disconnected":
        return f"{name(b.seat)} lost the connection"
    if kind == "seat_connected":
        return f"{name(b.seat)} reconnected"
    if kind == "game_started":
        return f"Game {b.game_number} starts"
    if kind == "deal_started":
        turned = f", turned card {card_text(b.turned_card)}" if b.HasField("turned_card") else ""
        return f"Deal {b.deal_number}: {name(b.dealer)} dealt{turned}"
    if kind == "bid_made":
        verb = "pass" if b.bid.passed else f"bid {bid_text(b.bid)}"
        return f"{name(b.seat)}: {verb}"
    if kind == "all_passed":
        return "Everyone passed: the cards are dealt again"
    if kind == "contract_settled":
        forced = " (forced)" if b.forced else ""
        return f"{name(b.taker)} took: {contract_text(b.contract)}{forced}"
    if kind == "announcement_declared":
        return f"{name(b.seat)} announced {announcement_text(b.announcement)}"
    if kind == "announcements_revealed":
        shown = "; ".join(f"{name(a.seat)}: {announcement_text(a.announcement)} "
                          f"[{' '.join(card_text(x) for x in a.cards)}]"
                          for a in b.announcements)
        if not shown:
            return "No announcements"
        scoring = ("nobody scores them" if b.scoring_team < 0 else
                   f"{model.team_name(b.scoring_team)} score them")
        return f"Announcements: {shown} — {scoring}"
    if kind == "card_played":
        call = {ev.BELOTE_CALL_BELOTE: " — belote!", ev.BELOTE_CALL_REBELOTE: " — rebelote!"}.get(b.belote, "")
        return f"{name(b.seat)}: {card_text(b.card)}{call}"
    if kind == "trick_won":
        return f"{name(b.winner)} won trick {b.trick_number} ({b.points} points)"
    if kind == "deal_scored":
        return (f"Deal {b.deal_number} scored, {OUTCOME.get(b.outcome, '')}: {b.explanation}. "
                f"This deal {model.teams(b.deal_score)}; total {model.teams(b.totals)}")
    if kind == "game_ended":
        return f"Game over: {model.team_name(b.winning_team)} win, {model.teams(b.totals)}"
    if kind == "chat_posted":
        who = "spectator" if b.spectator or not 0 <= b.seat < 4 else model.player.position(b.seat)
        return f"» {b.display_name} ({who}): {b.text}"
    if kind == "rematch_voted":
        return f"{name(b.seat)} votes for a rematch"
    if kind == "table_closed":
        return "The table is closed: no more games here"
    return None  # deck_revealed: for checks, not for people


# ------------------------------------------------------------------------------- rematch

def rematch_possible(model: TableModel) -> bool:
    """The game is over, the table open, and the seat has not voted yet. (getattr: the
    rematch fields are recent in the contract.)"""
    t = model.table
    return (t.status == pb.TABLE_STATUS_FINISHED and not getattr(t, "closed", False)
            and hasattr(pb, "VoteRematchRequest") and not player_voted(model))


def player_voted(model: TableModel) -> bool:
    return model.player.seat in getattr(model.table, "rematch_votes", ())


# ------------------------------------------------------------------------------- screen parts

def status_text(model: TableModel, target: str) -> Text:
    """The top lines: the table, the contract and trump, the deal, the scores."""
    t, player = model.table, model.player
    pos = player.position
    out = Text()
    out.append(f"Table {t.table_id}", style="bold")
    out.append(f" · {t.preset} to {t.options.get('target', '?')}")
    me = t.seats[player.seat].display_name if player.seat < len(t.seats) else ""
    out.append(f" · you: {me + ', ' if me else ''}seat {player.seat} · event #{t.version}\n")
    if t.status == pb.TABLE_STATUS_WAITING_FOR_PLAYERS:
        seated = sum(1 for s in t.seats if s.occupant != pb.SEAT_OCCUPANT_EMPTY)
        out.append(f"Waiting for players: {seated}/4 seated. Friends join with:\n", style="yellow")
        out.append(f"  belote play --target {target} --table {t.table_id}", style="bold")
        return out
    game = t.game
    if game.contract:
        trumps = trump_suits(game.contract)
        if len(trumps) == 1:
            out.append("Trump: ")
            out.append(contract_text(game.contract),
                       style="bold red" if next(iter(trumps)) in RED_SUITS else "bold")
        else:
            out.append("Contract: ")
            out.append(contract_text(game.contract), style="bold")
        out.append(f", taken by {pos(game.taker)}")
    elif game.phase == pb.DEAL_PHASE_AUCTION:
        out.append("Auction", style="bold")
        if game.HasField("turned_card"):
            out.append(", turned card ")
            out.append_text(card_markup(game.turned_card, "bold"))
    out.append(f" · deal {game.deal_number}")
    if game.trick_number:
        out.append(f", trick {game.trick_number}/8")
    out.append(f" · dealer {pos(game.dealer)}\n")
    totals = list(game.totals) or [0, 0]
    out.append("Score: ")
    out.append(model.teams(totals), style="bold")
    if game.reserve:
        out.append(f" (reserve {game.reserve})")
    if len(game.tricks_won) == 2 and game.phase == pb.DEAL_PHASE_CARD_PLAY:
        out.append(f" · tricks: {model.teams(game.tricks_won)}")
    return out


def table_text(model: TableModel) -> Text:
    """The players around the table with their card in the current trick (or their last bid
    during the auction), then the last trick and the announcements."""
    t = model.table
    out = Text()
    game = t.game
    in_trick = {p.seat: p.card for p in game.current_trick}
    last_bid = {b.seat: b.bid for b in game.bids}
    seat_at = {model.player.position(s): s for s in range(4)}
    seat_at["South"] = model.player.seat

    def cell(seat: int) -> Text:
        text = Text()
        turn = game.to_act == seat and t.status == pb.TABLE_STATUS_PLAYING
        partner = " (partner)" if seat != model.player.seat and \
            model.player.team(seat) == model.player.team() else ""
        text.append(("▶ " if turn else "  ") + model.player.position(seat) + partner,
                    style="bold" if turn else "")
        if seat in in_trick:
            text.append(" ")
            text.append_text(card_markup(in_trick[seat], "bold reverse"))
        elif game.phase == pb.DEAL_PHASE_AUCTION and seat in last_bid:
            text.append(f" [{bid_text(last_bid[seat])}]", style="italic")
        return text

    # A compass of 40 columns: North and You in the middle, West and East on the sides.
    north, west, east, south = (cell(seat_at[p]) for p in ("North", "West", "East", "South"))
    out.append(" " * 13).append_text(north).append("\n\n")
    out.append_text(west).append(" " * max(1, 26 - len(west.plain))).append_text(east)
    out.append("\n\n")
    out.append(" " * 13).append_text(south).append("\n\n")
    # Who is who: the partner first.
    out.append(f"North (partner): {who(model, seat_at['North'])}; "
               f"East: {who(model, seat_at['East'])}; West: {who(model, seat_at['West'])}",
               style="dim")
    out.append("\n")
    if game.phase == pb.DEAL_PHASE_AUCTION and game.bids:
        out.append("\nAuction: ")
        out.append(", ".join(f"{model.player.position(b.seat)} {bid_text(b.bid)}"
                             for b in game.bids))
        out.append("\n")
    if model.last_trick:
        out.append("\nLast trick: ")
        for played in model.last_trick:
            out.append(f"{model.player.position(played.seat)} ")
            out.append_text(card_markup(played.card))
            out.append("  ")
        out.append(f"→ won by {model.name(model.last_trick_winner)}\n")
    if game.announcements:
        out.append("Announcements: ")
        out.append("; ".join(f"{model.player.position(a.seat)} "
                             f"{announcement_text(a.announcement)}" for a in game.announcements))
        out.append("\n")
    if game.HasField("last_deal") and game.phase != pb.DEAL_PHASE_CARD_PLAY:
        d = game.last_deal
        out.append(f"\nLast deal ({d.deal_number}): {d.explanation}; "
                   f"{model.teams(d.deal_score)}\n")
    return out


def hand_text(model: TableModel) -> Text:
    """``Your hand:  1 J♥  2 9♥ ...``: the playable cards bright, the others dim."""
    out = Text("Your hand: ", style="bold")
    legal = {(a.card.suit, a.card.rank) for a in model.legal.actions if a.HasField("card")}
    hand = model.hand()
    if not hand:
        out.append("(no cards)", style="dim")
    for i, card in enumerate(hand, 1):
        # Playable cards in brackets (and bright): visible without colours too.
        playable = (card.suit, card.rank) in legal
        out.append(" [" if playable else "  ", style="bold green")
        out.append(f"{i}:", style="bold green" if playable else "dim")
        out.append_text(card_markup(card, "bold" if playable else "dim"))
        out.append("]" if playable else " ", style="bold green")
    return out


def prompt_text(model: TableModel) -> Text:
    """Whose turn, and what the player may do with which key."""
    t, game = model.table, model.table.game
    out = Text()
    if t.status == pb.TABLE_STATUS_FINISHED or game.phase == pb.DEAL_PHASE_GAME_OVER:
        won = game.winning_team == model.player.team()
        out.append(f"Game over: {model.team_name(game.winning_team)} win, "
                   f"{model.teams(game.totals)}.",
                   style="bold green" if won else "bold red")
        if getattr(t, "closed", False):
            out.append("  The table is closed.")
        elif player_voted(model):
            out.append("  You voted for a rematch.")
        out.append(f"  Press {'r for a rematch, ' if rematch_possible(model) else ''}q to quit.")
        return out
    if t.status != pb.TABLE_STATUS_PLAYING:
        out.append("Waiting for the table to fill…  (m: chat, q: quit)")
        return out
    keys = model.legal_keys()
    if not model.legal.your_turn:
        who = model.to_act_name()
        out.append(f"Waiting for {who}…" if who else "Waiting…")
        out.append("  (m: chat, q: quit)")
        return out
    out.append("Your turn", style="bold reverse")
    cards = sorted(k for k, a in keys.items() if a.HasField("card"))
    bids = [(k, a) for k, a in keys.items() if a.HasField("bid")]
    announces = [(k, a) for k, a in keys.items() if a.HasField("announce")]
    if bids:
        out.append("  bid: ")
        out.append("  ".join(f"{k}={action_text(a)}" for k, a in bids))
    if cards:
        out.append(f"  play a card: playable {' '.join(cards)}")
    if announces:
        out.append("  announce: ")
        out.append("  ".join(f"{k}={action_text(a).removeprefix('announce ')}"
                             for k, a in announces))
    out.append("  (m: chat, q: quit)")
    return out
