// A comparison drawn on the drawing (the kernel's `comparison` trait, io/compare_marks.py): a
// pill over each box that was added, renamed ("was <old name>"), changed or holds other weights,
// its outline in the same colour; the layers removed as ghosts (dashed, faint, not editable)
// beside the drawing; the edges only in this drawing highlighted. What each mark says and where
// it goes are pure (tested); the drawing functions put them into the scene's groups. Every name
// and value is set as text, never as markup.
import { svg } from "../base/dom";
import type { Rect } from "../mirror/geometry";

export type MarkKind = "added" | "changed" | "renamed" | "weights";

export interface CompareMark {
  kind: MarkKind;
  was: string | null;                           // a renamed box's name in the other drawing
  differences: [string, string, string][];      // [config key, value there, value here]
  weights: number | null;                       // the norm of the weights' difference
}

export interface Ghost { name: string; class_name: string; x: number; y: number; w: number; h: number; near: string[] }

export interface ComparisonView {
  against: string;
  summary: string;
  marks: Record<string, CompareMark>;
  ghosts: Ghost[];
  rewired: string[];                            // edge keys (scene.ts edgeKey) only in this drawing
  removed_edges: string[];                      // edge keys only in the other drawing (its names)
  weights_kept: boolean;
}

const KINDS: MarkKind[] = ["added", "changed", "renamed", "weights"];
export const PILL_HEIGHT = 13;
const PILL_CHAR = 6.4; // px per character of the pill's bold 9.5 px text (a little generous)

/** The trait's value as a comparison, or null (none, or not the shape the kernel sends). */
export function readComparison(value: unknown): ComparisonView | null {
  const v = value as Partial<ComparisonView> | null | undefined;
  if (!v || typeof v !== "object" || typeof v.against !== "string" || typeof v.summary !== "string") return null;
  const marks: Record<string, CompareMark> = {};
  for (const [name, m] of Object.entries(v.marks && typeof v.marks === "object" ? v.marks : {})) {
    if (!m || !KINDS.includes(m.kind)) continue;
    marks[name] = { kind: m.kind, was: typeof m.was === "string" ? m.was : null,
      differences: Array.isArray(m.differences) ? m.differences.filter((d) => Array.isArray(d) && d.length === 3).map((d) => d.map(String) as [string, string, string]) : [],
      weights: typeof m.weights === "number" && Number.isFinite(m.weights) ? m.weights : null };
  }
  const ghosts = (Array.isArray(v.ghosts) ? v.ghosts : []).filter((g) => g && typeof g.name === "string"
    && [g.x, g.y, g.w, g.h].every((n) => typeof n === "number" && Number.isFinite(n)));
  const strings = (list: unknown) => (Array.isArray(list) ? list : []).filter((k): k is string => typeof k === "string");
  return { against: v.against, summary: v.summary, marks, ghosts: ghosts.map((g) => ({ ...g, class_name: String(g.class_name ?? ""),
    near: strings(g.near) })), rewired: strings(v.rewired), removed_edges: strings(v.removed_edges), weights_kept: v.weights_kept !== false };
}

/** A text cut to `chars` characters, an ellipsis where it was cut. */
export function clip(text: string, chars: number): string {
  return text.length <= chars ? text : `${text.slice(0, Math.max(1, chars - 1))}…`;
}

/** What a box's pill says (before it is cut to the box's width). */
export function pillText(mark: CompareMark): string {
  switch (mark.kind) {
    case "added": return "+ added";
    case "renamed": return `was ${mark.was ?? "?"}${mark.differences.length ? " · changed" : ""}`;
    case "changed": return "changed";
    default: return "other weights";
  }
}

/** The pill over a box of width `w` (relative to the box): above its top left corner, in the gap
 * between rows, never wider than the box. */
export function pillRect(mark: CompareMark, w: number): Rect & { text: string } {
  const room = Math.max(4, Math.floor((w - 8) / PILL_CHAR));
  const text = clip(pillText(mark), room);
  return { x: 0, y: -PILL_HEIGHT - 2, w: Math.min(w, text.length * PILL_CHAR + 8), h: PILL_HEIGHT, text };
}

/** A marked box's differences in words, one line each (the compare panel lists them). */
export function differenceLines(name: string, mark: CompareMark): string[] {
  const lines: string[] = [];
  if (mark.kind === "added") lines.push(`${name} was added`);
  if (mark.was !== null) lines.push(`renamed: ${mark.was} → ${name}`);
  for (const [key, there, here] of mark.differences) lines.push(`${key}: ${there} → ${here}`);
  if (mark.weights !== null) lines.push(`weights differ: norm of the difference ${mark.weights}`);
  return lines;
}

/** The summary line: what is compared with, and what changed. */
export function summaryLine(view: ComparisonView): string {
  return `Compared with ${view.against}: ${view.summary}${view.weights_kept ? "" : " (weights not kept there)"}`;
}

type Decor = (name: string) => { g: SVGGElement; width: number; height: number } | null;

/** Draws each box's pill and outline into its own group (`decor`), and takes them off the boxes
 * in `before` no longer marked; returns the names marked now and the pills' rectangles (world),
 * where the edges' shape labels give way. */
export function drawMarks(decor: Decor, view: ComparisonView | null, before: Iterable<string>,
  at: (name: string) => { x: number; y: number } | undefined): { marked: string[]; pills: Rect[] } {
  const marks = view?.marks ?? {};
  const pills: Rect[] = [];
  for (const name of new Set([...before, ...Object.keys(marks)])) {
    const d = decor(name);
    if (!d) continue;
    const mark = marks[name];
    const key = mark ? `${JSON.stringify(mark)}@${d.width}x${d.height}` : "";
    const old = d.g.firstElementChild;
    if (mark) {
      const p = pillRect(mark, d.width);
      const where = at(name);
      if (where) pills.push({ x: where.x + p.x, y: where.y + p.y, w: p.w, h: p.h });
    }
    if ((old?.getAttribute("data-key") ?? "") === key) continue;
    old?.remove();
    if (!mark) continue;
    const p = pillRect(mark, d.width);
    const g = svg("g", { class: `kc-cmp kc-cmp-${mark.kind}`, "data-key": key, "data-compare": mark.kind });
    g.append(svg("rect", { class: "kc-cmp-outline", x: -3, y: -3, width: d.width + 6, height: d.height + 6, rx: 8 }));
    const pill = svg("g", { class: "kc-cmp-pill", transform: `translate(${p.x},${p.y})` });
    const back = svg("rect", { width: p.w, height: p.h, rx: 6 });
    const text = svg("text", { x: 4, y: 9.5, class: "kc-cmp-text" }, p.text);
    pill.append(back, text, svg("title", {}, [name, ...differenceLines(name, mark)].join("\n")));
    g.append(pill);
    d.g.append(g);
    fitPill(back, text, p.w, d.width);
  }
  return { marked: Object.keys(marks), pills };
}

/** The pill's back as wide as its text as drawn (the estimate by characters may fall short of
 * the font), up to the box's width. */
function fitPill(back: SVGRectElement, text: SVGTextElement, estimate: number, room: number): void {
  const drawn = typeof text.getComputedTextLength === "function" ? text.getComputedTextLength() : 0;
  if (drawn + 8 > estimate) back.setAttribute("width", String(Math.min(room, drawn + 8)));
}

/** The dashed lines from a ghost to the boxes it was wired to that are drawn (`box`): from the
 * ghost's side that faces the drawing (its left when the drawing flows down, its top when it
 * flows right) to the facing side of each box. */
export function ghostLinks(ghost: Ghost, box: (name: string) => Rect | undefined, flow: "down" | "right"): string[] {
  const out: string[] = [];
  for (const name of ghost.near) {
    const b = box(name);
    if (!b) continue;
    out.push(flow === "right"
      ? `M${ghost.x + ghost.w / 2},${ghost.y} L${b.x + b.w / 2},${b.y + b.h}`
      : `M${ghost.x},${ghost.y + ghost.h / 2} L${b.x + b.w},${b.y + b.h / 2}`);
  }
  return out;
}

/** Draws the removed layers as ghosts into `layer` (emptied first): a dashed faint box with the
 * name and "removed · class", its tooltip naming the boxes it was wired to, and faint dashed
 * lines to those boxes (drawn under the boxes). */
export function drawGhosts(layer: SVGGElement, ghosts: Ghost[], box: (name: string) => Rect | undefined = () => undefined,
  flow: "down" | "right" = "down"): void {
  const links = ghosts.map((g) => ghostLinks(g, box, flow));
  const key = JSON.stringify([ghosts, links]);
  if (layer.getAttribute("data-key") === key) return;
  layer.setAttribute("data-key", key);
  layer.replaceChildren();
  for (const d of links.flat()) layer.append(svg("path", { class: "kc-cmp-link", d }));
  for (const ghost of ghosts) {
    const g = svg("g", { class: "kc-cmp-ghost", transform: `translate(${ghost.x},${ghost.y})`, "data-ghost": ghost.name,
      role: "img", "aria-label": `removed: ${ghost.name}` });
    const chars = Math.max(4, Math.floor((ghost.w - 16) / 7.2));
    g.append(svg("rect", { width: ghost.w, height: ghost.h, rx: 6 }),
      svg("text", { x: 8, y: 19, class: "kc-name" }, clip(ghost.name, chars)),
      svg("text", { x: 8, y: 34, class: "kc-class" }, clip(`removed · ${ghost.class_name}`, Math.floor((ghost.w - 16) / 5.6))));
    g.append(svg("title", {}, `${ghost.name} (${ghost.class_name}) is not in this drawing${ghost.near.length ? `; it was wired to ${ghost.near.join(", ")}` : ""}`));
    layer.append(g);
  }
}

/** Marks the drawn edges only in this drawing (class kc-cmp-rewired), unmarks the others. */
export function markEdges(edgeLayer: SVGGElement, rewired: ReadonlySet<string>): void {
  edgeLayer.querySelectorAll<SVGGElement>("g[data-edge-key]").forEach((g) => {
    const on = rewired.has(g.getAttribute("data-edge-key") ?? "");
    if (on !== g.classList.contains("kc-cmp-rewired")) g.classList.toggle("kc-cmp-rewired", on);
  });
}
