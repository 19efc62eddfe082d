"""Traces of seeded random play through the public ``Game`` API, for the differential test.

A trace lists, for every action of many deals, the seat to act, its hand, the legal actions,
the action drawn and what ``apply`` reported (tricks, belote, announcements, deal results,
game end). ``data/traces.json`` holds traces recorded with the engine as it was before the
card play was rewritten for speed (commit b1054cb); ``test_traces.py`` checks that today's
engine gives the same ones. To record again from an old checkout::

    PYTHONPATH=<old checkout>/service:tests/rules python tests/rules/traces.py > tests/rules/data/traces.json
"""

from __future__ import annotations

import hashlib
import json
import random
from dataclasses import replace

from belote.rules import PRESETS, Bid, Declare, Game, Play, rules_for

DEALS_PER_CASE = 600     # each case: this many deals (redeals included), games chained
KEPT_DEALS = 3           # deals kept in full in the fixture, to show where a difference starts

# Option overrides beyond the presets: the play rules and scorings they leave out.
OVERRIDES = (
    ("classic", {"play": "belgian", "undertrump": "required"}),
    ("classic", {"play": "free"}),
    ("classic", {"undertrump": "required", "belote_order": "king_first"}),
    ("classic", {"bidding": "two_rounds_with_no_trump", "multipliers": "x3_both"}),
    ("classic", {"bidding": "none", "litige": "dedans"}),
    ("classic", {"values": "enhanced", "announcements": "classic"}),
    ("belgian", {"announcements": "off", "all_pass": "redeal"}),
    ("belgian-open", {"play": "belgian", "announcements_in_contract": False}),
    ("modern", {"all_pass": "forced_trump", "play": "free", "announcements": "classic"}),
    ("enhanced", {"play": "standard", "undertrump": "allowed", "litige": "reserve"}),
    ("enhanced", {"play": "belgian"}),
    ("kamikaze", {"announcements": "enhanced", "play": "belgian"}),
)


def cases() -> list[tuple[str, dict]]:
    return [(preset, {}) for preset in PRESETS] + [(p, dict(o)) for p, o in OVERRIDES]


def case_name(preset: str, overrides: dict) -> str:
    return preset + "".join(f",{k}={v}" for k, v in sorted(overrides.items()))


def _action(a) -> str:
    if isinstance(a, Bid):
        return f"b{a.contract}"
    if isinstance(a, Play):
        return f"p{a.card}"
    assert isinstance(a, Declare)
    return f"d{a.kind}:{a.suit}:{a.rank}"


def _plain(value):
    """Events as plain JSON values: named tuples as [type, fields...], enums as their value."""
    if type(value).__name__ == "AnnouncementsRevealed" and value.scoring_team is None:
        value = value._replace(scoring_team=-1)      # the recorded engine wrote nobody as -1
    if isinstance(value, tuple) and hasattr(value, "_fields"):
        return [type(value).__name__, *(_plain(v) for v in value)]
    if isinstance(value, (list, tuple)):
        return [_plain(v) for v in value]
    if isinstance(value, str):
        return str(value)
    return value


def trace_deals(preset: str, overrides: dict, deals: int = DEALS_PER_CASE, seed: int = 17):
    """Yield one list of steps per deal: each step a plain JSON value."""
    rules = rules_for(preset, overrides)
    rng = random.Random(f"{seed}:{case_name(preset, overrides)}")
    game = Game(rules)
    for _ in range(deals):
        if game.winner is not None:
            game = Game(replace(rules, first_dealer=rng.randrange(4)))
        deck = list(range(32))
        rng.shuffle(deck)
        steps: list = [["deal", deck, _plain(game.start_deal(deck))]]
        while (seat := game.to_act()) is not None:
            actions = game.legal_actions()
            action = actions[rng.randrange(len(actions))]
            hand = game.hand(seat)
            happened = game.apply(seat, action)
            steps.append([seat, hand, [_action(a) for a in actions], _action(action),
                          _plain(happened)])
        steps.append(["totals", list(game.totals), game.reserve, game.winner])
        yield steps


def record(preset: str, overrides: dict) -> dict:
    digest = hashlib.sha256()
    kept = []
    for n, steps in enumerate(trace_deals(preset, overrides)):
        digest.update(json.dumps(steps, separators=(",", ":")).encode())
        if n < KEPT_DEALS:
            kept.append(steps)
    return {"preset": preset, "overrides": overrides, "deals": DEALS_PER_CASE,
            "sha256": digest.hexdigest(), "first_deals": kept}


if __name__ == "__main__":
    print(json.dumps([record(p, o) for p, o in cases()], separators=(",", ":")))
