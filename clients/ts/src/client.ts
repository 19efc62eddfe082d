// The client a front-end starts from: connect() to a server, then sit at a table (createTable,
// joinTable, quickPlay) or watch one, and get a table handle (./table.ts) for it.
import type { MessageInitShape } from "@bufbuild/protobuf";
import type { CallOptions } from "@connectrpc/connect";
import { BeloteError, Code } from "./errors.js";
import type { CreateTableRequestSchema, ListTablesResponse } from "./gen/belote/v1/table_service_pb.js";
import { DEFAULT_RETRY_POLICY, withRetries, type RetryPolicy } from "./retry.js";
import { defaultStorage, forgetSeat, keepSeat, keptSeat, type KeptSeat, type TokenStorage }
  from "./storage.js";
import { SPECTATOR } from "./fold.js";
import { TableHandle, type HandleContext } from "./table.js";
import { requestId, tableServiceClient, withTokens, type TableServiceClient, type Transport }
  from "./transport.js";

export interface ConnectOptions {
  /**
   * How calls reach the server. In a browser bundle, default: Connect (binary) over fetch to
   * `baseUrl`, the server's web port (@connectrpc/connect-web). In Node.js, required: one of
   * @connectrpc/connect-node, e.g. `createGrpcTransport({ baseUrl: "http://127.0.0.1:50051" })`
   * for the gRPC port.
   */
  transport?: Transport;
  /** Where seat tokens are kept. Default: localStorage in a browser, memory elsewhere. */
  storage?: TokenStorage;
  /** When and how often calls are sent again. */
  retry?: Partial<RetryPolicy>;
  /** A registered player's token (x-player-token): chips, ratings. */
  playerToken?: string;
}

/** CreateTableRequest without its request_id, and who sits down at the new table. */
export type CreateTableOptions =
  Omit<MessageInitShape<typeof CreateTableRequestSchema>, "requestId" | "$typeName"> & {
    /** The creator's name at the table. */
    displayName?: string;
    /** The creator's seat (default 0). */
    seat?: number;
  };

export interface JoinTableOptions {
  displayName?: string;
  /** A seat (default: the lowest free one). */
  seat?: number;
  /** A private table's password. */
  password?: string;
}

export interface QuickPlayOptions {
  preset?: string;
  options?: Record<string, string>;
  displayName?: string;
}

export interface WatchOptions {
  /** A private table's password. */
  password?: string;
}

export class BeloteClient {
  /** The generated client: every RPC of belote.v1.TableService, for what the handles lack. */
  readonly rpc: TableServiceClient;
  readonly storage: TokenStorage;
  readonly policy: RetryPolicy;
  /** How many calls were sent again (its handles' included). */
  retries = 0;
  readonly #playerToken: string | undefined;

  constructor(transport: Transport, options: Omit<ConnectOptions, "transport"> = {}) {
    this.rpc = tableServiceClient(transport);
    this.storage = options.storage ?? defaultStorage();
    this.policy = { ...DEFAULT_RETRY_POLICY, ...options.retry };
    this.#playerToken = options.playerToken;
  }

  /** One unary call with `token`, sent again as it was after a failure without an answer. */
  call<T>(send: (options: CallOptions) => Promise<T>, token?: string): Promise<T> {
    const tokens = withTokens(token, this.#playerToken);
    return withRetries(this.policy, (timeoutMs) => send({ ...tokens, timeoutMs }),
      { onRetry: () => { this.retries += 1; } });
  }

  /** Creates a table, sits down at it, and returns the seat's handle (with the host token). */
  async createTable(options: CreateTableOptions = {}): Promise<TableHandle> {
    const { displayName = "", seat = 0, ...table } = options;
    const request = { preset: "classic", ...table, requestId: requestId() };
    const created = await this.call((o) => this.rpc.createTable(request, o));
    return this.#join(created.tableId, { displayName, seat, password: table.password ?? "" },
      created.hostToken);
  }

  /**
   * Sits down at a table and returns the seat's handle. A table whose seat token the storage
   * keeps (a reloaded page) is resumed at that seat instead, taken back from its takeover bot
   * if need be.
   */
  async joinTable(tableId: string, options: JoinTableOptions = {}): Promise<TableHandle> {
    const kept = await keptSeat(this.storage, tableId);
    if (kept) {
      const resumed = await this.#resume(tableId, kept, options.password ?? "");
      if (resumed) return resumed;
    }
    return this.#join(tableId, options);
  }

  /** A seat at an open public table of these rules (or a new one that bots fill), as its handle. */
  async quickPlay(options: QuickPlayOptions = {}): Promise<TableHandle> {
    const request = {
      preset: options.preset ?? "classic", options: options.options ?? {},
      displayName: options.displayName ?? "", requestId: requestId(),
    };
    const joined = await this.call((o) => this.rpc.quickPlay(request, o));
    const tableId = joined.table?.tableId ?? "";
    return this.#seated({ tableId, seat: joined.seat, token: joined.seatToken,
      displayName: request.displayName });
  }

  /** A spectator's handle on a table (the password of a private one). */
  watch(tableId: string, options: WatchOptions = {}): TableHandle {
    return new TableHandle(this.#context(), { tableId, seat: SPECTATOR, password: options.password });
  }

  /** The open public tables, newest first, a page at a time. */
  listTables(pageSize = 50, pageToken = ""): Promise<ListTablesResponse> {
    return this.call((o) => this.rpc.listTables({ pageSize, pageToken }, o));
  }

  async #join(tableId: string, options: JoinTableOptions, hostToken?: string): Promise<TableHandle> {
    const request = {
      tableId, seat: options.seat, displayName: options.displayName ?? "",
      password: options.password ?? "", requestId: requestId(),
    };
    const joined = await this.call((o) => this.rpc.joinTable(request, o));
    return this.#seated({ tableId, seat: joined.seat, token: joined.seatToken,
      displayName: request.displayName, hostToken, password: request.password });
  }

  /** Back at a kept seat: JoinTable with its token takes it back from a takeover bot. */
  async #resume(tableId: string, kept: KeptSeat, password: string): Promise<TableHandle | undefined> {
    let seat = kept.seat;
    try {
      seat = (await this.call((o) => this.rpc.joinTable({ tableId, requestId: requestId() }, o),
        kept.token)).seat;
    } catch (err) {
      const failed = BeloteError.from(err);
      // SEAT_NOT_LEFT: the seat is ours still; GAME_OVER: nothing to take back, but the seat's
      // view of the end is ours to watch.
      if (failed.code !== Code.FailedPrecondition || failed.reason === "TABLE_CLOSED") {
        // A token the table no longer knows (a seat given up before the game started).
        if (failed.code === Code.Unauthenticated || failed.code === Code.PermissionDenied
          || failed.reason === "TABLE_CLOSED") {
          await forgetSeat(this.storage, tableId);
          return undefined;
        }
        throw failed;
      }
    }
    return this.#seated({ tableId, seat, token: kept.token, displayName: kept.displayName,
      hostToken: kept.hostToken, password });
  }

  async #seated(seat: { tableId: string; seat: number; token: string; displayName: string;
    hostToken?: string; password?: string }): Promise<TableHandle> {
    const kept: KeptSeat = { seat: seat.seat, token: seat.token, displayName: seat.displayName };
    if (seat.hostToken) kept.hostToken = seat.hostToken;
    await keepSeat(this.storage, seat.tableId, kept);
    return new TableHandle(this.#context(), seat);
  }

  #context(): HandleContext {
    return {
      rpc: this.rpc, policy: this.policy, storage: this.storage, playerToken: this.#playerToken,
      onRetry: () => { this.retries += 1; },
    };
  }
}

/**
 * A client of the server at `baseUrl` through `options.transport`. This is the build of the
 * package for Node.js (and whatever is no browser): it has no transport of its own, so that it
 * needs no @connectrpc/connect-web; a browser bundle gets ./web.ts's connect(), whose default
 * transport is connect-web's to `baseUrl` (package.json, "exports", condition "browser").
 */
export function connect(baseUrl: string, options: ConnectOptions = {}): BeloteClient {
  const { transport, ...rest } = options;
  if (!transport) {
    throw new BeloteError(Code.InvalidArgument, "", `connect(${JSON.stringify(baseUrl)}): no ` +
      "transport: outside a browser, pass options.transport (e.g. createGrpcTransport of " +
      "@connectrpc/connect-node, or webTransport of @belote/client/web)", "transport");
  }
  return new BeloteClient(transport, rest);
}
