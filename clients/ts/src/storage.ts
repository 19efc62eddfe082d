// Where a client keeps its seat tokens. A seat token is the only proof that a seat is yours:
// kept, it lets a page reloaded (or a script restarted) come back to its seat, and take it back
// from the takeover bot that plays it after the disconnect grace (JoinTable with the token).
// The caller chooses the storage; each client has its own, so nothing is shared behind its back.

/** A key-value store of strings; any method may answer at once or with a promise. */
export interface TokenStorage {
  get(key: string): string | undefined | Promise<string | undefined>;
  set(key: string, value: string): void | Promise<void>;
  delete(key: string): void | Promise<void>;
}

/** A seat kept for a table: what a handle needs to come back to it. */
export interface KeptSeat {
  seat: number;
  token: string;
  displayName: string;
  /** The host token, when this client created the table. */
  hostToken?: string;
}

/** Tokens in memory, gone with the process (Node's default). */
export function memoryStorage(): TokenStorage {
  const values = new Map<string, string>();
  return {
    get: (key) => values.get(key),
    set: (key, value) => { values.set(key, value); },
    delete: (key) => { values.delete(key); },
  };
}

/**
 * Tokens in a Web Storage (a browser's default: localStorage, so that a reloaded page finds its
 * seat again), each under `prefix` + key.
 */
export function webStorage(storage: Storage = globalThis.localStorage, prefix = "belote:"): TokenStorage {
  return {
    get: (key) => storage.getItem(prefix + key) ?? undefined,
    set: (key, value) => storage.setItem(prefix + key, value),
    delete: (key) => storage.removeItem(prefix + key),
  };
}

/** localStorage where there is one (a browser), else memory (Node, a worker). */
export function defaultStorage(): TokenStorage {
  // Reading localStorage may itself throw (a sandboxed frame, storage disabled).
  try {
    if (typeof globalThis.localStorage !== "undefined") return webStorage(globalThis.localStorage);
  } catch {
    // fall through
  }
  return memoryStorage();
}

function seatKey(tableId: string): string {
  return `seat:${tableId}`;
}

export async function keptSeat(storage: TokenStorage, tableId: string): Promise<KeptSeat | undefined> {
  const text = await storage.get(seatKey(tableId));
  if (!text) return undefined;
  try {
    const kept = JSON.parse(text) as Partial<KeptSeat>;
    if (typeof kept.seat === "number" && typeof kept.token === "string" && kept.token) {
      const seat: KeptSeat = { seat: kept.seat, token: kept.token, displayName: kept.displayName ?? "" };
      if (typeof kept.hostToken === "string" && kept.hostToken) seat.hostToken = kept.hostToken;
      return seat;
    }
  } catch {
    // Not ours, or damaged: as if nothing was kept.
  }
  return undefined;
}

export async function keepSeat(storage: TokenStorage, tableId: string, seat: KeptSeat): Promise<void> {
  await storage.set(seatKey(tableId), JSON.stringify(seat));
}

export async function forgetSeat(storage: TokenStorage, tableId: string): Promise<void> {
  await storage.delete(seatKey(tableId));
}
