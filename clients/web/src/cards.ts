// How the game's values read on the page: suits by symbol, colour and name (never colour
// alone), ranks, contracts, bids and announcements.
import { AnnouncementKind, Contract, Rank, Suit, type Action, type Announcement, type Bid,
  type Card } from "@belote/client";
import { backSvg, faceSvg } from "./card_svg";

export const SUITS: Record<number, { symbol: string; name: string; red: boolean; letter: string }> = {
  [Suit.CLUBS]: { symbol: "♣", name: "clubs", red: false, letter: "C" },
  [Suit.DIAMONDS]: { symbol: "♦", name: "diamonds", red: true, letter: "D" },
  [Suit.HEARTS]: { symbol: "♥", name: "hearts", red: true, letter: "H" },
  [Suit.SPADES]: { symbol: "♠", name: "spades", red: false, letter: "S" },
};

const RANKS: Record<number, { short: string; name: string }> = {
  [Rank.SEVEN]: { short: "7", name: "seven" }, [Rank.EIGHT]: { short: "8", name: "eight" },
  [Rank.NINE]: { short: "9", name: "nine" }, [Rank.TEN]: { short: "10", name: "ten" },
  [Rank.JACK]: { short: "J", name: "jack" }, [Rank.QUEEN]: { short: "Q", name: "queen" },
  [Rank.KING]: { short: "K", name: "king" }, [Rank.ACE]: { short: "A", name: "ace" },
};

/** A card's stable key, e.g. "JH": what data-card attributes hold. */
export function cardKey(card: Card): string {
  return `${RANKS[card.rank]?.short ?? "?"}${SUITS[card.suit]?.letter ?? "?"}`;
}

export function cardName(card: Card): string {
  return `${RANKS[card.rank]?.name ?? "?"} of ${SUITS[card.suit]?.name ?? "?"}`;
}

/** What a card shows, e.g. "7♣": the start of its accessible name (its visible label). */
export function cardLabel(card: Card): string {
  return `${RANKS[card.rank]?.short ?? "?"}${SUITS[card.suit]?.symbol ?? "?"}`;
}

/** A card face drawn in SVG (card_svg.ts), red or black; named "7♣ seven of clubs". */
export function cardFace(card: Card, tag: "span" | "button" = "span"): HTMLElement {
  const suit = SUITS[card.suit];
  const face = document.createElement(tag);
  face.className = `card ${suit?.red ? "red" : "black"}`;
  face.dataset.card = cardKey(card);
  if (tag === "span") face.setAttribute("role", "img");
  face.setAttribute("aria-label", `${cardLabel(card)} ${cardName(card)}`);
  face.append(faceSvg(RANKS[card.rank]?.short ?? "?", suit?.letter ?? "?", suit?.red ?? false));
  return face;
}

/** A seat's hidden cards: a fan of `count` backs, with the count written beside it. */
export function cardBacks(count: number): HTMLElement {
  const fan = document.createElement("span");
  fan.className = "backs";
  fan.dataset.count = String(count);
  fan.setAttribute("role", "img");
  fan.setAttribute("aria-label", `${count} card${count === 1 ? "" : "s"}`);
  const cards = document.createElement("span");
  cards.className = "fan";
  for (let i = 0; i < count; i++) cards.append(backSvg());
  const number = document.createElement("span");
  number.className = "count";
  number.textContent = String(count);
  fan.append(cards, number);
  return fan;
}

// Ranks from the strongest down: trump order, and the plain order of the other suits.
const TRUMP_ORDER = [Rank.JACK, Rank.NINE, Rank.ACE, Rank.TEN, Rank.KING, Rank.QUEEN, Rank.EIGHT, Rank.SEVEN];
const PLAIN_ORDER = [Rank.ACE, Rank.TEN, Rank.KING, Rank.QUEEN, Rank.JACK, Rank.NINE, Rank.EIGHT, Rank.SEVEN];

/** The hand as a player holds it: suits in groups, colours alternating where the suits held
 * allow it (the trump first of its colour), each suit from its strongest card down in the contract's order
 * (trump order for the trump suit, or every suit at all trump; plain order otherwise, and
 * while the auction runs). */
export function sortHand(cards: readonly Card[], contract: Contract): Card[] {
  const held = [...new Set(cards.map((c) => c.suit))];
  const trump = contract !== Contract.NO_TRUMP && contract !== Contract.ALL_TRUMP && SUITS[contract]
    ? contract as number : undefined;
  const blacks = [Suit.SPADES, Suit.CLUBS].filter((s) => held.includes(s));
  const reds = [Suit.HEARTS, Suit.DIAMONDS].filter((s) => held.includes(s));
  // The colour with more suits starts (else the trump's colour, else black): the only way
  // three suits alternate.
  const first = blacks.length > reds.length ? blacks : reds.length > blacks.length ? reds
    : trump !== undefined && SUITS[trump]?.red ? reds : blacks;
  const second = first === blacks ? reds : blacks;
  if (trump !== undefined) {  // the trump leads its colour's list
    for (const list of [first, second]) {
      const at = list.indexOf(trump);
      if (at > 0) list.unshift(...list.splice(at, 1));
    }
  }
  const order: number[] = [];
  for (let i = 0; i < Math.max(first.length, second.length); i++) {
    if (first[i] !== undefined) order.push(first[i] as number);
    if (second[i] !== undefined) order.push(second[i] as number);
  }
  const strength = (c: Card) => {
    const inTrump = contract === Contract.ALL_TRUMP || c.suit === trump;
    return (inTrump ? TRUMP_ORDER : PLAIN_ORDER).indexOf(c.rank);
  };
  return [...cards].sort((a, b) => order.indexOf(a.suit) - order.indexOf(b.suit) || strength(a) - strength(b));
}

export function contractName(contract: Contract): string {
  switch (contract) {
    case Contract.NO_TRUMP: return "no trump";
    case Contract.ALL_TRUMP: return "all trump";
    case Contract.UNSPECIFIED: return "";
    default: {
      const suit = SUITS[contract];
      return suit ? `${suit.symbol} ${suit.name}` : "";
    }
  }
}

export function bidName(bid: Bid | undefined): string {
  if (!bid) return "";
  switch (bid.call.case) {
    case "passed": return "pass";
    case "contract": return `take ${contractName(bid.call.value)}`;
    default: return "";
  }
}

const KINDS: Record<number, string> = {
  [AnnouncementKind.TIERCE]: "tierce", [AnnouncementKind.CINQUANTE]: "cinquante",
  [AnnouncementKind.CENT]: "cent", [AnnouncementKind.CARRE]: "carré",
  [AnnouncementKind.COULEUR]: "couleur", [AnnouncementKind.QUINTE_FLUSH]: "quinte flush",
  [AnnouncementKind.CHELEM_COULEUR]: "chelem couleur", [AnnouncementKind.CAPOT_ANNONCE]: "capot annoncé",
};

export function announcementName(a: Announcement | undefined): string {
  if (!a) return "";
  const parts = [KINDS[a.kind] ?? "announcement"];
  if (a.suit) parts.push(`in ${SUITS[a.suit]?.symbol ?? ""} ${SUITS[a.suit]?.name ?? ""}`);
  if (a.top) parts.push(`to the ${RANKS[a.top]?.name ?? ""}`);
  else if (a.rank) parts.push(`of ${RANKS[a.rank]?.name ?? ""}s`);
  if (a.points) parts.push(`(${a.points})`);
  return parts.join(" ");
}

export function actionName(action: Action): string {
  switch (action.action.case) {
    case "bid": return bidName(action.action.value);
    case "announce": return `announce ${announcementName(action.action.value)}`;
    case "card": return `play the ${cardName(action.action.value)}`;
    default: return "";
  }
}
