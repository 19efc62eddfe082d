"""SPEC §2: dealing and bidding (``bidding``, ``all_pass``)."""

from __future__ import annotations

import random

import pytest
from belote.rules import (
    ALL_TRUMP,
    AUCTION,
    CHOOSING_TRUMP,
    NO_TRUMP,
    PLAYING,
    PASS,
    PRESETS,
    AllPassed,
    Auction,
    Bid,
    ContractSettled,
    Game,
    IllegalAction,
    Play,
    rules_for,
)
from belote.rules.scoring import score_deal
from rules_helpers import C, D, H, S, bid, names

DECK = list(range(32))
random.Random(77).shuffle(DECK)
TURNED = DECK[20]
TURNED_SUIT = TURNED >> 3
OTHERS = [s for s in range(4) if s != TURNED_SUIT]


def dealt(*indices: int) -> set[str]:
    return names([DECK[i] for i in indices])


def calls(game: Game) -> list[int]:
    return [a.contract for a in game.legal_actions()]


def refused(game: Game, call: int, seat: int | None = None) -> IllegalAction:
    with pytest.raises(IllegalAction) as err:
        game.apply(game.to_act() if seat is None else seat, Bid(call))
    return err.value


# two_rounds ------------------------------------------------------------------------------------
def test_two_rounds_presets_deal_five_cards_and_turn_one_up():
    """SPEC §2 «two_rounds (sheets 000, 001, 002, 003-classique, 004): 5 cards each (3 then 2),
    one card turned up.»
    """
    assert sorted(p for p, row in PRESETS.items() if row["bidding"] == "two_rounds") == [
        "belgian", "belgian-open", "classic", "classic-501", "enhanced", "online-classic"]
    game = Game(rules_for("classic"))
    game.start_deal(DECK)
    assert [game.hand(s).bit_count() for s in range(4)] == [5, 5, 5, 5]
    assert game.turned_card == TURNED
    assert not any(game.hand(s) >> TURNED & 1 for s in range(4))
    assert game.phase == "auction"


def test_round_one_take_the_turned_suit_or_pass():
    """SPEC §2 «Round 1, from eldest: take the turned suit, or pass.»"""
    game = Game(rules_for("classic"))
    game.start_deal(DECK)
    seen = []
    for _ in range(4):
        seen.append((game.to_act(), calls(game)))
        bid(game, "pass")
    assert seen == [(1, [PASS, TURNED_SUIT]), (2, [PASS, TURNED_SUIT]),
                    (3, [PASS, TURNED_SUIT]), (0, [PASS, TURNED_SUIT])]


def test_round_two_any_other_suit_or_pass_only_after_four_passes():
    """SPEC §2 «Round 2 (only after 4 passes): name any suit other than the turned suit, or pass.»"""
    game = Game(rules_for("classic"))
    game.start_deal(DECK)
    bid(game, "pass", "pass", "pass")
    assert calls(game) == [PASS, TURNED_SUIT]            # still round 1
    bid(game, "pass")
    seen = []
    for _ in range(4):
        seen.append((game.to_act(), calls(game)))
        if len(seen) < 4:
            bid(game, "pass")
    assert seen == [(s, [PASS, *OTHERS]) for s in (1, 2, 3, 0)]
    assert game.auction.round == 2


def test_the_first_take_ends_the_auction_round_one():
    """SPEC §2 «The first take ends the auction.»"""
    game = Game(rules_for("classic"))
    game.start_deal(DECK)
    assert bid(game, "pass", TURNED_SUIT) == [ContractSettled(2, TURNED_SUIT, False)]
    assert game.phase == "playing" and game.auction.finished
    assert (game.taker, game.contract) == (2, TURNED_SUIT)
    assert game.auction.calls == [(1, PASS), (2, TURNED_SUIT)]


def test_the_first_take_ends_the_auction_round_two():
    """SPEC §2 «The first take ends the auction.»"""
    game = Game(rules_for("classic"))
    game.start_deal(DECK)
    assert bid(game, *["pass"] * 6, OTHERS[2]) == [ContractSettled(3, OTHERS[2], False)]
    assert game.phase == "playing"


def test_the_taker_receives_the_turned_card_plus_two_the_others_three():
    """SPEC §2 «The taker receives the turned card plus 2, the others 3 each (everyone ends with 8).»

    Dealer 0; seat 2 takes in round 2.
    """
    game = Game(rules_for("classic"))
    game.start_deal(DECK)
    bid(game, *["pass"] * 5, OTHERS[0])
    assert [names(game.hand(s)) for s in range(4)] == [
        dealt(9, 10, 11, 18, 19, 29, 30, 31),
        dealt(0, 1, 2, 12, 13, 21, 22, 23),
        dealt(3, 4, 5, 14, 15, 20, 24, 25),
        dealt(6, 7, 8, 16, 17, 26, 27, 28),
    ]
    assert [game.hand(s).bit_count() for s in range(4)] == [8, 8, 8, 8]


# two_rounds_with_no_trump ----------------------------------------------------------------------
def test_no_trump_bidding_sa_and_ta_in_either_round():
    """SPEC §2 «two_rounds_with_no_trump (sheet 003-moderne): as two_rounds, but a bid may also be
    SA (no trump) or TA (all trump), in either round.»
    SPEC §2 «In round 1 the only suit bid is the turned suit; in round 2 any other suit.»
    """
    assert [p for p, row in PRESETS.items() if row["bidding"] == "two_rounds_with_no_trump"] == ["modern"]
    game = Game(rules_for("modern"))
    game.start_deal(DECK)
    assert calls(game) == [PASS, TURNED_SUIT, NO_TRUMP, ALL_TRUMP]
    bid(game, *["pass"] * 4)
    assert calls(game) == [PASS, *OTHERS, NO_TRUMP, ALL_TRUMP]
    bid(game, "pass", NO_TRUMP)                              # seat 2 bids SA in round 2
    assert game.auction.best == NO_TRUMP and not game.auction.finished


def test_bids_rank_suit_below_sa_below_ta():
    """SPEC §2 «Bids rank suit < SA < TA.»
    SPEC §2 «Once a bid stands, the auction goes on in turn; each later call must be a strictly
    higher-ranked bid or a pass (a player who passed earlier may still outbid when its turn comes
    again); the auction ends after 3 passes following the standing bid.»
    """
    game = Game(rules_for("modern"))
    game.start_deal(DECK)
    bid(game, TURNED_SUIT)                                   # seat 1 takes the turned suit
    assert calls(game) == [PASS, NO_TRUMP, ALL_TRUMP]          # no other suit, not even round 2's
    bid(game, NO_TRUMP)                                      # seat 2: SA over a suit
    assert calls(game) == [PASS, ALL_TRUMP]
    bid(game, ALL_TRUMP)                                     # seat 3: TA over SA
    assert calls(game) == [PASS]
    err = refused(game, NO_TRUMP)
    assert (err.reason, str(err)) == ("MUST_OVERBID", "you must bid higher than all trump (TA) or pass")


def test_a_player_who_passed_may_outbid_and_three_passes_end_it():
    """SPEC §2 «Once a bid stands, the auction goes on in turn; each later call must be a strictly
    higher-ranked bid or a pass (a player who passed earlier may still outbid when its turn comes
    again); the auction ends after 3 passes following the standing bid.»

    Dealer 0. Seat 1 passes, seat 2 takes the turned suit, 3 and 0 pass, seat 1 (who passed)
    bids SA, seat 2 bids TA, then three passes: seat 2 plays TA.
    """
    game = Game(rules_for("modern"))
    game.start_deal(DECK)
    assert bid(game, "pass", TURNED_SUIT, "pass", "pass") == []
    assert game.to_act() == 1 and calls(game) == [PASS, NO_TRUMP, ALL_TRUMP]
    assert bid(game, NO_TRUMP, ALL_TRUMP, "pass", "pass") == []
    assert not game.auction.finished                   # two passes after the standing bid
    assert bid(game, "pass") == [ContractSettled(2, ALL_TRUMP, False)]
    assert [s for s, _ in game.auction.calls] == [1, 2, 3, 0, 1, 2, 3, 0, 1]


def test_sa_bid_in_round_one_then_three_passes():
    """SPEC §2 «Once a bid stands, the auction goes on in turn; each later call must be a strictly
    higher-ranked bid or a pass (a player who passed earlier may still outbid when its turn comes
    again); the auction ends after 3 passes following the standing bid.»
    """
    game = Game(rules_for("modern", {"first_dealer": 2}))
    game.start_deal(DECK)
    assert bid(game, NO_TRUMP, "pass", "pass", "pass") == [ContractSettled(3, NO_TRUMP, False)]


def test_the_no_trump_taker_receives_the_turned_card():
    """SPEC §2 «The taker receives the turned card as above.»"""
    game = Game(rules_for("modern"))
    game.start_deal(DECK)
    bid(game, "pass", "pass", ALL_TRUMP, "pass", "pass", "pass")
    assert [names(game.hand(s)) for s in range(4)] == [
        dealt(9, 10, 11, 18, 19, 29, 30, 31),
        dealt(0, 1, 2, 12, 13, 21, 22, 23),
        dealt(3, 4, 5, 14, 15, 24, 25, 26),
        dealt(6, 7, 8, 16, 17, 20, 27, 28),
    ]


# bidding=none ----------------------------------------------------------------------------------
def test_bidding_none_eldest_takes_all_trump_without_auction():
    """SPEC §2 «none (sheet 003-kamikaze): 8 cards each dealt at once, no turned card, no
    auction; the eldest is the taker in TA.»
    """
    game = Game(rules_for("kamikaze", {"first_dealer": 2}))
    assert game.start_deal(DECK) == [ContractSettled(3, ALL_TRUMP, False)]
    assert (game.phase, game.auction, game.turned_card) == ("playing", None, -1)
    assert (game.taker, game.contract) == (3, ALL_TRUMP)
    assert [game.hand(s).bit_count() for s in range(4)] == [8, 8, 8, 8]
    assert all(isinstance(a, Play) for a in game.legal_actions())
    err = refused(game, PASS, seat=3)
    assert (err.reason, str(err)) == ("NOT_BIDDING", "the auction is over: play a card")


# all_pass ---------------------------------------------------------------------------------------
def test_all_pass_redeal_gathers_and_the_next_seat_deals():
    """SPEC §2 «all_pass (after 8 passes with two_rounds*):»
    SPEC §2 «redeal (default; sheets 001-004, and sheet 000's last paragraph): cards are gathered,
    reshuffled, and the next seat deals.»
    """
    assert sorted(p for p, row in PRESETS.items() if row["all_pass"] == "redeal") == [
        "belgian-open", "classic", "classic-501", "enhanced", "kamikaze", "modern", "online-classic"]
    for preset in ("classic", "modern"):
        game = Game(rules_for(preset))
        game.start_deal(DECK)
        assert bid(game, *["pass"] * 7) == []
        assert bid(game, "pass") == [AllPassed(1)]
        assert (game.phase, game.dealer, game.to_act(), game.play) == ("dealing", 1, None, None)
        game.start_deal(DECK[::-1])                    # a new deck order
        assert game.eldest == 2 and game.to_act() == 2 and game.deal_number == 2


def test_a_redeal_is_not_a_deal_for_scoring_or_litige():
    """SPEC §2 «A redeal is not a "deal" for scoring or litige.»

    A reserve waiting from a litige is neither paid nor lost by a redeal, and no score is
    written.
    """
    game = Game(rules_for("classic"))
    game.reserve = 81                       # given: a litige reserve is waiting
    game.start_deal(DECK)
    bid(game, *["pass"] * 8)
    assert (game.scores, game.totals, game.reserve) == ([], [0, 0], 81)


def test_forced_trump_the_eldest_must_choose_any_of_the_four_suits():
    """SPEC §2 «forced_trump (sheet 000 Belgian default): the eldest must take; it receives the
    turned card plus 2, the others 3, and it then chooses any of the 4 suits as trump (a suit,
    never SA or TA).»
    """
    assert [p for p, row in PRESETS.items() if row["all_pass"] == "forced_trump"] == ["belgian"]
    game = Game(rules_for("belgian"))
    game.start_deal(DECK)
    assert bid(game, *["pass"] * 8) == []
    assert game.auction.forced and game.to_act() == 1
    assert calls(game) == [C, D, H, S]
    for call, reason in ((PASS, "MUST_TAKE"), (NO_TRUMP, "MUST_TAKE"), (ALL_TRUMP, "MUST_TAKE")):
        err = refused(game, call)
        assert (err.reason, str(err)) == (
            reason, "everyone passed: you must choose a trump suit (forced take)")
    assert bid(game, TURNED_SUIT) == [ContractSettled(1, TURNED_SUIT, True)]   # even the turned suit
    assert [names(game.hand(s)) for s in range(4)] == [
        dealt(9, 10, 11, 18, 19, 29, 30, 31),
        dealt(0, 1, 2, 12, 13, 20, 21, 22),
        dealt(3, 4, 5, 14, 15, 23, 24, 25),
        dealt(6, 7, 8, 16, 17, 26, 27, 28),
    ]


def test_forced_trump_the_eldest_chooses_holding_its_eight_cards():
    """SPEC §2 «forced_trump (sheet 000 Belgian default): the eldest must take; it receives the
    turned card plus 2, the others 3, and it then chooses any of the 4 suits as trump (a suit,
    never SA or TA).»

    Sheet 000: "les mains sont complétées et le premier joueur choisit". The choice is a phase
    of its own, and while the eldest (seat 1) chooses, every hand is already complete: the old
    code still showed the 5 dealt cards until the trump was named.
    """
    game = Game(rules_for("belgian"))
    game.start_deal(DECK)
    assert (game.phase, game.auction_round) == (AUCTION, 1)
    bid(game, *["pass"] * 4)
    assert (game.phase, game.auction_round) == (AUCTION, 2)
    bid(game, *["pass"] * 4)
    assert (game.phase, game.auction_round, game.to_act()) == (CHOOSING_TRUMP, None, 1)
    assert game.phase == "choosing_trump"
    assert [names(game.hand(s)) for s in range(4)] == [
        dealt(9, 10, 11, 18, 19, 29, 30, 31),
        dealt(0, 1, 2, 12, 13, 20, 21, 22),          # the turned card d[20] and 2 more
        dealt(3, 4, 5, 14, 15, 23, 24, 25),
        dealt(6, 7, 8, 16, 17, 26, 27, 28),
    ]
    assert game.legal_actions() == [Bid(C), Bid(D), Bid(H), Bid(S)]
    assert game.legal_actions(0) == []
    assert bid(game, OTHERS[2]) == [ContractSettled(1, OTHERS[2], True)]
    assert game.phase == PLAYING
    assert [game.hand(s).bit_count() for s in range(4)] == [8, 8, 8, 8]
    assert names(game.hand(1)) == dealt(0, 1, 2, 12, 13, 20, 21, 22)


def test_forced_trump_with_no_trump_bidding_still_names_a_suit():
    """SPEC §2 «forced_trump (sheet 000 Belgian default): the eldest must take; it receives the
    turned card plus 2, the others 3, and it then chooses any of the 4 suits as trump (a suit,
    never SA or TA).»
    """
    game = Game(rules_for("modern", {"all_pass": "forced_trump"}))
    game.start_deal(DECK)
    bid(game, *["pass"] * 8)
    assert calls(game) == [C, D, H, S]
    assert bid(game, OTHERS[1]) == [ContractSettled(1, OTHERS[1], True)]


def test_the_forced_taker_is_then_an_ordinary_taker():
    """SPEC §2 «It is then an ordinary taker.»

    It leads (being the eldest), and its deal is scored like any taker's: made, failed, litige.
    """
    rules = rules_for("belgian", {"scoring": "points"})
    game = Game(rules)
    game.start_deal(DECK)
    bid(game, *["pass"] * 8, OTHERS[0])
    assert (game.taker, game.contract, game.forced) == (1, OTHERS[0], True)
    assert game.play.taker == 1 and game.to_act() == 1
    table = game.play.table
    made = score_deal(rules, table, 1, (70, 92), (3, 5), (0, 0), (0, 0))
    failed = score_deal(rules, table, 1, (92, 70), (5, 3), (0, 0), (0, 0))
    assert (made.outcome, made.deal_score) == ("made", (70, 92))
    assert (failed.outcome, failed.deal_score) == ("failed", (162, 0))


# Illegal calls -----------------------------------------------------------------------------
def test_illegal_calls_name_the_rule():
    """SPEC §2 «Round 1, from eldest: take the turned suit, or pass.»
    SPEC §2 «Round 2 (only after 4 passes): name any suit other than the turned suit, or pass.»
    """
    suit_names = ("clubs", "diamonds", "hearts", "spades")
    game = Game(rules_for("classic"))
    game.start_deal(DECK)
    err = refused(game, OTHERS[0])
    assert (err.reason, str(err)) == (
        "FIRST_ROUND_TURNED_SUIT",
        f"in the first round you may only take {suit_names[TURNED_SUIT]} (the turned suit) or pass")
    err = refused(game, NO_TRUMP)
    assert (err.reason, str(err)) == ("NO_SA_TA", "no trump and all trump are not played at this table")
    err = refused(game, PASS, seat=2)
    assert (err.reason, str(err)) == ("NOT_YOUR_TURN", "it is seat 1's turn, not seat 2's")
    with pytest.raises(IllegalAction) as play_err:
        game.apply(1, Play(DECK[0]))
    assert (play_err.value.reason, str(play_err.value)) == ("BIDDING", "the auction is not over: bid or pass")
    bid(game, *["pass"] * 4)
    err = refused(game, TURNED_SUIT)
    assert (err.reason, str(err)) == (
        "SECOND_ROUND_OTHER_SUIT",
        f"in the second round you must name a suit other than {suit_names[TURNED_SUIT]} (the turned suit)")
    err = refused(game, 7)
    assert (err.reason, str(err)) == ("BAD_CALL", "not a call: 7 (pass, a suit 0..3, SA 4 or TA 5)")
    assert game.to_act() == 1 and len(game.auction.calls) == 4     # nothing was recorded


def test_the_modern_auction_refuses_a_suit_over_a_standing_bid():
    """SPEC §2 «Once a bid stands, the auction goes on in turn; each later call must be a strictly
    higher-ranked bid or a pass (a player who passed earlier may still outbid when its turn comes
    again); the auction ends after 3 passes following the standing bid.»
    """
    game = Game(rules_for("modern"))
    game.start_deal(DECK)
    bid(game, *["pass"] * 4, OTHERS[0])
    err = refused(game, OTHERS[1])
    suit_names = ("clubs", "diamonds", "hearts", "spades")
    assert (err.reason, str(err)) == (
        "MUST_OVERBID", f"you must bid higher than {suit_names[OTHERS[0]]} trump or pass")


def test_a_finished_auction_takes_no_more_calls():
    """SPEC §2 «The first take ends the auction.»"""
    auction = Auction("two_rounds", "redeal", 0, H)
    auction.call(H)
    assert auction.finished and auction.legal_calls() == []
    with pytest.raises(IllegalAction) as err:
        auction.check_call(PASS)
    assert (err.value.reason, str(err.value)) == ("AUCTION_OVER", "the auction is over")
    assert (auction.best, auction.best_seat) == (H, 0)
