"""Small helpers so the rules tests read like the rule sheet.

Cards are written as on a score sheet (``"10H"``, ``"JS"``); a hand is a string of cards.
``position`` sets up a trick in progress; ``deck_for`` writes the deck order that deals
chosen hands exactly as SPEC §1 says (it is written here from the SPEC, not taken from the
engine, so using it also tests the deal); ``play_tricks`` plays a deal trick by trick.
"""

from __future__ import annotations

from belote.rules import Bid, Game, Play, card_name, cards_of, contract_table, parse_card, rules_for
from belote.rules.auction import PASS
from belote.rules.play import STANDARD, CardPlay
from belote.rules.result import DealResult, DealScore

C, D, H, S = 0, 1, 2, 3


def card(name: str) -> int:
    return parse_card(name)


def cards(text: str) -> list[int]:
    """``"JH 9H AH"`` -> the three cards, in that order."""
    return [parse_card(t) for t in text.split()]


def mask(text: str) -> int:
    m = 0
    for c in cards(text):
        m |= 1 << c
    return m


def names(m) -> set[str]:
    """A mask (or list of cards) as a set of card names, for exact comparisons."""
    return {card_name(c) for c in (cards_of(m) if isinstance(m, int) else m)}


def position(hands: dict[int, str], contract: int, trick: str = "", leader: int = 0, *,
             rule: int = STANDARD, undertrump_required: bool = True, values: str = "standard",
             taker: int = 0, king_first: bool = False) -> CardPlay:
    """A trick in progress.

    ``hands[seat]`` is what the seat holds *now*; ``trick`` the cards already played in this
    trick, from ``leader`` on (they are given to their seats first, then played).
    """
    played = cards(trick)
    full = [mask(hands.get(seat, "")) for seat in range(4)]
    for i, c in enumerate(played):
        full[(leader + i) % 4] |= 1 << c
    play = CardPlay(full, contract, taker, leader, contract_table(values, contract), rule,
                    undertrump_required, king_first)
    for c in played:
        play.play(c)
    return play


def legal(play: CardPlay) -> set[str]:
    return names(play.legal_cards())


# Dealing (SPEC §1), written from the SPEC --------------------------------------------------
def deck_for(hands: dict[int, str], dealer: int, taker: int, turned: str) -> list[int]:
    """The deck order (top first) that gives each seat the 8 cards of ``hands[seat]``.

    From the eldest (dealer + 1): 3 cards each, then 2 each (each seat's first five listed
    cards, the turned card left out for the taker); d[20] is the turned card; then, from the
    eldest again, the taker gets the turned card and 2 more, every other seat 3 (the rest of
    its listed cards).
    """
    eldest = (dealer + 1) % 4
    cards_by_seat = {s: cards(hands[s]) for s in range(4)}
    t = card(turned)
    assert t in cards_by_seat[taker], "the turned card goes to the taker"
    cards_by_seat[taker].remove(t)
    pos = {s: 0 for s in range(4)}
    deck: list[int] = []

    def give(seat: int, n: int) -> None:
        deck.extend(cards_by_seat[seat][pos[seat]:pos[seat] + n])
        pos[seat] += n

    for packet in (3, 2):
        for k in range(4):
            give((eldest + k) % 4, packet)
    deck.append(t)
    for k in range(4):
        seat = (eldest + k) % 4
        give(seat, 2 if seat == taker else 3)
    assert sorted(deck) == list(range(32)), "the four hands must hold the 32 cards once"
    return deck


def deck_none(hands: dict[int, str], dealer: int) -> list[int]:
    """``bidding=none``: from the eldest, 3 each, then 2 each, then 3 each, from d[0]."""
    eldest = (dealer + 1) % 4
    cards_by_seat = {s: cards(hands[s]) for s in range(4)}
    deck: list[int] = []
    start = 0
    for packet in (3, 2, 3):
        for k in range(4):
            deck.extend(cards_by_seat[(eldest + k) % 4][start:start + packet])
        start += packet
    assert sorted(deck) == list(range(32))
    return deck


def bid(game: Game, *calls) -> list:
    """Make the calls in turn: a suit 0..3, NO_TRUMP, ALL_TRUMP or ``"pass"``."""
    out: list = []
    for call in calls:
        out += game.apply(game.to_act(), Bid(PASS if call == "pass" else call))
    return out


def play_tricks(game: Game, *tricks: str) -> list:
    """Play the tricks given as ``"JS KS 7H 7C"`` (cards in order of play, from the leader)."""
    out: list = []
    for trick in tricks:
        for c in cards(trick):
            out += game.apply(game.to_act(), Play(c))
    return out


def new_game(preset: str = "classic", **overrides) -> Game:
    return Game(rules_for(preset, {k: v for k, v in overrides.items()}))


def deal_result(outcomes: list) -> DealResult:
    found = [o for o in outcomes if isinstance(o, DealResult)]
    assert len(found) == 1
    return found[0]


def deal_score(outcomes: list) -> DealScore:
    """The deal's figures as its DealScored event writes them."""
    return deal_result(outcomes).as_deal_score()


def play_first_legal(game: Game) -> list:
    """Finish the deal in progress, each seat playing its lowest legal card."""
    out: list = []
    while game.phase == "playing":
        actions = [a for a in game.legal_actions() if isinstance(a, Play)]
        out += game.apply(game.to_act(), actions[0])
    return out


# One suit per seat: seat 0 clubs, 1 diamonds, 2 hearts, 3 spades.
SUIT_PER_SEAT = {
    0: "7C 8C 9C 10C JC QC KC AC",
    1: "7D 8D 9D 10D JD QD KD AD",
    2: "7H 8H 9H 10H JH QH KH AH",
    3: "7S 8S 9S 10S JS QS KS AS",
}


# A litige of online-classic (81 = 81), found by random play and written out trick by trick.
# Dealer 0; seat 1 takes diamonds (the turned ace) in round 1 and leads.
LITIGE_HANDS = {0: "10C QC 10D QD 7H JH KH 9S", 1: "AD 7C JC 8D 9D KD QH KS",
                2: "8C 9C AC 7D JD 9H 10H 7S", 3: "KC 8H AH 8S 10S JS QS AS"}
LITIGE_TRICKS = ("7C 8C KC 10C",    # seat 1 leads; seat 0's 10 wins: 14
                 "10D AD JD 8H",    # seat 0 leads the 10 of trump; seat 2's jack wins: 41
                 "7D JS QD 9D",     # seat 2 leads; seat 1's 9 of trump wins: 19
                 "KS 7S 10S 9S",    # seat 1 leads; seat 3's 10 wins: 14
                 "AH KH QH 10H",    # seat 3 leads and wins: 28
                 "QS JH KD 9H",     # seat 3 leads; seat 1 trumps with the king: 9
                 "8D AC 8S 7H",     # seat 1 leads its last trump: 11
                 "JC 9C AS QC")     # seat 1 leads; seat 0's queen wins: 16 + 10 (dix de der)


def play_litige_deal(game: Game) -> list:
    """Deal and play the litige above (the game's dealer must be seat 0)."""
    assert game.dealer == 0
    game.start_deal(deck_for(LITIGE_HANDS, dealer=0, taker=1, turned="AD"))
    return bid(game, D) + play_tricks(game, *LITIGE_TRICKS)


# Dealer 3: seat 1 takes spades with the king and queen; seat 0 draws them with the jack and
# the 9 and wins every trick. Scored (252, 20) in classic.
CAPOT_AGAINST_HANDS = {0: "JS 9S AS 10S 8S 7S AD 10D", 1: "KS QS KD QD JD 9D 8D 7D",
                       2: "7H 8H 9H 10H JH QH KH AH", 3: "7C 8C 9C 10C JC QC KC AC"}
CAPOT_AGAINST_TRICKS = ("JS KS 7H 7C", "9S QS 8H 8C", "AS 7D 9H 9C", "10S 8D 10H 10C",
                        "8S 9D JH JC", "7S JD QH QC", "AD QD KH KC", "10D KD AH AC")


def play_capot_against_deal(game: Game) -> list:
    """Deal and play the capot against the taker above (the game's dealer must be seat 3)."""
    assert game.dealer == 3
    game.start_deal(deck_for(CAPOT_AGAINST_HANDS, dealer=3, taker=1, turned="QS"))
    return bid(game, "pass", S) + play_tricks(game, *CAPOT_AGAINST_TRICKS)
