// Sending a call again. The server makes it safe: a request sent again with the same
// request_id gets the first answer and writes nothing twice (docs/api.md, Conventions). So a
// call that failed without an answer (UNAVAILABLE, DEADLINE_EXCEEDED, a lost connection) is
// sent again exactly as it was, after a pause that grows.
import { Code } from "@connectrpc/connect";
import { BeloteError } from "./errors.js";

export interface RetryPolicy {
  /** How many times a unary call is sent, at most. */
  attempts: number;
  /** Deadline of one attempt of a unary call. */
  callTimeoutMs: number;
  /** The first pause between two attempts, doubled each time up to maxBackoffMs. */
  backoffMs: number;
  maxBackoffMs: number;
  /** A watch stream that cannot be opened again for this long gives up. */
  giveUpAfterMs: number;
}

export const DEFAULT_RETRY_POLICY: Readonly<RetryPolicy> = {
  attempts: 6, callTimeoutMs: 10_000, backoffMs: 100, maxBackoffMs: 2_000, giveUpAfterMs: 60_000,
};

const RETRY_CODES = new Set([Code.Unavailable, Code.DeadlineExceeded]);
// A lost connection, as the transports report it: fetch's network error is UNKNOWN,
// connect-node's reset HTTP/2 stream CANCELED or ABORTED. Every error the server sends itself
// names its reason (ABORTED is VERSION_CONFLICT or TABLE_CHANGED), so without one these codes
// are no answer at all. (A call the caller cancelled itself is never retried: see `aborted`.)
const LOST_CONNECTION_CODES = new Set([Code.Unknown, Code.Canceled, Code.Aborted]);

/** Whether `failed` came without an answer, so that sending the call again may succeed. */
export function retryable(failed: BeloteError): boolean {
  return RETRY_CODES.has(failed.code) || (LOST_CONNECTION_CODES.has(failed.code) && !failed.reason);
}

/** The pause before attempt `failures` + 1. */
export function backoff(policy: RetryPolicy, failures: number): number {
  return Math.min(policy.maxBackoffMs, policy.backoffMs * 2 ** Math.max(0, failures - 1));
}

/** Waits `ms`, or less if `signal` aborts. */
export function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal?.aborted) return resolve();
    const timer = setTimeout(done, ms);
    signal?.addEventListener("abort", done, { once: true });
    function done() {
      clearTimeout(timer);
      signal?.removeEventListener("abort", done);
      resolve();
    }
  });
}

/**
 * Runs `send` (one attempt of a call, which must send the very same request each time) until
 * it succeeds, fails with an answer, or has been tried `policy.attempts` times. Throws a
 * BeloteError. `onRetry` counts the attempts sent again.
 */
export async function withRetries<T>(policy: RetryPolicy, send: (timeoutMs: number) => Promise<T>,
  options: { signal?: AbortSignal; onRetry?: () => void } = {}): Promise<T> {
  for (let failures = 1; ; failures++) {
    try {
      return await send(policy.callTimeoutMs);
    } catch (err) {
      const failed = BeloteError.from(err);
      if (options.signal?.aborted || !retryable(failed) || failures >= policy.attempts) throw failed;
    }
    options.onRetry?.();
    await sleep(backoff(policy, failures), options.signal);
  }
}
