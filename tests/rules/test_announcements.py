"""SPEC §6: announcements (``off``, ``classic``, ``enhanced``)."""

from __future__ import annotations

import pytest
from belote.rules import (
    ALL_TRUMP,
    NO_TRUMP,
    PRESETS,
    AnnouncementsRevealed,
    Declare,
    Game,
    IllegalAction,
    Play,
    TrickWon,
    contract_table,
    rules_for,
    score_deal,
)
from belote.rules.announcements import classic_announcements, classic_scoring_team, enhanced_options
from belote.rules.cards import ACE
from belote.rules.play import belote_cards
from rules_helpers import (
    SUIT_PER_SEAT,
    C,
    D,
    H,
    S,
    bid,
    card,
    deal_score,
    deck_for,
    mask,
    play_first_legal,
)


def detected(hand: str) -> list[str]:
    return [str(a) for a in classic_announcements(mask(hand))]


# off -------------------------------------------------------------------------------------------
def test_announcements_off():
    """SPEC §6 «off (sheets 001, 002, default of 003 "sans annonces").»"""
    assert sorted(p for p, row in PRESETS.items() if row["announcements"] == "off") == [
        "classic", "classic-501", "kamikaze", "modern", "online-classic"]
    game = Game(rules_for("classic"))
    game.start_deal(deck_for(SUIT_PER_SEAT, dealer=0, taker=2, turned="JH"))
    bid(game, "pass", H)
    with pytest.raises(IllegalAction) as err:
        game.apply(1, Declare("chelem_couleur", D))
    assert (err.value.reason, str(err.value)) == (
        "NO_DECLARATIONS", "announcements are not declared at this table")
    out = play_first_legal(game)
    assert not any(isinstance(o, AnnouncementsRevealed) for o in out)
    assert deal_score(out).announcements == (0, 0)


# classic: what a hand holds ------------------------------------------------------------------
def test_sequences_in_natural_order():
    """SPEC §6 «Sequences use the natural order 7 8 9 10 J Q K A in one suit: tierce (3) 20,
    cinquante (4) 50, cent (5+) 100.»
    """
    assert detected("7H 8H 9H JS QS AC 10D 8C") == ["tierce to the 9 of hearts (20)"]
    assert detected("10S JS QS KS 7H 9H 8C AD") == ["cinquante to the king of spades (50)"]
    assert detected("9C 10C JC QC KC 7H 8D AS") == ["cent to the king of clubs (100)"]
    assert detected("9H 10H JH AH 7C 8D 10S QS") == ["tierce to the jack of hearts (20)"]
    # J 9 A follow each other in trump order, not in the natural one: nothing.
    assert detected("JH 9H AH 7C 9D JS QD KS") == []
    # Cards of two suits never make a sequence; two suits may each hold one.
    assert detected("QH KH AH 7S 8S 9S 10C JD") == ["tierce to the ace of hearts (20)",
                                                    "tierce to the 9 of spades (20)"]


def test_carres():
    """SPEC §6 «Carrés: J 200, 9 150, A/10/K/Q 100; four 7s or four 8s are no announcement.»"""
    assert detected("JC JD JH JS 7C 9D KH AS") == ["carré of jacks (200)"]
    assert detected("9C 9D 9H 9S 7C JD KH AS") == ["carré of 9s (150)"]
    assert detected("AC AD AH AS 7C JD 9H QS") == ["carré of aces (100)"]
    assert detected("10C 10D 10H 10S 7C JD 9H QS") == ["carré of 10s (100)"]
    assert detected("KC KD KH KS 7C JD 9H AS") == ["carré of kings (100)"]
    assert detected("QC QD QH QS 7C JD 9H AS") == ["carré of queens (100)"]
    assert detected("7C 7D 7H 7S 8C 8D 8H 8S") == []


def test_a_card_serves_in_one_announcement_only():
    """SPEC §6 «A card serves in one announcement only, belote aside: carrés are taken first,
    then each maximal run of the remaining cards of a suit is one sequence (a run of 6 to 8 cards
    is one cent).»
    """
    # 9 10 J Q K of hearts would be a cent; the jacks make a carré first, leaving 9-10 and Q-K.
    assert detected("JC JD JH JS 9H 10H QH KH") == ["carré of jacks (200)"]
    # 10 J Q K would be a cinquante; the king goes to the carré, leaving the tierce 10 J Q.
    assert detected("KC KD KH KS QH JH 10H AC") == ["carré of kings (100)",
                                                    "tierce to the queen of hearts (20)"]
    # Runs of 6, 7, 8: one cent each.
    assert detected("8S 9S 10S JS QS KS 7H 7C") == ["cent to the king of spades (100)"]
    assert detected("7S 8S 9S 10S JS QS KS 7H") == ["cent to the king of spades (100)"]
    assert detected("7D 8D 9D 10D JD QD KD AD") == ["cent to the ace of diamonds (100)"]
    assert [a.length for a in classic_announcements(mask("8S 9S 10S JS QS KS 7H 7C"))] == [6]
    # Belote aside: the queen and king of trump in a tierce also make the belote.
    assert detected("QH KH AH 7S 9S JC 8D 10D") == ["tierce to the ace of hearts (20)"]
    assert belote_cards([mask("QH KH AH 7S 9S JC 8D 10D"), 0, 0, 0], H) == mask("QH KH")


# classic: which team scores ---------------------------------------------------------------------
def team(contract: int, *hands: str) -> int | None:
    """The scoring team when seats 0..3 hold these hands."""
    return classic_scoring_team([classic_announcements(mask(h)) for h in hands], contract)


NOTHING = ""


def test_best_is_the_highest_value():
    """SPEC §6 «Best = highest value; at equal value a carré beats a sequence, a higher carré
    beats a lower one (A, 10, K, Q), a longer sequence beats a shorter one, then the higher top
    card (A high), then a trump sequence beats a plain one.»
    """
    # Team 1's cinquante (50) beats team 0's two tierces (20 + 20 > 50 does not matter).
    assert team(H, "7C 8C 9C", "7D 8D 9D 10D", "7S 8S 9S", NOTHING) == 1
    # A carré of 9s (150) beats a cent (100); a carré of jacks (200) beats a carré of 9s.
    assert team(H, "9C 9D 9H 9S", "7D 8D 9D 10D JD") == 0
    assert team(H, "9C 9D 9H 9S", NOTHING, NOTHING, "JC JD JH JS") == 1


def test_at_equal_value_a_carre_beats_a_sequence():
    """SPEC §6 «Best = highest value; at equal value a carré beats a sequence, a higher carré
    beats a lower one (A, 10, K, Q), a longer sequence beats a shorter one, then the higher top
    card (A high), then a trump sequence beats a plain one.»
    """
    assert team(H, "8H 9H 10H JH QH KH AH", "QC QD QH QS") == 1     # cent of 7 in trump < carré of Q


@pytest.mark.parametrize("higher, lower", [("A", "10"), ("10", "K"), ("K", "Q"), ("A", "Q")])
def test_a_higher_carre_beats_a_lower_one(higher, lower):
    """SPEC §6 «Best = highest value; at equal value a carré beats a sequence, a higher carré
    beats a lower one (A, 10, K, Q), a longer sequence beats a shorter one, then the higher top
    card (A high), then a trump sequence beats a plain one.»
    """
    def carre(rank: str) -> str:
        return " ".join(rank + s for s in "CDHS")
    assert team(H, carre(higher), carre(lower)) == 0
    assert team(H, carre(lower), carre(higher)) == 1


def test_sequences_longer_then_higher_top_then_trump():
    """SPEC §6 «Best = highest value; at equal value a carré beats a sequence, a higher carré
    beats a lower one (A, 10, K, Q), a longer sequence beats a shorter one, then the higher top
    card (A high), then a trump sequence beats a plain one.»
    """
    # A cent of 6 to the queen beats a cent of 5 to the ace.
    assert team(H, "7S 8S 9S 10S JS QS", "10D JD QD KD AD") == 0
    # Tierce to the ace beats tierce to the king.
    assert team(H, "JS QS KS", "QD KD AD") == 1
    # Tierce to the king in trump (hearts) beats tierce to the king in spades.
    assert team(H, "JS QS KS", "JH QH KH") == 1
    assert team(S, "JS QS KS", "JH QH KH") == 0


def test_a_perfect_tie_scores_nothing():
    """SPEC §6 «A perfect tie between the two teams' best announcements: no team scores
    announcements.»
    """
    assert team(H, "JS QS KS", "JD QD KD") is None         # two plain tierces to the king
    assert team(NO_TRUMP, "JS QS KS", "JH QH KH") is None  # SA: no sequence is trump
    assert team(ALL_TRUMP, "JS QS KS", "JH QH KH") is None  # TA: every sequence is trump
    assert team(H, NOTHING, NOTHING, NOTHING, NOTHING) is None


def test_the_team_with_the_best_scores_all_of_its_announcements_in_a_game():
    """SPEC §6 «classic (sheet 000 option, sheet 003 "avec annonces"): detected automatically
    from each hand of 8 at the first trick, shown to all at the start of the second trick.»
    SPEC §6 «The team holding the single best announcement scores all of its announcements; the
    other team scores none.»

    belgian-open, one suit per seat, seat 2 takes hearts: each seat holds a cent of 8, the
    hearts one is trump, so team 0 scores its two cents (200) and team 1 none; seat 2 then makes
    capot with the belote: 252 + 200 + 20.
    """
    game = Game(rules_for("belgian-open"))
    game.start_deal(deck_for(SUIT_PER_SEAT, dealer=0, taker=2, turned="JH"))
    bid(game, "pass", H)
    assert [[str(a) for a in game.classic[s]] for s in range(4)] == [
        ["cent to the ace of clubs (100)"], ["cent to the ace of diamonds (100)"],
        ["cent to the ace of hearts (100)"], ["cent to the ace of spades (100)"]]
    out = []
    for _ in range(3):
        out += game.apply(game.to_act(), game.legal_actions()[0])
    assert out == []                                   # nothing shown during the first trick
    out = game.apply(game.to_act(), game.legal_actions()[0])
    assert isinstance(out[0], TrickWon) and out[0].number == 1
    revealed = out[1]
    assert isinstance(revealed, AnnouncementsRevealed)
    assert [(seat, str(a)) for seat, a in revealed.by_seat] == [
        (0, "cent to the ace of clubs (100)"), (1, "cent to the ace of diamonds (100)"),
        (2, "cent to the ace of hearts (100)"), (3, "cent to the ace of spades (100)")]
    assert revealed.scoring_team == 0
    score = deal_score(play_first_legal(game))
    assert (score.outcome, score.trick_points, score.belote, score.announcements) == (
        "capot_made", (252, 0), (20, 0), (200, 0))
    assert score.deal_score == (472, 0)


def test_belgian_tens_with_announcements_and_king_first():
    """SPEC §6 «The team holding the single best announcement scores all of its announcements; the
    other team scores none.»

    The same deal under belgian: capot 25 + 200 / 10; the queen of hearts goes before the king,
    so no belote (king_first).
    """
    game = Game(rules_for("belgian"))
    game.start_deal(deck_for(SUIT_PER_SEAT, dealer=0, taker=2, turned="JH"))
    bid(game, "pass", H)
    score = deal_score(play_first_legal(game))
    assert (score.outcome, score.belote, score.announcements, score.deal_score) == (
        "capot_made", (0, 0), (200, 0), (45, 0))


def test_announcements_in_contract_flags():
    """SPEC §6 «announcements_in_contract: true for sheet 000 and whenever announcements are
    switched on over classic or classic-501; false for sheet 003.»
    """
    flags = {p: rules_for(p, {"announcements": "classic"}).announcements_in_contract
             for p in ("classic", "classic-501", "belgian", "belgian-open", "online-classic",
                       "modern", "kamikaze")}
    assert flags == {"classic": True, "classic-501": True, "belgian": True, "belgian-open": True,
                     "online-classic": False, "modern": False, "kamikaze": False}
    # In the contract: taker 75 + tierce 20 = 95 > 87, made. Outside: 75 < 87, failed, and the
    # defence scores 162 + the taker's tierce.
    table = contract_table("standard", H)
    inside = score_deal(rules_for("classic", {"announcements": "classic"}), table, 0,
                        (75, 87), (4, 4), (0, 0), (20, 0))
    assert (inside.outcome, inside.contract_points, inside.deal_score) == ("made", (95, 87), (95, 87))
    outside = score_deal(rules_for("online-classic", {"announcements": "classic"}), table, 0,
                         (75, 87), (4, 4), (0, 0), (20, 0))
    assert (outside.outcome, outside.contract_points, outside.deal_score) == (
        "failed", (75, 87), (0, 182))


# enhanced --------------------------------------------------------------------------------------
def options(hand: str, capot: bool = False) -> list[str]:
    return [str(a) for a in enhanced_options(mask(hand), capot)]


def test_enhanced_what_a_hand_may_declare():
    """SPEC §6 «Couleur (at least 5 cards of one suit) 50; carré (4 of any rank, 7 and 8
    included) 100; quinte flush (at least 5 in sequence in one suit, order 7..A) 150; chelem
    couleur (all 8 of one suit) 200; capot annoncé (any player, as its one announcement; one per
    deal): the declarer's team must win all 8 tricks: +250 on top of the capot value if it does
    (250 + 250 = 500), else +250 to the opponents.»
    """
    assert options("7H 9H JH KH AH 7C 8D 9S") == ["couleur in hearts (50)"]
    assert options("7H 9H JH KH 7C 8D 9S 10S") == []
    assert options("9H 10H JH QH KH 7C 8D 9S") == ["couleur in hearts (50)",
                                                   "quinte flush to the king of hearts (150)"]
    assert options("7S 8S 9S 10S JS QS KS AS", capot=True) == [
        "couleur in spades (50)", "quinte flush to the ace of spades (150)",
        "chelem couleur in spades (200)", "capot annoncé"]
    assert options("7C 7D 7H 7S 8C 8D 8H 8S") == ["carré of 7s (100)", "carré of 8s (100)"]
    assert options("7C 8D 9H 10S JC QD KH AS", capot=True) == ["capot annoncé"]


def enhanced_game() -> Game:
    """Enhanced, one suit per seat; dealer 0, seat 2 takes hearts. Seat 1 leads."""
    game = Game(rules_for("enhanced"))
    game.start_deal(deck_for(SUIT_PER_SEAT, dealer=0, taker=2, turned="JH"))
    bid(game, "pass", H)
    return game


def refused(game: Game, seat: int, action) -> tuple[str, str]:
    with pytest.raises(IllegalAction) as err:
        game.apply(seat, action)
    return err.value.reason, str(err.value)


def test_enhanced_one_announcement_each_at_its_own_turn_in_the_first_trick():
    """SPEC §6 «enhanced (sheet 004): each player may make one announcement (belote aside),
    declared and shown at its own turn during the first trick, before its card; all declared
    announcements score, for both teams.»
    SPEC §6 «The server refuses one the hand does not hold.»
    """
    game = enhanced_game()
    assert game.legal_actions() == [
        Declare("couleur", D), Declare("quinte_flush", D, ACE), Declare("chelem_couleur", D),
        Declare("capot_annonce"), *[Play(c) for c in range(8, 16)]]
    assert refused(game, 2, Declare("chelem_couleur", H)) == (
        "NOT_YOUR_TURN", "it is seat 1's turn, not seat 2's")
    assert refused(game, 1, Declare("carre", rank=0)) == (
        "ANNOUNCEMENT_NOT_HELD", "your hand does not hold that carre")
    assert refused(game, 1, Declare("couleur", S)) == (
        "ANNOUNCEMENT_NOT_HELD", "your hand does not hold that couleur")
    assert refused(game, 1, Declare("tierce", D)) == (
        "UNKNOWN_ANNOUNCEMENT",
        "unknown announcement 'tierce' (valid: couleur, carre, quinte_flush, chelem_couleur, capot_annonce)")
    assert game.apply(1, Declare("chelem_couleur", D)) == []
    assert game.declared[1].points == 200
    assert game.legal_actions() == [Play(c) for c in range(8, 16)]   # one announcement only
    assert refused(game, 1, Declare("couleur", D)) == (
        "ALREADY_ANNOUNCED", "you have already made your one announcement")
    game.apply(1, Play(card("7D")))
    assert game.apply(2, Declare("capot_annonce")) == []
    game.apply(2, Play(card("7H")))
    assert Declare("capot_annonce") not in game.legal_actions()      # one capot per deal
    assert refused(game, 3, Declare("capot_annonce")) == (
        "CAPOT_ALREADY_ANNOUNCED", "a capot has already been announced this deal")
    game.apply(3, Declare("couleur", S))
    game.apply(3, Play(card("7S")))
    game.apply(0, Declare("quinte_flush", C))
    out = game.apply(0, Play(card("7C")))
    assert out[0] == TrickWon(1, 2, 0, 1, tuple(card(c) for c in ("7D", "7H", "7S", "7C")))
    assert game.to_act() == 2
    assert refused(game, 2, Declare("chelem_couleur", H)) == (
        "ANNOUNCE_TOO_LATE", "announcements are made during the first trick only")
    assert game.scoring_announcements() == (150, 250)


def test_enhanced_capot_annonce_made_scores_500_and_both_teams_keep_theirs():
    """SPEC §6 «Announcements never count in the contract, and each team always scores its own
    declared announcements, whatever the contract's result.»
    SPEC §6 «Couleur (at least 5 cards of one suit) 50; carré (4 of any rank, 7 and 8
    included) 100; quinte flush (at least 5 in sequence in one suit, order 7..A) 150; chelem
    couleur (all 8 of one suit) 200; capot annoncé (any player, as its one announcement; one per
    deal): the declarer's team must win all 8 tricks: +250 on top of the capot value if it does
    (250 + 250 = 500), else +250 to the opponents.»

    Seat 2 announces the capot and, holding every trump, takes all 8 tricks: 250 + 250, plus
    seat 0's quinte flush 150 and the belote 20. Team 1 keeps its chelem 200 and couleur 50.
    """
    game = enhanced_game()
    game.apply(1, Declare("chelem_couleur", D))
    game.apply(1, Play(card("7D")))
    game.apply(2, Declare("capot_annonce"))
    game.apply(2, Play(card("7H")))
    game.apply(3, Declare("couleur", S))
    game.apply(3, Play(card("7S")))
    game.apply(0, Declare("quinte_flush", C))
    out = game.apply(0, Play(card("7C"))) + play_first_legal(game)
    score = deal_score(out)
    assert (score.outcome, score.trick_points, score.belote) == ("capot_made", (250, 0), (20, 0))
    assert score.announcements == (250 + 150, 200 + 50)
    assert score.contract_points == (250, 0)           # announcements never count in the contract
    assert score.deal_score == (250 + 250 + 150 + 20, 250)


def test_enhanced_capot_annonce_failed_gives_250_to_the_opponents():
    """SPEC §6 «Couleur (at least 5 cards of one suit) 50; carré (4 of any rank, 7 and 8
    included) 100; quinte flush (at least 5 in sequence in one suit, order 7..A) 150; chelem
    couleur (all 8 of one suit) 200; capot annoncé (any player, as its one announcement; one per
    deal): the declarer's team must win all 8 tricks: +250 on top of the capot value if it does
    (250 + 250 = 500), else +250 to the opponents.»

    Seat 1 (defence) announces a capot it cannot make: +250 to team 0, which makes capot.
    """
    game = enhanced_game()
    game.apply(1, Declare("capot_annonce"))
    game.apply(1, Play(card("7D")))
    game.apply(2, Declare("chelem_couleur", H))
    score = deal_score(game.apply(2, Play(card("7H"))) + play_first_legal(game))
    assert score.announcements == (250 + 200, 0)
    assert score.deal_score == (250 + 250 + 200 + 20, 0)


def test_enhanced_announcements_kept_whatever_the_result():
    """SPEC §6 «Announcements never count in the contract, and each team always scores its own
    declared announcements, whatever the contract's result.»
    """
    rules = rules_for("enhanced")
    table = contract_table("enhanced", H)
    # Taker 80 trick points and a carré (100) against 84: failed, it keeps its carré.
    failed = score_deal(rules, table, 0, (80, 84), (4, 4), (0, 0), (100, 50))
    assert (failed.outcome, failed.contract_points, failed.deal_score) == ("failed", (80, 84), (100, 214))
    # Made: each team its own.
    made = score_deal(rules, table, 0, (84, 80), (4, 4), (0, 20), (100, 50))
    assert (made.outcome, made.deal_score) == ("made", (184, 150))
