// The Node.js client of belote.v1.TableService: @belote/client (clients/ts: the code protobuf-es
// generates from proto/, its calls and its resumed watch) over @connectrpc/connect-node's gRPC
// transport, so it talks to the server's native gRPC port (HTTP/2).
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
import { createGrpcTransport } from "@connectrpc/connect-node";
import { BeloteError as TableError, BotLevel, Code, codeName, requestId, retryable, tableServiceClient,
  watchTable, withTokens, type Action, type TableEvent, type TableServiceClient } from "@belote/client";
import type { CallOptions } from "@connectrpc/connect";

export { BotLevel, Code, type TableEvent };

// RESOURCE_EXHAUSTED on a watch: the reader fell behind and the server asks it to reconnect.
function watchRetryable(failed: TableError): boolean {
  return retryable(failed) || failed.code === Code.ResourceExhausted;
}

export interface RetryPolicy {
  attempts: number; callTimeoutMs: number; backoffMs: number; maxBackoffMs: number;
  giveUpAfterMs: number;
}

export { codeName };

/** A refused call: the gRPC code (and its name), the server's message and reason. */
export class BeloteError extends TableError {
  constructor(failed: TableError, readonly attempts = 1) {
    super(failed.code, failed.reason, `${codeName(failed.code)}: ${failed.message}`, failed.field);
  }
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

export class BeloteClient {
  readonly policy: RetryPolicy;
  readonly client: TableServiceClient;
  /** How many calls were sent again, and how many times a watch stream was reopened. */
  retries = 0;
  reconnects = 0;

  /** `target`: host:port of the server's gRPC port (plain HTTP/2, no TLS). */
  constructor(target: string, policy: Partial<RetryPolicy> = {}) {
    this.policy = {
      attempts: 6, callTimeoutMs: 10000, backoffMs: 100, maxBackoffMs: 2000, giveUpAfterMs: 60000,
      ...policy,
    };
    this.client = tableServiceClient(
      createGrpcTransport({ baseUrl: `http://${target}`, useBinaryFormat: true }));
  }

  private pause(failures: number): number {
    return Math.min(this.policy.maxBackoffMs, this.policy.backoffMs * 2 ** Math.max(0, failures - 1));
  }

  /** One unary call, sent again as it was (so with the same request_id) when `retryable`. */
  async call<T>(send: (options: CallOptions) => Promise<T>, token?: string): Promise<T> {
    for (let failures = 1; ; failures++) {
      try {
        return await send({ ...withTokens(token), timeoutMs: this.policy.callTimeoutMs });
      } catch (err) {
        const failed = TableError.from(err);
        if (!retryable(failed) || failures >= this.policy.attempts) {
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
   * The table's events from `fromSequence` on, resumed after any disconnection (@belote/client's
   * watchTable, stopped on codes a retry cannot help):
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
        if (!watchRetryable(error)) fail(error);
        else if (Date.now() - failingSince > this.policy.giveUpAfterMs) fail(error);
      },
      retry: (error) => watchRetryable(error),
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
          throw failure ?? new BeloteError(new TableError(Code.Unavailable, "",
            "the watch stream ended and cannot be opened again"), failures);
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
