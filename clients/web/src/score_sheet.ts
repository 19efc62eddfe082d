// The score sheet: one row per deal of the game (the DealScored events the state keeps in
// `deals`), each number the server counted in its own column, so that a total is explained
// (the belote, the announcements, a multiplier, a reserve) and never only asserted. Team 0 is
// north–south, team 1 east–west, in that order in every pair of columns.
import { DealOutcome, type DealScored } from "@belote/client";
import { contractName } from "./cards";

const OUTCOMES: Record<number, string> = {
  [DealOutcome.MADE]: "made",
  [DealOutcome.FAILED]: "dedans",
  [DealOutcome.CAPOT_MADE]: "capot",
  [DealOutcome.CAPOT_AGAINST]: "capot against",
  [DealOutcome.LITIGE_RESERVE]: "litige (reserve)",
  [DealOutcome.LITIGE_DEDANS]: "litige (dedans)",
};

export interface SheetLabels {
  /** The two teams' short names, [team 0, team 1] ("us"/"them" for a seated viewer). */
  teams: readonly [string, string];
  /** A seat's name at this table. */
  seatName: (seat: number) => string;
  /** The game's target (`options["target"]`), "" if none is known. */
  target: string;
}

function cell(tag: "td" | "th", text: string, col?: string): HTMLTableCellElement {
  const node = document.createElement(tag);
  node.textContent = text;
  if (col) node.dataset.col = col;
  return node;
}

// The per-team columns: [data-col prefix, header].
const PAIRS: readonly [keyof DealScored & string, string, string][] = [
  ["trickPoints", "trick", "Tricks"],
  ["belote", "belote", "Belote"],
  ["announcements", "announcements", "Ann."],
  ["dealScore", "deal", "Deal"],
  ["totals", "total", "Total"],
];

function reserveText(d: DealScored, labels: SheetLabels): string {
  const parts: string[] = [];
  if (d.reserveCreated) parts.push(`+${d.reserveCreated} kept`);
  if (d.reservePaid) parts.push(`${d.reservePaid} paid to ${labels.teams[d.reservePaidTo] ?? "?"}`);
  if (d.reservePending && !d.reserveCreated) parts.push(`${d.reservePending} waiting`);
  return parts.join(", ");
}

/** The sheet's panel: its `<table>`, a header row and one `<tr data-deal="N">` per deal. */
export function scoreSheet(deals: readonly DealScored[], labels: SheetLabels): HTMLElement {
  const table = document.createElement("table");
  const caption = document.createElement("caption");
  const last = deals[deals.length - 1];
  caption.textContent = labels.target ? `Game to ${labels.target}` : "Game";
  if (last) caption.textContent += ` · ${labels.teams[0]} ${last.totals[0] ?? 0}, ${labels.teams[1]} ${last.totals[1] ?? 0}`;
  table.append(caption);
  const head = document.createElement("tr");
  head.append(cell("th", "#"), cell("th", "Contract"), cell("th", "Result"));
  for (const [, , title] of PAIRS) {
    head.append(cell("th", `${title} ${labels.teams[0]}`), cell("th", `${title} ${labels.teams[1]}`));
  }
  head.append(cell("th", "×"), cell("th", "Reserve"));
  const thead = document.createElement("thead");
  thead.append(head);
  const body = document.createElement("tbody");
  for (const d of deals) {
    const row = document.createElement("tr");
    row.dataset.deal = String(d.dealNumber);
    row.dataset.outcome = DealOutcome[d.outcome] ?? "";
    row.title = d.explanation;
    row.append(cell("td", String(d.dealNumber), "deal-number"),
      cell("td", `${contractName(d.contract)} · ${labels.seatName(d.taker)}`, "contract"),
      cell("td", OUTCOMES[d.outcome] ?? "", "outcome"));
    for (const [field, col] of PAIRS) {
      const values = d[field] as readonly number[];
      row.append(cell("td", String(values[0] ?? 0), `${col}-0`), cell("td", String(values[1] ?? 0), `${col}-1`));
    }
    row.append(cell("td", String(d.multiplier), "multiplier"), cell("td", reserveText(d, labels), "reserve"));
    body.append(row);
  }
  table.append(thead, body);
  const scroller = document.createElement("div");
  scroller.className = "sheet-scroll";
  scroller.append(table);
  const panel = document.createElement("section");
  panel.id = "score-sheet";
  panel.className = "panel";
  const title = document.createElement("h3");
  title.textContent = "Score sheet";
  panel.append(title, scroller);
  return panel;
}
