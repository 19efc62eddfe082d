// Plays one whole game of Belote against three bots, from Node.js:
//
//   node dist/play.mjs --target 127.0.0.1:50051 [--preset classic] [--option target=501]
//                      [--level NORMAL] [--name node] [--timeout 120] [--seed 1]
//
// Creates a table, takes seat 0, seats three bots, follows the table's watch stream and, each
// time it is its turn, takes one of the legal actions the server lists: the stream's event that
// starts the seat's turn carries them (TableEvent.your_turn), so the stream and Act are all it
// calls during the game. Prints each deal's score, then "table: <id>" and "score: <team 0> -
// <team 1>"; exits 0 when the game is over, 1 on an error or after --timeout seconds.
import { parseArgs } from "node:util";
import { BeloteClient, BeloteError, BotLevel, Code } from "./belote";
import { Contract, DealOutcome, Rank, Suit, type Action } from "@belote/client";

function usage(message: string): never {
  process.stderr.write(`play.mjs: ${message}\n`);
  process.exit(2);
}

function options() {
  const { values: given } = parseArgs({
    options: {
      target: { type: "string", default: process.env.BELOTE_TARGET || "127.0.0.1:50051" },
      preset: { type: "string", default: "classic" },
      option: { type: "string", multiple: true, default: [] },
      level: { type: "string", default: "NORMAL" },
      name: { type: "string", default: "node" },
      timeout: { type: "string", default: "120" },
      seed: { type: "string", default: "" },
    },
  });
  // Every option has a default.
  const values = given as { [K in keyof typeof given]-?: NonNullable<(typeof given)[K]> };
  const rules: Record<string, string> = {};
  for (const pair of values.option) {
    const at = pair.indexOf("=");
    if (at <= 0) usage(`--option wants NAME=VALUE, got ${JSON.stringify(pair)}`);
    rules[pair.slice(0, at).trim()] = pair.slice(at + 1).trim();
  }
  const level = BotLevel[values.level as keyof typeof BotLevel];
  if (typeof level !== "number" || level === 0) {
    usage(`--level wants EASY, NORMAL or HARD, got ${JSON.stringify(values.level)}`);
  }
  return { ...values, options: rules, level, timeout: Number(values.timeout) };
}

// A small seeded generator (mulberry32), so that --seed replays the same choices.
function randomFrom(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

function describeAction(action: Action): string {
  const { case: kind, value } = action.action;
  if (kind === "card") return `${Rank[value.rank]} of ${Suit[value.suit]}`;
  if (kind === "bid") {
    return value.call.case === "contract" ? `bid ${Contract[value.call.value]}` : "pass";
  }
  if (kind === "announce") return `announce ${value.kind}`;
  return "nothing";
}

async function main(): Promise<void> {
  const args = options();
  const random = randomFrom(args.seed ? Number(args.seed) : Date.now());
  const timer = setTimeout(() => {
    process.stderr.write(`play.mjs: no end of game after ${args.timeout} s\n`);
    process.exit(1);
  }, args.timeout * 1000);

  const client = new BeloteClient(args.target);
  const created = await client.createTable({ preset: args.preset, options: args.options, name: "node" });
  const { tableId } = created;
  const me = await client.joinTable(tableId, args.name, 0);
  for (let i = 0; i < 3; i++) await client.addBot(tableId, created.hostToken, args.level);
  console.log(`table: ${tableId} (seat ${me.seat}, ${args.preset}, three ${BotLevel[args.level]} bots)`);

  let actions = 0;
  let events = 0;
  for await (const event of client.watch(tableId, me.seatToken)) {
    events += 1;
    const { case: kind, value } = event.body;
    if (kind === "dealScored") {
      console.log(`deal ${value.dealNumber}: seat ${value.taker} took ${Contract[value.contract]}, ` +
        `${DealOutcome[value.outcome]}: +${value.dealScore[0]} / +${value.dealScore[1]}, ` +
        `totals ${value.totals[0]} - ${value.totals[1]}`);
    }
    if (kind === "gameEnded") {
      const { totals, winningTeam } = value;
      console.log(`table: ${tableId}`);
      console.log(`score: ${totals[0]} - ${totals[1]} (team ${winningTeam} wins; ` +
        `${actions} actions of ours, ${events} events, ${client.retries} calls retried, ` +
        `${client.reconnects} reconnections)`);
      break;
    }
    const turn = event.yourTurn;
    if (turn === undefined) continue;      // the table does not wait for us after this event
    const action = turn.actions[Math.floor(random() * turn.actions.length)];
    try {
      // expected_version: the turn's, so nothing may have happened since (else ABORTED, and
      // the event that moved the table brings the turn again if it is still ours).
      await client.act(tableId, me.seatToken, action, turn.version);
      actions += 1;
    } catch (err) {
      if (!(err instanceof BeloteError) || err.code !== Code.Aborted) {
        throw new Error(`${describeAction(action)} refused: ${(err as Error).message}`);
      }
    }
  }
  clearTimeout(timer);
}

main().catch((err: Error) => {
  process.stderr.write(`play.mjs: ${err.message}\n`);
  process.exit(1);
});
