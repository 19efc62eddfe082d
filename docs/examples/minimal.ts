// A whole Belote front-end on @belote/client, for a page that `belote serve` serves (or any page
// whose origin the server's --web-origins lets in): quick play, then the table drawn anew after
// each change, and the seat's legal moves as buttons when the table waits for it.
//   <div id="app"></div> <script type="module" src="minimal.js"></script>
import { AnnouncementKind, BeloteError, Contract, DealPhase, Rank, SeatOccupant, Suit, TableStatus,
  connect, type Action, type Card, type TableHandle, type TableState } from "@belote/client";

const belote = connect(location.origin);   // the web port; seat tokens kept in localStorage
const app = document.querySelector<HTMLElement>("#app")!;

const cardName = (card?: Card) => (card ? `${Rank[card.rank]} of ${Suit[card.suit]}` : "?");

function actionName(action: Action): string {
  const { case: kind, value } = action.action;
  if (kind === "card") return cardName(value);
  if (kind === "bid") return value.call.case === "contract" ? `take ${Contract[value.call.value]}` : "pass";
  if (kind === "announce") return `announce ${AnnouncementKind[value.kind]}`;
  return "?";
}

function line(text: string): HTMLElement {
  const p = document.createElement("p");
  p.textContent = text;
  return p;
}

function render(table: TableHandle, state: TableState): void {
  const { table: t, yourTurn, deals, chat } = state;
  const game = t.game;
  const seat = (n: number) => t.seats[n]?.occupant === SeatOccupant.EMPTY ? "(free)" : t.seats[n]?.displayName;
  const buttons = (yourTurn?.actions ?? []).map((action) => {
    const button = document.createElement("button");
    button.textContent = actionName(action);
    button.onclick = () => table.act(action).catch((err: BeloteError) => alert(err.message));
    return button;
  });
  app.replaceChildren(
    line(`${t.name || t.tableId}: ${TableStatus[t.status]} (${table.status})`),
    line(t.seats.map((s) => `${s.seat}: ${seat(s.seat)}${s.seat === t.yourSeat ? " (you)" : ""}`).join(" · ")),
    line(game ? `deal ${game.dealNumber}, ${DealPhase[game.phase]}, score ${game.totals.join(" - ")}` : "waiting for players"),
    line(`trick: ${game?.currentTrick.map((c) => `${seat(c.seat)} ${cardName(c.card)}`).join(", ") ?? ""}`),
    line(`your hand: ${game?.yourHand.map((c) => cardName(c)).join(", ") ?? ""}`),
    ...buttons,
    line(deals.map((d) => `deal ${d.dealNumber}: +${d.dealScore.join(" / +")}`).join("; ")),
    line(chat.slice(-3).map((c) => `${c.displayName}: ${c.text}`).join(" | ")),
  );
}

async function main(): Promise<void> {
  const table = await belote.quickPlay({ displayName: "guest" });
  table.onChange((state) => render(table, state));
  render(table, table.state);
  await table.done;   // until the table closes (or the handle fails: the error below)
}

main().catch((err: unknown) => app.replaceChildren(line(`error: ${(err as Error).message}`)));
