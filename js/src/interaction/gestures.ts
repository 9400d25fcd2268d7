// Gestures to intents, pure: where a drag ended (or which key was pressed, with what selected)
// in, the kernel intent it means out. The canvas turns pointer and key events into these calls
// and sends what they return; no DOM here, so vitest checks every mapping.
import { type Point, type Port, boxAt, newBoxSize, portAt, slotKey } from "../mirror/geometry";
import { insertPlacement } from "../scene/edges";
import type { IntentFields, IntentKind } from "../mirror/protocol";
import type { EdgeState, LayerState, Triple } from "../mirror/types";

/** A slot as an intent names it: a merge layer's list takes the next free place (null). */
export type Slot = [string, number, number | null];

export type Intent =
  | { kind: "connect"; src: Triple; dst: Slot }
  | { kind: "disconnect"; src: Triple; dst: Triple }
  | { kind: "rewire"; src: Triple; old: Triple; new: Slot | null }
  | { kind: "remove"; names: string[]; bridge?: boolean }
  | { kind: "insert_layer"; class_name: string; src: Triple; dst: Triple; x: number; y: number }
  | { kind: "undo" }
  | { kind: "redo" };

/** What a gesture comes to: an intent (with the world point a refusal is shown at), a search
 * for a layer to put at the end of a wire, or nothing (the drawing only redraws). */
export type Outcome =
  | { intent: Intent; at?: Point }
  | { search: Port }
  | null;

const SNAP = 14;      // world px: a wire dropped this near a slot goes into it
const LET_GO = 20;    // world px: a wire dropped farther than this from where it started means something

/** The intent that joins output port `src` to slot `dst`. */
export function connectIntent(src: Port, dst: Port, layers: LayerState[]): Intent {
  const layer = layers.find((l) => l.name === dst.layer);
  const slot = layer?.slots.kind === "list" ? null : dst.index;
  return { kind: "connect", src: [src.layer, src.call, src.index], dst: [dst.layer, dst.call, slot] };
}

/** A wire dragged out of output port `from` and let go at world point `w`: into the slot under
 * it, into the first free slot of the box under it (as node editors do), or, in empty space, a
 * search for a layer that takes it. */
export function dropWire(from: Port, w: Point, ports: Port[], layers: LayerState[], edges: EdgeState[]): Outcome {
  const target = portAt(ports.filter((q) => q.kind === "in"), w, SNAP);
  if (target) return { intent: connectIntent(from, target, layers), at: target.at };
  const box = boxAt(layers, w);
  if (box && box.name !== from.layer) {
    const taken = new Set(edges.map((e) => slotKey(e.dst)));
    const free = ports.find((q) => q.kind === "in" && q.layer === box.name && !taken.has(q.key));
    return free ? { intent: connectIntent(from, free, layers), at: free.at } : null;
  }
  if (!box && Math.hypot(w.x - from.at.x, w.y - from.at.y) > LET_GO) return { search: from };
  return null;
}

/** An edge's input end dragged off slot `from` and let go at `w`: into another slot (re-wired),
 * back onto its own slot (nothing), or away from it (unplugged). */
export function dropRewire(edge: EdgeState, from: Port, w: Point, ports: Port[], layers: LayerState[]): Outcome {
  const target = portAt(ports.filter((q) => q.kind === "in"), w, SNAP);
  if (target && target.key === from.key) return null;
  if (target) {
    const layer = layers.find((l) => l.name === target.layer);
    const slot = layer?.slots.kind === "list" ? null : target.index;
    return { intent: { kind: "rewire", src: edge.src, old: edge.dst, new: [target.layer, target.call, slot] }, at: target.at };
  }
  if (Math.hypot(w.x - from.at.x, w.y - from.at.y) > LET_GO) {
    return { intent: { kind: "rewire", src: edge.src, old: edge.dst, new: null }, at: from.at };
  }
  return null;
}

/** A palette entry dropped on a wire (`route`, the wire's drawn polyline): the new layer goes
 * into it, centred on the wire where it was dropped. */
export function insertIntent(className: string, edge: EdgeState, route: Point[], at: Point, size = newBoxSize()): Extract<Intent, { kind: "insert_layer" }> {
  const spot = insertPlacement(at, route, size.w, size.h);
  return { kind: "insert_layer", class_name: className, src: edge.src, dst: edge.dst, x: spot.x, y: spot.y };
}

export interface Keys { key: string; ctrl: boolean; shift: boolean }

/** Editing keys on the drawing: Delete removes the selected boxes (Shift keeps the chain joined)
 * or else the selected edge; Ctrl+Z / Ctrl+Shift+Z / Ctrl+Y undo and redo. Null: not an edit. */
export function keyIntent(k: Keys, selected: string[], edge: EdgeState | null): Intent | null {
  const key = k.key.toLowerCase();
  if (k.ctrl && key === "z") return { kind: k.shift ? "redo" : "undo" };
  if (k.ctrl && key === "y") return { kind: "redo" };
  if (k.key !== "Delete" && k.key !== "Backspace") return null;
  if (selected.length) return { kind: "remove", names: [...selected], ...(k.shift ? { bridge: true } : {}) };
  if (edge) return { kind: "disconnect", src: edge.src, dst: edge.dst };
  return null;
}

// every intent a gesture makes is one the description (kerascanvas/canvas/intents.json) names, with the
// fields it names: each required one, no other (their types: js/test/protocol.test.ts)
type Agrees<I> = I extends { kind: infer K extends IntentKind }
  ? Omit<I, "kind"> extends IntentFields<K>
    ? [Exclude<keyof Omit<I, "kind">, keyof IntentFields<K>>] extends [never] ? true : false
    : false
  : false;
type Described = [false] extends [Agrees<Intent>] ? never : true;
export const DESCRIBED: Described = true;
