"""What happened at a table, deal by deal, told from the replay's recomputed events.

For the reports only: seats, chat in its place, pots, payouts and how the table closed, each
value from events the rules produced during the replay (a tampered log tells what really followed).
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field

from belote.rules.cards import cards_of
from belote.rules.game import complete_hands, deal_all_eight, deal_first_five
from belote.rules.options import CHOICES
from belote.table.codec import BOT_LEVEL_NAMES, card_from_pb
from belote.v1 import events_pb2 as epb

from . import text


@dataclass
class Play:
    seat: int
    card: str
    seq: int
    bot: dict | None = None          # {level, seed} for a bot's move
    belote: str = ""                 # "belote" | "rebelote"


@dataclass
class Trick:
    number: int
    leader: int
    plays: list[Play] = field(default_factory=list)
    winner: int = -1
    points: int = 0
    seq: int = 0

    def card_of(self, seat: int) -> str:
        return next((p.card for p in self.plays if p.seat == seat), "")


@dataclass
class Call:
    seat: int
    call: str
    seq: int
    bot: dict | None = None


@dataclass
class Shown:
    seat: int
    text: str
    points: int
    seq: int
    cards: str = ""
    bot: dict | None = None


@dataclass
class Deal:
    game: int
    number: int
    dealer: int
    seq: int
    commitment: str
    hands: list[list[str]]           # per seat, as dealt (8 cards once the contract is settled)
    turned_card: str = ""
    auction: list[Call] = field(default_factory=list)
    all_passed: bool = False
    contract: dict | None = None     # {taker, contract, forced, seq}
    announcements: list[Shown] = field(default_factory=list)
    announcements_team: int | None = None
    tricks: list[Trick] = field(default_factory=list)
    belote: list[dict] = field(default_factory=list)
    score: dict | None = None
    revealed_seq: int = 0
    seat_events: list[dict] = field(default_factory=list)   # [{seat, text, seq, kind}] during the deal
    players: list[str] = field(default_factory=list)   # per seat when it started: "Ana", "easy bot"


@dataclass
class Game:
    number: int
    first_dealer: int
    seq: int
    deals: list[Deal] = field(default_factory=list)
    result: dict | None = None       # {winning_team, totals, seq, payouts, rated, refund}
    pot: int = 0                     # chips the paying seats put in when it started
    paying_seats: list[int] = field(default_factory=list)
    rematch_votes: list[dict] = field(default_factory=list)   # [{seat, seq}] after it ended
    after: list[dict] = field(default_factory=list)   # [{seat, text, seq, kind}] after it ended


@dataclass
class Story:
    name: str = ""
    preset: str = ""
    options: dict = field(default_factory=dict)
    seats: list[str] = field(default_factory=lambda: ["empty"] * 4)
    seat_events: list[dict] = field(default_factory=list)   # [{seat, text, seq, kind}] before a game
    games: list[Game] = field(default_factory=list)
    stake: int = 0
    turn_timer_s: int = 0
    chat: list[dict] = field(default_factory=list)   # [{seat, name, text, seq}]; seat -1: a spectator
    closed: dict | None = None       # {reason: "no_rematch" | "no_humans", seq}

    def as_dict(self) -> dict:
        return asdict(self)


def _bot(body) -> dict | None:
    """{level, seed, timer} of a bot's move; timer: a move made for a human whose turn timer ran out."""
    if not body.HasField("bot"):
        return None
    return {"level": BOT_LEVEL_NAMES.get(body.bot.level, str(body.bot.level)), "seed": body.bot.seed,
            "timer": body.bot.timer}


def _names(mask: int) -> list[str]:
    return [text.card(c) for c in cards_of(mask)]


def tell(timeline) -> Story:
    story = Story()
    game: Game | None = None
    deal: Deal | None = None
    trick: Trick | None = None
    deck: list[int] = []
    five: list[int] = [0, 0, 0, 0]
    names = ["", "", "", ""]
    players = ["empty"] * 4                      # who sits each seat now, as the table shows it
    lost_at = [0, 0, 0, 0]                       # when each seat's connection was lost (µs)

    def told(seat: int, words: str, seq: int, kind: str = "seat") -> None:
        """A line in its place: during a deal (or after its score, before the next deal), after
        a game's end, or before the first game. ``kind``: "seat" (seats taken, left,
        connections), "chat" or "rematch"."""
        if game is not None and game.result is not None:
            target = game.after
        elif deal is not None:
            target = deal.seat_events
        else:
            target = story.seat_events
        target.append({"seat": seat, "text": words, "seq": seq, "kind": kind})

    for seq, event in timeline:
        kind = event.WhichOneof("body")
        body = getattr(event, kind)
        if kind == "table_created":
            # In the rules' own order (SPEC §9), then any the engine does not know.
            story.name, story.preset = body.name, body.preset
            story.options = {k: body.options[k] for k in CHOICES if k in body.options}
            story.options.update({k: v for k, v in sorted(body.options.items()) if k not in CHOICES})
            story.stake, story.turn_timer_s = body.stake, body.turn_timer_seconds
        elif kind == "seat_joined":
            names[body.seat] = players[body.seat] = body.display_name
            story.seats[body.seat] = f"human {body.display_name!r}"
            told(body.seat, f"{body.display_name!r} sits down", seq)
        elif kind == "bot_seated":
            level = BOT_LEVEL_NAMES.get(body.level, str(body.level))
            story.seats[body.seat] = (f"{level} bot, for {names[body.seat]!r} who left" if body.takeover
                                      else f"{level} bot")
            players[body.seat] = (f"{level} bot for {names[body.seat]}" if body.takeover
                                  else f"{level} bot")
            a = "an" if level[:1] in "aeiou" else "a"
            told(body.seat, f"{a} {level} bot takes over" if body.takeover else f"{a} {level} bot sits down", seq)
        elif kind == "seat_left":
            story.seats[body.seat] = f"empty (left by {names[body.seat]!r})"
            players[body.seat] = "empty"
            if body.reason == epb.SEAT_LEFT_REASON_DISCONNECTED:
                gone = (event.append_time.seconds * 1_000_000 + event.append_time.nanos // 1000 - lost_at[body.seat]) / 1e6
                told(body.seat, f"{names[body.seat]!r} loses the seat after {gone:.1f} s without a "
                                "connection (the server's grace ran out)", seq)
            else:
                told(body.seat, f"{names[body.seat]!r} leaves", seq)
        elif kind == "seat_reclaimed":
            story.seats[body.seat] = f"human {names[body.seat]!r} (came back)"
            players[body.seat] = names[body.seat]
            told(body.seat, f"{names[body.seat]!r} takes the seat back", seq)
        elif kind == "seat_disconnected":
            lost_at[body.seat] = event.append_time.seconds * 1_000_000 + event.append_time.nanos // 1000
            told(body.seat, f"{names[body.seat]!r} loses the connection", seq)
        elif kind == "seat_connected":
            told(body.seat, f"{names[body.seat]!r} is connected again", seq)
        elif kind == "chat_posted":
            story.chat.append({"seat": body.seat, "name": body.display_name, "text": body.text, "seq": seq})
            told(body.seat, f"{body.display_name!r} says “{body.text}”", seq, "chat")
        elif kind == "rematch_voted":
            if game is not None:
                game.rematch_votes.append({"seat": body.seat, "seq": seq})
            told(body.seat, f"{names[body.seat]!r} votes for a rematch", seq, "rematch")
        elif kind == "table_closed":
            story.closed = {"reason": epb.TableClosedReason.Name(body.reason).removeprefix("TABLE_CLOSED_REASON_").lower(), "seq": seq}
        elif kind == "game_started":
            game = Game(body.game_number, body.first_dealer, seq, pot=body.pot,
                        paying_seats=list(body.paying_seats))
            story.games.append(game)
            deal = trick = None
        elif kind == "deal_started":
            deck = [card_from_pb(c) for c in body.deck]
            eldest = (body.dealer + 1) & 3
            if story.options.get("bidding") == "none":
                five = deal_all_eight(deck, eldest)
            else:
                five = deal_first_five(deck, eldest)
            deal = Deal(game.number, body.deal_number, body.dealer, seq, body.deck_commitment.hex(),
                        [_names(h) for h in five],
                        text.card(body.turned_card) if body.HasField("turned_card") else "",
                        players=list(players))
            game.deals.append(deal)
            trick = None
        elif kind == "bid_made":
            deal.auction.append(Call(body.seat, text.call(body.bid), seq, _bot(body)))
        elif kind == "all_passed":
            deal.all_passed = True
        elif kind == "contract_settled":
            if story.options.get("bidding") != "none":
                eldest = (deal.dealer + 1) & 3
                deal.hands = [_names(h) for h in complete_hands(deck, eldest, body.taker, five)]
            deal.contract = {"taker": body.taker, "contract": text.contract(body.contract),
                             "forced": body.forced, "seq": seq}
        elif kind == "announcement_declared":
            deal.announcements.append(Shown(body.seat, text.announcement(body.announcement),
                                            body.announcement.points, seq, bot=_bot(body)))
        elif kind == "announcements_revealed":
            deal.announcements = [Shown(a.seat, text.announcement(a.announcement), a.announcement.points,
                                        seq, text.cards(a.cards)) for a in body.announcements]
            deal.announcements_team = body.scoring_team
        elif kind == "card_played":
            if trick is None:
                trick = Trick(len(deal.tricks) + 1, body.seat)
                deal.tricks.append(trick)
            call = {epb.BELOTE_CALL_BELOTE: "belote", epb.BELOTE_CALL_REBELOTE: "rebelote"}.get(body.belote, "")
            trick.plays.append(Play(body.seat, text.card(body.card), seq, _bot(body), call))
            if call:
                deal.belote.append({"seat": body.seat, "card": text.card(body.card), "call": call, "seq": seq})
        elif kind == "trick_won":
            trick.winner, trick.points, trick.seq = body.winner, body.points, seq
            trick = None
        elif kind == "deal_scored":
            deal.score = {
                "outcome": epb.DealOutcome.Name(body.outcome).removeprefix("DEAL_OUTCOME_").lower(),
                "explanation": body.explanation, "taker": body.taker,
                "contract": text.contract(body.contract), "trick_points": list(body.trick_points),
                "belote": list(body.belote), "announcements": list(body.announcements),
                "multiplier": body.multiplier, "deal_score": list(body.deal_score),
                "reserve_created": body.reserve_created, "reserve_paid": body.reserve_paid,
                "reserve_paid_to": body.reserve_paid_to, "reserve_pending": body.reserve_pending,
                "totals": list(body.totals), "scoring": story.options.get("scoring", "points"),
                "seq": seq}
        elif kind == "deck_revealed":
            if deal is not None:
                deal.revealed_seq = seq
        elif kind == "game_ended":
            game.result = {"winning_team": body.winning_team, "totals": list(body.totals), "seq": seq,
                           "payouts": list(body.payouts), "rated": body.rated,
                           # no paying seat on the winning team: each stake went back
                           "refund": bool(game.paying_seats) and all(
                               s % 2 != body.winning_team for s in game.paying_seats)}
    return story
