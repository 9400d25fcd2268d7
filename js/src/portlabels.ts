// Where a box writes its ports' names: pure, so a test can check that no two of a box's names
// overlap. Relative to the box's top left corner, as the ports are in the state.
import type { Point, Port, Rect } from "./geometry";
import type { LayerState } from "./types";

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

/** Where the marker of an output port at `at` goes (walkdraw.ts: "+", or the output's number
 * and key, `w` wide): centred under the port, and below the port names written there
 * (`labels`, in the same coordinates) so that the name and the marker can both be read. */
export function markerRect(at: Point, w: number, labels: PortLabel[]): Rect {
  const r = { x: at.x - w / 2, y: at.y + 8, w, h: 14 };
  for (const { rect: q } of labels) {
    const across = r.x < q.x + q.w && q.x < r.x + r.w && r.y < q.y + q.h && q.y < r.y + r.h;
    if (across) r.y = q.y + q.h + 2;
  }
  return r;
}
