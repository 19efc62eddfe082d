// The page: a lobby (#/) and a table (#/table/<id>). Everything shown comes from the server's
// stream of events (WatchTable), folded by @belote/client into what GetTable would show this
// viewer, with the moves its seat may make (your_turn): nothing polls during a game. A refused
// action shows the server's own message.
import { Code } from "@connectrpc/connect";
import { BotLevel, foldEvent, initialState, readState, retryable, SPECTATOR, writeState,
  type TableEvent, type TableState, type YourTurn } from "@belote/client";
import type { Action, Card, DealScored } from "@belote/client";
import { DealPhase, SeatOccupant, TableStatus, type Table, type TableSummary } from "@belote/client";
import { actionName, announcementName, bidName, cardBacks, cardFace, cardKey, cardLabel, cardName,
  contractName, sortHand } from "./cards";
import { bearer, call, requestId, tableClient, TableError, watchTable } from "./client";
import { reclaimSeat, takenOver } from "./reclaim";
import { DisplayQueue, pacingOff } from "./pacing";
import { scoreSheet } from "./score_sheet";
import { TrickDisplay } from "./trick";
import { botBadge, cardsHeld, placesOf } from "./seats";

const client = tableClient();
const app = document.getElementById("app") as HTMLElement;
const messageBox = document.getElementById("message") as HTMLElement;
const connection = document.getElementById("connection") as HTMLElement;

type Child = Node | string | null | undefined | false;

function el<K extends keyof HTMLElementTagNameMap>(tag: K, attrs: Record<string, string> = {},
  ...children: Child[]): HTMLElementTagNameMap[K] {
  const node = document.createElement(tag);
  for (const [key, value] of Object.entries(attrs)) {
    if (key === "class") node.className = value;
    else node.setAttribute(key, value);
  }
  for (const child of children) if (child) node.append(child);
  return node;
}

function button(label: string, onClick: () => unknown, attrs: Record<string, string> = {}) {
  const b = el("button", { type: "button", ...attrs }, label);
  b.addEventListener("click", () => void onClick());
  return b;
}

/** Shows `text` in the message box: a refusal (its reason), or good news (`notice`). */
function say(text: string, reason = "", notice = false): void {
  messageBox.textContent = text;
  messageBox.dataset.reason = reason;
  messageBox.dataset.kind = notice ? "notice" : "error";
  messageBox.hidden = !text;
}

function fail(err: unknown): void {
  if (err instanceof TableError) say(err.message, err.reason);
  else say(String(err));
}

// What this browser remembers of a table: the seat token (the only proof of the seat), the
// host token, a private table's password, and the state folded so far (its stream resumes
// after `lastSequence`, the state's version, instead of from the table's first event).
interface Remembered {
  token?: string; seat?: number; hostToken?: string; password?: string;
  lastSequence?: string; state?: string;
}

// A page that only watches keeps its own memory, so it never drops the seat of the same table.
const memoryKey = (tableId: string, watching = false) =>
  `belote.${watching ? "watch" : "table"}.${tableId}`;
function remember(key: string): Remembered {
  try {
    return JSON.parse(localStorage.getItem(key) ?? "{}") as Remembered;
  } catch {
    return {};
  }
}
function keep(key: string, memory: Remembered): void {
  localStorage.setItem(key, JSON.stringify(memory));
}

function playerName(): string {
  return localStorage.getItem("belote.name") || "";
}

// ------------------------------------------------------------------------------------ lobby

let leaveView: (() => void) | undefined;

function showLobby(): void {
  const presets = ["classic", "classic-501", "belgian", "belgian-open", "online-classic",
    "modern", "kamikaze", "enhanced"];
  const name = el("input", { id: "create-name", autocomplete: "nickname", maxlength: "64",
    value: playerName(), required: "" });
  const preset = el("select", { id: "create-preset" },
    ...presets.map((p) => el("option", { value: p }, p)));
  const target = el("input", { id: "create-target", type: "number", min: "1", step: "1",
    placeholder: "the preset's" });
  const bots = el("input", { id: "create-bots", type: "checkbox", checked: "" });
  const level = el("select", { id: "create-level" }, el("option", { value: String(BotLevel.EASY) }, "easy"),
    el("option", { value: String(BotLevel.NORMAL), selected: "" }, "normal"),
    el("option", { value: String(BotLevel.HARD) }, "hard"));
  const priv = el("input", { id: "create-private", type: "checkbox" });
  const password = el("input", { id: "create-password", type: "password", autocomplete: "new-password" });
  const form = el("form", { id: "create-form", class: "panel" },
    el("h2", {}, "New table"),
    el("label", {}, "Your name ", name),
    el("label", {}, "Rules ", preset),
    el("label", {}, "Target score ", target),
    el("label", {}, bots, " Bots on the other seats, level ", level),
    el("label", {}, priv, " Private, password ", password),
    el("button", { id: "create", type: "submit" }, "Create and sit"));
  form.addEventListener("submit", (event) => {
    event.preventDefault();
    localStorage.setItem("belote.name", name.value.trim());
    void createTable(name.value.trim(), preset.value, target.value, bots.checked,
      Number(level.value) as BotLevel, priv.checked, password.value);
  });

  const quickPreset = el("select", { id: "quick-preset" },
    ...presets.map((p) => el("option", { value: p }, p)));
  const quick = el("form", { id: "quick-form", class: "panel" },
    el("h2", {}, "Quick play"),
    el("p", {}, "A seat at the open table of these rules with the most players waiting, or a new one: "
      + "bots take the seats still empty after a short wait."),
    el("label", {}, "Rules ", quickPreset),
    el("button", { id: "quick-play", type: "submit" }, "Play now"));
  quick.addEventListener("submit", (event) => {
    event.preventDefault();
    localStorage.setItem("belote.name", name.value.trim());
    void quickPlay(name.value.trim(), quickPreset.value);
  });

  const list = el("ul", { id: "tables", "aria-live": "polite" });
  const byId = el("form", { id: "open-form", class: "panel" }, el("h2", {}, "A table by its id"),
    el("label", {}, "Table id ", el("input", { id: "open-id", required: "" })),
    el("button", { type: "submit" }, "Open"));
  byId.addEventListener("submit", (event) => {
    event.preventDefault();
    const id = (document.getElementById("open-id") as HTMLInputElement).value.trim();
    if (id) location.hash = `#/table/${encodeURIComponent(id)}`;
  });
  app.replaceChildren(el("section", { id: "lobby" }, quick, form,
    el("section", { class: "panel" }, el("h2", {}, "Open tables"), list), byId));

  let stopped = false;
  const refresh = async () => {
    if (stopped) return;
    try {
      const { tables } = await call(() => client.listTables({ pageSize: 50 }));
      list.replaceChildren(...(tables.length ? tables.map(tableRow)
        : [el("li", {}, "No table is waiting: create one.")]));
    } catch (err) {
      fail(err);
    }
    if (!stopped) timer = window.setTimeout(refresh, 2000);
  };
  let timer = window.setTimeout(refresh, 0);
  leaveView = () => { stopped = true; clearTimeout(timer); };
}

async function quickPlay(name: string, preset: string): Promise<void> {
  try {
    const joined = await call(() => client.quickPlay({ preset, displayName: name || "player",
      requestId: requestId() }));
    const tableId = joined.table?.tableId ?? "";
    keep(memoryKey(tableId), { token: joined.seatToken, seat: joined.seat });
    say("");
    location.hash = `#/table/${encodeURIComponent(tableId)}`;
  } catch (err) {
    fail(err);
  }
}

function tableRow(t: TableSummary): HTMLElement {
  const open = `#/table/${encodeURIComponent(t.tableId)}`;
  return el("li", { "data-table-id": t.tableId },
    el("span", {}, `${t.name || t.tableId} · ${t.preset} · ${t.freeSeats} free seat${t.freeSeats === 1 ? "" : "s"}`),
    t.stake ? el("span", {}, ` · stake ${t.stake}`) : null,
    button("Join", () => { location.hash = open; }, { class: "join" }),
    button("Watch", () => { location.hash = `${open}?watch`; }, { class: "watch" }));
}

async function createTable(name: string, preset: string, target: string, bots: boolean,
  level: BotLevel, isPrivate: boolean, password: string): Promise<void> {
  try {
    const options: Record<string, string> = target ? { target } : {};
    const created = await call(() => client.createTable({ preset, options, name: name ? `${name}'s table` : "",
      isPrivate, password, requestId: requestId() }));
    const tableId = created.tableId;
    const joined = await call(() => client.joinTable({ tableId, seat: 0, displayName: name || "player",
      password, requestId: requestId() }));
    keep(memoryKey(tableId), { token: joined.seatToken, seat: joined.seat, hostToken: created.hostToken,
      password });
    if (bots) {
      for (const seat of [1, 2, 3]) {
        await call(() => client.addBot({ tableId, seat, level, requestId: requestId() },
          bearer(created.hostToken)));
      }
    }
    say("");
    location.hash = `#/table/${encodeURIComponent(tableId)}`;
  } catch (err) {
    fail(err);
  }
}

// ------------------------------------------------------------------------------------ table

interface TableScreen {
  tableId: string; key: string; memory: Remembered; state: TableState; view?: Table;
  legal?: YourTurn; refused: Map<string, string>; abort: AbortController; drawing: boolean;
  /** What is drawn lags the state by the pacing of others' moves (pacing.ts). */
  pacing: DisplayQueue;
  /** The trick just won held on the table, the belote calls at their seats (trick.ts). */
  trick: TrickDisplay;
  /** The deals scored as far as drawn (the score sheet's rows). */
  deals?: readonly DealScored[];
  shown?: string;
  /** The stream is lost (the server is away): nothing is clickable until it is back. */
  down: boolean;
  /** A JoinTable taking the seat back is on its way; one was tried for this takeover. */
  reclaiming: boolean; reclaimTried: boolean;
}

// The table on screen: answers that arrive for one left since (a reload of the view after a
// seat was taken, say) must not draw over it.
let current: TableScreen | undefined;

function showTable(tableId: string, watchOnly: boolean): void {
  const key = memoryKey(tableId, watchOnly);
  const memory = remember(key);
  const viewer = memory.token !== undefined && memory.seat !== undefined ? memory.seat : SPECTATOR;
  const state = readState(memory.state, tableId, viewer) ?? initialState(tableId, viewer);
  const screen: TableScreen = { tableId, key, memory, state, refused: new Map(),
    abort: new AbortController(), drawing: false, down: false, reclaiming: false, reclaimTried: false,
    pacing: new DisplayQueue((shown, steps) => {
      screen.trick.saw(steps);
      draw(screen, shown);
    }, pacingOff()),
    trick: new TrickDisplay(() => render(screen)) };
  current = screen;
  app.replaceChildren(el("section", { id: "table", "data-table-id": tableId }, "Loading…"));
  const tick = window.setInterval(() => showTimers(screen), 1000);
  const keys = (event: KeyboardEvent) => onKey(screen, event);
  document.addEventListener("keydown", keys);
  leaveView = () => {
    screen.abort.abort(); clearInterval(tick); document.removeEventListener("keydown", keys);
    screen.pacing.stop(); screen.trick.stop();
    current = undefined;
  };
  if (state.version > 0n) draw(screen, state);
  watch(screen);
}

/** Opens the table's stream from the event after the state kept (the whole log the first
 * time); a lost connection resumes after the last event delivered. */
function watch(screen: TableScreen): void {
  const { memory } = screen;
  let attempts = 0;
  void watchTable(client, screen.tableId, {
    token: memory.token, password: memory.password, fromSequence: screen.state.version + 1n,
    signal: screen.abort.signal,
    onOpen: () => setConnected(screen, true),
    onEvent: (event) => { setConnected(screen, true); onEvent(screen, event); },
    onState: (connected, error) => {
      const attempt = ++attempts;
      // An attempt is no answer yet (onOpen says when there is one); a stream lost, or ended
      // by a server stopping, is opened again by watchTable.
      if (connected) {
        if (screen.down) void probe(screen, () => attempt === attempts);
        return;
      }
      if (!error || retryable(error)) setConnected(screen, false);
      else refused(screen, error);
    },
  });
}

/**
 * Whether the server is back, for a stream opened again while it was away: the server answers
 * a stream's opening only with its first event, and a table waiting for this very seat has none
 * to send. A cheap call that the server answers, while the stream's attempt has not failed
 * (`pending`), says the stream is being served.
 */
async function probe(screen: TableScreen, pending: () => boolean): Promise<void> {
  await new Promise((resolve) => window.setTimeout(resolve, 300));  // a refused attempt fails by then
  if (!pending() || !screen.down || screen.abort.signal.aborted) return;
  try {
    await client.listTables({ pageSize: 1 }, { signal: screen.abort.signal, timeoutMs: 5000 });
  } catch {
    return;  // still away: the stream's next attempt asks again
  }
  if (pending()) setConnected(screen, true);
}

/** The stream is up (an answer, an event) or lost: the banner, and the table clickable or not. */
function setConnected(screen: TableScreen, up: boolean): void {
  if (screen !== current) return;
  connection.textContent = up ? "connected" : "Reconnecting…";
  connection.dataset.connected = String(up);
  if (screen.down !== up) return;
  screen.down = !up;
  render(screen);
  if (up) checkTakenOver(screen);
}

function onEvent(screen: TableScreen, event: TableEvent): void {
  screen.state = foldEvent(screen.state, event);
  // One save for the events that come together (a backlog, a card and the trick it won),
  // scheduled before the display queue's turn: nothing is drawn that is not kept yet.
  if (!screen.drawing) {
    screen.drawing = true;
    window.setTimeout(() => {
      screen.drawing = false;
      screen.memory.state = writeState(screen.state);
      screen.memory.lastSequence = screen.state.version.toString();
      keep(screen.key, screen.memory);
      checkTakenOver(screen);
    }, 0);
  }
  // The state is exact at once; what is drawn follows it at the pace of the display queue.
  screen.pacing.push(screen.state, event);
}

/** Draws `shown`: the state the display queue has reached (the exact one at the viewer's turn). */
function draw(screen: TableScreen, shown: TableState): void {
  screen.view = shown.table;
  screen.legal = shown.yourTurn;
  screen.deals = shown.deals;
  render(screen);
}

/** The stream was refused for good: a seat left to a takeover bot is taken back; a seat token
 * that holds no seat here any more watches as a spectator; a private table asks its password
 * (again, saying so, after a wrong one); anything else is shown, with the way back. */
function refused(screen: TableScreen, err: TableError): void {
  if (screen !== current) return;
  connection.textContent = "";
  delete connection.dataset.connected;
  const { memory } = screen;
  if (memory.token && err.code === Code.PermissionDenied && err.reason === "SEAT_LEFT") {
    void takeBack(screen, true);
    return;
  }
  if (memory.token && (err.code === Code.Unauthenticated || err.code === Code.PermissionDenied)) {
    watchInstead(screen);
    return;
  }
  if (err.code === Code.PermissionDenied && err.reason === "WRONG_PASSWORD") {
    // No password yet is no mistake: the prompt just asks for it.
    if (memory.password !== undefined) fail(err);
    else say("");
    delete memory.password;
    keep(screen.key, memory);
    askPassword(screen);
    return;
  }
  fail(err);
  showProblem(screen, err);
}

/** The token holds no seat here any more: the page watches the table instead. */
function watchInstead(screen: TableScreen): void {
  const { memory } = screen;
  delete memory.token; delete memory.seat;
  delete memory.state; delete memory.lastSequence;
  keep(screen.key, memory);
  if (screen === current) route();
}

/** The table cannot be shown (no such table, say): why, and the way back to the lobby. */
function showProblem(screen: TableScreen, err: TableError): void {
  const text = err.code === Code.NotFound ? `There is no table with the id ${screen.tableId}.`
    : `This table cannot be shown: ${err.message}`;
  const back = button("Back to the lobby", () => { location.hash = "#/"; }, { id: "to-lobby" });
  app.replaceChildren(el("section", { id: "table", "data-table-id": screen.tableId },
    el("p", { id: "table-problem" }, text), back));
  back.focus();
}

/** When the state shows this page's seat played by a takeover bot (it was away longer than the
 * server's grace), the seat is taken back: once per takeover, after the events at hand. */
function checkTakenOver(screen: TableScreen): void {
  const { memory } = screen;
  if (!memory.token || screen !== current || screen.down) return;
  if (!takenOver(screen.state, memory.seat)) {
    screen.reclaimTried = false;
    return;
  }
  if (!screen.reclaimTried) void takeBack(screen, false);
}

/**
 * JoinTable with the kept seat token. `reopen`: the stream ended (SEAT_LEFT) and is opened
 * again as the seat once it is back; if the token holds the seat no more, the page watches.
 */
async function takeBack(screen: TableScreen, reopen: boolean): Promise<void> {
  const { memory } = screen;
  if (!memory.token || screen.reclaiming) return;
  screen.reclaiming = true;
  screen.reclaimTried = true;
  const result = await reclaimSeat(client, screen.tableId, memory.token);
  screen.reclaiming = false;
  if (screen !== current) return;
  switch (result.outcome) {
    case "back":
      memory.seat = result.seat;
      keep(screen.key, memory);
      say("You are back in your seat", "", true);
      break;
    case "held":
      break;
    case "later":  // the server is away: the next event, or the stream once back, tries again
      screen.reclaimTried = false;
      if (reopen) window.setTimeout(() => { if (screen === current) watch(screen); }, 1000);
      return;
    case "over":   // the game is over or the table closed: the bot's seat stays the bot's
      if (result.error) fail(result.error);
      if (reopen) watchInstead(screen);
      return;
    case "lost":
      watchInstead(screen);
      return;
  }
  if (reopen) watch(screen);
}

function askPassword(screen: TableScreen): void {
  if (screen !== current) return;
  const input = el("input", { id: "table-password", type: "password", autocomplete: "current-password",
    required: "" });
  const form = el("form", { class: "panel", id: "password-form" },
    el("h2", {}, "A private table"),
    el("label", {}, "This table is private: its password, to watch it ", input),
    el("button", { type: "submit" }, "Open"),
    button("Back to the lobby", () => { location.hash = "#/"; }, { id: "to-lobby" }));
  form.addEventListener("submit", (event) => {
    event.preventDefault();
    screen.memory.password = input.value;
    keep(screen.key, screen.memory);
    say("");
    route();
  });
  app.replaceChildren(el("section", { id: "table", "data-table-id": screen.tableId }, form));
  input.focus();
}

function render(screen: TableScreen): void {
  const view = screen.view;
  if (!view || screen !== current) return;
  // Nothing new, nothing redrawn: the focus and a click in progress stay where they are.
  const shown = [view.version, view.rematchVotes.length, view.closed, screen.legal?.version,
    [...screen.refused.keys()].join(), screen.state.chat.length, screen.memory.token, screen.down,
    screen.trick.key()].join("|");
  if (shown === screen.shown) return;
  screen.shown = shown;
  const game = view.game;
  const mySeat = screen.memory.token !== undefined ? view.yourSeat : -1;
  const me = mySeat >= 0 ? mySeat : 0;  // whose place is at the bottom
  const places = placesOf(view);  // by offset from the bottom seat, in the play direction
  // Names are not unique (three bots may share one): the place at this table tells them apart.
  const seatName = (s: number) => `${view.seats[s]?.displayName || "seat"} (${places[(s - me + 4) % 4]})`;
  const relation = (s: number) => mySeat < 0 ? (s % 2 === 0 ? "north–south" : "east–west")
    : s === mySeat ? "you" : s === (mySeat + 2) % 4 ? "partner" : "opponent";
  const playing = view.status === TableStatus.PLAYING;
  const yourTurn = screen.legal !== undefined;

  const seats = [0, 1, 2, 3].map((offset) => {
    const s = (me + offset) % 4;
    const info = view.seats[s];
    const place = places[offset];
    const empty = !info || info.occupant === SeatOccupant.EMPTY;
    const box = el("div", { class: `seat ${place}${playing && game?.toAct === s ? " to-act" : ""}`,
      "data-seat": String(s) },
      el("strong", { class: "name" }, empty ? "empty seat" : view.seats[s]?.displayName || "player"),
      el("span", { class: "relation" }, ` ${place} · ${relation(s)}`),
      botBadge(info) ? el("span", { class: "badge" }, botBadge(info)) : null,
      game && playing && game.dealer === s ? el("span", { class: "badge" }, "dealer") : null,
      game && game.taker === s && game.contract ? el("span", { class: "badge" }, "taker") : null,
      playing && game?.toAct === s ? el("span", { class: "turn" }, s === mySeat ? " ▶ your turn" : " ▶ to play") : null);
    // The others' hidden cards (the viewer's own are the hand below).
    const held = playing && s !== mySeat ? cardsHeld(view, s, mySeat) : undefined;
    if (held !== undefined) box.append(cardBacks(held));
    if (empty && mySeat < 0 && view.status === TableStatus.WAITING_FOR_PLAYERS) {
      box.append(button("Sit here", () => sit(screen, s), { class: "sit" }));
    }
    if (empty && screen.memory.hostToken && view.status === TableStatus.WAITING_FOR_PLAYERS) {
      box.append(button("Add a bot", () => addBot(screen, s), { class: "add-bot" }));
    }
    return box;
  });

  // A trick just won stays on the table, its winner marked, until gathered (trick.ts); a card
  // of the next trick ends that at once.
  const justWon = !game?.currentTrick.length ? screen.trick.finished() : undefined;
  const onTable = justWon ? justWon.trick.cards : game?.currentTrick ?? [];
  const trickCards = onTable.map((played) => {
    const won = justWon && played.seat === justWon.trick.winner;
    return el("li", { "data-seat": String(played.seat), ...(won ? { class: "winner" } : {}) },
      el("span", { class: "who", title: seatName(played.seat) }, places[(played.seat - me + 4) % 4]),
      played.card ? cardFace(played.card) : null,
      won ? el("span", { class: "won" }, "won") : null);
  });
  const trick = el("ol", { id: "trick", "aria-label": "the trick on the table",
    ...(justWon ? { "data-phase": justWon.phase, "data-winner": String(justWon.trick.winner),
      "data-toward": places[(justWon.trick.winner - me + 4) % 4] } : {}) }, ...trickCards);
  // "Belote!" / "Rebelote!" at the side of the seat that just played it.
  const calls = [...screen.trick.calls()].map(([seat, text]) => el("p", { class: `belote-call ${places[(seat - me + 4) % 4]}`,
    "data-seat": String(seat), role: "status" }, text));
  const turned = game?.turnedCard && game.phase === DealPhase.AUCTION
    ? el("p", { id: "turned" }, "Turned up: ", cardFace(game.turnedCard)) : null;
  const last = game?.lastTrick;
  const lastTrick = el("section", { id: "last-trick", class: "panel" }, el("h3", {}, "Last trick"),
    last?.cards.length ? el("ol", {}, ...last.cards.map((t) => el("li", { "data-card": t.card ? cardKey(t.card) : "" },
      `${seatName(t.seat)}: ${t.card ? cardName(t.card) : ""}${t.seat === last.winner ? " (won it)" : ""}`)))
      : "none yet");

  const team = mySeat >= 0 ? mySeat % 2 : 0;
  const totals = game?.totals ?? [0, 0];
  const target = view.options["target"] ?? "";
  const scores = el("section", { id: "scores", class: "panel" }, el("h3", {}, "Score"),
    el("p", {}, mySeat >= 0
      ? `Us ${totals[team] ?? 0} · Them ${totals[1 - team] ?? 0}`
      : `North–south ${totals[0] ?? 0} · East–west ${totals[1] ?? 0}`, target ? ` (to ${target})` : ""),
    game ? el("p", {}, `Game ${game.gameNumber}, deal ${game.dealNumber}` +
      (game.phase === DealPhase.CARD_PLAY ? `, trick ${game.trickNumber}` : "")) : null,
    game?.tricksWon?.length ? el("p", {}, `Tricks: ${mySeat >= 0 ? "us" : "N–S"} ${game.tricksWon[team]}, ` +
      `${mySeat >= 0 ? "them" : "E–W"} ${game.tricksWon[1 - team]}`) : null,
    lastDeal(screen.deals ?? [], mySeat >= 0 ? ["Us", "Them"] : ["N–S", "E–W"], team));
  const sheet = scoreSheet(screen.deals ?? [], { teams: mySeat >= 0 ? (team === 0 ? ["us", "them"] : ["them", "us"])
    : ["N–S", "E–W"], seatName, target });
  const contract = el("p", { id: "contract" }, game?.contract
    ? `Contract: ${contractName(game.contract)}, taken by ${seatName(game.taker)} (${relation(game.taker)})`
    : game?.phase === DealPhase.AUCTION ? "Auction in progress" : "");
  const turn = el("p", { id: "turn", "aria-live": "polite" }, !playing ? statusText(view)
    : yourTurn ? "Your turn" : `${seatName(game?.toAct ?? 0)} to play`, el("span", { id: "timer" }));

  const bids = el("ol", { id: "auction", "aria-label": "bids made" }, ...(game?.bids ?? []).map((b) =>
    el("li", {}, `${seatName(b.seat)}: ${bidName(b.bid)}`)));
  const legal = screen.legal?.actions ?? [];
  const bidButtons = el("div", { id: "bids", role: "group", "aria-label": "your bids" },
    ...legal.filter((a) => a.action.case === "bid").map((a) => actButton(screen, a, "bid")));
  const announceButtons = el("div", { id: "announce", role: "group", "aria-label": "your announcements" },
    ...legal.filter((a) => a.action.case === "announce").map((a) => actButton(screen, a, "announce")));
  const announced = el("ul", { id: "announcements" }, ...(game?.announcements ?? []).map((a) =>
    el("li", {}, `${seatName(a.seat)}: ${announcementName(a.announcement)}`)));

  const playable = new Set(legal.filter((a) => a.action.case === "card")
    .map((a) => cardKey(a.action.value as Card)));
  const hand = el("div", { id: "hand", role: "group", "aria-label": "your hand" },
    ...sortHand(game?.yourHand ?? [], game?.contract ?? 0).map((card) => handCard(screen, card,
      yourTurn && playable.has(cardKey(card)),
      yourTurn && game?.phase === DealPhase.CARD_PLAY)));
  const shortcuts = mySeat >= 0 ? el("p", { id: "shortcuts", class: "hint" },
    "Keys: 1–8 play that card of your hand, ← → move between cards, Enter plays the one in focus, "
    + "P passes.") : null;

  const chatList = el("ol", { id: "chat-log", "aria-live": "polite" },
    ...screen.state.chat.slice(-50).map((m) => el("li", {}, `${m.displayName}: ${m.text}`)));
  const chatInput = el("input", { id: "chat-input", maxlength: "500", "aria-label": "chat message" });
  const chat = el("form", { id: "chat", class: "panel" }, el("h3", {}, "Chat"), chatList, chatInput,
    el("button", { id: "chat-send", type: "submit" }, "Send"));
  chat.addEventListener("submit", (event) => {
    event.preventDefault();
    const text = chatInput.value.trim();
    if (text) void postChat(screen, text);
  });

  const finished = view.status === TableStatus.FINISHED;
  const controls = el("div", { id: "controls" },
    finished && mySeat >= 0 && !view.rematchVotes.includes(mySeat) && !view.closed
      ? button("Rematch", () => voteRematch(screen), { id: "rematch" }) : null,
    finished && view.rematchVotes.length ? el("span", {}, ` Rematch votes: ${view.rematchVotes.map(seatName).join(", ")} `) : null,
    mySeat >= 0 && !view.closed ? button("Leave the table", () => leave(screen), { id: "leave" }) : null,
    button("Lobby", () => { location.hash = "#/"; }, { id: "to-lobby" }));
  const final = finished && game ? el("p", { id: "final", role: "status" },
    `Final score: ${mySeat >= 0 ? `us ${totals[team]}, them ${totals[1 - team]}` : `north–south ${totals[0]}, east–west ${totals[1]}`}. ` +
    (game.winningTeam < 0 ? "" : mySeat >= 0 ? (game.winningTeam === team ? "You won!" : "You lost.")
      : `${game.winningTeam === 0 ? "North–south" : "East–west"} won.`)) : null;

  const section = el("section", { id: "table", "data-table-id": view.tableId, "data-your-seat": String(mySeat),
    "data-version": view.version.toString(), "data-status": TableStatus[view.status] ?? "",
    "data-connection": screen.down ? "down" : "up" },
    el("h2", {}, `${view.name || "Table"} · ${view.preset}${view.isPrivate ? " · private" : ""}`),
    el("p", { class: "share" }, "Table id: ", el("code", {}, view.tableId)),
    final, turn,
    el("div", { class: "board" }, ...seats, el("div", { class: "centre" }, turned, trick, ...calls)),
    contract, hand, bidButtons, announceButtons, shortcuts,
    el("div", { class: "columns" },
      el("section", { class: "panel" }, el("h3", {}, "Auction"), bids, el("h3", {}, "Announcements"), announced),
      lastTrick, scores, sheet, chat),
    controls);
  // The server is away: nothing it would have to answer can be clicked (the lobby can).
  if (screen.down) {
    for (const b of section.querySelectorAll("button")) if (b.id !== "to-lobby") b.disabled = true;
  }
  const focused = document.activeElement?.id;
  // A move made from the hand or the bids (by click or key) keeps the focus there: the
  // buttons are new after each event, and the focus would drop to the page.
  const inPlay = !!document.activeElement?.closest("#hand, #bids, #announce");
  const typed = (document.getElementById("chat-input") as HTMLInputElement | null)?.value ?? "";
  app.replaceChildren(section);
  chatInput.value = typed;
  if (focused) document.getElementById(focused)?.focus();
  else if (inPlay) focusPlay(section);
  showTimers(screen);
}

/** The last deal scored, kept until the next is (the next auction does not wipe it): the rule
 * applied, then what each team counted, so that a total is never unexplained. */
function lastDeal(deals: readonly DealScored[], names: readonly [string, string], team: number): HTMLElement | null {
  const d = deals[deals.length - 1];
  if (!d) return null;
  const counted = (t: number) => `${names[t === team ? 0 : 1]}: tricks ${d.trickPoints[t] ?? 0}`
    + (d.belote[t] ? `, belote ${d.belote[t]}` : "") + (d.announcements[t] ? `, announcements ${d.announcements[t]}` : "")
    + `, scored ${d.dealScore[t] ?? 0}`;
  // The rule's sentence is the same for every viewer; what each team counted is said from this
  // viewer's side, beside it.
  return el("div", {}, el("p", { id: "last-deal" }, `Last deal: ${d.explanation}`),
    el("p", { id: "last-deal-counted", class: "counted" },
      `${counted(team)}; ${counted(1 - team)}${d.multiplier > 1 ? `; ×${d.multiplier}` : ""}`));
}

/** The focus after a redraw: the move to make now (a bid, a playable card), else the hand. */
function focusPlay(section: HTMLElement): void {
  for (const selector of ["#bids button", "#announce button", "#hand .card.playable", "#hand .card"]) {
    const target = [...section.querySelectorAll<HTMLButtonElement>(selector)].find((b) => !b.disabled);
    if (target) { target.focus(); return; }
  }
}

/** The table's keys (listed on the page): 1–8 a card of the hand, arrows along the hand, P pass. */
function onKey(screen: TableScreen, event: KeyboardEvent): void {
  if (screen !== current || screen.down || event.ctrlKey || event.metaKey || event.altKey) return;
  const target = event.target as HTMLElement | null;
  if (target?.closest("input, textarea, select")) return;
  const cards = [...document.querySelectorAll<HTMLButtonElement>("#hand .card")];
  let chosen: HTMLButtonElement | undefined;
  if (/^[1-8]$/.test(event.key)) {
    chosen = cards[Number(event.key) - 1];
    chosen?.focus();
    chosen?.click();
  } else if (event.key === "p" || event.key === "P") {
    chosen = [...document.querySelectorAll<HTMLButtonElement>("#bids button")]
      .find((b) => b.textContent === "pass");
    chosen?.focus();
    chosen?.click();
  } else if ((event.key === "ArrowLeft" || event.key === "ArrowRight") && target?.closest("#hand")) {
    const at = cards.indexOf(target as HTMLButtonElement);
    chosen = cards[(at + (event.key === "ArrowLeft" ? cards.length - 1 : 1)) % cards.length];
    chosen?.focus();
  }
  if (chosen) event.preventDefault();
}

function statusText(view: Table): string {
  if (view.closed) return "The table is closed.";
  if (view.status === TableStatus.WAITING_FOR_PLAYERS) {
    const free = view.seats.filter((s) => s.occupant === SeatOccupant.EMPTY).length;
    return `Waiting for ${free} more player${free === 1 ? "" : "s"}: share the link.`;
  }
  if (view.status === TableStatus.FINISHED) return "The game is over.";
  return "";
}

function showTimers(screen: TableScreen): void {
  const timer = document.getElementById("timer");
  const deadline = screen.view?.turnDeadlineTime ?? screen.view?.rematchDeadlineTime;
  if (!timer) return;
  if (!deadline) { timer.textContent = ""; return; }
  const left = Math.max(0, Math.round(Number(deadline.seconds) - Date.now() / 1000));
  timer.textContent = ` · ${left} s left`;
}

function actButton(screen: TableScreen, action: Action, kind: string): HTMLButtonElement {
  return button(actionName(action), () => act(screen, action), { class: kind });
}

function handCard(screen: TableScreen, card: Card, playable: boolean, playing: boolean): HTMLElement {
  const face = cardFace(card, "button");
  face.setAttribute("type", "button");
  face.classList.add(playable ? "playable" : "not-playable");
  face.dataset.playable = String(playable);
  const refused = screen.refused.get(cardKey(card));
  if (refused) { face.classList.add("refused"); face.title = refused; }
  // The name starts with what the card shows ("7♣"), so a voice command naming it finds it.
  face.setAttribute("aria-label", `${cardLabel(card)}${playing ? (playable ? ", playable" : ", not allowed now") : ""}`
    + ` (${cardName(card)})`);
  face.addEventListener("click", () => void act(screen, { action: { case: "card", value: card } } as Action, cardKey(card)));
  return face;
}

async function act(screen: TableScreen, action: Action, card?: string): Promise<void> {
  const { tableId, memory } = screen;
  if (screen.down) return;
  try {
    await call(() => client.act({ tableId, action, requestId: requestId() }, bearer(memory.token)));
    screen.refused.clear();
    say("");
  } catch (err) {
    if (err instanceof TableError && err.code === Code.PermissionDenied && err.reason === "SEAT_LEFT") {
      await takeBack(screen, false);  // the seat's next turn comes through the stream
      return;
    }
    if (err instanceof TableError && retryable(err)) {
      say("The server did not answer: try again in a moment.");
      return;
    }
    fail(err);
    if (card && err instanceof TableError) screen.refused.set(card, err.message);
    render(screen);     // the refusal marked on its card (the table itself did not move)
  }
}

async function sit(screen: TableScreen, seat: number): Promise<void> {
  const { tableId, memory } = screen;
  let name = playerName();
  if (!name) {
    name = (prompt("Your name at the table?") ?? "").trim() || "player";
    localStorage.setItem("belote.name", name);
  }
  try {
    const joined = await call(() => client.joinTable({ tableId, seat, displayName: name,
      password: memory.password ?? "", requestId: requestId() }));
    memory.token = joined.seatToken;
    memory.seat = joined.seat;
    if (screen.key !== memoryKey(tableId)) localStorage.removeItem(screen.key);
    keep(memoryKey(tableId), memory);
    say("");
    // The stream was opened without the token: open it again as the seat.
    if (location.hash !== `#/table/${encodeURIComponent(tableId)}`) location.hash = `#/table/${encodeURIComponent(tableId)}`;
    else route();
  } catch (err) {
    fail(err);
  }
}

async function addBot(screen: TableScreen, seat: number): Promise<void> {
  try {
    await call(() => client.addBot({ tableId: screen.tableId, seat, level: BotLevel.NORMAL,
      requestId: requestId() }, bearer(screen.memory.hostToken)));
  } catch (err) {
    fail(err);
  }
}

async function postChat(screen: TableScreen, text: string): Promise<void> {
  try {
    await call(() => client.postChat({ tableId: screen.tableId, text, password: screen.memory.password ?? "",
      displayName: screen.memory.token ? "" : playerName() || "spectator", requestId: requestId() },
    bearer(screen.memory.token)));
    const input = document.getElementById("chat-input") as HTMLInputElement | null;
    if (input) input.value = "";
  } catch (err) {
    fail(err);
  }
}

async function voteRematch(screen: TableScreen): Promise<void> {
  try {
    await call(() => client.voteRematch({ tableId: screen.tableId, requestId: requestId() },
      bearer(screen.memory.token)));
  } catch (err) {
    fail(err);
  }
}

async function leave(screen: TableScreen): Promise<void> {
  try {
    await call(() => client.leaveTable({ tableId: screen.tableId, requestId: requestId() },
      bearer(screen.memory.token)));
    localStorage.removeItem(screen.key);
    location.hash = "#/";
  } catch (err) {
    fail(err);
  }
}

// ----------------------------------------------------------------------------------- router

function route(): void {
  leaveView?.();
  leaveView = undefined;
  connection.textContent = "";
  const found = /^#\/table\/([^?]+)(\?watch)?$/.exec(location.hash);
  if (found) showTable(decodeURIComponent(found[1]), !!found[2]);
  else showLobby();
}

window.addEventListener("hashchange", () => { say(""); route(); });
route();
