// Where a box writes its ports' names: pure, so a test can check that no two of a box's names
// overlap. Relative to the box's top left corner, as the ports are in the state.
import { type Point, type Port, type Rect, boxHeight, boxWidth } from "../mirror/geometry";
import type { LayerState } from "../mirror/types";
import { spreadRow } from "./labelplace";

export const CHAR_WIDTH = 5; // about this many px a character of a port name

/** A port's name for people (its tooltip): the slot's argument name (query, value, key), its
 * list position, or the output's number, and the call when there is more than one. */
export function portName(layer: LayerState, port: { kind: "in" | "out"; call: number; index: number }): string {
  const call = layer.calls.length > 1 || port.call > 0 ? ` · call ${port.call}` : "";
  if (port.kind === "out") return (layer.n_outputs > 1 ? `output ${port.index}` : "output") + call;
  const s = layer.slots;
  if (s.kind === "args") return (s.names[port.index] ?? `argument ${port.index}`) + call;
  if (s.kind === "list") return `${s.names[0] ?? "inputs"}[${port.index}]` + call;
  return (s.names[0] ?? "inputs") + call;
}

/** A name written by a port; `full` is the whole name when `text` was cut (its tooltip). */
export interface PortLabel { x: number; y: number; anchor: "start" | "middle" | "end"; text: string; rect: Rect; full?: string }

export const ROW = 12; // px between the two rows of names a crowded edge writes

function label(x: number, y: number, anchor: PortLabel["anchor"], text: string, full?: string): PortLabel {
  const w = text.length * CHAR_WIDTH;
  const left = anchor === "middle" ? x - w / 2 : anchor === "end" ? x - w : x;
  return { x, y, anchor, text, rect: { x: left, y: y - 9, w, h: 11 }, ...(full ? { full } : {}) };
}

/**
 * The names written by a box's ports (`found`: its ports in world coordinates, the box at `at`).
 * A slot on the top edge is named above it, one on a side (a later call's, or any slot of a
 * drawing that flows right) beside it outside the box, above its wire; an output below it, or
 * beside it on the right edge. Names along one edge that would touch go on two staggered rows
 * (labelplace.ts spreadRow: the kernel widens a box for many named slots so that they fit), and
 * one still too wide is cut with "…" (`full` keeps it). Outputs of a box called more than once
 * with several outputs each are written short, "node_index.tensor_index" (as "out 1.2"
 * elsewhere). Ports only the call tells apart say "call k".
 */
export function portLabels(l: LayerState, found: Port[], at: { x: number; y: number }): PortLabel[] {
  const out: (PortLabel | null)[] = [];
  const short = l.calls.length > 1 && l.n_outputs > 1;
  const top: { i: number; x: number; y: number; text: string }[] = [];
  const bottom: typeof top = [];
  for (const port of found) {
    const x = port.at.x - at.x, y = port.at.y - at.y;
    const plain = port.kind === "in" ? l.slots.kind === "single" : l.n_outputs === 1;
    if (plain && l.calls.length <= 1) continue;
    const text = plain ? `call ${port.call}` : portName(l, port);
    if (port.kind === "out" && x >= boxWidth(l) - 1 && y < boxHeight(l) - 1) { // on the right edge (a drawing that flows right)
      out.push(label(x + 9, y - 8, "start", short ? `${port.call}.${port.index}` : text));
      continue;
    }
    if (port.kind === "out") bottom.push({ i: out.length, x, y, text: short ? `${port.call}.${port.index}` : text });
    else if (y > 1) { // on a side: outside the box, on the port's row
      const left = x <= 1;
      out.push(label(left ? x - 9 : x + 9, y - 8, left ? "end" : "start", text));
      continue;
    } else top.push({ i: out.length, x, y, text });
    out.push(null);
  }
  for (const [edge, dy, sign] of [[top, -9, -1], [bottom, 17, 1]] as const) {
    const sorted = [...edge].sort((a, b) => a.x - b.x);
    spreadRow(sorted, CHAR_WIDTH).forEach((p, j) => {
      const n = sorted[j];
      out[n.i] = label(n.x, n.y + dy + sign * ROW * p.row, "middle", p.text, p.cut ? n.text : undefined);
    });
  }
  return out.filter((q): q is PortLabel => q !== null);
}

const hits = (a: Rect, b: Rect) => a.x < b.x + b.w && b.x < a.x + a.w && a.y < b.y + b.h && b.y < a.y + a.h;

/** Where the marker of an output port at `at` goes (walkdraw.ts: "+", or the output's number
 * and key, `w` wide), so that it and every port name (`names`, in the same coordinates) can be
 * read: just under the port; else under the port's name; else beside that name, right then
 * left; else a row lower at a time. Spots over `taken` (the edges' shape labels, boxes, markers
 * placed before) are passed over while another is free; a port name is never covered. */
export function markerRect(at: Point, w: number, names: PortLabel[], taken: Rect[] = []): Rect {
  const h = 14;
  const under = { x: at.x - w / 2, y: at.y + 8, w, h };
  const own = names.find((n) => hits(under, n.rect))?.rect; // the port's own name
  const spots = [under];
  if (own) {
    const mid = own.y + own.h / 2 - h / 2;
    spots.push({ ...under, y: own.y + own.h + 2 }, { x: own.x + own.w + 3, y: mid, w, h }, { x: own.x - 3 - w, y: mid, w, h });
  } else spots.push({ x: at.x + 8, y: at.y + 2, w, h }, { x: at.x - 8 - w, y: at.y + 2, w, h });
  // then lower down, a row at a time, before covering what is taken
  const low = own ? own.y + own.h + 2 : under.y;
  for (let k = 1; k <= 3; k++) spots.push({ ...under, y: low + k * (h + 2) });
  const readable = spots.filter((r) => !names.some((n) => hits(r, n.rect)));
  return readable.find((r) => !taken.some((t) => hits(r, t))) ?? readable[0] ?? spots[1];
}
