"""The hard bot's machinery: the open-handed search agrees with the rules engine, and what it
infers about the other hands is always true of the real deal."""

from __future__ import annotations

import random

import pytest
from belote.bots.inference import read_knowledge
from belote.bots.endgame import equivalent_cards, solve
from belote.bots.rollout import greedy_card, rollout
from belote.bots.search import SearchRules
from belote.rules import PLAYING, cards_of, contract_table, rules_for
from belote.rules.cards import SUIT_MASK
from belote.rules.play import PLAY_RULES, CardPlay
from bot_helpers import EASY, NORMAL, PRESETS, H, card, mask, position_of, random_deals


def random_position(rules, rng, tricks_left: int, in_trick: int = 0) -> CardPlay:
    """A deal of ``rules`` played at random down to ``tricks_left`` tricks (and ``in_trick``
    cards of the next)."""
    deck = list(range(32))
    rng.shuffle(deck)
    hands = [sum(1 << c for c in deck[s * 8:s * 8 + 8]) for s in range(4)]
    contract = rng.choice((0, 1, 2, 3, 4, 5)) if rules.values == "standard" else rng.randrange(4)
    play = CardPlay(hands, contract, 0, rng.randrange(4), contract_table(rules.values, contract),
                    PLAY_RULES[rules.play], rules.undertrump == "required",
                    rules.belote_order == "king_first")
    while play.trick_number < 8 - tricks_left or len(play.trick) < in_trick:
        play.play(rng.choice(cards_of(play.legal_cards())))
    return play


def minimax(play: CardPlay, team: int, capot_bonus: int) -> int:
    """Plain minimax over the rules engine itself: the reference the search must match."""
    if play.over:
        value = play.trick_points[team]
        if play.tricks_won[1 - team] == 0:
            value += capot_bonus
        elif play.tricks_won[team] == 0:
            value -= capot_bonus
        return value
    values = []
    for c in cards_of(play.legal_cards()):
        after = play.copy()
        after.play(c)
        values.append(minimax(after, team, capot_bonus))
    return max(values) if (play.turn & 1) == team else min(values)


@pytest.mark.parametrize("preset", ["classic", "classic-501", "belgian", "enhanced"])
def test_legal_cards_of_the_search_are_the_rules_engine_ones(preset):
    rules = rules_for(preset)
    rng = random.Random(preset)
    for _ in range(300):
        play = random_position(rules, rng, rng.randint(1, 8), rng.randrange(4))
        pos = position_of(play, rules)
        assert pos.legal() == play.legal_cards()


@pytest.mark.parametrize("preset", ["classic", "classic-501", "belgian", "enhanced"])
def test_exact_search_equals_minimax_over_the_rules_engine(preset):
    rules = rules_for(preset)
    rng = random.Random(f"solve:{preset}")
    for i in range(25):
        play = random_position(rules, rng, 2 + i % 2, rng.randrange(4))
        pos = position_of(play, rules)
        values, _nodes = solve(pos, 10**6)
        assert values is not None
        team = play.turn & 1
        for c, v in values.items():
            after = play.copy()
            after.play(c)
            assert v == minimax(after, team, pos.r.capot_bonus), f"card {c}"


def test_search_budget_is_counted_in_nodes():
    rules = rules_for("classic")
    play = random_position(rules, random.Random(3), 6)
    values, nodes = solve(position_of(play, rules), 50)
    assert values is None and nodes == 51


def test_rollouts_play_legal_cards_to_the_end():
    rules = rules_for("belgian")
    rng = random.Random(4)
    for _ in range(50):
        play = random_position(rules, rng, 8)
        pos = position_of(play, rules)
        total = rollout(pos)
        assert -pos.r.capot_bonus <= total <= pos.r.deal_total + pos.r.capot_bonus
        assert pos.tricks_left == 8, "the position itself is untouched"


@pytest.mark.parametrize("preset", ["classic", "belgian", "enhanced", "modern"])
def test_rollout_plays_the_greedy_policy_card_for_card(preset):
    """The rollout is greedy_card over local variables: on random positions (mid-trick too),
    it ends on the value of playing greedy_card on a Position, card after card."""
    rules = rules_for(preset)
    rng = random.Random(f"rollout:{preset}")
    for _ in range(300):
        play = random_position(rules, rng, rng.randint(1, 8), rng.randrange(4))
        pos = position_of(play, rules)
        reference = pos.copy()
        while reference.tricks_left:
            reference.play(greedy_card(reference))
        assert rollout(pos) == reference.final_value()


@pytest.mark.parametrize("habits", [False, True], ids=["rules", "belote-calls-and-habits"])
@pytest.mark.parametrize("preset", PRESETS)
def test_what_the_hard_bot_infers_is_true_of_the_real_deal(preset, habits):
    """At every card decision: each other seat's real hand fits what was inferred (possible
    cards, known cards, counts, a couleur's length), and sampled deals fit it too."""
    rng = random.Random(preset)
    checked = {"n": 0}

    def check(game, seat, view, action):
        if game.phase != PLAYING:
            return
        knowledge = read_knowledge(view, habits)
        for s in range(4):
            real = game.play.hands[s]
            if s == seat:
                continue
            assert real & ~(knowledge.possible[s] | knowledge.known[s]) == 0
            assert knowledge.known[s] & ~real == 0
            assert knowledge.counts[s] == real.bit_count()
        for s, suit, n in knowledge.suit_counts:
            assert (game.play.hands[s] & SUIT_MASK[suit]).bit_count() == n
        sample = knowledge.sample(rng)
        assert sample[seat] == view.hand
        for s in range(4):
            if s != seat:
                assert sample[s] & ~(knowledge.possible[s] | knowledge.known[s]) == 0
                assert knowledge.known[s] & ~sample[s] == 0
                assert sample[s].bit_count() == knowledge.counts[s]
        checked["n"] += 1

    random_deals(preset, (NORMAL, EASY, NORMAL, EASY), 40,
                 seed=6, on_decision=check)
    assert checked["n"] > 40 * 20


def test_equivalent_cards_group_a_hands_touching_cards_of_equal_points():
    r = SearchRules.of(rules_for("classic"), contract_table("standard", H))
    live_all = (1 << 32) - 1
    hand = mask("7S 8S 10S AS 9H JH KC QC")
    group = equivalent_cards(r, hand, live_all)
    assert group[card("7S")] == group[card("8S")] == card("8S")    # no card between, 0 points
    assert group[card("10S")] == card("10S") and group[card("AS")] == card("AS")   # 10 and 11
    assert group[card("9H")] == card("9H") and group[card("JH")] == card("JH")     # trumps 14, 20
    assert group[card("KC")] == card("KC") and group[card("QC")] == card("QC")     # 4 and 3
    # 9S lies between 8S and 10S in the order: live, it splits; played, it does not matter
    # (10S and AS still differ in points).
    assert equivalent_cards(r, mask("8S 10S"), live_all) == {card("8S"): card("8S"),
                                                             card("10S"): card("10S")}
    gone = live_all & ~mask("9S KS QS JS")
    assert equivalent_cards(r, mask("8S 7S"), gone)[card("7S")] == card("8S")
    # With 8S still live (another hand's), 7S and 9S are not equivalent; once played, they are.
    assert equivalent_cards(r, mask("7S 9S"), live_all)[card("7S")] == card("7S")
    assert equivalent_cards(r, mask("7S 9S"), live_all & ~mask("8S"))[card("7S")] == card("9S")


@pytest.mark.parametrize("preset", ["classic", "belgian"])     # enhanced: no two cards score alike
def test_equivalent_cards_have_the_same_exact_value(preset):
    """What the hard bot relies on to search one card per group: on random positions, the exact
    values of equivalent cards are equal, and solving a subset gives the same values."""
    rules = rules_for(preset)
    rng = random.Random(f"groups:{preset}")
    grouped = 0
    for i in range(150):
        play = random_position(rules, rng, 3 + i % 2, rng.randrange(4))
        pos = position_of(play, rules)
        values, _nodes = solve(pos, 10**6)
        live = pos.hands[0] | pos.hands[1] | pos.hands[2] | pos.hands[3]
        for c in pos.trick:
            live |= 1 << c
        group = equivalent_cards(pos.r, pos.legal(), live)
        assert set(group) == set(values)
        for c, rep in group.items():
            assert values[c] == values[rep]
            grouped += c != rep
        reps = sorted(set(group.values()))
        some, _ = solve(pos, 10**6, reps)
        assert some == {c: values[c] for c in reps}
    assert grouped > 0


def test_sampling_drops_only_the_cards_the_best_one_clearly_leads():
    from belote.bots.hard import _outclassed
    steady = [10.0 + (i % 3) for i in range(16)]
    noisy = [(-1) ** i * 20.0 for i in range(16)]
    assert _outclassed({1: steady, 2: [x - 8 for x in steady], 3: [x - 30 for x in steady]},
                       3.0) == {2, 3}
    close = {1: [x + 2 for x in noisy], 2: noisy[::-1], 3: [x - 50 for x in steady]}
    assert _outclassed(close, 3.0) == {3}, "1 and 2 stay: their difference is noise"
    assert _outclassed({1: steady, 2: steady[:]}, 3.0) == set(), "a tie is never clear"
    assert _outclassed({5: steady}, 3.0) == set()
