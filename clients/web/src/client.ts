// The page's calls, on @belote/client (clients/ts) until the page is rebuilt on the package's
// table handle: its generated client over connect-web, its typed errors and its resumed watch,
// under the names main.ts uses.
import { BeloteError, Code, requestId, tableServiceClient, watchTable as watchEvents, withTokens,
  type TableEvent, type TableServiceClient } from "@belote/client";
import { webTransport } from "@belote/client/web";
import type { CallOptions } from "@connectrpc/connect";

export { requestId };
export type TableClient = TableServiceClient;

/** A refused call as a page shows it: the server's message and its stable reason. */
export { BeloteError as TableError };

export function tableClient(baseUrl: string = location.origin): TableClient {
  return tableServiceClient(webTransport(baseUrl));
}

/** The call options that carry `token` (a seat or host token), if any. */
export function bearer(token: string | undefined): CallOptions {
  return withTokens(token);
}

/** Calls `fn`, turning a Connect error into a TableError. */
export async function call<T>(fn: () => Promise<T>): Promise<T> {
  try {
    return await fn();
  } catch (err) {
    throw BeloteError.from(err);
  }
}

// Retrying cannot help these: the page says so and stops watching.
const FINAL_CODES = new Set([Code.NotFound, Code.PermissionDenied, Code.Unauthenticated,
  Code.InvalidArgument]);

/**
 * Watches a table from `fromSequence`, and again from the last sequence received + 1 after a
 * lost connection or a server restart, until `signal` aborts. Each event reaches `onEvent` once.
 */
export function watchTable(client: TableClient, tableId: string, opts: {
  token?: string; password?: string; fromSequence: bigint; signal: AbortSignal;
  onEvent: (event: TableEvent) => void; onState?: (connected: boolean, error?: BeloteError) => void;
  /** The server answered an opening of the stream (onState(true) comes before any answer). */
  onOpen?: () => void;
}): Promise<void> {
  return watchEvents(client, tableId, { ...opts, retry: (failed) => !FINAL_CODES.has(failed.code) });
}
