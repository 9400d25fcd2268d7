// Where a box writes its ports' names: pure, so a test can check that no two of a box's names
// overlap. Relative to the box's top left corner, as the ports are in the state.
import type { Point, Port, Rect } from "../mirror/geometry";
import type { LayerState } from "../mirror/types";

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

export interface PortLabel { x: number; y: number; anchor: "start" | "middle" | "end"; text: string; rect: Rect }

function label(x: number, y: number, anchor: PortLabel["anchor"], text: string): PortLabel {
  const w = text.length * CHAR_WIDTH;
  const left = anchor === "middle" ? x - w / 2 : anchor === "end" ? x - w : x;
  return { x, y, anchor, text, rect: { x: left, y: y - 9, w, h: 11 } };
}

/**
 * The names written by a box's ports (`found`: its ports in world coordinates, the box at `at`).
 * A slot on the top edge is named above it, one on a side (a later call's) beside it outside the
 * box; an output below it. Outputs of a box called more than once with several outputs each are
 * written short, "node_index.tensor_index" (as "out 1.2" elsewhere), so that the names fit
 * between ports 18 px apart. Ports only the call tells apart say "call k".
 */
export function portLabels(l: LayerState, found: Port[], at: { x: number; y: number }): PortLabel[] {
  const out: PortLabel[] = [];
  const short = l.calls.length > 1 && l.n_outputs > 1;
  for (const port of found) {
    const x = port.at.x - at.x, y = port.at.y - at.y;
    const plain = port.kind === "in" ? l.slots.kind === "single" : l.n_outputs === 1;
    if (plain && l.calls.length <= 1) continue;
    const text = plain ? `call ${port.call}` : portName(l, port);
    if (port.kind === "out") {
      out.push(label(x, y + 17, "middle", short ? `${port.call}.${port.index}` : text));
    } else if (y > 1) { // on a side: outside the box, on the port's row
      const left = x <= 1;
      out.push(label(left ? x - 9 : x + 9, y - 8, left ? "end" : "start", text));
    } else out.push(label(x, y - 9, "middle", text));
  }
  return out;
}

const hits = (a: Rect, b: Rect) => a.x < b.x + b.w && b.x < a.x + a.w && a.y < b.y + b.h && b.y < a.y + a.h;

/** Where the marker of an output port at `at` goes (walkdraw.ts: "+", or the output's number
 * and key, `w` wide), so that it and every port name (`names`, in the same coordinates) can be
 * read: just under the port; else under the port's name; else beside that name, right then
 * left. Spots over `taken` (the edges' shape labels) are passed over while another is free;
 * a port name is never covered. */
export function markerRect(at: Point, w: number, names: PortLabel[], taken: Rect[] = []): Rect {
  const h = 14;
  const under = { x: at.x - w / 2, y: at.y + 8, w, h };
  const own = names.find((n) => hits(under, n.rect))?.rect; // the port's own name
  const spots = [under];
  if (own) {
    const mid = own.y + own.h / 2 - h / 2;
    spots.push({ ...under, y: own.y + own.h + 2 }, { x: own.x + own.w + 3, y: mid, w, h }, { x: own.x - 3 - w, y: mid, w, h });
  } else spots.push({ x: at.x + 8, y: at.y + 2, w, h }, { x: at.x - 8 - w, y: at.y + 2, w, h });
  const readable = spots.filter((r) => !names.some((n) => hits(r, n.rect)));
  return readable.find((r) => !taken.some((t) => hits(r, t))) ?? readable[0] ?? spots[1];
}
