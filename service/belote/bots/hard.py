"""Hard bot (sheet 001: "Difficile mémorise les cartes jouées, déduit les coupes et évalue la
probabilité de chaque carte restante").

Card play from the third trick is a determinised search: from what the seat knows
(:mod:`inference`: played cards, voids and trump limits shown by the play, the auction's odds;
from version 3 the belote calls and what the others' habits say, :mod:`habits`),
it deals the unseen cards at random many times, plays each legal card in each of those deals
and the deal out from there, turns the result into the deal score it would bring
(:mod:`outcome`), and plays the card with the best average. How a deal is played out:
- versions 0 to 3: with every hand open (:mod:`endgame`: exact alpha-beta for the last
  tricks, :mod:`rollout`: fast open-handed play-outs before);
- from version 4: every seat plays the normal bot's rules from what it would see of that deal
  (:func:`rollout.club_playout`), to the last card. Open-handed play credits the other side
  with a defence no club player finds, and passes up the chances the table gives; measured,
  the club play-outs are worth 3 to 5 points per deal more against the normal bot.

Bids and announcements are the normal bot's hand evaluation (:mod:`bidding`): valuing each
contract by sampled open-handed play-outs instead bid measurably worse. From version 2 it takes
a suit with a little less strength than the normal bot needs, as its play makes more of it.

Reproducible by construction: the only randomness is ``random.Random(seed)``, and the effort is
counted in sampled deals, rollouts and search nodes, never in time, so the same view and seed
give the same move on any machine.
"""

from __future__ import annotations

import math
import random
from functools import partial
from typing import NamedTuple

from belote.rules.cards import FULL_DECK, cards_of

from . import normal
from .normal import Memory, club_table
from .announcing import capot_lead
from .bidding import bid_margin
from .endgame import equivalent_cards, solve
from .inference import read_knowledge
from .outcome import deal_value
from .reading import played_so_far, table_of
from .rollout import club_playout, rollout
from .search import Position, SearchRules


class Effort(NamedTuple):
    """What a version does: its effort per card decision, in sampled deals, rollouts and search
    nodes (not time: see module doc), and how it bids."""

    search_from_trick: int    # tricks before it follow the rules of thumb (see choose_card)
    rollout_samples: int      # deals sampled while more than exact_tricks tricks remain
    exact_samples: int        # deals sampled for the exact endgame search
    exact_tricks: int         # exact search once this many tricks (the current one included)
                              # remain; 0: never
    node_budget: int          # alpha-beta nodes per decision; past it, rollouts finish the job
    # Search one card of each group of equivalent ones (search.equivalent_cards) and give the
    # others its value; version 0 searched every card.
    one_per_group: bool = False
    # At each multiple of ``stop_every`` samples, drop the cards the best one leads by more than
    # ``stop_z`` standard errors of their paired difference, and stop once one is left: clear
    # decisions take fewer samples, close ones all of them for the close cards. 0: never
    # (version 0).
    stop_z: float = 0.0
    stop_every: int = 16
    # Take a suit contract with this much less strength (bidding.strength) than the normal
    # bot's threshold; 0 (versions 0 and 1): the normal bot's bids.
    suit_take_below: int = 0
    # Rollouts per decision (one per card still in the running per sample): sampling stops
    # before a sample would pass it, so a decision between many close cards takes fewer
    # samples. 0 (versions 0 and 1): no limit.
    rollout_budget: int = 0
    # Read the belote calls and the others' habits (:mod:`habits`) when dealing the unseen
    # cards; False (versions 0 to 2): the rules and the auction only.
    reads_habits: bool = False
    # Play-outs where every seat plays the normal bot's rules from what it would see
    # (rollout.club_playout); False (versions 0 to 3): open-handed rollouts (rollout.rollout).
    club_playouts: bool = False


# Each version a recorded move may name (BotMove.version), the last one the current: a log is
# recomputed with the effort its moves were made with.
VERSIONS = {
    0: Effort(2, 64, 24, 3, 60_000),
    # The same search, a third of its rollouts saved: one card per group of equivalent ones,
    # and clear decisions stop at 16, 32 or 48 samples (docs/performance.md, "Bots").
    1: Effort(2, 64, 24, 3, 60_000, one_per_group=True, stop_z=2.0, stop_every=16),
    # Takes more suit contracts; fewer samples for decisions between many close cards
    # (docs/performance.md, "Bots").
    2: Effort(2, 64, 24, 3, 60_000, one_per_group=True, stop_z=2.0, stop_every=16,
              suit_take_below=2, rollout_budget=192),
    # Deals the unseen cards knowing who called belote and what the others' plays say of the
    # cards they kept (docs/performance.md, "Hard bot version 3").
    3: Effort(2, 64, 24, 3, 60_000, one_per_group=True, stop_z=2.0, stop_every=16,
              suit_take_below=2, rollout_budget=192, reads_habits=True),
    # Play-outs of club players, each seat from what it would see, to the last card: the
    # exact endgame's open-handed defence is one the table seldom finds (docs/performance.md,
    # "Hard bot version 4").
    4: Effort(2, 64, 24, 0, 60_000, one_per_group=True, stop_z=2.0, stop_every=16,
              suit_take_below=2, rollout_budget=168, reads_habits=True, club_playouts=True),
}
CURRENT = max(VERSIONS)


def choose(view, seed: int, version: int = CURRENT):
    effort = VERSIONS[version]
    margin = partial(take_margin, below=effort.suit_take_below) if effort.suit_take_below \
        else bid_margin
    return normal.choose_with(view, lambda v, legal: choose_card(v, legal, seed, effort), margin)


def take_margin(view, contract: int, below: int) -> int:
    """:func:`bidding.bid_margin`, ``below`` points more generous for a suit contract."""
    return bid_margin(view, contract) + (below if 0 <= contract < 4 else 0)


def choose_card(view, legal: int, seed: int, effort: Effort = VERSIONS[CURRENT]) -> int:
    if legal & (legal - 1) == 0:
        return legal.bit_length() - 1
    if not view.trick and normal.team_declared_capot(view):
        return capot_lead(view, legal)
    if len(view.tricks) < effort.search_from_trick:
        # With 24+ cards hidden, open-handed play-outs judge the first tricks (opening leads,
        # drawing trumps) worse than the rules of thumb do: measured, searching them cost
        # 4 points per deal against the normal bot. The search takes over from trick 3.
        return normal.choose_card(view, legal)
    scores = card_scores(view, legal, seed, effort)
    # Ties (equivalent cards) go to the normal bot's rule of thumb, then to the lowest card.
    preferred = normal.choose_card(view, legal)
    return max(scores, key=lambda c: (round(scores[c], 6), c == preferred, -c))


def card_scores(view, legal: int, seed: int, effort: Effort = VERSIONS[CURRENT]) -> dict[int, float]:
    """Mean deal score difference each legal card brings over the sampled deals; with
    ``effort.stop_z``, only of the cards still in the running (the others were dropped as
    clearly worse, and their means are over fewer deals)."""
    rng = random.Random(seed)
    table = table_of(view)
    r = SearchRules.of(view.rules, table)
    team = view.seat & 1
    knowledge = read_knowledge(view, effort.reads_habits)
    played_by, order_played = played_so_far(view)
    points = sum(p for _l, _c, w, p in view.tricks if w & 1 == team)
    won_mine = sum(1 for _l, _c, w, _p in view.tricks if w & 1 == team)
    won = (won_mine, len(view.tricks) - won_mine)
    tricks_left = 8 - len(view.tricks)
    exact = tricks_left <= effort.exact_tricks
    moves = cards_of(legal)
    if effort.one_per_group:
        live = FULL_DECK & ~played_by[0] & ~played_by[1] & ~played_by[2] & ~played_by[3]
        for c in view.trick:
            live |= 1 << c
        group = equivalent_cards(r, legal, live)
        searched = sorted(set(group.values()))
    else:
        group = {c: c for c in moves}
        searched = moves
    nodes_left = effort.node_budget
    cache: dict = {}
    samples = effort.exact_samples if exact else effort.rollout_samples
    per_sample: dict[int, list[float]] = {c: [] for c in searched}
    if effort.club_playouts:
        club, memory = club_table(table), Memory.of_view(view, table)
    active = searched
    done = rollouts = 0
    for done in range(1, samples + 1):
        hands = knowledge.sample(rng)
        value_of = deal_value(view, table, hands, played_by, order_played, cache)
        pos = Position(r, hands, team, view.trick_leader, list(view.trick), points, won,
                       tricks_left)
        values = None
        if exact and nodes_left > 0:
            values, used = solve(pos, nodes_left, active)
            nodes_left -= used
        if values is None:
            values = {}
            for card in active:
                if effort.club_playouts:
                    values[card] = club_playout(pos, club, memory, card)
                    continue
                after = pos.copy()
                after.play(card)
                values[card] = rollout(after)
            rollouts += len(active)
        for card in active:
            per_sample[card].append(value_of(values[card]))
        if effort.stop_z and done % effort.stop_every == 0 and done < samples:
            out = _outclassed({c: per_sample[c] for c in active}, effort.stop_z)
            if out:
                active = [c for c in active if c not in out]
                if len(active) == 1:
                    break
        if effort.rollout_budget and rollouts + len(active) > effort.rollout_budget:
            break
    return {c: _total(per_sample[group[c]]) / done for c in moves if group[c] in active}


def _outclassed(per_sample: dict[int, list[float]], z: float) -> set[int]:
    """The cards the card of the best mean leads by more than ``z`` standard errors of their
    paired difference over the samples so far: sampling them further would not change the
    choice."""
    if len(per_sample) < 2:
        return set()
    n = len(next(iter(per_sample.values())))
    best = max(per_sample, key=lambda c: (math.fsum(per_sample[c]), -c))
    top = per_sample[best]
    out = set()
    for card, values in per_sample.items():
        if card == best:
            continue
        diffs = [a - b for a, b in zip(top, values)]
        mean = math.fsum(diffs) / n
        var = math.fsum((d - mean) ** 2 for d in diffs) / (n - 1)
        if mean > 0 and mean * mean * n > z * z * var:
            out.add(card)
    return out


def _total(values: list[float]) -> float:
    """Added in order, as version 0 did (``sum`` of floats differs across Python versions)."""
    total = 0.0
    for v in values:
        total += v
    return total
