// Where the seats sit around the table as the viewer sees it, what a bot's badge says, and
// how many cards each seat still holds (derived from the view: the server never tells).
import { BotLevel, DealPhase, SeatOccupant, type GameView, type SeatInfo, type Table } from "@belote/client";

/**
 * The places by offset from the viewer's seat (0: the viewer, at the bottom). Play passes
 * from seat s to s + 1; counter-clockwise (the French way, the default) that next seat sits
 * on the viewer's right, clockwise on the left, as the terminal client and the review draw it.
 */
export function placesOf(view: Table): string[] {
  return view.options["play_direction"] === "clockwise"
    ? ["south", "west", "north", "east"]
    : ["south", "east", "north", "west"];
}

const LEVELS: Record<number, string> = {
  [BotLevel.EASY]: "easy", [BotLevel.NORMAL]: "normal", [BotLevel.HARD]: "hard",
};

/** A bot's badge: its level, or that it plays for a human who left. "" for a human. */
export function botBadge(info: SeatInfo | undefined): string {
  if (info?.occupant !== SeatOccupant.BOT) return "";
  if (info.botTakeover) return "bot (took over)";
  const level = LEVELS[info.botLevel];
  return level ? `bot · ${level}` : "bot";
}

/**
 * How many cards `seat` holds now, or undefined when no deal is in play. Every seat holds
 * as many as the others at the start of a trick: the viewer's own hand tells it when it has
 * a seat (the cards it played in this trick added back), else the trick number does (8 at
 * the first trick, one fewer each trick); the auction is played on 5 cards (8 with
 * `bidding=none`). A seat that played in the current trick holds one fewer.
 */
export function cardsHeld(view: Table, seat: number, viewer: number): number | undefined {
  const game: GameView | undefined = view.game;
  if (!game) return undefined;
  const played = (s: number) => game.currentTrick.some((t) => t.seat === s) ? 1 : 0;
  let atStart: number;
  if (viewer >= 0 && (game.phase === DealPhase.AUCTION || game.phase === DealPhase.CARD_PLAY)) {
    atStart = game.yourHand.length + played(viewer);
  } else if (game.phase === DealPhase.CARD_PLAY) {
    atStart = Math.max(0, 9 - game.trickNumber);
  } else if (game.phase === DealPhase.AUCTION) {
    atStart = view.options["bidding"] === "none" ? 8 : 5;
  } else {
    return undefined;
  }
  return Math.max(0, atStart - played(seat));
}
