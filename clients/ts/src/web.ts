// The browser's way to the server: Connect in binary over fetch (@connectrpc/connect-web, a
// peer dependency) to the web port, which `belote serve --web-listen` opens and which serves
// the page too. Node.js 18+ has fetch as well: a script may use webTransport there.
import type { Transport } from "@connectrpc/connect";
import { createConnectTransport } from "@connectrpc/connect-web";
import { BeloteClient, type ConnectOptions } from "./client.js";

/** Connect over fetch to a server's web port, in binary. */
export function webTransport(baseUrl: string): Transport {
  return createConnectTransport({ baseUrl, useBinaryFormat: true });
}

/**
 * A client of the server whose web port is at `baseUrl` (`location.origin` for a page that
 * `belote serve` serves), over connect-web unless `options.transport` says otherwise.
 */
export function connect(baseUrl: string, options: ConnectOptions = {}): BeloteClient {
  const { transport = webTransport(baseUrl), ...rest } = options;
  return new BeloteClient(transport, rest);
}
