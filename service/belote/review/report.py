"""A review as text (for people), JSON (for tools) or one self-contained HTML page."""

from __future__ import annotations

import html
import json
from dataclasses import asdict

from belote.app.export_signing import key_text

from .known_keys import fingerprint
from .story import Deal, Trick
from .verify import Review

SUIT_ORDER = "SHCD"          # spades hearts clubs diamonds: colours alternate in a hand
SYMBOL = {"C": "♣", "D": "♦", "H": "♥", "S": "♠"}


def _hand(cards: list[str]) -> str:
    by_suit = {s: [c for c in cards if c[-1] == s] for s in SUIT_ORDER}
    return "  ".join(" ".join(cs) for s, cs in by_suit.items() if cs) or "-"


def _bot(item) -> str:
    bot = item.bot if hasattr(item, "bot") else item.get("bot")
    if not bot:
        return ""
    return f" [timer move: {bot['level']} bot]" if bot.get("timer") else f" [{bot['level']} bot]"


def _who(ev: dict) -> str:
    """Who a seat event is about: a seat, or (seat -1) a spectator."""
    return f"seat {ev['seat']}" if ev["seat"] >= 0 else "spectator"


_CLOSED = {"no_rematch": "the rematch vote ran out before every human had voted",
           "no_humans": "the game ended with no human at the table"}


def _seats(seats) -> str:
    return ("seat " if len(seats) == 1 else "seats ") + ", ".join(map(str, seats))


def stakes_line(story) -> str:
    """The table's stake and turn timer, those it has."""
    return ", ".join(([f"stake {story.stake} chips per human seat"] if story.stake else [])
                     + ([f"turn timer {story.turn_timer_s} s"] if story.turn_timer_s else []))


def closed_line(closed: dict) -> str:
    why = _CLOSED.get(closed["reason"], closed["reason"])
    return f"Table closed: {why} (seq {closed['seq']})"


def game_line(game) -> str:
    out = f"Game {game.number} (first dealer seat {game.first_dealer}, seq {game.seq})"
    if game.pot:
        out += f"; pot {game.pot} chips, paid by {_seats(game.paying_seats)}"
    return out


def result_lines(game) -> list[str]:
    """The game's result, its payouts and whether it was rated."""
    res = game.result
    out = [f"Result: team {res['winning_team']} (seats {res['winning_team']} and "
           f"{res['winning_team'] + 2}) wins, {_pair(res['totals'])} (seq {res['seq']})"]
    if res["payouts"]:
        paid = ", ".join(f"seat {seat} gets {chips}" for seat, chips in enumerate(res["payouts"]) if chips)
        why = ("no seat of the winning team paid: each stake back" if res["refund"]
               else "the pot to the winning team's paying seats")
        out.append(f"payouts: {paid or 'none'} ({why})")
    out.append("rated: " + ("yes (four registered players, no bot)" if res["rated"] else "no"))
    return out


def _pair(values) -> str:
    return f"{values[0]} / {values[1]}"


def _score_lines(score: dict) -> list[str]:
    tens = " (in tens)" if score["scoring"] == "belgian_tens" else ""
    lines = [f"{score['outcome'].replace('_', ' ')}: {score['explanation']}  (seq {score['seq']})",
             (f"trick points {_pair(score['trick_points'])} · belote {_pair(score['belote'])} · "
              f"announcements {_pair(score['announcements'])} · multiplier x{score['multiplier']}"),
             f"deal score{tens} {_pair(score['deal_score'])}"]
    reserve = []
    if score["reserve_created"]:
        reserve.append(f"{score['reserve_created']} put in reserve")
    if score["reserve_paid"]:
        reserve.append(f"reserve of {score['reserve_paid']} paid to team {score['reserve_paid_to']}")
    if score["reserve_pending"]:
        reserve.append(f"{score['reserve_pending']} waiting in reserve")
    if reserve:
        lines.append("reserve: " + ", ".join(reserve))
    return lines


def _deal_lines(deal: Deal) -> list[str]:
    out = [(f"Deal {deal.number}: dealer seat {deal.dealer} (seq {deal.seq}), deck commitment "
            f"{deal.commitment[:16]}…")]
    for seat, hand in enumerate(deal.hands):
        out.append(f"  hand seat {seat}: {_hand(hand)}")
    if deal.turned_card:
        out.append(f"  turned card: {deal.turned_card}")
    if deal.auction:
        out.append("  auction: " + ", ".join(f"seat {c.seat} {c.call}{_bot(c)}" for c in deal.auction))
    if deal.all_passed:
        out.append("  everyone passed: redeal")
    if deal.contract:
        c = deal.contract
        out.append(f"  contract: seat {c['taker']} plays {c['contract']}"
                   + (" (forced take)" if c["forced"] else "") + f" (seq {c['seq']})")
    if deal.announcements:
        for a in deal.announcements:
            cards = f" [{a.cards}]" if a.cards else ""
            out.append(f"  announcement: seat {a.seat} {a.text} ({a.points}){cards}{_bot(a)} (seq {a.seq})")
        if deal.announcements_team is not None:
            out.append("  announcements score for " + (f"team {deal.announcements_team}"
                       if deal.announcements_team >= 0 else "nobody (none, or a perfect tie)"))
    for t in deal.tricks:
        plays = ", ".join(f"seat {p.seat} {p.card}" + (f" ({p.belote})" if p.belote else "") + _bot(p)
                          for p in t.plays)
        won = f" -> seat {t.winner} wins {t.points}" if t.winner >= 0 else " (unfinished)"
        out.append(f"  trick {t.number}: {plays}{won} (seq {t.plays[0].seq}-{t.seq or t.plays[-1].seq})")
    for b in deal.belote:
        out.append(f"  {b['call']}: seat {b['seat']} plays {b['card']} (seq {b['seq']})")
    if deal.score:
        lines = _score_lines(deal.score)
        out.append("  score: " + lines[0])
        out.extend("         " + line for line in lines[1:])
        out.append(f"  totals: {_pair(deal.score['totals'])}")
    if deal.revealed_seq:
        out.append(f"  deck revealed at seq {deal.revealed_seq}")
    for ev in deal.seat_events:
        out.append(f"  {_who(ev)}: {ev['text']} (seq {ev['seq']})")
    return out


def checks_line(r: Review) -> str:
    c = r.checks
    bots = (f"{c.get('bot', 0)} bot moves recomputed" if r.bot_check else "bot moves not recomputed "
            "(--no-bot-check)")
    return (f"{r.events} events: sequence, envelope and hash chain of each; "
            f"{c.get('commitment', 0)} deck commitments and {c.get('reveal', 0)} reveals; "
            f"{c.get('legal', 0)} commands checked legal; {c.get('derived', 0)} derived events "
            f"recomputed; {bots}")


def verdict(r: Review) -> str:
    if r.clean and r.unknown_key is not None:
        return (f"UNKNOWN KEY: no violation, but the head's key {fingerprint(r.unknown_key)} is "
                "neither --key nor pinned: not proven the server's export")
    if r.clean:
        return "CLEAN: no violation"
    n = len(r.violations)
    return f"{n} VIOLATION{'S' if n > 1 else ''}, the first at seq {r.first_violation}"


def as_text(r: Review) -> str:
    s = r.story
    out = [f"Table {r.table_id}: {s.name!r}, preset {s.preset}"]
    if s.options:
        out.append("  rules: " + ", ".join(f"{k}={v}" for k, v in s.options.items()))
    out.append("  seats: " + ", ".join(f"{i} {who}" for i, who in enumerate(s.seats)))
    if s.stake or s.turn_timer_s:
        out.append("  " + stakes_line(s))
    for ev in s.seat_events:
        out.append(f"  {_who(ev)}: {ev['text']} (seq {ev['seq']})")
    for game in s.games:
        out.append("")
        out.append(game_line(game))
        for deal in game.deals:
            out.append("")
            out.extend(_deal_lines(deal))
        if game.result:
            lines = result_lines(game)
            out.append("")
            out.append(lines[0])
            out.extend("  " + line for line in lines[1:])
        for ev in game.after:
            out.append(f"  {_who(ev)}: {ev['text']} (seq {ev['seq']})")
    if s.closed:
        out.append("")
        out.append(closed_line(s.closed))
    out.append("")
    out.append("Checks: " + checks_line(r))
    for note in r.notes:
        out.append("Note: " + note)
    out.append(verdict(r))
    for v in r.violations:
        out.append("  " + str(v).replace("\n", "\n  "))
    return "\n".join(out) + "\n"


def as_dict(r: Review) -> dict:
    story = asdict(r.story)
    return {"table_id": r.table_id, "events": r.events, "clean": r.clean, "exit_code": r.exit_code,
            "first_violation": r.first_violation, "violations": [v.as_dict() for v in r.violations],
            "notes": list(r.notes), "checks": dict(r.checks), "bot_check": r.bot_check,
            "unknown_key": None if r.unknown_key is None else
            {"key": key_text(r.unknown_key), "fingerprint": fingerprint(r.unknown_key)},
            "table": {k: story[k] for k in ("name", "preset", "options", "seats", "stake", "turn_timer_s")},
            "games": story["games"], "chat": story["chat"], "closed": story["closed"]}


def as_json(r: Review) -> str:
    return json.dumps(as_dict(r), ensure_ascii=False, indent=1)


# HTML ------------------------------------------------------------------------------------------
# Seats are named as the players saw them: seat 0 sits South (at the bottom of each trick), its
# partner seat 2 North; seats 1 and 3 sit East and West as the play goes round (counter-clockwise:
# the next to play on the right). Each name comes with its seat number and the player's name.
TEAMS = ("South & North", "East & West")

_CSS = """
body{font:14px/1.4 system-ui,sans-serif;margin:1.5em auto;max-width:1100px;color:#222;background:#fafafa}
h1{font-size:1.4em}h2{font-size:1.2em;margin-top:2em;border-bottom:1px solid #ccc}h3{font-size:1.05em}
h3 a{font-size:12px;font-weight:normal;margin-left:1em}
.ok{color:#1a7f37;font-weight:bold}.bad{color:#c00;font-weight:bold}
.viol{background:#fff0f0;border:1px solid #e99;padding:.5em 1em;border-radius:6px}
.viol li{margin:.3em 0}.viol code{white-space:pre-wrap}
.deal{background:#fff;border:1px solid #ddd;border-radius:8px;padding:.8em 1em;margin:1em 0}
.meta{color:#555}.hands td{padding:0 .8em 0 0}.seats td,.seats th{padding:0 1em 0 0;text-align:left}
.legend{background:#fff;border:1px solid #ddd;border-radius:8px;padding:.5em 1em;margin:1em 0}
.legend li{margin:.35em 0}.felt{display:inline-block;background:#2e7d32;color:#fff;padding:2px 6px;
 border-radius:6px;text-align:center;font-size:11px}
nav#deals{background:#fff;border:1px solid #ddd;border-radius:8px;padding:.5em 1em}
nav#deals ol{margin:.2em 0;padding-left:1.5em;columns:3}nav#deals a{text-decoration:none}
.tricks{display:flex;flex-wrap:wrap;gap:10px;align-items:flex-start}
.trick{position:relative;width:230px;height:215px;background:#2e7d32;border-radius:14px;color:#fff}
.trick .mid{position:absolute;left:50%;top:50%;transform:translate(-50%,-50%);text-align:center;
 font-size:11px;line-height:1.3}
.pos{position:absolute;text-align:center;font-size:10px;line-height:1.25;white-space:nowrap;
 max-width:110px;overflow:hidden;text-overflow:ellipsis}
.p0{left:50%;bottom:6px;transform:translateX(-50%)}.p2{left:50%;top:6px;transform:translateX(-50%)}
.pL{left:6px;top:50%;transform:translateY(-50%)}.pR{right:6px;top:50%;transform:translateY(-50%)}
.card{display:inline-block;width:38px;height:30px;line-height:30px;background:#fff;color:#111;
 border-radius:4px;border:2px solid #fff;font-weight:bold;font-size:14px;text-align:center}
.card.red{color:#c62828}.card.win{border-color:#ffd54f;box-shadow:0 0 4px #ffd54f}
.card.flag{border-color:#f00;box-shadow:0 0 6px #f00}.lead{text-decoration:underline}
.mid.flag{color:#ffcdd2;font-weight:bold}
.note{font-size:12px;color:#555;background:#f3f3f3;border-left:3px solid #999;padding:.3em .6em;margin:.4em 0}
.tricks .note{width:150px;margin:0;align-self:stretch}.auction .note{display:inline;margin:0 .3em}
.note.chat{color:#1a4f8a;border-color:#1a4f8a;background:#eef4fb}
.score{margin-top:.6em}.small{font-size:12px;color:#555}.chat{color:#1a4f8a}.team{font-weight:bold}
"""


def compass(story) -> dict[int, str]:
    """Where each seat sits around the table, as the players saw it."""
    clockwise = story.options.get("play_direction") == "clockwise"
    return {0: "South", 2: "North", 1: "West" if clockwise else "East", 3: "East" if clockwise else "West"}


def _card_html(card: str, classes: str = "") -> str:
    suit = card[-1:]
    red = " red" if suit in "HD" else ""
    label = html.escape(card[:-1] + SYMBOL.get(suit, suit))
    return f'<span class="card{red}{classes}">{label}</span>'


class _Page:
    """The names of one table, for the page: positions, players, teams."""

    def __init__(self, r: Review) -> None:
        self.review, self.story = r, r.story
        self.where = compass(r.story)
        self.flagged = {v.sequence for v in r.violations}
        clockwise = r.story.options.get("play_direction") == "clockwise"
        self.css = {0: "p0", 2: "p2", 1: "pL" if clockwise else "pR", 3: "pR" if clockwise else "pL"}

    def seat(self, seat: int, players: list[str] | None = None) -> str:
        """``South (seat 0, Ana)``; a spectator for seat -1."""
        if seat < 0:
            return "a spectator"
        who = f", {players[seat]}" if players and seat < len(players) else ""
        return f"{self.where[seat]} (seat {seat}{who})"

    def teams(self, values) -> str:
        """Two values, each with its team's name (HTML)."""
        return " · ".join(f"<span class='team'>{TEAMS[t]}</span> {html.escape(str(values[t]))}"
                          for t in (0, 1))

    def team(self, team: int) -> str:
        return f"{TEAMS[team]} (seats {team} and {team + 2})"

    # -- top of the page -------------------------------------------------------------------

    def seats_html(self) -> str:
        rows = "".join(f"<tr><td>{seat}</td><td>{self.where[seat]}</td><td>{html.escape(who)}</td>"
                       f"<td>{TEAMS[seat % 2]}</td></tr>" for seat, who in enumerate(self.story.seats))
        return ("<table class='seats' id='seats'><tr><th>seat</th><th>position</th><th>player (at the "
                "end)</th><th>team</th></tr>" + rows + "</table>")

    def legend_html(self) -> str:
        lead = f"<span class='lead'>{self.where[0]}</span>"
        return ("<div class='legend' id='legend'><b>How to read a trick</b><ul>"
                f"<li><span class='felt'>{_card_html('AH', ' win')}</span> a gold border: the card "
                "that won the trick</li>"
                f"<li><span class='felt'>{lead}</span> an underlined seat: the one that led the trick "
                "(played its first card)</li>"
                f"<li><span class='felt'>{_card_html('7C', ' flag')}</span> a red border: the card (or "
                "trick) at a sequence number with a finding</li>"
                "<li>#42: the sequence number of the event in the log; hover a card to see who played "
                "it (a human, or which bot with which seed)</li>"
                f"<li>{self.team(0)} play against {self.team(1)}; every score is given per team</li>"
                "</ul></div>")

    def deals_nav(self) -> str:
        out = ["<nav id='deals'><b>Deals</b>"]
        for game in self.story.games:
            out.append(f"<div>Game {game.number}<ol>")
            for deal in game.deals:
                out.append(f"<li value='{deal.number}'><a href='#{_deal_id(deal)}'>Deal {deal.number}"
                           f"</a>: {html.escape(self.deal_summary(deal))}</li>")
            out.append("</ol></div>")
        out.append("</nav>")
        return "".join(out)

    def deal_summary(self, deal: Deal) -> str:
        if deal.all_passed:
            return "all passed"
        if not deal.contract:
            return "unfinished"
        c = deal.contract
        outcome = deal.score["outcome"].replace("_", " ") if deal.score else "unfinished"
        return f"{self.where[c['taker']]} {c['contract']}, {outcome}"

    # -- a deal ----------------------------------------------------------------------------

    def trick_html(self, t: Trick, players: list[str]) -> str:
        """One trick as four cards on a table: seat by seat where it sits, winner outlined in
        gold, a card whose sequence has a finding outlined in red, the leader's seat underlined."""
        cells = []
        for p in t.plays:
            classes = (" win" if p.seat == t.winner else "") + (" flag" if p.seq in self.flagged else "")
            who = f"{p.bot['level']} bot, seed {p.bot['seed']}" if p.bot else "human"
            if p.bot and p.bot["timer"]:
                who = f"timer move for the human: {who}"
            lead = ' class="lead"' if p.seat == t.leader else ""
            belote = f"<br>{html.escape(p.belote)}" if p.belote else ""
            name = players[p.seat] if p.seat < len(players) else ""
            if p.bot and " bot" not in f" {name}":   # a human's seat, played by a bot this time
                name = f"{'timer: ' if p.bot['timer'] else ''}{p.bot['level']} bot"
            name = html.escape(name)
            cells.append(f'<div class="pos {self.css[p.seat]}" title="{html.escape(self.seat(p.seat, players))}: '
                         f'{html.escape(who)}">{_card_html(p.card, classes)}<br><span{lead}>'
                         f'{self.where[p.seat]}</span> {p.seat} #{p.seq}<br>{name}{belote}</div>')
        won = f"<br>{self.where[t.winner]} wins<br>{t.points} pts" if t.winner >= 0 else "<br>unfinished"
        flag = " flag" if t.seq in self.flagged else ""
        first = t.plays[0].seq if t.plays else t.seq
        return (f'<div class="trick" title="trick {t.number}" data-seq="{first}"><div class="mid{flag}">'
                f'trick {t.number}{won}{f"<br>#{t.seq}" if t.seq else ""}</div>' + "".join(cells) + "</div>")

    def note_html(self, ev: dict, players: list[str], where: str, tag: str = "div") -> str:
        chat = ev.get("kind") == "chat"
        who = html.escape(self.seat(ev["seat"], players))
        place = f" · {where}" if where else ""
        return (f"<{tag} class='note{' chat' if chat else ''}' data-seq='{ev['seq']}'><b>"
                f"{html.escape(ev.get('kind', 'seat'))}</b> {who}: {html.escape(ev['text'])}{place} · "
                f"#{ev['seq']}</{tag}>")

    def deal_html(self, game, deal: Deal) -> str:
        e = html.escape
        players = deal.players or [""] * 4
        out = [f"<div class='deal' id='{_deal_id(deal)}' data-seq='{deal.seq}'>",
               f"<h3>Game {game.number} · deal {deal.number} · dealer {e(self.seat(deal.dealer, players))}"
               f" · seq {deal.seq}<a href='#deals'>↑ all deals</a></h3>",
               f"<p class='small'>deck commitment {e(deal.commitment)}"
               + (f" · revealed at seq {deal.revealed_seq}" if deal.revealed_seq else "") + "</p>",
               "<table class='hands'>"]
        for seat, hand in enumerate(deal.hands):
            cards = "".join(_card_html(c) + " " for c in sorted(hand, key=lambda c: (SUIT_ORDER.index(c[-1]), c)))
            out.append(f"<tr><td>{e(self.seat(seat, players))}</td><td>{cards}</td></tr>")
        out.append("</table>")
        if deal.turned_card:
            out.append(f"<p>turned card {_card_html(deal.turned_card)}</p>")
        # What happened, in the log's order: chat and seat events where they came, between the
        # calls of the auction and between (or during) the tricks.
        events = sorted(deal.seat_events, key=lambda ev: ev["seq"])
        calls_end = deal.auction[-1].seq if deal.auction else -1
        plays = [p.seq for t in deal.tricks for p in t.plays]
        tricks_start = plays[0] if plays else -1
        tricks_end = max([t.seq for t in deal.tricks] + plays, default=-1)

        def take(upto: int) -> list[dict]:
            taken = [ev for ev in events if ev["seq"] <= upto]
            del events[:len(taken)]
            return taken

        for ev in take(deal.auction[0].seq if deal.auction else deal.seq):
            out.append(self.note_html(ev, players, "before the auction", "p"))
        if deal.auction:
            items = [(c.seq, f"<span data-seq='{c.seq}'>{e(self.where[c.seat])} {e(c.call)}{e(_bot(c))}</span>")
                     for c in deal.auction]
            items += [(ev["seq"], self.note_html(ev, players, "during the auction", "span"))
                      for ev in take(calls_end)]
            out.append("<p class='auction'>auction: " + ", ".join(h for _, h in sorted(items)) + "</p>")
        if deal.all_passed:
            out.append("<p>everyone passed: redeal</p>")
        if deal.contract:
            c = deal.contract
            out.append(f"<p data-seq='{c['seq']}'><b>contract: {e(self.seat(c['taker'], players))} plays "
                       f"{e(c['contract'])}</b>" + (" (forced take)" if c["forced"] else "") + f" · #{c['seq']}</p>")
        for ev in take(tricks_start - 1 if plays else (deal.score or {}).get("seq", deal.seq)):
            out.append(self.note_html(ev, players, "before the first card", "p"))
        for a in deal.announcements:
            out.append(f"<p class='small'>announcement: {e(self.seat(a.seat, players))} {e(a.text)} ({a.points})"
                       + (f" [{e(a.cards)}]" if a.cards else "") + f" · #{a.seq}</p>")
        if deal.tricks:
            items = [(t.plays[0].seq if t.plays else t.seq, self.trick_html(t, players)) for t in deal.tricks]
            for ev in take(tricks_end):
                during = next((t for t in deal.tricks if t.plays and t.plays[0].seq <= ev["seq"] <= (t.seq or plays[-1])),
                              None)
                after = [t for t in deal.tricks if t.seq and t.seq < ev["seq"]]
                where = (f"during trick {during.number}" if during else
                         f"after trick {after[-1].number}" if after else "")
                items.append((ev["seq"], self.note_html(ev, players, where)))
            out.append("<div class='tricks'>" + "".join(h for _, h in sorted(items, key=lambda i: i[0])) + "</div>")
        if deal.score:
            out.append(self.score_html(deal.score))
        for ev in events:
            out.append(self.note_html(ev, players, "after the deal", "p"))
        out.append("</div>")
        return "\n".join(out)

    def score_html(self, score: dict) -> str:
        e = html.escape
        tens = " (in tens)" if score["scoring"] == "belgian_tens" else ""
        lines = [f"{e(score['outcome'].replace('_', ' '))}: {e(score['explanation'])} · #{score['seq']}",
                 f"trick points: {self.teams(score['trick_points'])}",
                 f"belote: {self.teams(score['belote'])} · announcements: {self.teams(score['announcements'])}"
                 f" · multiplier x{score['multiplier']}",
                 f"deal score{tens}: {self.teams(score['deal_score'])}"]
        reserve = _score_lines(score)[3:]
        lines += [e(line) for line in reserve]
        return (f"<div class='score' data-seq='{score['seq']}'>" + "<br>".join(lines)
                + f"<br><b class='totals'>totals: {self.teams(score['totals'])}</b></div>")

    def result_html(self, game) -> str:
        res = game.result
        won = res["winning_team"]
        head = (f"<p class='result'><b>Result: {html.escape(self.team(won))} win, "
                f"{self.teams(res['totals'])}</b> · #{res['seq']}</p>") if won in (0, 1) else \
            f"<p class='result'><b>Result: {self.teams(res['totals'])}</b></p>"
        return head + "<p class='small'>" + "<br>".join(html.escape(x) for x in result_lines(game)[1:]) + "</p>"


def _deal_id(deal: Deal) -> str:
    return f"deal-{deal.seq}"


def as_html(r: Review) -> str:
    s = r.story
    e = html.escape
    page = _Page(r)
    out = ["<!DOCTYPE html><html lang='en'><head><meta charset='utf-8'>",
           f"<title>Review of table {e(r.table_id)}</title><style>{_CSS}</style></head><body>",
           f"<h1>Review of table {e(r.table_id)}: {e(s.name)}</h1>",
           f"<p class='meta'>preset <b>{e(s.preset)}</b> · {r.events} events</p>", page.seats_html()]
    if s.options:
        out.append("<p class='small'>" + e(", ".join(f"{k}={v}" for k, v in s.options.items())) + "</p>")
    if s.stake or s.turn_timer_s:
        out.append(f"<p class='small'>{e(stakes_line(s))}</p>")
    for ev in s.seat_events:
        out.append(page.note_html(ev, [], "before the game", "p"))
    cls = "ok" if r.exit_code == 0 else "bad"
    out.append(f"<p class='{cls}'>{e(verdict(r))}</p>")
    if r.violations:
        out.append("<div class='viol'><ul>")
        for v in r.violations:
            detail = ""
            if v.expected or v.found:
                detail = f"<br><code>expected: {e(v.expected or '-')}\nfound:    {e(v.found or '-')}</code>"
            rule = f" (rule {e(v.rule)})" if v.rule else ""
            out.append(f"<li><b>seq {v.sequence}</b> [{e(v.check)}] {e(v.message)}{rule}{detail}</li>")
        out.append("</ul></div>")
    out.append(f"<p class='small'>Checks: {e(checks_line(r))}</p>")
    for note in r.notes:
        out.append(f"<p class='small'>Note: {e(note)}</p>")
    out.append(page.legend_html())
    if any(game.deals for game in s.games):
        out.append(page.deals_nav())
    for game in s.games:
        out.append(f"<h2 id='game-{game.number}'>Game {game.number}</h2>")
        out.append(f"<p class='small'>{e(game_line(game))}</p>")
        for deal in game.deals:
            out.append(page.deal_html(game, deal))
        if game.result:
            out.append(page.result_html(game))
        for ev in game.after:
            out.append(page.note_html(ev, [], "after the game", "p"))
    if s.closed:
        out.append(f"<p><b>{e(closed_line(s.closed))}</b></p>")
    out.append("</body></html>")
    return "\n".join(out)
