// The generated client of TableService over a transport, and what every call carries. Which
// transport is the caller's: a page's comes from ./web.ts (connect-web), a Node.js program's
// from @connectrpc/connect-node, so that neither needs the other's package.
import { createClient, type CallOptions, type Client, type Transport } from "@connectrpc/connect";
import { TableService } from "./gen/belote/v1/table_service_pb.js";

export type { Transport };

/** The generated client of belote.v1.TableService, every RPC as the proto has it. */
export type TableServiceClient = Client<typeof TableService>;

export function tableServiceClient(transport: Transport): TableServiceClient {
  return createClient(TableService, transport);
}

/** A fresh request_id: the server answers a request sent again with its id by its first answer. */
export function requestId(): string {
  return crypto.randomUUID();
}

/** Call options carrying a token (a seat or host token) and a player's token, if any. */
export function withTokens(token: string | undefined, playerToken?: string): CallOptions {
  const headers: Record<string, string> = {};
  if (token) headers.authorization = `Bearer ${token}`;
  if (playerToken) headers["x-player-token"] = playerToken;
  return { headers };
}
