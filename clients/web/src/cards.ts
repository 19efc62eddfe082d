// How the game's values read on the page: suits by symbol, colour and name (never colour
// alone), ranks, contracts, bids and announcements.
import { AnnouncementKind, Contract, Rank, Suit, type Action, type Announcement, type Bid,
  type Card } from "@belote/client";

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

/** A card face: rank and suit symbol, the suit's name in small text, red or black. */
export function cardFace(card: Card, tag: "span" | "button" = "span"): HTMLElement {
  const suit = SUITS[card.suit];
  const face = document.createElement(tag);
  face.className = `card ${suit?.red ? "red" : "black"}`;
  face.dataset.card = cardKey(card);
  face.setAttribute("aria-label", cardName(card));
  const top = document.createElement("span");
  top.className = "face";
  top.textContent = `${RANKS[card.rank]?.short ?? "?"}${suit?.symbol ?? "?"}`;
  const name = document.createElement("span");
  name.className = "suit-name";
  name.textContent = suit?.name ?? "";
  face.append(top, name);
  return face;
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
