// Card pictures as inline SVG built here: no font or image to fetch, and nothing the page's
// CSP (`style-src 'self'`) would block. Colours come from classes in style.css; the only
// painting attribute is `fill="currentColor"`, a presentation attribute (not a style), so the
// suit's colour is the card's CSS `color`. Suits are drawn as paths, not as text glyphs: a
// phone without a font holding ♣♦♥♠ still shows them.

const SVG = "http://www.w3.org/2000/svg";

// Each suit in a 100 × 100 box.
const SUIT_PATHS: Record<string, string> = {
  H: "M50 90C22 68 4 50 4 30 4 15 16 5 29 5 39 5 46 11 50 20 54 11 61 5 71 5 84 5 96 15 96 30 96 50 78 68 50 90Z",
  D: "M50 2 88 50 50 98 12 50Z",
  S: "M50 4C36 24 8 38 8 60 8 74 18 82 30 82 38 82 44 78 47 72 46 82 42 90 34 96H66C58 90 54 82 53 72 56 78 62 82 70 82 82 82 92 74 92 60 92 38 64 24 50 4Z",
  C: "M31 28a19 19 0 1 0 38 0 19 19 0 1 0-38 0ZM8 60a19 19 0 1 0 38 0 19 19 0 1 0-38 0ZM54 60a19 19 0 1 0 38 0 19 19 0 1 0-38 0ZM46 50C46 74 42 88 33 96H67C58 88 54 74 54 50Z",
};

function svgEl<K extends keyof SVGElementTagNameMap>(tag: K, attrs: Record<string, string | number>):
  SVGElementTagNameMap[K] {
  const node = document.createElementNS(SVG, tag);
  for (const [key, value] of Object.entries(attrs)) node.setAttribute(key, String(value));
  return node;
}

/** A suit's shape of `size` at (x, y), its top-left corner, in the colour of the card. */
function suitShape(letter: string, x: number, y: number, size: number, flip = false): SVGPathElement {
  const scale = size / 100;
  const transform = flip
    ? `translate(${x + size} ${y + size}) rotate(180) scale(${scale})`
    : `translate(${x} ${y}) scale(${scale})`;
  return svgEl("path", { d: SUIT_PATHS[letter] ?? "", transform, fill: "currentColor" });
}

/** The corner: the rank over a small suit (upside down in the bottom-right corner). */
function corner(rank: string, letter: string, flip: boolean): SVGGElement {
  const g = svgEl("g", flip ? { transform: "rotate(180 30 42)" } : {});
  // "10" is two digits: a little narrower, so it stays within its corner.
  const text = svgEl("text", { x: 10, y: 19, "text-anchor": "middle", "font-size": rank === "10" ? 15 : 18,
    "font-weight": "bold", "font-family": "system-ui, sans-serif", fill: "currentColor",
    ...(rank === "10" ? { textLength: 16, lengthAdjust: "spacingAndGlyphs" } : {}) });
  text.textContent = rank;
  g.append(text, suitShape(letter, 3.5, 22, 13));
  return g;
}

/** A card's face: rank and suit in two corners, a big suit in the middle. Decorative: the
 * element holding it carries the card's name. */
export function faceSvg(rank: string, letter: string, red: boolean): SVGSVGElement {
  const svg = svgEl("svg", { viewBox: "0 0 60 84", class: `card-face ${red ? "suit-red" : "suit-black"}`,
    "aria-hidden": "true", focusable: "false" });
  svg.append(svgEl("rect", { x: 0.75, y: 0.75, width: 58.5, height: 82.5, rx: 5, class: "card-paper" }),
    corner(rank, letter, false), corner(rank, letter, true), suitShape(letter, 17, 29, 26));
  return svg;
}

/** The back of a card: a framed lattice, the same for every card (it tells nothing). */
export function backSvg(): SVGSVGElement {
  const svg = svgEl("svg", { viewBox: "0 0 60 84", class: "card-back", "aria-hidden": "true",
    focusable: "false" });
  svg.append(svgEl("rect", { x: 0.75, y: 0.75, width: 58.5, height: 82.5, rx: 5, class: "back-paper" }),
    svgEl("rect", { x: 5, y: 5, width: 50, height: 74, rx: 3, class: "back-field" }),
    svgEl("path", { class: "back-lattice",
      d: "M5 15 15 5M5 29 29 5M5 43 43 5M5 57 55 7M5 71 55 21M9 79 55 35M23 79 55 49M37 79 55 63M51 79 55 75"
        + "M55 15 45 5M55 29 31 5M55 43 17 5M55 57 5 7M55 71 5 21M51 79 5 35M37 79 5 49M23 79 5 63M9 79 5 75" }));
  return svg;
}
