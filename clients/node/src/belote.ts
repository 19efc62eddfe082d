// The Node.js client of belote.v1.TableService: the web client's own TypeScript (the code
// protobuf-es generates from proto/ into clients/web/src/gen, and the small typed client of
// clients/web/src/client.ts) over @connectrpc/connect-node's gRPC transport, so it talks to the
// server's native gRPC port (HTTP/2).
//
// It keeps the two promises a client of this server relies on:
// - a call that fails with UNAVAILABLE or DEADLINE_EXCEEDED, or on a lost connection, is sent
//   again, the very same request with the same request_id: the server answers a repeated
//   request with its first answer and writes nothing twice;
// - a watch stream that breaks (or that the server ends) is opened again from the last
//   sequence seen + 1: every event is yielded once, in order.
//
// Messages are the proto's, as protobuf-es types them: camelCase fields, enums as numbers
// (BotLevel.NORMAL), 64-bit integers as bigint, oneofs as { case, value }.
import { Code, createClient, type CallOptions } from "@connectrpc/connect";
import { createGrpcTransport } from "@connectrpc/connect-node";
import { bearer, requestId, tableError, type TableClient, TableError, watchTable }
  from "../../web/src/client";
import { BotLevel, type TableEvent } from "../../web/src/gen/belote/v1/events_pb";
import type { Action } from "../../web/src/gen/belote/v1/cards_pb";
import { TableService } from "../../web/src/gen/belote/v1/table_service_pb";

export { BotLevel, Code, type TableEvent };

const RETRY_CODES = new Set([Code.Unavailable, Code.DeadlineExceeded]);
// RESOURCE_EXHAUSTED on a watch: the reader fell behind and the server asks it to reconnect.
const WATCH_RETRY_CODES = new Set([...RETRY_CODES, Code.ResourceExhausted]);
// How connect-node reports a call whose connection was lost (a reset HTTP/2 stream, ECONNRESET).
// The server's own ABORTED always names its reason (VERSION_CONFLICT...), and this client never
// cancels a call it still waits for: without a reason, these codes are a lost connection.
const LOST_CONNECTION_CODES = new Set([Code.Canceled, Code.Aborted]);

function retryable(failed: TableError, codes: Set<Code>): boolean {
  return codes.has(failed.code) || (LOST_CONNECTION_CODES.has(failed.code) && !failed.reason);
}

export interface RetryPolicy {
  attempts: number; callTimeoutMs: number; backoffMs: number; maxBackoffMs: number;
  giveUpAfterMs: number;
}

/** A code as gRPC names it: Code.InvalidArgument -> "INVALID_ARGUMENT". */
export function codeName(code: Code): string {
  return (Code[code] ?? "Unknown").replace(/(?<=[a-z])(?=[A-Z])/g, "_").toUpperCase();
}

/** A refused call: the gRPC code (and its name), the server's message and reason. */
export class BeloteError extends TableError {
  readonly codeName: string;

  constructor(failed: TableError, readonly attempts = 1) {
    super(failed.code, `${codeName(failed.code)}: ${failed.message}`, failed.reason);
    this.codeName = codeName(failed.code);
  }
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

export class BeloteClient {
  readonly policy: RetryPolicy;
  readonly client: TableClient;
  /** How many calls were sent again, and how many times a watch stream was reopened. */
  retries = 0;
  reconnects = 0;

  /** `target`: host:port of the server's gRPC port (plain HTTP/2, no TLS). */
  constructor(target: string, policy: Partial<RetryPolicy> = {}) {
    this.policy = {
      attempts: 6, callTimeoutMs: 10000, backoffMs: 100, maxBackoffMs: 2000, giveUpAfterMs: 60000,
      ...policy,
    };
    this.client = createClient(TableService,
      createGrpcTransport({ baseUrl: `http://${target}`, useBinaryFormat: true }));
  }

  private pause(failures: number): number {
    return Math.min(this.policy.maxBackoffMs, this.policy.backoffMs * 2 ** Math.max(0, failures - 1));
  }

  /** One unary call, sent again as it was (so with the same request_id) when `retryable`. */
  async call<T>(send: (options: CallOptions) => Promise<T>, token?: string): Promise<T> {
    for (let failures = 1; ; failures++) {
      try {
        return await send({ ...bearer(token), timeoutMs: this.policy.callTimeoutMs });
      } catch (err) {
        const failed = tableError(err);
        if (!retryable(failed, RETRY_CODES) || failures >= this.policy.attempts) {
          throw new BeloteError(failed, failures);
        }
      }
      this.retries += 1;
      await sleep(this.pause(failures));
    }
  }

  createTable({ preset = "classic", options = {}, name = "" }:
    { preset?: string; options?: Record<string, string>; name?: string } = {}) {
    const request = { preset, options, name, requestId: requestId() };
    return this.call((o) => this.client.createTable(request, o));
  }

  joinTable(tableId: string, displayName: string, seat?: number) {
    const request = { tableId, displayName, seat, requestId: requestId() };
    return this.call((o) => this.client.joinTable(request, o));
  }

  addBot(tableId: string, token: string, level: BotLevel = BotLevel.NORMAL) {
    const request = { tableId, level, requestId: requestId() };
    return this.call((o) => this.client.addBot(request, o), token);
  }

  getTable(tableId: string, token?: string) {
    return this.call((o) => this.client.getTable({ tableId }, o), token);
  }

  legalActions(tableId: string, token: string) {
    return this.call((o) => this.client.getLegalActions({ tableId }, o), token);
  }

  act(tableId: string, token: string, action: Action, expectedVersion?: bigint) {
    const request = { tableId, action, expectedVersion, requestId: requestId() };
    return this.call((o) => this.client.act(request, o), token);
  }

  /**
   * The table's events from `fromSequence` on, resumed after any disconnection (the web
   * client's watchTable, stopped on codes a retry cannot help):
   * `for await (const event of client.watch(id, token)) { ... }` (break to stop).
   */
  async *watch(tableId: string, token?: string, fromSequence = 1n): AsyncGenerator<TableEvent> {
    const stop = new AbortController();
    const queue: TableEvent[] = [];
    let wake: (() => void) | undefined;
    let failure: BeloteError | undefined;
    let opened = 0;
    let ended = false;
    let failures = 0;
    let failingSince: number | undefined;
    const fail = (error: TableError) => {
      failure = new BeloteError(error, failures);
      stop.abort();
    };
    const watching = watchTable(this.client, tableId, {
      token, fromSequence: fromSequence < 1n ? 1n : fromSequence, signal: stop.signal,
      onEvent: (event) => {
        failures = 0;
        failingSince = undefined;
        queue.push(event);
        wake?.();
      },
      onState: (connected, error) => {
        if (connected) {
          if (opened++ > 0) this.reconnects += 1;
          return;
        }
        if (error === undefined) return;   // ended by the server: opened again
        failures += 1;
        failingSince ??= Date.now();
        if (!retryable(error, WATCH_RETRY_CODES)) fail(error);
        else if (Date.now() - failingSince > this.policy.giveUpAfterMs) fail(error);
      },
    }).finally(() => {
      ended = true;
      wake?.();
    });
    try {
      for (;;) {
        const event = queue.shift();
        if (event !== undefined) {
          yield event;
          continue;
        }
        if (failure) throw failure;
        if (ended || stop.signal.aborted) {
          throw failure ?? new BeloteError(new TableError(Code.Unavailable,
            "the watch stream ended and cannot be opened again", ""), failures);
        }
        await new Promise<void>((resolve) => { wake = resolve; });
        wake = undefined;
      }
    } finally {
      stop.abort();
      await watching;
    }
  }
}
