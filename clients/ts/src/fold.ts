// A table's state folded from one viewer's WatchTable stream, so that a front-end never polls
// GetTable:
//
//   let state = initialState(tableId, seat);        // seat 0..3, or -1 for a spectator
//   for await (const event of stream) state = foldEvent(state, event);
//   render(state.table);                            // what GetTable would answer this viewer
//
// `state.table` is the belote.v1 Table GetTable returns to the viewer at `state.version`, field
// for field, once the fold has taken the last event of each of the server's appends (the events
// one request wrote together: a card, the trick it won, the deal it scored, the next deal
// dealt...). Between two events of one append it shows the table in between, which GetTable
// never does: the trick's four cards before TrickWon takes them, the deal scored before the
// next is dealt. docs/events.md says which events come together; the differential test
// (tests/clients/test_fold_differential.py) proves the equality at every version, for every
// preset and every kind of viewer, against the server and the Python fold
// (clients/python/belote_client/fold.py), whose names these are in camelCase.
//
// Besides the table, the state keeps what GetTable does not show: the result of every deal of
// the game (`deals`), the chat, the seats whose player lost its stream (`disconnected`), when
// bots fill a quick-play table (`botsFillTime`) and `yourTurn`. It folds the events as the
// server sends them to that viewer (redacted: a spectator sees no hand), from the rules written
// in the table's events alone. `foldEvent` is pure: it returns a new state and changes neither
// the state it is given nor the event.
import { clone, create, fromBinary, toBinary } from "@bufbuild/protobuf";
import { DurationSchema, TimestampSchema, type Timestamp } from "@bufbuild/protobuf/wkt";
import { BidSchema, CardSchema, Contract, type Card } from "./gen/belote/v1/cards_pb.js";
import {
  BotLevel, ChatPostedSchema, DealScoredSchema, SeatAnnouncementSchema, YourTurnSchema,
  type ChatPosted, type DealScored, type TableEvent, type YourTurn,
} from "./gen/belote/v1/events_pb.js";
import {
  AuctionCallSchema, DealPhase, DealScoreSchema, GameViewSchema, LastTrickSchema, SeatInfoSchema,
  SeatOccupant, TableSchema, TableStatus, TrickCardSchema, type GameView, type SeatInfo, type Table,
} from "./gen/belote/v1/table_service_pb.js";

/** The viewer number of a spectator (Table.your_seat). */
export const SPECTATOR = -1;
// Votes for a rematch are open for 2 minutes from GameEnded (RematchVoted in events.proto).
const REMATCH_VOTE_US = 120_000_000n;
// Events after which the seat to act is still the one it was: its turn timer runs on from the
// event that gave it its turn, and its YourTurn holds.
const NOT_A_TURN: ReadonlySet<string> = new Set([
  "chatPosted", "seatDisconnected", "seatConnected", "rematchVoted", "tableClosed",
]);

/** What one viewer knows of a table, after the events up to `version`. */
export interface TableState {
  /** Exactly what GetTable shows this viewer. */
  readonly table: Table;
  /** The seat 0..3, or SPECTATOR. */
  readonly viewer: number;
  /** The sequence of the last event folded (the table's version). */
  readonly version: bigint;
  /** Every deal scored in the current game, in order. */
  readonly deals: readonly DealScored[];
  /** Every chat message, oldest first. */
  readonly chat: readonly ChatPosted[];
  /** The seats that voted for a rematch since the game ended, in seat order. */
  readonly rematchVotes: readonly number[];
  /**
   * The moves the viewer's seat may make now, as its stream sent them; undefined when the table
   * does not wait for it. Events that do not change the turn (chat, a seat's connection, a
   * rematch vote) keep it: its actions still hold, though the table's version moved on (pass
   * state.version as expectedVersion).
   */
  readonly yourTurn: YourTurn | undefined;
  /** Seats whose player's stream closed (SeatDisconnected) and has not come back. */
  readonly disconnected: readonly number[];
  /** A quick-play table waiting for players: when bots fill its empty seats. */
  readonly botsFillTime: Timestamp | undefined;
  /** When the seat to act got its turn (unix microseconds): its turn deadline counts from it. */
  readonly turnSinceUs: bigint;
}

/** The state before the table's first event; `viewer` is a seat 0..3 or SPECTATOR. */
export function initialState(tableId: string, viewer: number): TableState {
  if (!Number.isInteger(viewer) || viewer < -1 || viewer > 3) {
    throw new RangeError(`viewer ${viewer}: a seat 0..3, or -1 for a spectator`);
  }
  return {
    table: create(TableSchema, { tableId, yourSeat: viewer }), viewer, version: 0n, deals: [],
    chat: [], rematchVotes: [], yourTurn: undefined, disconnected: [], botsFillTime: undefined,
    turnSinceUs: 0n,
  };
}

/** foldEvent over `events`, in order. */
export function foldEvents(state: TableState, events: Iterable<TableEvent>): TableState {
  for (const event of events) state = foldEvent(state, event);
  return state;
}

/**
 * The state after `event`. An event folded already (a stream resumed from an earlier sequence)
 * changes nothing; one that skips a sequence throws, as the state would miss what happened in
 * between.
 */
export function foldEvent(state: TableState, event: TableEvent): TableState {
  if (event.sequence <= state.version) return state;
  if (event.sequence !== state.version + 1n) {
    throw new RangeError(`event ${event.sequence} after version ${state.version}: events `
      + `${state.version + 1n}..${event.sequence - 1n} are missing`);
  }
  const step = new Step(state, event);
  // An event type this client does not know (body.case undefined) only moves the version.
  step.apply();
  return step.done();
}

function micros(time: Timestamp | undefined): bigint {
  return time ? time.seconds * 1_000_000n + BigInt(Math.floor(time.nanos / 1000)) : 0n;
}

function timestamp(us: bigint): Timestamp {
  return create(TimestampSchema, { seconds: us / 1_000_000n, nanos: Number(us % 1_000_000n) * 1000 });
}

// The server lists a hand in its cards' order: suit (C D H S), then rank (7 .. A).
function sortedCards(cards: readonly Card[]): Card[] {
  return cards.map((c) => clone(CardSchema, c)).sort((a, b) => a.suit - b.suit || a.rank - b.rank);
}

/** One event being folded: a copy of the table and of the state's fields, changed freely. */
class Step {
  readonly table: Table;
  readonly now: bigint;
  deals: readonly DealScored[];
  chat: readonly ChatPosted[];
  disconnected: readonly number[];
  botsFillTime: Timestamp | undefined;

  constructor(readonly state: TableState, readonly event: TableEvent) {
    this.table = clone(TableSchema, state.table);
    this.now = micros(event.appendTime);
    this.deals = state.deals;
    this.chat = state.chat;
    this.disconnected = state.disconnected;
    this.botsFillTime = state.botsFillTime;
  }

  /** The game view, there once GameStarted came. */
  get game(): GameView {
    const game = this.table.game;
    if (!game) throw new Error(`event ${this.event.sequence} (${this.event.body.case}) before GameStarted`);
    return game;
  }

  done(): TableState {
    const { table, state, event } = this;
    const kind = event.body.case;
    table.version = event.sequence;
    const notATurn = kind !== undefined && NOT_A_TURN.has(kind);
    const turnSinceUs = notATurn ? state.turnSinceUs : this.now;
    // As the server does: a deadline while a human seat is to act at a table with a timer.
    const timer = table.turnTimer?.seconds ?? 0n;
    const toAct = table.game?.toAct ?? -1;
    if (timer && table.status === TableStatus.PLAYING && toAct >= 0
        && table.seats[toAct]?.occupant === SeatOccupant.HUMAN) {
      table.turnDeadlineTime = timestamp(turnSinceUs + timer * 1_000_000n);
    } else {
      table.turnDeadlineTime = undefined;
    }
    let yourTurn = notATurn ? state.yourTurn : undefined;
    if (event.yourTurn) yourTurn = clone(YourTurnSchema, event.yourTurn);
    return {
      table, viewer: state.viewer, version: event.sequence, deals: this.deals, chat: this.chat,
      rematchVotes: [...table.rematchVotes], yourTurn, disconnected: this.disconnected,
      botsFillTime: this.botsFillTime, turnSinceUs,
    };
  }

  connected(seat: number): void {
    this.disconnected = this.disconnected.filter((s) => s !== seat);
  }

  /** What a view shows of a deal in progress only (the hand, the auction, the tricks). */
  dealOver(): void {
    const game = this.game;
    game.phase = DealPhase.DEAL_OVER;
    game.toAct = -1;
    game.trickNumber = 0;
    game.yourHand = [];
    game.bids = [];
    game.turnedCard = undefined;
    game.deckCommitment = new Uint8Array(0);
    game.currentTrick = [];
    game.tricksWon = [];
    game.announcements = [];
  }

  apply(): void {
    const { table } = this;
    const body = this.event.body;
    switch (body.case) {
      case "tableCreated": {
        const e = body.value;
        Object.assign(table, { name: e.name, preset: e.preset, isPrivate: e.isPrivate, stake: e.stake });
        table.options = { ...table.options, ...e.options };
        table.status = TableStatus.WAITING_FOR_PLAYERS;
        table.seats = [0, 1, 2, 3].map((seat) => create(SeatInfoSchema, { seat, occupant: SeatOccupant.EMPTY }));
        if (e.turnTimerSeconds) table.turnTimer = create(DurationSchema, { seconds: BigInt(e.turnTimerSeconds) });
        this.botsFillTime = e.botsFillTime ? clone(TimestampSchema, e.botsFillTime) : undefined;
        return;
      }
      case "seatJoined": {
        const e = body.value;
        table.seats[e.seat] = create(SeatInfoSchema, {
          seat: e.seat, occupant: SeatOccupant.HUMAN, displayName: e.displayName, playerId: e.playerId,
        });
        this.connected(e.seat);
        return;
      }
      case "seatLeft": {
        const e = body.value;
        if (table.status === TableStatus.WAITING_FOR_PLAYERS) {
          table.seats[e.seat] = create(SeatInfoSchema, { seat: e.seat, occupant: SeatOccupant.EMPTY });
        } else {
          // During a game the player keeps its name on the seat, and may come back.
          this.seat(e.seat).occupant = SeatOccupant.EMPTY;
        }
        this.connected(e.seat);
        return;
      }
      case "botSeated": {
        const e = body.value;
        if (e.takeover) {
          Object.assign(this.seat(e.seat), { occupant: SeatOccupant.BOT, botLevel: e.level, botTakeover: true });
        } else {
          const level = (BotLevel[e.level] ?? String(e.level)).toLowerCase();
          table.seats[e.seat] = create(SeatInfoSchema, {
            seat: e.seat, occupant: SeatOccupant.BOT, displayName: `bot (${level})`, botLevel: e.level,
          });
        }
        return;
      }
      case "seatReclaimed": {
        const e = body.value;
        Object.assign(this.seat(e.seat), {
          occupant: SeatOccupant.HUMAN, botLevel: BotLevel.UNSPECIFIED, botTakeover: false,
        });
        this.connected(e.seat);
        return;
      }
      case "seatDisconnected": {
        const seat = body.value.seat;
        this.connected(seat);
        this.disconnected = [...this.disconnected, seat].sort((a, b) => a - b);
        return;
      }
      case "seatConnected":
        this.connected(body.value.seat);
        return;
      case "chatPosted":
        this.chat = [...this.chat, clone(ChatPostedSchema, body.value)];
        return;
      case "gameStarted": {
        const e = body.value;
        table.status = TableStatus.PLAYING;
        table.pot = e.pot;
        table.rematchVotes = [];
        table.rematchDeadlineTime = undefined;
        // The server's view keeps the previous game's last deal until this game scores one.
        const lastDeal = table.game?.lastDeal;
        table.game = create(GameViewSchema, {
          gameNumber: e.gameNumber, totals: [0, 0], dealer: e.firstDealer, phase: DealPhase.DEAL_OVER,
          taker: -1, toAct: -1, winningTeam: -1,
        });
        table.game.lastDeal = lastDeal;
        this.deals = [];
        this.botsFillTime = undefined;
        return;
      }
      case "dealStarted": {
        const e = body.value;
        this.dealOver();
        const game = this.game;
        Object.assign(game, {
          dealNumber: e.dealNumber, dealer: e.dealer, phase: DealPhase.AUCTION, taker: -1,
          contract: Contract.UNSPECIFIED, lastTrick: undefined,
          toAct: (e.dealer + 1) & 3,                     // the eldest speaks first
          deckCommitment: e.deckCommitment.slice(), yourHand: sortedCards(e.hand),
          turnedCard: e.turnedCard ? clone(CardSchema, e.turnedCard) : undefined,
        });
        return;
      }
      case "bidMade": {
        const e = body.value;
        const game = this.game;
        game.bids.push(create(AuctionCallSchema, { seat: e.seat, bid: e.bid && clone(BidSchema, e.bid) }));
        game.toAct = (e.seat + 1) & 3;                   // after 8 passes (forced_trump): the eldest
        if (e.hand.length) game.yourHand = sortedCards(e.hand);   // forced_trump: the 8 to choose from
        return;
      }
      case "allPassed":
        this.dealOver();
        return;
      case "contractSettled": {
        const e = body.value;
        const game = this.game;
        Object.assign(game, {
          taker: e.taker, contract: e.contract, phase: DealPhase.CARD_PLAY,
          toAct: (game.dealer + 1) & 3,                  // the eldest leads the first trick
          trickNumber: 1, tricksWon: [0, 0],
        });
        if (e.hand.length) game.yourHand = sortedCards(e.hand);
        return;
      }
      case "announcementDeclared": {
        const e = body.value;
        const game = this.game;
        // Shown in seat order (each seat declares once), not in the order they were declared.
        const shown = clone(SeatAnnouncementSchema, create(SeatAnnouncementSchema, {
          seat: e.seat, announcement: e.announcement, cards: e.cards,
        }));
        game.announcements = [...game.announcements, shown].sort((a, b) => a.seat - b.seat);
        return;
      }
      case "announcementsRevealed":
        this.game.announcements = body.value.announcements.map((a) => clone(SeatAnnouncementSchema, a));
        return;
      case "cardPlayed": {
        const e = body.value;
        const game = this.game;
        game.currentTrick.push(create(TrickCardSchema, { seat: e.seat, card: e.card && clone(CardSchema, e.card) }));
        game.toAct = (e.seat + 1) & 3;
        const card = e.card;
        if (e.seat === this.state.viewer && card) {
          const i = game.yourHand.findIndex((c) => c.suit === card.suit && c.rank === card.rank);
          if (i >= 0) game.yourHand.splice(i, 1);
        }
        return;
      }
      case "trickWon": {
        const e = body.value;
        const game = this.game;
        game.lastTrick = create(LastTrickSchema, {
          trickNumber: e.trickNumber, cards: game.currentTrick, winner: e.winner,
        });
        game.currentTrick = [];
        game.tricksWon[e.winner & 1] = (game.tricksWon[e.winner & 1] ?? 0) + 1;
        game.trickNumber = e.trickNumber + 1;
        game.toAct = e.winner;                           // the winner leads the next trick
        return;
      }
      case "dealScored": {
        const e = body.value;
        const game = this.game;
        this.deals = [...this.deals, clone(DealScoredSchema, e)];
        game.totals = [...e.totals];
        game.reserve = e.reservePending;
        // DealScore has DealScored's fields with their numbers: the event's bytes read as it.
        game.lastDeal = fromBinary(DealScoreSchema, toBinary(DealScoredSchema, e));
        this.dealOver();                                 // the next deal (or GameEnded) follows
        return;
      }
      case "gameEnded": {
        const e = body.value;
        const game = this.game;
        table.status = TableStatus.FINISHED;
        table.pot = 0n;
        Object.assign(game, {
          phase: DealPhase.GAME_OVER, toAct: -1, winningTeam: e.winningTeam, totals: [...e.totals],
        });
        table.rematchDeadlineTime = timestamp(this.now + REMATCH_VOTE_US);
        return;
      }
      case "rematchVoted":
        table.rematchVotes = [...new Set([...table.rematchVotes, body.value.seat])].sort((a, b) => a - b);
        return;
      case "tableClosed":
        table.closed = true;
        table.rematchDeadlineTime = undefined;
        return;
      default:
        return;
    }
  }

  seat(seat: number): SeatInfo {
    const info = this.table.seats[seat];
    if (!info) throw new Error(`event ${this.event.sequence}: no seat ${seat} before TableCreated`);
    return info;
  }
}
