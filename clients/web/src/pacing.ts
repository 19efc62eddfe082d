// What the page draws lags a little behind what it knows: the server plays bots at once, and a
// person could not follow three cards landing in the same instant. The fold runs on every
// event as it comes (the state is always exact, and is what is kept); this queue hands the
// states to the screen one after another, pausing after a card played by someone else and
// after a trick won. The viewer's own moves are never delayed (no pause follows them), and when
// a state gives the viewer a move, everything queued is drawn at once.
import type { TableEvent, TableState } from "@belote/client";

/** Pause after a card played by another seat, so the next one is seen to follow it. */
export const CARD_PAUSE_MS = 500;
/** Pause after a trick won: it stays on the table, then is gathered (trick.ts), then the next. */
export const TRICK_PAUSE_MS = 1300;
// More than this many states waiting is a backlog (a page opened on a game in progress, a
// resumed stream, four bots playing alone): shown at once rather than replayed slowly.
const BACKLOG = 24;
// A display more than this far behind its stream (four bots playing fast to a spectator) skips
// to the present: pacing is for following a game, not for replaying it.
const MAX_LAG_MS = 4000;

/** An event and the state it folded into. */
export interface Step { readonly state: TableState; readonly event: TableEvent }
/** Receives the state to draw and the steps folded since the last one drawn (that state's last). */
export type Show = (state: TableState, steps: readonly Step[]) => void;

/** Whether pacing is off: `?fast` in the page's address, or localStorage belote.fast = "1". */
export function pacingOff(): boolean {
  try {
    return /[?&#]fast\b/.test(location.search + location.hash) || localStorage.getItem("belote.fast") === "1";
  } catch {
    return false;
  }
}

export class DisplayQueue {
  private readonly waiting: (Step & { at: number })[] = [];
  private timer: number | undefined;
  private stopped = false;

  constructor(private readonly show: Show, private readonly fast: boolean) {}

  /** A state just folded, with the event that made it. */
  push(state: TableState, event: TableEvent): void {
    if (this.stopped) return;
    this.waiting.push({ state, event, at: performance.now() });
    // The viewer's move is never kept waiting: it cuts any pause short, and all is drawn.
    if (state.yourTurn !== undefined && this.timer !== undefined) {
      clearTimeout(this.timer);
      this.timer = undefined;
    }
    // Events that come together (a burst from the server) are looked at together.
    if (this.timer === undefined) this.timer = window.setTimeout(() => this.pump(), 0);
  }

  stop(): void {
    this.stopped = true;
    if (this.timer !== undefined) clearTimeout(this.timer);
    this.timer = undefined;
    this.waiting.length = 0;
  }

  private pump(): void {
    this.timer = undefined;
    if (this.stopped || !this.waiting.length) return;
    const catchUp = this.fast || this.waiting.length > BACKLOG
      || this.waiting.some((w) => w.state.yourTurn !== undefined)
      || performance.now() - this.waiting[0].at > MAX_LAG_MS;
    if (catchUp) {
      const all = this.waiting.splice(0);
      this.show(all[all.length - 1].state, all);
      return;
    }
    // The states up to the first that deserves a pause are drawn together (only the last).
    const steps: Step[] = [];
    let pause = 0;
    let state: TableState | undefined;
    while (this.waiting.length && !pause) {
      const next = this.waiting.shift()!;
      steps.push(next);
      state = next.state;
      // Nothing waits after the viewer's turn is drawn: it is the viewer's to play.
      pause = next.state.yourTurn !== undefined ? 0 : pauseAfter(next.event, next.state.viewer);
    }
    if (state) this.show(state, steps);
    if (this.waiting.length || pause) {
      this.timer = window.setTimeout(() => this.pump(), pause);
    }
  }
}

function pauseAfter(event: TableEvent, viewer: number): number {
  const body = event.body;
  if (body.case === "cardPlayed") return body.value.seat === viewer ? 0 : CARD_PAUSE_MS;
  if (body.case === "trickWon") return TRICK_PAUSE_MS;
  return 0;
}
