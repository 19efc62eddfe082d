// What the trick on the table shows beyond the folded state, in time: a trick just won stays
// there, four cards and its winner marked, for a moment (the state has already moved it to
// `lastTrick`), then is gathered toward the winner; and a belote or rebelote is called out at
// the seat that played it. The screen draws from `phase()` and `calls()`; this only keeps time
// and asks for a redraw when what it shows changes.
import { BeloteCall, type LastTrick } from "@belote/client";
import type { Step } from "./pacing";

/** How long a won trick stays on the table before it is gathered. */
export const HOLD_MS = 1000;
/** How long the gathering takes (style.css's animation runs as long). */
export const GATHER_MS = 300;
/** How long "Belote!" / "Rebelote!" stays at the seat. */
export const CALL_MS = 2000;

export type TrickPhase = "held" | "gathered";

export class TrickDisplay {
  private held?: { trick: LastTrick; dealNumber: number; phase: TrickPhase };
  private readonly called = new Map<number, string>();
  private readonly timers = new Set<number>();

  constructor(private readonly redraw: () => void) {}

  /** Steps just drawn (pacing.ts): a trick won starts its hold, a belote call its bubble. The
   * trick is kept here: the next deal's start drops it from the state. */
  saw(steps: readonly Step[]): void {
    for (const { state, event } of steps) {
      const body = event.body;
      const game = state.table.game;
      if (body.case === "trickWon" && game?.lastTrick) {
        const held = { trick: game.lastTrick, dealNumber: game.dealNumber, phase: "held" as TrickPhase };
        this.held = held;
        this.after(HOLD_MS, () => { if (this.held === held) held.phase = "gathered"; });
        this.after(HOLD_MS + GATHER_MS, () => { if (this.held === held) this.held = undefined; });
      } else if (body.case === "cardPlayed" && body.value.belote !== BeloteCall.UNSPECIFIED) {
        const seat = body.value.seat;
        const text = body.value.belote === BeloteCall.REBELOTE ? "Rebelote!" : "Belote!";
        this.called.set(seat, text);
        this.after(CALL_MS, () => { if (this.called.get(seat) === text) this.called.delete(seat); });
      }
    }
  }

  /** The trick just won, while it is on the table, and whether it is being gathered. */
  finished(): { trick: LastTrick; phase: TrickPhase } | undefined {
    return this.held;
  }

  /** The calls to show: seat → "Belote!" or "Rebelote!". */
  calls(): ReadonlyMap<number, string> {
    return this.called;
  }

  /** What changes the drawing, for the screen's "nothing new, nothing redrawn". */
  key(): string {
    return `${this.held ? `${this.held.dealNumber}.${this.held.trick.trickNumber}.${this.held.phase}` : ""}`
      + `/${[...this.called].map(([seat, text]) => seat + text).join()}`;
  }

  stop(): void {
    for (const timer of this.timers) clearTimeout(timer);
    this.timers.clear();
  }

  private after(ms: number, change: () => void): void {
    const timer = window.setTimeout(() => {
      this.timers.delete(timer);
      change();
      this.redraw();
    }, ms);
    this.timers.add(timer);
  }
}
