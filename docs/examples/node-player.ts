// A Node.js player on @belote/client: creates a table, seats three bots and plays every turn
// the server hands its seat (state.yourTurn), until the game is over. No polling: the handle's
// stream says when the seat is to act and what it may do.
//   node node-player.js 127.0.0.1:50051        (the server's gRPC port)
import { createGrpcTransport } from "@connectrpc/connect-node";
import { BeloteError, BotLevel, Code, connect, memoryStorage } from "@belote/client";

const target = process.argv[2] ?? "127.0.0.1:50051";
const belote = connect(`http://${target}`, {
  transport: createGrpcTransport({ baseUrl: `http://${target}` }),
  storage: memoryStorage(),
});

const table = await belote.createTable({ preset: "classic", displayName: "node", seat: 0 });
for (let i = 0; i < 3; i++) await table.addBot(BotLevel.NORMAL);
console.log(`table: ${table.tableId}`);

let played = -1n;   // the version of the last turn played: each turn once
let actions = 0;
table.onChange((state, event) => {
  if (event?.body.case === "gameEnded") {
    console.log(`score: ${event.body.value.totals.join(" - ")} (${actions} actions, ` +
      `${table.reconnects} reconnections, ${belote.retries} retries)`);
    table.close();
    return;
  }
  const turn = state.yourTurn;
  if (!turn || turn.version === played) return;
  played = turn.version;
  const action = turn.actions[actions % turn.actions.length]!;
  actions += 1;
  table.act(action).catch((err: BeloteError) => {
    // ABORTED: the table moved on before the move reached it; the next turn comes anyway.
    if (err.code !== Code.Aborted) fail(err);
  });
});

function fail(err: Error): never {
  console.error(`error: ${err.message}`);
  process.exit(1);
}

await table.done.catch(fail);
