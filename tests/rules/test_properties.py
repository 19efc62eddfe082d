"""Properties of random complete games, for every preset (hypothesis).

Each example plays one whole game from shuffled decks, every action drawn from the legal ones,
and checks at every card, every trick and every deal:

- the legal cards are exactly those a plain reading of SPEC §4 allows (``reference_legal``
  below, written from the SPEC, not from the engine), and every other card of the hand is
  refused with the reason that names the broken rule;
- every trick goes to the seat SPEC §4 names, for the points of SPEC §3;
- every card is played exactly once per deal, each seat plays the 8 cards it was dealt;
- trick points add up to the deal total, or to the capot value when a team took all 8 tricks,
  and the deal scores add up to it too (plus belote and announcements, with the reserve);
- the game ends at the target, with one winner, and not a deal earlier;
- replaying the same deck orders and actions reproduces every outcome and score exactly.
"""

from __future__ import annotations

import random

import pytest
from belote.rules import (
    ALL_TRUMP,
    NO_TRUMP,
    PRESETS,
    AllPassed,
    ContractSettled,
    Game,
    GameOver,
    IllegalAction,
    Play,
    TrickWon,
    rules_for,
)
from belote.rules.result import DealResult
from belote.rules.scoring import game_winner
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

# SPEC §3, weakest first, by rank letter.
ORDERS = {
    ("standard", True): "7 8 Q K 10 A 9 J",
    ("standard", False): "7 8 9 J Q K 10 A",
    ("enhanced", True): "7 8 9 Q K A 10 J",
    ("enhanced", False): "7 8 9 10 J Q K A",
}
POINTS = {
    ("standard", True): {"J": 20, "9": 14, "A": 11, "10": 10, "K": 4, "Q": 3},
    ("standard", False): {"A": 11, "10": 10, "K": 4, "Q": 3, "J": 2},
    ("enhanced", True): {"J": 20, "10": 15, "A": 10, "K": 8, "Q": 6, "9": 2, "8": 1},
    ("enhanced", False): {"A": 10, "K": 8, "Q": 6, "J": 4, "10": 3, "9": 2, "8": 1},
}
RANK = ("7", "8", "9", "10", "J", "Q", "K", "A")


class Reference:
    """SPEC §3-§4 read literally, for one contract."""

    def __init__(self, rules, contract: int):
        self.rules, self.contract, self.values = rules, contract, rules.values

    def is_trump(self, c: int) -> bool:
        return self.contract == ALL_TRUMP or (self.contract != NO_TRUMP and c // 8 == self.contract)

    def strength(self, c: int) -> int:
        return ORDERS[self.values, self.is_trump(c)].split().index(RANK[c % 8])

    def points(self, c: int) -> int:
        return POINTS[self.values, self.is_trump(c)].get(RANK[c % 8], 0)

    def winner(self, trick: list[int]) -> int:
        """Index in the trick of the winning card: highest trump if any trump was played, else
        the highest card of the led suit (TA/SA: highest card of the led suit)."""
        led = trick[0] // 8
        if self.contract not in (NO_TRUMP, ALL_TRUMP) and any(self.is_trump(c) for c in trick):
            candidates = [i for i, c in enumerate(trick) if self.is_trump(c)]
        else:
            candidates = [i for i, c in enumerate(trick) if c // 8 == led]
        return max(candidates, key=lambda i: self.strength(trick[i]))

    def legal(self, hand: list[int], trick: list[int], leader: int, seat: int) -> tuple[set, str]:
        """The legal cards, and the reason an illegal card is refused."""
        if not trick:
            return set(hand), ""
        play = self.rules.play
        led = trick[0] // 8
        follow = [c for c in hand if c // 8 == led]
        if follow:
            if play != "free" and self.is_trump(trick[0]):
                top = max(self.strength(c) for c in trick if c // 8 == led)
                higher = [c for c in follow if self.strength(c) > top]
                return set(higher or follow), "MUST_FOLLOW_SUIT/MUST_GO_HIGHER"
            return set(follow), "MUST_FOLLOW_SUIT"
        if self.contract in (NO_TRUMP, ALL_TRUMP) or play == "free":
            return set(hand), ""
        trumps = [c for c in hand if self.is_trump(c)]
        w = self.winner(trick)
        best, best_seat = trick[w], (leader + w) % 4
        if best_seat == (seat + 2) % 4:                           # partner wins
            if (play == "belgian" and self.is_trump(best) and trumps
                    and not any(self.strength(t) > self.strength(best) for t in trumps)):
                return set(trumps), "MUST_UNDERTRUMP"
            return set(hand), ""
        if not trumps:
            return set(hand), ""
        if self.is_trump(best):                                   # an opponent has trumped
            over = [t for t in trumps if self.strength(t) > self.strength(best)]
            if over:
                return set(over), "MUST_OVERTRUMP"
            if self.rules.undertrump == "required":
                return set(trumps), "MUST_UNDERTRUMP"
            return set(hand), ""
        return set(trumps), "MUST_TRUMP"


def hand_cards(mask: int) -> list[int]:
    return [c for c in range(32) if mask >> c & 1]


def check_position(game: Game, ref: Reference, legal_actions) -> None:
    play = game.play
    seat = play.turn
    hand = hand_cards(play.hands[seat])
    expected, reason = ref.legal(hand, list(play.trick), play.leader, seat)
    assert {a.card for a in legal_actions if isinstance(a, Play)} == expected
    for c in hand:
        if c in expected:
            game.check(seat, Play(c))
            continue
        with pytest.raises(IllegalAction) as err:
            game.check(seat, Play(c))
        if reason == "MUST_FOLLOW_SUIT/MUST_GO_HIGHER":
            led = play.trick[0] // 8
            assert err.value.reason == ("MUST_GO_HIGHER" if c // 8 == led else "MUST_FOLLOW_SUIT")
        else:
            assert err.value.reason == reason


def play_game(rules, seed: int, max_deals: int = 80):
    """Play one random game; check everything on the way; return its log and outcomes."""
    rng = random.Random(seed)
    game = Game(rules)
    log: list = []
    outcomes: list = []
    deals = 0
    while game.phase != "over":
        deals += 1
        assert deals <= max_deals, "a game should not need this many deals"
        deck = list(range(32))
        rng.shuffle(deck)
        totals_before, reserve_before, dealer = list(game.totals), game.reserve, game.dealer
        log.append(("deal", deck))
        out = game.start_deal(deck)
        played: dict[int, list[int]] = {0: [], 1: [], 2: [], 3: []}
        ref = None
        while True:
            if game.phase == "playing" and ref is None:
                ref = Reference(rules, game.contract)
                dealt_hands = list(game.play.hands)
            seat = game.to_act()
            if seat is None:
                break
            actions = game.legal_actions()
            if game.phase == "playing":
                check_position(game, ref, actions)
            action = rng.choice(actions)
            if isinstance(action, Play):
                played[seat].append(action.card)
                trick_before = list(game.play.trick) + [action.card]
                leader = game.play.leader
            log.append(("act", seat, action))
            result = game.apply(seat, action)
            out += result
            for o in result:
                if isinstance(o, TrickWon):
                    w = ref.winner(trick_before)
                    assert (o.cards, o.leader, o.winner) == (tuple(trick_before), leader, (leader + w) % 4)
                    bonus = 10 if (o.number == 8 and rules.values == "standard") else 0
                    assert o.points == sum(ref.points(c) for c in trick_before) + bonus
        outcomes += out
        if any(isinstance(o, AllPassed) for o in out):
            assert game.totals == totals_before and game.reserve == reserve_before
            assert game.dealer == (dealer + 1) % 4 and not any(isinstance(o, DealResult) for o in out)
            assert game.last_result.redeal and game.last_result.reserve_waiting == reserve_before
            continue
        # Every card exactly once; each seat plays the 8 cards it was dealt.
        assert sorted(c for cs in played.values() for c in cs) == list(range(32))
        assert [sorted(played[s]) for s in range(4)] == [hand_cards(dealt_hands[s]) for s in range(4)]
        settled = [o for o in out if isinstance(o, ContractSettled)]
        assert len(settled) == 1
        tricks = [o for o in out if isinstance(o, TrickWon)]
        assert [t.number for t in tricks] == list(range(1, 9))
        table = game.play.table
        assert sum(t.points for t in tricks) == table.deal_total
        result = next(o for o in out if isinstance(o, DealResult))
        assert result is game.last_result and not result.redeal
        score = result.as_deal_score()
        won = [sum(1 for t in tricks if t.winner % 2 == team) for team in (0, 1)]
        capot = 8 in won
        assert sum(score.trick_points) == (table.capot_points if capot else table.deal_total)
        if rules.multipliers != "sa_ta" or score.multiplier == 1:
            ann = score.announcements[0] + score.announcements[1]
            bel = score.belote[0] + score.belote[1]
            if rules.scoring == "belgian_tens":
                expected = (25 if capot else 16) + sum(a // 10 for a in score.announcements) + bel // 10
            else:
                expected = score.multiplier * ((table.capot_points if capot else table.deal_total) + ann) + bel
            assert sum(score.deal_score) + score.reserve_created - score.reserve_paid == expected
        assert score.reserve_pending == reserve_before + score.reserve_created - score.reserve_paid
        assert game.totals == [totals_before[i] + score.deal_score[i] for i in (0, 1)]
        over = [o for o in out if isinstance(o, GameOver)]
        if over:
            assert over == [GameOver(game.winner, tuple(game.totals))]
            assert game_winner(totals_before, rules.target) is None
            assert max(game.totals) >= rules.target
            assert game.totals[game.winner] > game.totals[1 - game.winner]
        else:
            assert game.phase == "dealing" and game.dealer == (dealer + 1) % 4
            assert max(game.totals) < rules.target or game.totals[0] == game.totals[1]
    return log, outcomes, game


def replay(rules, log) -> tuple[list, Game]:
    game = Game(rules)
    outcomes: list = []
    for entry in log:
        if entry[0] == "deal":
            outcomes += game.start_deal(entry[1])
        else:
            outcomes += game.apply(entry[1], entry[2])
    return outcomes, game


VARIANTS = [(p, {}) for p in PRESETS] + [
    ("modern", {"play": "free"}),                                  # free in SA and TA
    ("modern", {"play": "belgian"}),                               # the Belgian rule in SA/TA
    ("classic", {"announcements": "classic", "first_dealer": 2}),  # undertrump allowed + announcements
    ("online-classic", {"announcements": "enhanced", "target": 300}),
    ("belgian", {"scoring": "points", "target": 400, "litige": "dedans"}),
]
IDS = [p + ("" if not o else "+" + ",".join(f"{k}={v}" for k, v in o.items())) for p, o in VARIANTS]


@pytest.mark.parametrize("preset, overrides", VARIANTS, ids=IDS)
@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(min_value=0, max_value=2**32 - 1))
def test_random_games_follow_the_rules_and_replay_exactly(preset, overrides, seed):
    """Random complete games: see the module docstring for what is checked."""
    rules = rules_for(preset, overrides)
    log, outcomes, game = play_game(rules, seed)
    again, game2 = replay(rules, log)
    assert again == outcomes
    assert (game2.scores, game2.totals, game2.winner, game2.reserve, game2.phase) == (
        game.scores, game.totals, game.winner, game.reserve, "over")


@settings(max_examples=200, deadline=None)
@given(deck=st.permutations(list(range(32))), dealer=st.integers(0, 3), taker=st.integers(0, 3))
def test_dealing_property(deck, dealer, taker):
    """SPEC §1 «From a deck ordered top to bottom d[0..31], starting with the eldest: each seat
    gets 3 cards, then each seat 2; d[20] is turned up; once the trump is settled, again from the
    eldest, the taker gets the turned card and 2 cards and every other seat 3, in order from
    d[21..31].»
    """
    from belote.rules.game import complete_hands, deal_all_eight, deal_first_five
    eldest = (dealer + 1) % 4
    expected = {s: [] for s in range(4)}
    i = 0
    for packet in (3, 2):
        for k in range(4):
            expected[(eldest + k) % 4] += deck[i:i + packet]
            i += packet
    five = deal_first_five(deck, eldest)
    assert [hand_cards(five[s]) for s in range(4)] == [sorted(expected[s]) for s in range(4)]
    expected[taker].append(deck[20])
    i = 21
    for k in range(4):
        seat = (eldest + k) % 4
        n = 2 if seat == taker else 3
        expected[seat] += deck[i:i + n]
        i += n
    eight = complete_hands(deck, eldest, taker, five)
    assert [hand_cards(eight[s]) for s in range(4)] == [sorted(expected[s]) for s in range(4)]
    # bidding=none: 3, 2, 3 from d[0].
    expected = {s: [] for s in range(4)}
    i = 0
    for packet in (3, 2, 3):
        for k in range(4):
            expected[(eldest + k) % 4] += deck[i:i + packet]
            i += packet
    every = deal_all_eight(deck, eldest)
    assert [hand_cards(every[s]) for s in range(4)] == [sorted(expected[s]) for s in range(4)]
