"""Fast play-outs of a sampled deal, every hand known: how the hard bot values a card.

:func:`rollout` (versions 0 to 3) plays a :class:`~belote.bots.search.Position` to its end
with :func:`greedy_card`, an open-handed rule of thumb, and returns its final value.
:func:`club_playout` (version 4) plays every seat by the normal bot's rules instead, each from
what that seat would see of the sampled deal (its hand, the cards gone, the public memory of
the deal): open-handed play-outs credit the other side with a defence nobody finds, and the
club player's play is what the table meets.
"""

from __future__ import annotations

from belote.rules.cards import SUIT_MASK
from belote.rules.play import legal_mask

from .normal import ClubTable, Memory, follow, lead
from .reading import lowest
from .search import Position, SearchRules


def greedy_card(pos: Position) -> int:
    """An open-handed rule of thumb: lead a master nobody can ruff, else a small card; win the
    opponents' trick with the card that cannot be beaten and gives most (a plain card) or the
    smallest trump; charge the partner's trick when nobody after can beat it; else give least."""
    legal = pos.legal()
    if not legal & (legal - 1):
        return legal.bit_length() - 1
    r = pos.r
    seat = pos.turn
    hands = pos.hands
    if not pos.trick:
        safe = _safe_leads(legal, seat, hands, r.higher, r.trump_mask)
        return lowest(safe, r.rich_key) if safe else lowest(legal, r.cheap_key)
    later = [(seat + k) & 3 for k in range(1, 4 - len(pos.trick))]
    best = pos.best
    if pos.best_seat == seat ^ 2:
        if _can_be_beaten(best, later, hands, pos.led, r):
            return lowest(legal, r.cheap_key)
        return lowest(legal, r.rich_key)
    winners = legal & r.higher[best]
    if not (1 << best) & r.trump_mask:
        winners |= legal & r.trump_mask
    if winners:
        sure = 0
        m = winners
        while m:
            low = m & -m
            m ^= low
            if not _can_be_beaten(low.bit_length() - 1, later, hands, pos.led, r):
                sure |= low
        if sure:
            return lowest(sure, r.win_key)
    return lowest(legal & ~winners or legal, r.cheap_key)


def _safe_leads(legal: int, seat: int, hands: list[int], higher: tuple, tm: int) -> int:
    """The masters ``seat`` may lead that nobody can ruff (a trump, or a suit both opponents
    still hold, or no opponent has a trump)."""
    others = hands[seat ^ 1] | hands[seat ^ 3] | hands[seat ^ 2]
    left, right = hands[(seat + 1) & 3], hands[(seat + 3) & 3]
    opp_trumps = (left | right) & tm
    safe = 0
    m = legal
    while m:
        low = m & -m
        m ^= low
        c = low.bit_length() - 1
        if not higher[c] & others:
            suit = SUIT_MASK[c >> 3]
            if low & tm or not opp_trumps or (left & suit and right & suit):
                safe |= low
    return safe


def _can_be_beaten(card: int, later: list[int], hands: list[int], led: int, r: SearchRules) -> bool:
    """Could one of the seats still to play this trick beat ``card``?"""
    tm = r.trump_mask
    plain = not (1 << card) & tm
    for seat in later:
        hand = hands[seat]
        if hand & r.higher[card]:
            return True
        if plain and hand & tm and not hand & led:
            return True                   # void in the led suit: it may ruff
    return False


def last_trick(hands: list[int], leader: int, r: SearchRules) -> tuple[int, int]:
    """The last trick, one card left in each hand (no choice): its winner and its points, dix
    de der included."""
    order, tm = r.order, r.trump_mask
    best = hands[leader].bit_length() - 1
    winner = leader
    points = r.points[best] + r.last_trick_bonus
    for k in (1, 2, 3):
        seat = (leader + k) & 3
        c = hands[seat].bit_length() - 1
        points += r.points[c]
        if c >> 3 == best >> 3:
            if order[c] > order[best]:
                best, winner = c, seat
        elif (1 << c) & tm and not (1 << best) & tm:
            best, winner = c, seat
    return winner, points


def rollout(pos: Position) -> int:
    """Play ``pos`` to the end with :func:`greedy_card`'s choices (``pos`` is not changed); its
    final value.

    The rollouts are most of the hard bot's work, so this is :func:`greedy_card` and
    :meth:`Position.play` over local variables, without a Position per card; a test plays both
    side by side on random positions."""
    r = pos.r
    tm, higher, order, points_of = r.trump_mask, r.higher, r.order, r.points
    cheap, rich, win = r.cheap_key, r.rich_key, r.win_key
    hands = pos.hands[:]
    n = len(pos.trick)
    best, best_seat, led, tpts = pos.best, pos.best_seat, pos.led, pos.trick_points
    points, left, team = pos.points, pos.tricks_left, pos.team
    won_mine, won_other = pos.tricks_won
    seat = pos.turn
    while left:
        if left == 1 and not n:
            winner, tpts = last_trick(hands, seat, r)
            if (winner & 1) == team:
                points += tpts
                won_mine += 1
            else:
                won_other += 1
            break
        hand = hands[seat]
        legal = legal_mask(hand, led, best, best_seat == seat ^ 2, r)
        if not legal & (legal - 1):
            card = legal.bit_length() - 1
        else:
            pick, key = 0, cheap
            if not n:
                pick = _safe_leads(legal, seat, hands, higher, tm)
                if pick:
                    key = rich
                else:
                    pick = legal
            else:
                if n == 1:
                    later = (hands[(seat + 1) & 3], hands[(seat + 2) & 3])
                elif n == 2:
                    later = (hands[(seat + 1) & 3],)
                else:
                    later = ()
                if best_seat == seat ^ 2:
                    pick = legal
                    if not _beatable(best, later, led, tm, higher):
                        key = rich
                else:
                    winners = legal & higher[best]
                    if not (1 << best) & tm:
                        winners |= legal & tm
                    m = winners
                    while m:
                        low = m & -m
                        m ^= low
                        if not _beatable(low.bit_length() - 1, later, led, tm, higher):
                            pick |= low
                    if pick:
                        key = win
                    else:
                        pick = legal & ~winners or legal
            card = lowest(pick, key)
        # Position.play, inlined
        hands[seat] ^= 1 << card
        if not n:
            best, best_seat, led = card, seat, SUIT_MASK[card >> 3]
        elif card >> 3 == best >> 3:
            if order[card] > order[best]:
                best, best_seat = card, seat
        elif (1 << card) & tm and not (1 << best) & tm:
            best, best_seat = card, seat
        tpts += points_of[card]
        if n == 3:
            left -= 1
            if (best_seat & 1) == team:
                points += tpts + (r.last_trick_bonus if left == 0 else 0)
                won_mine += 1
            else:
                won_other += 1
            seat = best_seat
            n = led = tpts = 0
            best = best_seat = -1
        else:
            n += 1
            seat = (seat + 1) & 3
    if won_other == 0:
        return points + r.capot_bonus
    if won_mine == 0:
        return points - r.capot_bonus
    return points


def _beatable(card: int, later, led: int, tm: int, higher: tuple) -> bool:
    """:func:`_can_be_beaten` given the hands still to play this trick."""
    beats = higher[card]
    plain = not (1 << card) & tm
    for hand in later:  # noqa: SIM110 - a loop: no generator built per rollout card
        if hand & beats or (plain and hand & tm and not hand & led):
            return True
    return False


def club_playout(pos: Position, t: ClubTable, memory: Memory, first: int) -> int:
    """Play ``first`` for the seat to play in ``pos``, then the rest of the deal with every seat
    playing :func:`normal.club_card` from what it would see (``pos`` and ``memory`` are not
    changed); the final value, as :func:`rollout`'s."""
    r = pos.r
    tm, order, points_of = r.trump_mask, r.order, r.points
    memory = memory.copy()
    voids, led_trump, won_own_lead = memory.voids, memory.led_trump, memory.won_own_lead
    hands = pos.hands[:]
    live = hands[0] | hands[1] | hands[2] | hands[3]      # the cards nobody has played
    n = len(pos.trick)
    best, best_seat, led, tpts = pos.best, pos.best_seat, pos.led, pos.trick_points
    points, left, team = pos.points, pos.tricks_left, pos.team
    won_mine, won_other = pos.tricks_won
    seat, leader = pos.turn, pos.leader
    card = first
    while True:
        # Position.play, inlined, with what the seats remember of the card
        bit = 1 << card
        hands[seat] ^= bit
        live ^= bit
        if not n:
            best, best_seat, led, leader = card, seat, SUIT_MASK[card >> 3], seat
            if bit & tm:
                led_trump[seat] = True
        else:
            if not bit & led:
                voids[seat] |= led
            if card >> 3 == best >> 3:
                if order[card] > order[best]:
                    best, best_seat = card, seat
            elif bit & tm and not (1 << best) & tm:
                best, best_seat = card, seat
        tpts += points_of[card]
        if n == 3:
            left -= 1
            if (best_seat & 1) == team:
                points += tpts + (r.last_trick_bonus if left == 0 else 0)
                won_mine += 1
            else:
                won_other += 1
            if left == 1:
                winner, tpts = last_trick(hands, best_seat, r)
                if (winner & 1) == team:
                    points += tpts
                    won_mine += 1
                else:
                    won_other += 1
                break
            if not left:
                break
            if best_seat == leader and not led & tm and (led.bit_length() - 1) >> 3 not in \
                    won_own_lead[leader]:
                won_own_lead[leader] += ((led.bit_length() - 1) >> 3,)
            seat = best_seat
            n = led = tpts = 0
            best = best_seat = -1
        else:
            n += 1
            seat = (seat + 1) & 3
        hand = hands[seat]
        legal = legal_mask(hand, led, best, best_seat == seat ^ 2, r)
        if not legal & (legal - 1):
            card = legal.bit_length() - 1
        elif n:
            card = follow(t, memory, seat, legal, live & ~hand, n, best, best_seat, led)
        else:
            card = lead(t, memory, seat, legal, live & ~hand)
    if won_other == 0:
        return points + r.capot_bonus
    if won_mine == 0:
        return points - r.capot_bonus
    return points
