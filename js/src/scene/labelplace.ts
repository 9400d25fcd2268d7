// Where labels go so that none covers another: pure geometry (no DOM), so a test can check it.
// A row of names by ports (spread over two staggered rows, cut with "…" where they still do not
// fit), a greedy placement for labels that may move (the forward pass's values: each tries its
// spots in order and takes the first that covers nothing placed), and a box's subtitle made to
// fit by leaving out its least telling parts first.
import type { Rect } from "../mirror/geometry";

/** Whether two rectangles overlap by more than `slack` px (touching is not overlapping). */
export function hits(a: Rect, b: Rect, slack = 0): boolean {
  return a.x + slack < b.x + b.w && b.x + slack < a.x + a.w && a.y + slack < b.y + b.h && b.y + slack < a.y + a.h;
}

/** `text` cut to at most `chars` characters, the last an ellipsis (as it is if it fits). */
export function cut(text: string, chars: number): string {
  if (text.length <= chars) return text;
  return chars <= 1 ? "…" : text.slice(0, chars - 1) + "…";
}

/** A name to write centred on x (a port's), and where spreadRow put it: its row (0 by the edge, 1 a row farther), its text (cut or not) and width. */
export interface RowName { x: number; text: string }
export interface RowPlace { row: number; text: string; cut: boolean; w: number }

/**
 * Names centred on points along one edge (a box's ports, left to right): on one row while they
 * fit with `gap` px between neighbours; else alternately on two rows (so neighbours on one row
 * are two ports apart), and a name still too wide for the room between its row's neighbours is
 * cut with an ellipsis. Names at the ends may reach beyond the edge (outside the box).
 */
export function spreadRow(names: RowName[], charWidth: number, gap = 4): RowPlace[] {
  const width = (t: string) => t.length * charWidth;
  const fits = (step: number) => names.every((n, i) => {
    const next = names[i + step];
    return !next || Math.abs(next.x - n.x) >= (width(n.text) + width(next.text)) / 2 + gap;
  });
  const rows = names.length > 1 && !fits(1) ? 2 : 1;
  return names.map((n, i) => {
    // neighbours on one row whose centres are d apart are readable when each is at most d - gap wide
    const before = names[i - rows], after = names[i + rows];
    let room = Infinity;
    if (before) room = Math.min(room, Math.abs(n.x - before.x) - gap);
    if (after) room = Math.min(room, Math.abs(after.x - n.x) - gap);
    const text = width(n.text) <= room ? n.text : cut(n.text, Math.max(1, Math.floor(room / charWidth)));
    return { row: rows === 2 ? i % 2 : 0, text, cut: text !== n.text, w: width(text) };
  });
}

/** A label that may go at any of its spots (in order of preference), each a rectangle. */
export interface Movable { spots: Rect[] }

/** Buckets of rectangles by a coarse grid, so a check looks only at its neighbours. */
class Grid {
  private cells = new Map<number, Rect[]>();
  constructor(private size = 128) {}
  private each(r: Rect, visit: (key: number) => boolean): boolean {
    const s = this.size;
    const i1 = Math.floor((r.x + r.w) / s), j1 = Math.floor((r.y + r.h) / s);
    for (let i = Math.floor(r.x / s); i <= i1; i++) {
      for (let j = Math.floor(r.y / s); j <= j1; j++) if (!visit(i * 1048576 + j)) return false;
    }
    return true;
  }
  add(r: Rect): void {
    this.each(r, (k) => {
      const c = this.cells.get(k);
      if (c) c.push(r); else this.cells.set(k, [r]);
      return true;
    });
  }
  free(r: Rect, slack: number): boolean {
    return this.each(r, (k) => {
      const c = this.cells.get(k);
      if (c) for (const q of c) if (hits(r, q, slack)) return false;
      return true;
    });
  }
}

/**
 * Greedy placement: each label in turn takes its first spot that covers neither `fixed` (boxes,
 * names, badges) nor a label placed before it; a label with no free spot is left out (null).
 * Linear in the labels for labels spread over the drawing (a grid of buckets).
 */
export function placeGreedy(labels: Movable[], fixed: Rect[], slack = 0.5): (Rect | null)[] {
  const grid = new Grid();
  for (const r of fixed) grid.add(r);
  return labels.map((l) => {
    const spot = l.spots.find((r) => grid.free(r, slack)) ?? null;
    if (spot) grid.add(spot);
    return spot;
  });
}

/** A spot beside a wire: `at` is the point of the wire it names (a leader line joins a far one). */
export type WireSpot = Rect & { at: { x: number; y: number } };

/** The spots of a value label `w` x `h` next to a wire (its points, world): beside each point
 * from the middle outwards, right of the wire then left, nudged up and down a little at a time
 * where the room between two boxes is tight; then farther aside, where the rows of boxes leave
 * room between them (the label then needs a leader line to its point). */
export function wireSpots(points: { x: number; y: number }[], w: number, h: number): WireSpot[] {
  const out: WireSpot[] = [];
  if (!points.length) return out;
  const mid = Math.floor(points.length / 2);
  const order: number[] = [mid];
  for (let d = 1; order.length < points.length; d++) {
    if (mid + d < points.length) order.push(mid + d);
    if (mid - d >= 0) order.push(mid - d);
  }
  // between neighbouring points too (a straight wire has only its ends)
  const along: { x: number; y: number }[] = [];
  for (const i of order) {
    along.push(points[i]);
    const next = points[i + 1];
    if (next) for (const f of [0.5, 0.25, 0.75]) along.push({ x: points[i].x + (next.x - points[i].x) * f, y: points[i].y + (next.y - points[i].y) * f });
  }
  for (const dy of [0, -4, 4, -8, 8, -12, 12, -16, 16]) {
    for (const p of along) out.push({ x: p.x + 6, y: p.y - h / 2 + dy, w, h, at: p }, { x: p.x - 6 - w, y: p.y - h / 2 + dy, w, h, at: p });
  }
  for (const dx of [40, 80, 130, 200, 280]) {
    for (const dy of [0, -6, 6, -12, 12]) {
      for (const p of along) out.push({ x: p.x + dx, y: p.y - h / 2 + dy, w, h, at: p }, { x: p.x - dx - w, y: p.y - h / 2 + dy, w, h, at: p });
    }
  }
  return out;
}

/**
 * A box's subtitle from its parts (in the order written): all of them if they fit in `room` px
 * at `charWidth` px a character, else parts left out, the highest `drop` rank first (rank 0 is
 * never left out); `full` is every part, for a tooltip, when any is left out.
 */
export function fitParts(parts: { text: string; drop: number }[], charWidth: number, room: number, sep = " · "): { text: string; full: string | null } {
  const all = parts.filter((p) => p.text);
  const join = (ps: typeof all) => ps.map((p) => p.text).join(sep);
  let kept = all;
  while (join(kept).length * charWidth > room) {
    const worst = kept.reduce((m, p) => (p.drop > m.drop ? p : m), kept[0]);
    if (!worst || worst.drop === 0) break;
    kept = kept.filter((p) => p !== worst);
  }
  const text = join(kept);
  return { text, full: kept.length === all.length ? null : join(all) };
}
