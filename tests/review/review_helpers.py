"""For the review tests: the sample games, and ways to alter an exported log as a cheat would."""

from __future__ import annotations

from dataclasses import dataclass

from belote.review.verify import Review, entries_of, review
from belote.rules.actions import Play
from belote.store.chain import GENESIS_HASH, event_hash
from belote.table.codec import card_from_pb, card_to_pb, encode_body
from belote.table.state import fold
from belote.v1 import events_pb2 as epb


def clone(log: list[epb.LoggedEvent]) -> list[epb.LoggedEvent]:
    out = []
    for m in log:
        c = epb.LoggedEvent()
        c.CopyFrom(m)
        out.append(c)
    return out


def rechain(log: list[epb.LoggedEvent], *, renumber: bool = False) -> list[epb.LoggedEvent]:
    """Recompute every sequence (if ``renumber``) and hash link, as a cheat with store access would."""
    prev = GENESIS_HASH
    for i, m in enumerate(log, 1):
        if renumber:
            m.sequence = m.event.sequence = i
        m.prev_hash = prev
        m.hash = event_hash(prev, m.table_id, m.sequence, m.event_type, m.schema_version, m.request_id,
                            m.append_time.ToMicroseconds(), encode_body(m.event))
        prev = m.hash
    return log


def check(log, **kw) -> Review:
    return review(entries_of(log), **kw)


def index_of(log, kind: str, pred=lambda m: True, start: int = 0) -> int:
    return next(i for i in range(start, len(log))
                if log[i].event.WhichOneof("body") == kind and pred(log[i]))


def state_before(log, i: int):
    """The table's state folded from the log's events before index ``i``."""
    return fold(log[0].table_id, [m.event for m in log[:i]])


def card_in_trick(log, i: int) -> int:
    """How many cards of the current trick were played before index ``i``."""
    return len(state_before(log, i).game.play.trick)


def legal_alternative(log, i: int) -> int | None:
    """Another legal card for the card played at index ``i``, or None."""
    state = state_before(log, i)
    body = log[i].event.card_played
    played = card_from_pb(body.card)
    others = [a.card for a in state.game.legal_actions(body.seat) if isinstance(a, Play) and a.card != played]
    return others[0] if others else None


def off_suit_card(log, i: int) -> int | None:
    """A card the seat at index ``i`` holds outside the led suit while it holds the led suit."""
    state = state_before(log, i)
    play = state.game.play
    if not play.trick:
        return None
    led = play.trick[0] >> 3
    hand = [c for c in range(32) if play.hands[play.turn] >> c & 1]
    if not any(c >> 3 == led for c in hand):
        return None
    return next((c for c in hand if c >> 3 != led), None)


def a_card_not_held(log, start: int) -> tuple[int, int]:
    """(index, card): the first card a human plays from ``start``, and a card its seat does not
    hold then (nor is on the table): an illegal card to put in its place."""
    i = index_of(log, "card_played", lambda m: not m.event.card_played.HasField("bot"), start=start)
    state = state_before(log, i)
    seat = log[i].event.card_played.seat
    return i, next(c for c in range(32) if not state.game.play.hands[seat] >> c & 1
                   and c not in state.game.play.trick)


def set_card(log, i: int, card: int) -> None:
    log[i].event.card_played.card.CopyFrom(card_to_pb(card))


def play_instead(log, i: int, card: int) -> None:
    """Another card at index ``i``, with the belote call the rules give it (as a cheat who knows
    the rules would write it: only the choice of the card is left to catch)."""
    from belote.table.decide import belote_call
    set_card(log, i, card)
    body = log[i].event.card_played
    body.belote = belote_call(state_before(log, i).game.copy().apply(body.seat, Play(card)))


# preset -> (seats, options); targets are lowered where a game would be long.
GAMES = {
    "classic": (("easy", "human", "easy", "easy"), {}),
    "classic-501": (("human", "easy", "human", "easy"), {}),
    "belgian": (("easy", "easy", "human", "normal"), {}),
    "belgian-open": (("normal", "human", "easy", "easy"), {"target": "500"}),
    "online-classic": (("hard", "human", "hard", "hard"), {"target": "300"}),
    "modern": (("human", "normal", "easy", "human"), {}),
    "kamikaze": (("easy", "human", "easy", "easy"), {}),
    "enhanced": (("human", "easy", "easy", "easy"), {"target": "600"}),
}
# Seat events: a human leaves and comes back, another's connection drops and comes back, a
# third's drops for good (its grace runs out: the server seats a takeover bot). Around the table:
# chat from a player and a spectator; a stake paid by a registered player and a rematch; a turn
# timer that runs out once (a timer move); the only human leaves for good, so the table closes
# as the game ends (NO_HUMANS). Every other table closes when its rematch vote runs out.
EXTRA = {"classic": {"chat": True},
         "classic-501": {"leave": (2, 12), "come_back": True},
         "modern": {"drop": (0, 5), "vanish": (3, 10), "turn_timer_s": 30, "slow": (0, 3)},
         "kamikaze": {"stake": 10, "rematch": True},
         "enhanced": {"leave": (0, 8)}}


# The sample app's server key: its exports' heads are signed with a key derived from it.
SERVER_KEY = bytes(range(32))


@dataclass
class Samples:
    store_url: str
    logs: dict          # preset -> list[LoggedEvent]: the export's events
    heads: dict         # preset -> LoggedEvent: the export's last line, its signed head

    def table_id(self, preset: str) -> str:
        return self.logs[preset][0].table_id
