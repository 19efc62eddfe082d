// Taking a seat back. A player away longer than the server's disconnect grace finds a takeover
// bot playing the seat (SeatLeft DISCONNECTED, then BotSeated takeover); JoinTable with the seat
// token takes it back (docs/api.md, JoinTable), as @belote/client's TableHandle does. The page
// keeps its own state (resumed from localStorage), so it does the same here rather than hold a
// handle that always folds from the table's first event.
import { Code, SeatOccupant, type TableState } from "@belote/client";
import { bearer, call, requestId, TableError, type TableClient } from "./client";

/** Whether the state shows `seat` played by a takeover bot (the seat is still the token's). */
export function takenOver(state: TableState, seat: number | undefined): boolean {
  const info = seat === undefined ? undefined : state.table.seats[seat];
  return info !== undefined && info.occupant === SeatOccupant.BOT && info.botTakeover;
}

/**
 * What JoinTable with the kept token made of the seat: "back" (taken back: SeatReclaimed
 * follows on the stream), "held" (it was ours still: SEAT_NOT_LEFT), "lost" (the token holds no
 * seat here any more), "over" (nothing left to take: the game is over, the table closed),
 * "later" (no answer: the server is away, to try again).
 */
export type Reclaimed =
  | { outcome: "back"; seat: number }
  | { outcome: "held" | "lost" | "over" | "later"; error?: TableError };

export async function reclaimSeat(client: TableClient, tableId: string, token: string): Promise<Reclaimed> {
  try {
    const joined = await call(() => client.joinTable({ tableId, requestId: requestId() }, bearer(token)));
    return { outcome: "back", seat: joined.seat };
  } catch (err) {
    if (!(err instanceof TableError)) throw err;
    if (err.code === Code.FailedPrecondition) {
      return { outcome: err.reason === "SEAT_NOT_LEFT" ? "held" : "over", error: err };
    }
    if (err.code === Code.PermissionDenied || err.code === Code.Unauthenticated
      || err.code === Code.NotFound) return { outcome: "lost", error: err };
    return { outcome: "later", error: err };
  }
}
