// Pure geometry: box sizes, port positions, the view transform, hit tests. No DOM.
import { emptyState } from "./shape";
import type { EdgeState, GraphState, LayerState } from "./types";

export const PORT_RADIUS = 6;

export interface Point { x: number; y: number }
export interface View { x: number; y: number; k: number } // screen = world * k + (x, y)

export interface Port {
  key: string;        // portKey(kind, layer, call, index)
  kind: "in" | "out";
  layer: string;
  call: number;       // call (in) or node_index (out)
  index: number;      // slot (in) or tensor_index (out)
  label: string;      // the accessible name
  at: Point;          // world coordinates
}

/** The one way a port is named: "in:layer:call:slot" or "out:layer:node_index:tensor_index". */
export function portKey(kind: "in" | "out", layer: string, call: number, index: number): string {
  return `${kind}:${layer}:${call}:${index}`;
}

/** The key of the slot an edge goes into, and of the output port it comes from. */
export function slotKey(dst: readonly [string, number, number]): string {
  return portKey("in", dst[0], dst[1], dst[2]);
}

export function sourceKey(src: readonly [string, number, number]): string {
  return portKey("out", src[0], src[1], src[2]);
}

export function inLabel(layer: string, call: number, slot: number): string {
  return `${layer} in ${call}.${slot}`;
}

export function outLabel(layer: string, node: number, tensor: number): string {
  return `${layer} out ${node}.${tensor}`;
}

let layout = emptyState().box;

/** The size of a new layer's box as the kernel last said (the state's "box"): the room an
 * inserted layer is given before the kernel places it. */
export function newBoxSize(): { w: number; h: number } {
  return { w: layout.w, h: layout.h };
}

/** Where a box's rows are, as the kernel lays them out: the header's height, each call's row. */
export function boxRows(): { header: number; call_row: number } {
  return layout;
}

/** Keep the kernel's box layout from a state it sent (StateStore calls this). */
export function noteNewBox(state: GraphState): void {
  if (state.box) layout = state.box;
}

/** A box's size as the kernel decided it (kerascanvas/geometry/boxes.py; the state's "w" and "h"). */
export function boxWidth(layer: LayerState): number {
  return layer.w;
}

export function boxHeight(layer: LayerState): number {
  return layer.h;
}

/** A box's ports where the kernel laid them out (the state's "ports", relative to the box), in
 * world coordinates. (`_edges` is not read: the kernel counted the filled slots.) */
export function ports(layer: LayerState, _edges?: EdgeState[]): Port[] {
  const found: Port[] = [];
  for (const [k, s, x, y] of layer.ports.in) {
    found.push({ key: portKey("in", layer.name, k, s), kind: "in", layer: layer.name, call: k, index: s,
      label: inLabel(layer.name, k, s), at: { x: layer.x + x, y: layer.y + y } });
  }
  for (const [n, t, x, y] of layer.ports.out) {
    found.push({ key: portKey("out", layer.name, n, t), kind: "out", layer: layer.name, call: n, index: t,
      label: outLabel(layer.name, n, t), at: { x: layer.x + x, y: layer.y + y } });
  }
  return found;
}

/** How the drawing flows (the state's `direction`): "down", inputs at the top and ports on the
 * boxes' top and bottom edges, or "right", inputs on the left and ports on the left and right. */
export type Flow = "down" | "right";

export function edgePath(a: Point, b: Point, flow: Flow = "down"): string {
  if (flow === "right") return turnPath(edgePath(turn(a), turn(b)));
  const dy = Math.max(30, Math.abs(b.y - a.y) / 2);
  return `M${a.x},${a.y} C${a.x},${a.y + dy} ${b.x},${b.y - dy} ${b.x},${b.y}`;
}

/** A point mirrored over the diagonal (x and y swapped): a left-to-right drawing is routed as
 * the top-to-bottom one it mirrors, then mirrored back (scene/router.ts routeFlowing). */
export function turn(p: Point): Point {
  return { x: p.y, y: p.x };
}

export function turnRect(r: Rect): Rect {
  return { x: r.y, y: r.x, w: r.h, h: r.w };
}

/** An SVG path mirrored as `turn` mirrors points: every "x,y" pair of it swapped (the paths made
 * here write each point as one such pair). */
export function turnPath(d: string): string {
  return d.replace(/(-?[\d.]+(?:e[-+]?\d+)?),(-?[\d.]+(?:e[-+]?\d+)?)/g, "$2,$1");
}

export function toWorld(view: View, p: Point): Point {
  return { x: (p.x - view.x) / view.k, y: (p.y - view.y) / view.k };
}

export function toScreen(view: View, p: Point): Point {
  return { x: p.x * view.k + view.x, y: p.y * view.k + view.y };
}

/** Zoom by `factor` keeping the world point under `at` (screen) in place. */
export function zoomAt(view: View, at: Point, factor: number): View {
  const k = Math.min(4, Math.max(0.05, view.k * factor));
  const w = toWorld(view, at);
  return { k, x: at.x - w.x * k, y: at.y - w.y * k };
}

export interface Rect { x: number; y: number; w: number; h: number }

export function bounds(layers: LayerState[]): Rect | null {
  if (!layers.length) return null;
  let x0 = Infinity, y0 = Infinity, x1 = -Infinity, y1 = -Infinity;
  for (const l of layers) {
    x0 = Math.min(x0, l.x); y0 = Math.min(y0, l.y);
    x1 = Math.max(x1, l.x + boxWidth(l)); y1 = Math.max(y1, l.y + boxHeight(l));
  }
  return { x: x0, y: y0, w: x1 - x0, h: y1 - y0 };
}

/** The view that shows every box inside a width x height area, with a margin. */
export function fitView(layers: LayerState[], width: number, height: number, margin = 30): View {
  const b = bounds(layers);
  if (!b) return { x: margin, y: margin, k: 1 };
  const k = Math.min(1, (width - 2 * margin) / Math.max(b.w, 1), (height - 2 * margin) / Math.max(b.h, 1));
  return { k, x: (width - b.w * k) / 2 - b.x * k, y: (height - b.h * k) / 2 - b.y * k };
}

export function boxAt(layers: LayerState[], p: Point): LayerState | null {
  for (let i = layers.length - 1; i >= 0; i--) {
    const l = layers[i];
    if (p.x >= l.x && p.x <= l.x + boxWidth(l) && p.y >= l.y && p.y <= l.y + boxHeight(l)) return l;
  }
  return null;
}

export function portAt(all: Port[], p: Point, radius = PORT_RADIUS * 2): Port | null {
  let best: Port | null = null;
  let bestD = radius * radius;
  for (const q of all) {
    const d = (q.at.x - p.x) ** 2 + (q.at.y - p.y) ** 2;
    if (d <= bestD) { best = q; bestD = d; }
  }
  return best;
}

/** The rectangle spanned by two corners, in any order. */
export function rectFrom(a: Point, b: Point): Rect {
  return { x: Math.min(a.x, b.x), y: Math.min(a.y, b.y), w: Math.abs(a.x - b.x), h: Math.abs(a.y - b.y) };
}

/** Names of the boxes that touch a rectangle (rubber-band selection). */
export function boxesIn(layers: LayerState[], r: Rect): string[] {
  return layers.filter((l) => l.x <= r.x + r.w && l.x + boxWidth(l) >= r.x && l.y <= r.y + r.h && l.y + boxHeight(l) >= r.y)
    .map((l) => l.name);
}

/** Whether a world rectangle (every box's bounds) is on screen in this view: the minimap is
 * shown only when not. */
export function fitsIn(b: Rect | null, view: View, width: number, height: number): boolean {
  if (!b) return true;
  const a = toScreen(view, { x: b.x, y: b.y });
  const c = toScreen(view, { x: b.x + b.w, y: b.y + b.h });
  return a.x >= 0 && a.y >= 0 && c.x <= width && c.y <= height;
}

/** A box's line of text at about `charWidth` px a character in `width` px: as it is, squeezed
 * a little (SVG textLength) or cut with an ellipsis (the whole text goes in a tooltip). */
export function fitText(text: string, charWidth: number, width: number): { text: string; squeeze: boolean; cut: boolean } {
  const room = width / charWidth;
  if (text.length <= room) return { text, squeeze: false, cut: false };
  if (text.length <= room * 1.3) return { text, squeeze: true, cut: false };
  return { text: text.slice(0, Math.max(1, Math.floor(room * 1.3) - 1)) + "…", squeeze: true, cut: true };
}

/** The smallest scale Fit goes to: below it box names cannot be read. */
export const READABLE_SCALE = 0.6;

/** Fit, but never below a readable scale: a drawing too big for the view is shown from its
 * inputs (top rows, centred on the Inputs), at READABLE_SCALE. */
export function readableFit(layers: LayerState[], width: number, height: number, margin = 30, flow: Flow = "down"): View {
  const v = fitView(layers, width, height, margin);
  if (v.k >= READABLE_SCALE || !layers.length) return v;
  const k = READABLE_SCALE;
  const inputs = layers.filter((l) => l.is_input);
  const start = bounds(inputs.length ? inputs : layers)!;
  const all = bounds(layers)!;
  if (flow === "right") { // from the inputs on the left, centred on them
    const cy = start.y + start.h / 2;
    return { k, x: margin - Math.min(start.x, all.x) * k, y: height / 2 - cy * k };
  }
  const cx = start.x + start.w / 2;
  return { k, x: width / 2 - cx * k, y: margin - Math.min(start.y, all.y) * k };
}

/** The view centred on a box at a readable scale (find, jump to a problem). */
export function centreOn(layer: LayerState, view: View, width: number, height: number, k = Math.max(view.k, 0.8)): View {
  return { k, x: width / 2 - (layer.x + boxWidth(layer) / 2) * k, y: height / 2 - (layer.y + boxHeight(layer) / 2) * k };
}
