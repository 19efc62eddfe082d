"""What the terminal table says and which key does what: belote.play.model, no server."""

from __future__ import annotations

from belote_client import parse_card

from belote.play.model import (
    Player,
    TableModel,
    describe,
    hand_text,
    prompt_text,
    status_text,
    table_text,
)
from belote.v1 import cards_pb2 as c
from belote.v1 import events_pb2 as ev
from belote.v1 import table_service_pb2 as pb


def table(seat: int = 0, hand: str = "", contract: int = c.CONTRACT_UNSPECIFIED,
          phase: int = pb.DEAL_PHASE_CARD_PLAY) -> pb.Table:
    seats = [pb.SeatInfo(seat=s, occupant=pb.SEAT_OCCUPANT_BOT, bot_level=ev.BOT_LEVEL_NORMAL) for s in range(4)]
    seats[seat] = pb.SeatInfo(seat=seat, occupant=pb.SEAT_OCCUPANT_HUMAN, display_name="Ana")
    seats[(seat + 1) % 4] = pb.SeatInfo(seat=(seat + 1) % 4, occupant=pb.SEAT_OCCUPANT_HUMAN,
                                        display_name="Bob")
    game = pb.GameView(totals=[120, 80], deal_number=2, dealer=3, phase=phase, taker=1,
                       contract=contract, to_act=seat, trick_number=3, tricks_won=[1, 1],
                       your_hand=[parse_card(x) for x in hand.split()], winning_team=-1)
    return pb.Table(table_id="t1", preset="classic", options={"target": "1000"},
                    status=pb.TABLE_STATUS_PLAYING, version=42, seats=seats, your_seat=seat, game=game)


def cards(*texts: str) -> list[c.Action]:
    return [c.Action(card=parse_card(t)) for t in texts]


def test_seats_are_named_from_where_the_player_sits():
    ccw, cw = Player(2), Player(2, clockwise=True)
    assert [ccw.position(s) for s in range(4)] == ["North", "West", "You", "East"]
    assert [cw.position(s) for s in range(4)] == ["North", "East", "You", "West"]
    model = TableModel(Player(0), table=table())
    assert model.name(0) == "You" and model.name(1) == "East (Bob)"
    assert model.name(2) == "North, your partner (normal bot)"


def test_the_partner_is_named_as_such():
    """North is the partner: the compass, the legend and the scores say so (not only us/them)."""
    model = TableModel(Player(1), table=table(seat=1, contract=c.CONTRACT_SPADES))
    # Seat 1 (Ana) plays with seat 3 (a bot); Bob sits at seat 2, on her right.
    text = table_text(model).plain
    assert "North (partner)" in text.splitlines()[0]
    assert "North (partner): normal bot; East: Bob; West: normal bot" in text
    assert "Score: you & partner 80 · East & West 120" in status_text(model, "h:1").plain
    model.table.status, model.table.game.winning_team = pb.TABLE_STATUS_FINISHED, 1
    assert prompt_text(model).plain.startswith(
        "Game over: you and your partner win, you & partner 80 · East & West 120.")


def test_cards_are_numbered_in_the_sorted_hand_and_only_legal_ones_have_keys():
    model = TableModel(Player(0), table=table(hand="7h Jh As 9h 10s Kd",
                                              contract=c.CONTRACT_HEARTS))
    model.legal = pb.GetLegalActionsResponse(your_turn=True, version=42,
                                             actions=cards("Jh", "9h", "7h"))
    # Sorted: J♥ 9♥ 7♥ (trump first) A♠ 10♠ K♦.
    keys = model.legal_keys()
    assert sorted(keys) == ["1", "2", "3"]
    assert keys["2"].card == parse_card("9h")
    # A forbidden card still goes to the server (which says why not); no 7th card.
    assert model.action_for_key("4").card == parse_card("As")
    assert model.action_for_key("7") is None
    hand = hand_text(model).plain
    assert "[1:J♥]" in hand and "[3:7♥]" in hand and " 4:A♠ " in hand
    assert "playable 1 2 3" in prompt_text(model).plain


def test_bids_and_announcements_get_letters():
    model = TableModel(Player(0), table=table(hand="Jh 9h", phase=pb.DEAL_PHASE_AUCTION))
    model.legal = pb.GetLegalActionsResponse(your_turn=True, actions=[
        c.Action(bid=c.Bid(passed=True)), c.Action(bid=c.Bid(contract=c.CONTRACT_HEARTS)),
        c.Action(bid=c.Bid(contract=c.CONTRACT_ALL_TRUMP))])
    keys = model.legal_keys()
    assert sorted(keys) == ["a", "h", "p"]
    assert "p=pass" in prompt_text(model).plain and "h=♥ hearts" in prompt_text(model).plain
    # A bid the rules do not offer is still sent (the server refuses it in its own words).
    assert model.action_for_key("s").bid.contract == c.CONTRACT_SPADES
    model.legal = pb.GetLegalActionsResponse(your_turn=True, actions=[
        *cards("Jh"), c.Action(announce=c.Announcement(kind=c.ANNOUNCEMENT_KIND_COULEUR, suit=c.SUIT_HEARTS,
                                                       length=5, points=50))])
    keys = model.legal_keys()
    assert keys["u"].announce.kind == c.ANNOUNCEMENT_KIND_COULEUR
    assert "u=couleur of 5 ♥ (50)" in prompt_text(model).plain


def test_status_shows_trump_taker_deal_and_scores_for_both_teams():
    model = TableModel(Player(1), table=table(seat=1, contract=c.CONTRACT_SPADES))
    text = status_text(model, "127.0.0.1:50051").plain
    assert "Trump: ♠ spades, taken by You" in text
    assert "deal 2, trick 3/8 · dealer North" in text
    assert "you: Ana, seat 1 ·" in text
    assert "Score: you & partner 80 · East & West 120" in text  # seat 1 is team 1
    waiting = table()
    waiting.status = pb.TABLE_STATUS_WAITING_FOR_PLAYERS
    text = status_text(TableModel(Player(0), table=waiting), "h:1").plain
    assert "belote play --target h:1 --table t1" in text


def test_log_lines():
    model = TableModel(Player(0), table=table())

    def line(**body) -> str:
        return describe(model, ev.TableEvent(sequence=1, **body))

    assert line(bid_made=ev.BidMade(seat=1, bid=c.Bid(passed=True))) == "East: pass"
    played = ev.CardPlayed(seat=3, card=parse_card("Kh"), belote=ev.BELOTE_CALL_BELOTE)
    assert line(card_played=played) == "West: K♥ — belote!"
    played = ev.CardPlayed(seat=0, card=parse_card("Qh"), belote=ev.BELOTE_CALL_REBELOTE)
    assert line(card_played=played) == "You: Q♥ — rebelote!"
    assert line(trick_won=ev.TrickWon(trick_number=8, winner=2, points=31)) == (
        "North won trick 8 (31 points)")
    revealed = ev.AnnouncementsRevealed(scoring_team=0, announcements=[ev.SeatAnnouncement(
        seat=2, announcement=c.Announcement(kind=c.ANNOUNCEMENT_KIND_TIERCE, suit=c.SUIT_SPADES, top=c.RANK_KING,
                                            length=3, points=20),
        cards=[parse_card(x) for x in ("Js", "Qs", "Ks")])])
    assert line(announcements_revealed=revealed) == (
        "Announcements: North: tierce to the K♠ (20) [J♠ Q♠ K♠] — you and your partner score them")
    scored = ev.DealScored(deal_number=2, outcome=ev.DEAL_OUTCOME_MADE, explanation="taker 92 > defence 70",
                           deal_score=[70, 92], totals=[190, 172])
    assert line(deal_scored=scored) == ("Deal 2 scored, made: taker 92 > defence 70. "
                                        "This deal you & partner 70 · East & West 92; "
                                        "total you & partner 190 · East & West 172")
    ended = ev.GameEnded(winning_team=1, totals=[900, 1010])
    assert line(game_ended=ended) == ("Game over: East and West win, "
                                      "you & partner 900 · East & West 1010")
    assert line(seat_reclaimed=ev.SeatReclaimed(seat=0)) == "You took your seat back from the bot"
    assert line(seat_reclaimed=ev.SeatReclaimed(seat=1)) == "East is back"
    assert line(deck_revealed=ev.DeckRevealed(deal_number=2)) is None
    # A spectator's message is told as a spectator's whatever its name and seat field.
    said = ev.ChatPosted(seat=0, display_name="Alice", text="I have the jack", spectator=True)
    assert line(chat_posted=said) == "» Alice (spectator): I have the jack"
    assert line(chat_posted=ev.ChatPosted(seat=2, display_name="Bob", text="hi")) == "» Bob (North): hi"


def test_the_last_trick_is_kept_from_the_events():
    model = TableModel(Player(0), table=table())
    for seat, card in ((1, "7h"), (2, "Ah"), (3, "8h"), (0, "9h")):
        model.on_event(ev.TableEvent(card_played=ev.CardPlayed(seat=seat, card=parse_card(card))))
    model.on_event(ev.TableEvent(trick_won=ev.TrickWon(trick_number=1, winner=2, points=25)))
    assert [p.seat for p in model.last_trick] == [1, 2, 3, 0] and model.last_trick_winner == 2
    model.on_event(ev.TableEvent(deal_started=ev.DealStarted(deal_number=3)))
    assert model.last_trick == []
