// A table handle: one seat (or one spectator) at one table, as a front-end holds it.
//
// Its state is the fold (./fold.ts) of the table's WatchTable stream from sequence 1, so it
// needs no GetTable; on a seat's own stream the server marks the event after which the table
// waits for that seat (TableEvent.your_turn, with its legal actions), so nothing polls during a
// game either. The stream is opened again from the last sequence + 1 whenever it is lost or
// the server ends it (a restart), and a seat that the server left to a takeover bot while the
// handle was away is taken back with its seat token (JoinTable: docs/api.md).
//
// Everything lives in the handle: two handles (two seats of one page, two tables) share nothing.
import { create, type MessageInitShape } from "@bufbuild/protobuf";
import { Code, type CallOptions } from "@connectrpc/connect";
import { BeloteError } from "./errors.js";
import { foldEvent, initialState, type TableState } from "./fold.js";
import { type ActionSchema, ActionSchema as ActionMessage, type Action } from "./gen/belote/v1/cards_pb.js";
import { BotLevel, type TableEvent } from "./gen/belote/v1/events_pb.js";
import { SeatOccupant, type ActResponse } from "./gen/belote/v1/table_service_pb.js";
import { backoff, withRetries, type RetryPolicy } from "./retry.js";
import { forgetSeat, keepSeat, type KeptSeat, type TokenStorage } from "./storage.js";
import { watchRetryable, watchTable } from "./stream.js";
import { requestId, withTokens, type TableServiceClient } from "./transport.js";

/**
 * Where the handle's stream is: "connecting" (first opening), "live", "reconnecting" (lost,
 * being opened again), "closed" (close(), leave(), or the table closed), "failed" (a refusal
 * that no retry can help: `error` says which).
 */
export type ConnectionStatus = "connecting" | "live" | "reconnecting" | "closed" | "failed";

/** Called after each change: `event` is the event just folded, undefined for a status change. */
export type ChangeListener = (state: TableState, event: TableEvent | undefined) => void;

/** What a handle needs of the client that made it. */
export interface HandleContext {
  rpc: TableServiceClient;
  policy: RetryPolicy;
  storage: TokenStorage;
  playerToken?: string;
  /** Counts a call sent again (the client's `retries`). */
  onRetry: () => void;
}

export interface HandleSeat {
  tableId: string;
  /** 0..3, or SPECTATOR. */
  seat: number;
  /** The seat token; undefined for a spectator. */
  token?: string;
  displayName?: string;
  /** The host token, when this client created the table (AddBot). */
  hostToken?: string;
  /** A private table's password (a spectator's WatchTable and PostChat need it). */
  password?: string;
}

export class TableHandle {
  readonly tableId: string;
  /** The viewer: the seat 0..3, or SPECTATOR (-1). */
  readonly seat: number;
  readonly hostToken: string | undefined;
  /** Resolves once the handle is closed (close(), leave(), the table closed); rejects with the
   * BeloteError that stopped its stream for good. */
  readonly done: Promise<void>;
  /** How many times the stream was opened again, and the seat taken back from a takeover bot. */
  reconnects = 0;
  reclaims = 0;

  #state: TableState;
  #status: ConnectionStatus = "connecting";
  #error: BeloteError | undefined;
  readonly #ctx: HandleContext;
  readonly #token: string | undefined;
  readonly #displayName: string;
  readonly #password: string;
  readonly #listeners = new Set<ChangeListener>();
  readonly #stop = new AbortController();
  #finish!: (error?: BeloteError) => void;
  #leaving = false;
  #reclaimScheduled = false;
  #reclaimTried = false;

  constructor(ctx: HandleContext, seat: HandleSeat) {
    this.#ctx = ctx;
    this.tableId = seat.tableId;
    this.seat = seat.seat;
    this.hostToken = seat.hostToken;
    this.#token = seat.token;
    this.#displayName = seat.displayName ?? "";
    this.#password = seat.password ?? "";
    this.#state = initialState(seat.tableId, seat.seat);
    this.done = new Promise<void>((resolve, reject) => {
      this.#finish = (error) => (error ? reject(error) : resolve());
    });
    // Whoever does not await `done` must not get an unhandled rejection for it.
    this.done.catch(() => undefined);
    void this.#watch();
  }

  /** The table as the fold of its events has it (the fold's TableState). */
  get state(): TableState {
    return this.#state;
  }

  get status(): ConnectionStatus {
    return this.#status;
  }

  /** The refusal that failed the stream (status "failed"), or the last one it was opened again after. */
  get error(): BeloteError | undefined {
    return this.#error;
  }

  /** Calls `listener` after each change of `state` or `status`; returns its unsubscribe. */
  onChange(listener: ChangeListener): () => void {
    this.#listeners.add(listener);
    return () => { this.#listeners.delete(listener); };
  }

  /**
   * Plays `action` (one of state.yourTurn.actions, or one made with create(ActionSchema, ...)),
   * expecting the table at the state's version: a table that moved on meanwhile refuses it
   * (ABORTED VERSION_CONFLICT) rather than play it at another turn. Sent again with the same
   * request_id after UNAVAILABLE, DEADLINE_EXCEEDED or a lost connection. The events it made
   * reach `state` through the stream, like everybody's. A seat left to a takeover bot meanwhile
   * (PERMISSION_DENIED SEAT_LEFT) is taken back, and the refusal thrown: the seat's next turn
   * comes through the stream.
   */
  async act(action: Action | MessageInitShape<typeof ActionSchema>): Promise<ActResponse> {
    const token = this.#seatToken("act");
    const request = {
      tableId: this.tableId, action: create(ActionMessage, action),
      expectedVersion: this.#state.version, requestId: requestId(),
    };
    try {
      return await this.#call((o) => this.#ctx.rpc.act(request, o), token);
    } catch (err) {
      const failed = BeloteError.from(err);
      if (failed.code === Code.PermissionDenied && failed.reason === "SEAT_LEFT") await this.#reclaim();
      throw failed;
    }
  }

  /** Seats a bot (the host token if this client created the table, else the seat token). */
  async addBot(level: BotLevel = BotLevel.NORMAL, seat?: number): Promise<number> {
    const token = this.hostToken ?? this.#seatToken("addBot");
    const request = { tableId: this.tableId, level, seat, requestId: requestId() };
    return (await this.#call((o) => this.#ctx.rpc.addBot(request, o), token)).seat;
  }

  /** Posts a chat line (a spectator under `displayName`, a seat under its own name). */
  async chat(text: string, displayName = this.#displayName): Promise<void> {
    const request = {
      tableId: this.tableId, text, displayName: this.#token ? "" : displayName,
      password: this.#password, requestId: requestId(),
    };
    await this.#call((o) => this.#ctx.rpc.postChat(request, o), this.#token);
  }

  /** Votes for a rematch once the game is over. */
  async voteRematch(): Promise<void> {
    const token = this.#seatToken("voteRematch");
    const request = { tableId: this.tableId, requestId: requestId() };
    await this.#call((o) => this.#ctx.rpc.voteRematch(request, o), token);
  }

  /**
   * Leaves the seat (a takeover bot plays it if the game is on), forgets its token and closes
   * the handle. A spectator's handle is only closed.
   */
  async leave(): Promise<void> {
    if (this.#token) {
      this.#leaving = true;
      const request = { tableId: this.tableId, requestId: requestId() };
      await this.#call((o) => this.#ctx.rpc.leaveTable(request, o), this.#token);
      await forgetSeat(this.#ctx.storage, this.tableId);
    }
    this.close();
  }

  /** Stops the stream (the seat stays yours: its token is kept, and the server's grace runs). */
  close(): void {
    if (this.#stop.signal.aborted) return;
    this.#stop.abort();
    this.#setStatus("closed");
    this.#finish();
  }

  #seatToken(what: string): string {
    if (!this.#token) {
      throw new BeloteError(Code.FailedPrecondition, "NOT_SEATED", `${what}: a spectator holds no seat`);
    }
    return this.#token;
  }

  #call<T>(send: (options: CallOptions) => Promise<T>, token: string | undefined): Promise<T> {
    const tokens = withTokens(token, this.#ctx.playerToken);
    return withRetries(this.#ctx.policy, (timeoutMs) => send({ ...tokens, timeoutMs }),
      { onRetry: this.#ctx.onRetry });
  }

  #setStatus(status: ConnectionStatus): void {
    if (this.#status === status) return;
    this.#status = status;
    this.#notify(undefined);
  }

  #notify(event: TableEvent | undefined): void {
    for (const listener of [...this.#listeners]) {
      try {
        listener(this.#state, event);
      } catch (err) {
        // A listener's bug must not stop the stream (nor the other listeners): report it apart.
        queueMicrotask(() => { throw err; });
      }
    }
  }

  #apply(event: TableEvent): void {
    // A stream opened again may send an event seen already: each is folded once, in order.
    if (event.sequence <= this.#state.version) return;
    this.#state = foldEvent(this.#state, event);
    this.#notify(event);
    this.#checkTakenOver();
  }

  /** Whether the state shows this seat played by a takeover bot. */
  #takenOver(): boolean {
    const seat = this.#state.table.seats[this.seat];
    return seat !== undefined && seat.occupant === SeatOccupant.BOT && seat.botTakeover;
  }

  #checkTakenOver(): void {
    if (!this.#token || this.#leaving) return;
    if (!this.#takenOver()) {
      this.#reclaimTried = false;
      return;
    }
    if (this.#reclaimScheduled || this.#reclaimTried) return;
    // After the events at hand: a stream that replays a seat taken over and later taken back
    // must not call JoinTable for a state already past.
    this.#reclaimScheduled = true;
    setTimeout(() => {
      this.#reclaimScheduled = false;
      if (this.#takenOver() && !this.#leaving && !this.#stop.signal.aborted) void this.#reclaim();
    }, 0);
  }

  /**
   * Takes the seat back from its takeover bot: JoinTable with the seat token. FAILED_PRECONDITION
   * (SEAT_NOT_LEFT: it was ours still; GAME_OVER, TABLE_CLOSED: nothing left to take) is no failure.
   */
  async #reclaim(): Promise<void> {
    if (!this.#token || this.#leaving) return;
    this.#reclaimTried = true;
    const request = { tableId: this.tableId, requestId: requestId() };
    try {
      const joined = await this.#call((o) => this.#ctx.rpc.joinTable(request, o), this.#token);
      this.reclaims += 1;
      const kept: KeptSeat = { seat: joined.seat, token: this.#token, displayName: this.#displayName };
      if (this.hostToken) kept.hostToken = this.hostToken;
      await keepSeat(this.#ctx.storage, this.tableId, kept);
    } catch (err) {
      const failed = BeloteError.from(err);
      if (failed.code !== Code.FailedPrecondition) this.#error = failed;
    }
  }

  async #watch(): Promise<void> {
    let failingSince: number | undefined;
    let opened = 0;
    let final: BeloteError | undefined;
    await watchTable(this.#ctx.rpc, this.tableId, {
      token: this.#token, password: this.#password, playerToken: this.#ctx.playerToken,
      fromSequence: this.#state.version + 1n, signal: this.#stop.signal,
      backoff: (failures) => backoff(this.#ctx.policy, failures),
      onOpen: () => this.#setStatus("live"),
      onEvent: (event) => {
        failingSince = undefined;
        this.#setStatus("live");
        this.#apply(event);
      },
      onState: (connected, error) => {
        if (connected) {
          if (opened++ > 0) this.reconnects += 1;
          return;
        }
        if (error) this.#error = error;
        // The server ended the stream: it is stopping (it, restarted, or another replica goes
        // on from the next sequence), unless the table is closed for good.
        if (!error && this.#state.table.closed) this.#stop.abort();
        else this.#setStatus("reconnecting");
      },
      retry: async (failed) => {
        if (failed.code === Code.FailedPrecondition && failed.reason === "TABLE_CLOSED") {
          this.#stop.abort();
          return false;
        }
        // Watching with the token of a seat a takeover bot plays: take it back, then watch.
        if (failed.code === Code.PermissionDenied && failed.reason === "SEAT_LEFT") await this.#reclaim();
        failingSince ??= Date.now();
        const worth = watchRetryable(failed) || failed.reason === "SEAT_LEFT";
        if (!worth || Date.now() - failingSince > this.#ctx.policy.giveUpAfterMs) {
          final = failed;
          return false;
        }
        return true;
      },
    });
    if (final) return this.#fail(final);
    if (this.#state.table.closed && this.#token) await forgetSeat(this.#ctx.storage, this.tableId);
    this.close();
  }

  #fail(error: BeloteError): void {
    this.#error = error;
    this.#stop.abort();
    this.#setStatus("failed");
    this.#finish(error);
  }
}
