// A small typed client of TableService over Connect (connect-web), on the proto's generated
// types: tokens in headers, fresh request ids, and the server's own error message and reason.
import { create } from "@bufbuild/protobuf";
import { Code, ConnectError, createClient, type Client, type Transport } from "@connectrpc/connect";
import { createConnectTransport } from "@connectrpc/connect-web";
import { ErrorInfoSchema } from "./gen/google/rpc/error_details_pb";
import { TableService } from "./gen/belote/v1/table_service_pb";
import type { TableEvent } from "./gen/belote/v1/events_pb";

export type TableClient = Client<typeof TableService>;

/** A refused call as a page shows it: the server's message and its stable reason. */
export class TableError extends Error {
  constructor(readonly code: Code, message: string, readonly reason: string) {
    super(message);
  }
}

export function tableError(err: unknown): TableError {
  const failed = ConnectError.from(err);
  const reason = failed.findDetails(ErrorInfoSchema)[0]?.reason ?? "";
  return new TableError(failed.code, failed.rawMessage, reason);
}

export function transport(baseUrl: string = location.origin): Transport {
  return createConnectTransport({ baseUrl, useBinaryFormat: true });
}

export function tableClient(t: Transport = transport()): TableClient {
  return createClient(TableService, t);
}

export function requestId(): string {
  return crypto.randomUUID();
}

export function bearer(token: string | undefined): { headers?: Record<string, string> } {
  return token ? { headers: { authorization: `Bearer ${token}` } } : {};
}

/** Calls `fn`, turning a Connect error into a TableError. */
export async function call<T>(fn: () => Promise<T>): Promise<T> {
  try {
    return await fn();
  } catch (err) {
    throw tableError(err);
  }
}

/**
 * Watches a table from `fromSequence`, and again from the last sequence received + 1 after a
 * lost connection or a server restart, until `signal` aborts. Each event reaches `onEvent` once.
 */
export async function watchTable(client: TableClient, tableId: string, opts: {
  token?: string; password?: string; fromSequence: bigint; signal: AbortSignal;
  onEvent: (event: TableEvent) => void; onState?: (connected: boolean, error?: TableError) => void;
}): Promise<void> {
  let next = opts.fromSequence;
  let backoffMs = 250;
  while (!opts.signal.aborted) {
    try {
      const stream = client.watchTable(
        { tableId, fromSequence: next, password: opts.password ?? "" },
        { ...bearer(opts.token), signal: opts.signal });
      opts.onState?.(true);
      for await (const event of stream) {
        backoffMs = 250;
        if (event.sequence < next) continue;
        next = event.sequence + 1n;
        opts.onEvent(event);
      }
    } catch (err) {
      if (opts.signal.aborted) return;
      const failed = tableError(err);
      opts.onState?.(false, failed);
      if ([Code.NotFound, Code.PermissionDenied, Code.Unauthenticated, Code.InvalidArgument]
        .includes(failed.code)) return;  // retrying cannot help
    }
    if (opts.signal.aborted) return;
    opts.onState?.(false);
    await new Promise((done) => setTimeout(done, backoffMs));
    backoffMs = Math.min(backoffMs * 2, 5000);
  }
}
