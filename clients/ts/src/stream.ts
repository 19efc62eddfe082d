// A table's event stream that survives its connection: WatchTable from `fromSequence`, and
// again from the last sequence received + 1 after a lost connection, a server restart (which
// ends the stream) or a refusal worth another attempt. Each event reaches `onEvent` once, in
// sequence order.
import { Code } from "@connectrpc/connect";
import { BeloteError } from "./errors.js";
import type { TableEvent } from "./gen/belote/v1/events_pb.js";
import { retryable, sleep } from "./retry.js";
import { withTokens, type TableServiceClient } from "./transport.js";

export interface WatchTableOptions {
  /** The seat token (its own view: its hand, its turns), none for a spectator. */
  token?: string;
  /** A private table's password (spectators). */
  password?: string;
  playerToken?: string;
  /** The first sequence wanted (1: the whole table). */
  fromSequence: bigint;
  /** Aborting it ends the watch (watchTable then resolves). */
  signal: AbortSignal;
  onEvent: (event: TableEvent) => void;
  /** true when a stream opens; false when it is lost (with the error) or ended by the server. */
  onState?: (connected: boolean, error?: BeloteError) => void;
  /** The server answered a stream's opening (its response headers arrived). */
  onOpen?: () => void;
  /**
   * Whether to open the stream again after `failed` (it may first put things right, e.g. take a
   * seat back). Default: on everything but the refusals no retry can help.
   */
  retry?: (failed: BeloteError) => boolean | Promise<boolean>;
  /** The pause before the n-th attempt in a row (default 250 ms doubling up to 5 s). */
  backoff?: (failures: number) => number;
}

// Refusals that the same request gets again, however often it is sent.
const FINAL_CODES = new Set([Code.NotFound, Code.PermissionDenied, Code.Unauthenticated,
  Code.InvalidArgument, Code.OutOfRange, Code.FailedPrecondition]);

/** The default of WatchTableOptions.retry: a failure without an answer, or a refusal for now
 * (RESOURCE_EXHAUSTED: a reader too slow, too many spectators). */
export function watchRetryable(failed: BeloteError): boolean {
  return retryable(failed) || !FINAL_CODES.has(failed.code);
}

/** Resolves when `signal` aborts, or after a refusal that `retry` does not retry (passed to onState). */
export async function watchTable(rpc: TableServiceClient, tableId: string,
  opts: WatchTableOptions): Promise<void> {
  const retry = opts.retry ?? watchRetryable;
  const pause = opts.backoff ?? ((failures: number) => Math.min(250 * 2 ** Math.max(0, failures - 1), 5000));
  let next = opts.fromSequence < 1n ? 1n : opts.fromSequence;
  let failures = 0;
  while (!opts.signal.aborted) {
    try {
      const stream = rpc.watchTable({ tableId, fromSequence: next, password: opts.password ?? "" },
        { ...withTokens(opts.token, opts.playerToken), signal: opts.signal, onHeader: opts.onOpen });
      opts.onState?.(true);
      for await (const event of stream) {
        failures = 0;
        if (event.sequence < next) continue;
        next = event.sequence + 1n;
        opts.onEvent(event);
      }
      if (opts.signal.aborted) return;
      opts.onState?.(false);
    } catch (err) {
      if (opts.signal.aborted) return;
      const failed = BeloteError.from(err);
      opts.onState?.(false, failed);
      if (!(await retry(failed))) return;
      failures += 1;
    }
    await sleep(pause(failures), opts.signal);
  }
}
