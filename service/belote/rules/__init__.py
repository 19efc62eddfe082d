"""The rules of Belote (SPEC.md): pure, deterministic, fast. No I/O, no clock, no hidden randomness.

Start with :func:`rules_for` (a preset plus option overrides) and :class:`Game`; each finished
deal gives one :class:`DealResult`; the deal state bots search through is :class:`CardPlay`.
Chips (:mod:`.chips`) and ratings (:mod:`.rating`) are SPEC §10.
"""

from .actions import PASS_BID, Action, Bid, Declare, Play
from .announcements import Announcement
from .auction import PASS, Auction
from .cards import (CLUBS, DIAMONDS, HEARTS, SPADES, card_name, card_rank, card_suit, card_words,
                    cards_of, make_card, mask_of, parse_card, shuffled_deck)
from .errors import IllegalAction, InvalidOptions, RulesError
from .game import (AUCTION, CHOOSING_TRUMP, DEALING, OVER, PLAYING, AllPassed, AnnouncementsRevealed,
                   BeloteCalled, ContractSettled, Game, GameOver, Phase, TrickWon)
from .options import PRESETS, Rules, rules_for, rules_from_strings
from .play import CardPlay
from .result import DealResult, DealScore, Outcome
from .scoring import score_deal, settle_deal
from .values import ALL_TRUMP, NO_TRUMP, contract_name, contract_table

__all__ = [
    "PASS_BID", "Action", "Bid", "Declare", "Play", "Announcement", "PASS", "Auction",
    "CLUBS", "DIAMONDS", "HEARTS", "SPADES", "card_name", "card_rank", "card_suit", "card_words",
    "cards_of", "make_card", "mask_of", "parse_card", "shuffled_deck",
    "IllegalAction", "InvalidOptions", "RulesError",
    "AUCTION", "CHOOSING_TRUMP", "DEALING", "OVER", "PLAYING", "Phase", "AllPassed", "AnnouncementsRevealed", "BeloteCalled",
    "ContractSettled", "Game", "GameOver", "TrickWon",
    "PRESETS", "Rules", "rules_for", "rules_from_strings", "CardPlay", "DealResult", "DealScore",
    "Outcome", "score_deal", "settle_deal",
    "ALL_TRUMP", "NO_TRUMP", "contract_name", "contract_table",
]
