"""A review as text (for people), JSON (for tools) or one self-contained HTML page."""

from __future__ import annotations

import html
import json
from dataclasses import asdict

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
            "table": {k: story[k] for k in ("name", "preset", "options", "seats", "stake", "turn_timer_s")},
            "games": story["games"], "chat": story["chat"], "closed": story["closed"]}


def as_json(r: Review) -> str:
    return json.dumps(as_dict(r), ensure_ascii=False, indent=1)


# HTML ------------------------------------------------------------------------------------------
_CSS = """
body{font:14px/1.4 system-ui,sans-serif;margin:1.5em auto;max-width:1100px;color:#222;background:#fafafa}
h1{font-size:1.4em}h2{font-size:1.2em;margin-top:2em;border-bottom:1px solid #ccc}h3{font-size:1.05em}
.ok{color:#1a7f37;font-weight:bold}.bad{color:#c00;font-weight:bold}
.viol{background:#fff0f0;border:1px solid #e99;padding:.5em 1em;border-radius:6px}
.viol li{margin:.3em 0}.viol code{white-space:pre-wrap}
.deal{background:#fff;border:1px solid #ddd;border-radius:8px;padding:.8em 1em;margin:1em 0}
.meta{color:#555}.hands td{padding:0 .8em 0 0}
.tricks{display:flex;flex-wrap:wrap;gap:10px}
.trick{position:relative;width:230px;height:215px;background:#2e7d32;border-radius:14px;color:#fff}
.trick .mid{position:absolute;left:50%;top:50%;transform:translate(-50%,-50%);text-align:center;
 font-size:11px;line-height:1.3}
.pos{position:absolute;text-align:center;font-size:10px;line-height:1.25;white-space:nowrap}
.p0{left:50%;bottom:6px;transform:translateX(-50%)}.p2{left:50%;top:6px;transform:translateX(-50%)}
.pL{left:6px;top:50%;transform:translateY(-50%)}.pR{right:6px;top:50%;transform:translateY(-50%)}
.card{display:inline-block;width:38px;height:30px;line-height:30px;background:#fff;color:#111;
 border-radius:4px;border:2px solid #fff;font-weight:bold;font-size:14px}
.card.red{color:#c62828}.card.win{border-color:#ffd54f;box-shadow:0 0 4px #ffd54f}
.card.flag{border-color:#f00;box-shadow:0 0 6px #f00}.lead{text-decoration:underline}
.mid.flag{color:#ffcdd2;font-weight:bold}
.score{margin-top:.6em}.small{font-size:12px;color:#555}.chat{color:#1a4f8a}
"""


def _card_html(card: str, classes: str = "") -> str:
    suit = card[-1:]
    red = " red" if suit in "HD" else ""
    label = html.escape(card[:-1] + SYMBOL.get(suit, suit))
    return f'<span class="card{red}{classes}">{label}</span>'


def _trick_html(t: Trick, positions: dict, flagged: set) -> str:
    """One trick as four cards on a table: seat by seat where it sits, winner outlined in gold,
    a card whose sequence has a finding outlined in red, the leader's seat underlined."""
    cells = []
    for p in t.plays:
        classes = (" win" if p.seat == t.winner else "") + (" flag" if p.seq in flagged else "")
        who = f"{p.bot['level']} bot, seed {p.bot['seed']}" if p.bot else "human"
        if p.bot and p.bot["timer"]:
            who = f"timer move for the human: {who}"
        lead = ' class="lead"' if p.seat == t.leader else ""
        belote = f"<br>{html.escape(p.belote)}" if p.belote else ""
        cells.append(f'<div class="pos {positions[p.seat]}" title="{html.escape(who)}">'
                     f'{_card_html(p.card, classes)}<br><span{lead}>seat {p.seat}</span> '
                     f'#{p.seq}{belote}</div>')
    won = f"<br>seat {t.winner} wins<br>{t.points} pts" if t.winner >= 0 else "<br>unfinished"
    flag = " flag" if t.seq in flagged else ""
    return (f'<div class="trick" title="trick {t.number}"><div class="mid{flag}">trick {t.number}'
            f'{won}{f"<br>#{t.seq}" if t.seq else ""}</div>' + "".join(cells) + "</div>")


def _event_html(ev: dict) -> str:
    cls = "small chat" if ev.get("kind") == "chat" else "small"
    return f"<p class='{cls}'>{html.escape(_who(ev))}: {html.escape(ev['text'])} (seq {ev['seq']})</p>"


def as_html(r: Review) -> str:
    s = r.story
    e = html.escape
    clockwise = s.options.get("play_direction") == "clockwise"
    # Seat 0 at the bottom; the next seat to play sits on the right when play goes
    # counter-clockwise, on the left when it goes clockwise.
    positions = {0: "p0", 2: "p2", 1: "pL" if clockwise else "pR", 3: "pR" if clockwise else "pL"}
    flagged = {v.sequence for v in r.violations}
    out = ["<!DOCTYPE html><html lang='en'><head><meta charset='utf-8'>",
           f"<title>Review of table {e(r.table_id)}</title><style>{_CSS}</style></head><body>",
           f"<h1>Review of table {e(r.table_id)}: {e(s.name)}</h1>",
           f"<p class='meta'>preset <b>{e(s.preset)}</b> · {r.events} events · seats: "
           + ", ".join(f"{i} {e(who)}" for i, who in enumerate(s.seats)) + "</p>"]
    if s.options:
        out.append("<p class='small'>" + e(", ".join(f"{k}={v}" for k, v in s.options.items())) + "</p>")
    if s.stake or s.turn_timer_s:
        out.append(f"<p class='small'>{e(stakes_line(s))}</p>")
    for ev in s.seat_events:
        out.append(_event_html(ev))
    cls = "ok" if r.clean else "bad"
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
    for game in s.games:
        out.append(f"<h2>Game {game.number}</h2>")
        out.append(f"<p class='small'>{e(game_line(game))}</p>")
        for deal in game.deals:
            out.append("<div class='deal'>")
            out.append(f"<h3>Deal {deal.number} · dealer seat {deal.dealer} · seq {deal.seq}</h3>")
            out.append(f"<p class='small'>deck commitment {e(deal.commitment)}"
                       + (f" · revealed at seq {deal.revealed_seq}" if deal.revealed_seq else "") + "</p>")
            out.append("<table class='hands'>")
            for seat, hand in enumerate(deal.hands):
                cards = "".join(_card_html(c) + " " for c in sorted(
                    hand, key=lambda c: (SUIT_ORDER.index(c[-1]), c)))
                out.append(f"<tr><td>seat {seat}</td><td>{cards}</td></tr>")
            out.append("</table>")
            if deal.turned_card:
                out.append(f"<p>turned card {_card_html(deal.turned_card)}</p>")
            if deal.auction:
                calls = ", ".join(f"seat {c.seat} {e(c.call)}{e(_bot(c))}" for c in deal.auction)
                out.append(f"<p>auction: {calls}</p>")
            if deal.all_passed:
                out.append("<p>everyone passed: redeal</p>")
            if deal.contract:
                c = deal.contract
                out.append(f"<p><b>contract: seat {c['taker']} plays {e(c['contract'])}</b>"
                           + (" (forced take)" if c["forced"] else "") + "</p>")
            for a in deal.announcements:
                out.append(f"<p class='small'>announcement: seat {a.seat} {e(a.text)} ({a.points})"
                           + (f" [{e(a.cards)}]" if a.cards else "") + "</p>")
            if deal.tricks:
                out.append("<div class='tricks'>"
                           + "".join(_trick_html(t, positions, flagged) for t in deal.tricks) + "</div>")
            if deal.score:
                lines = _score_lines(deal.score)
                out.append("<div class='score'>" + "<br>".join(e(x) for x in lines)
                           + f"<br><b>totals {e(_pair(deal.score['totals']))}</b></div>")
            for ev in deal.seat_events:
                out.append(_event_html(ev))
            out.append("</div>")
        if game.result:
            res = game.result
            out.append(f"<p><b>Result: team {res['winning_team']} wins, {e(_pair(res['totals']))}</b></p>")
            out.append("<p class='small'>" + "<br>".join(e(line) for line in result_lines(game)[1:]) + "</p>")
        for ev in game.after:
            out.append(_event_html(ev))
    if s.closed:
        out.append(f"<p><b>{e(closed_line(s.closed))}</b></p>")
    out.append("</body></html>")
    return "\n".join(out)
