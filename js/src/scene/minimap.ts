// The minimap's geometry: where on the drawing a point of the minimap is, and where the view goes
// while its viewport is dragged. Pure, so vitest checks it without a browser; MiniMap, at the
// end, is the element that shows it.
import { clear, svg } from "../base/dom";
import { type Point, type Rect, type View, fitsIn } from "../mirror/geometry";

export interface Box { x: number; y: number; width: number; height: number }

/** The world point under client point `p` on a minimap showing `viewBox` in `screen` (its
 * bounding rectangle), the viewBox fitted keeping its aspect (xMidYMid meet). */
export function miniWorld(viewBox: Box, screen: { left: number; top: number; width: number; height: number }, p: Point): Point {
  const s = Math.min(screen.width / viewBox.width, screen.height / viewBox.height);
  const ox = (screen.width - viewBox.width * s) / 2, oy = (screen.height - viewBox.height * s) / 2;
  return { x: viewBox.x + (p.x - screen.left - ox) / s, y: viewBox.y + (p.y - screen.top - oy) / s };
}

/** Where a press at world point `w` grabs the view (`stage` its size on screen): inside the
 * viewport, the offset from the view's centre, kept while dragging (the viewport moves with the
 * pointer, as in React Flow); outside it, nothing: the view jumps there, centred. */
export function miniGrab(view: View, stage: { width: number; height: number }, w: Point): Point {
  const x0 = -view.x / view.k, y0 = -view.y / view.k;
  const x1 = x0 + stage.width / view.k, y1 = y0 + stage.height / view.k;
  if (w.x < x0 || w.x > x1 || w.y < y0 || w.y > y1) return { x: 0, y: 0 };
  return { x: w.x - (x0 + x1) / 2, y: w.y - (y0 + y1) / 2 };
}

/** The view with world point `w` minus `grab` at the centre of the stage. */
export function miniView(view: View, stage: { width: number; height: number }, w: Point, grab: Point): View {
  return { ...view, x: stage.width / 2 - (w.x - grab.x) * view.k, y: stage.height / 2 - (w.y - grab.y) * view.k };
}

/** The world rectangle the view shows on a stage of `stage`'s size: the minimap's viewport. */
export function viewportRect(view: View, stage: { width: number; height: number }): Box {
  return { x: -view.x / view.k, y: -view.y / view.k, width: stage.width / view.k, height: stage.height / view.k };
}

/** The viewport rectangle as the minimap draws it: the part of `view` inside `frame` (the
 * minimap's viewBox), never outside it; a view off the drawing shows as a sliver at the
 * minimap's edge nearest it. */
export function clampedViewport(view: Box, frame: Box, sliver = 4): Box {
  const x0 = Math.min(Math.max(view.x, frame.x), frame.x + frame.width - sliver);
  const y0 = Math.min(Math.max(view.y, frame.y), frame.y + frame.height - sliver);
  const x1 = Math.max(Math.min(view.x + view.width, frame.x + frame.width), x0 + sliver);
  const y1 = Math.max(Math.min(view.y + view.height, frame.y + frame.height), y0 + sliver);
  return { x: x0, y: y0, width: x1 - x0, height: y1 - y0 };
}

/** The minimap's size on screen for a drawing of `extent`: 140 x 100 for a drawing of about that
 * shape; a tall drawing (a deep model) gets a taller, narrower map, up to `maxHeight`, so that
 * it is not a thin strip; a wide one a wider map, up to `maxWidth`. */
export function miniSize(extent: { w: number; h: number }, maxWidth: number, maxHeight: number): { width: number; height: number } {
  const a = extent.h / Math.max(extent.w, 1);
  const W = 140, H = 100;
  if (a > H / W) { // tall
    const height = Math.max(H, Math.min(maxHeight, W * a));
    return { width: Math.round(Math.max(70, Math.min(W, height / a))), height: Math.round(height) };
  }
  const width = Math.max(W, Math.min(maxWidth, H / Math.max(a, 1e-6)));
  return { width: Math.round(width), height: Math.round(Math.max(60, Math.min(H, width * a))) };
}

/** x, y, width and height of every box, in order: equal arrays, the same minimap. */
export function boxesKey(boxes: { x: number; y: number; w: number; h: number }[]): Float64Array {
  const key = new Float64Array(4 * boxes.length);
  boxes.forEach((b, i) => { key[4 * i] = b.x; key[4 * i + 1] = b.y; key[4 * i + 2] = b.w; key[4 * i + 3] = b.h; });
  return key;
}

export function sameKey(a: Float64Array, b: Float64Array): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

/** The minimap element: every box as one path (thousands on a big graph: one element, not one
 * per box), and the view's rectangle on top, which alone follows pan and zoom. */
export class MiniMap {
  readonly root: SVGSVGElement;
  private viewport: SVGRectElement | null = null;
  private drawn: Float64Array = new Float64Array(0); // boxesKey of what is drawn
  private frame: Box | null = null;                  // the viewBox

  constructor() {
    this.root = svg("svg", { class: "kc-minimap", "aria-label": "Minimap" });
  }

  /** Shown for graphs bigger than the view only. */
  show(visible: boolean): void {
    this.root.style.display = visible ? "" : "none";
  }

  /** Draws `boxes` (nothing for fewer than two); an edit that moved no box (a connect, a
   * configure) leaves the elements alone. */
  draw(boxes: { x: number; y: number; w: number; h: number }[], stage = { width: 800, height: 520 }): void {
    const b = boxes.length < 2 ? null : extent(boxes);
    if (!b) { clear(this.root); this.viewport = null; this.frame = null; this.drawn = new Float64Array(0); return; }
    const pad = 20;
    const size = miniSize({ w: b.w + 2 * pad, h: b.h + 2 * pad }, Math.max(140, stage.width * 0.35), Math.max(100, stage.height * 0.6));
    this.root.style.width = `${size.width}px`;
    this.root.style.height = `${size.height}px`;
    const key = boxesKey(boxes);
    if (this.viewport && sameKey(key, this.drawn)) return;
    this.frame = { x: b.x - pad, y: b.y - pad, width: b.w + 2 * pad, height: b.h + 2 * pad };
    let d = "";
    for (const q of boxes) d += `M${q.x},${q.y}h${q.w}v${q.h}h${-q.w}z`;
    clear(this.root);
    this.root.setAttribute("viewBox", `${b.x - pad} ${b.y - pad} ${b.w + 2 * pad} ${b.h + 2 * pad}`);
    this.root.append(svg("path", { d, class: "kc-mini-box" }));
    this.viewport = svg("rect", { class: "kc-mini-view" });
    this.root.append(this.viewport);
    this.drawn = key;
  }

  /** The view moved (or the drawing did): shown only while the drawing (`drawing`, the bounds of
   * its `count` boxes) does not fit the view, and the view's rectangle follows. */
  track(view: View, stage: { width: number; height: number }, drawing: Rect | null, count: number): void {
    this.show(!(count < 2 || stage.width === 0 || fitsIn(drawing, view, stage.width, stage.height)));
    this.follow(view, stage);
  }

  /** The view's rectangle, for `view` on a stage of `stage`'s size. */
  follow(view: View, stage: { width: number; height: number }): void {
    if (!this.viewport || !this.frame) return;
    const r = clampedViewport(viewportRect(view, stage), this.frame, 4 * this.frame.width / 140);
    for (const [k, v] of Object.entries(r)) this.viewport.setAttribute(k, String(v));
  }
}

function extent(boxes: { x: number; y: number; w: number; h: number }[]): { x: number; y: number; w: number; h: number } {
  let x0 = Infinity, y0 = Infinity, x1 = -Infinity, y1 = -Infinity;
  for (const b of boxes) { x0 = Math.min(x0, b.x); y0 = Math.min(y0, b.y); x1 = Math.max(x1, b.x + b.w); y1 = Math.max(y1, b.y + b.h); }
  return { x: x0, y: y0, w: x1 - x0, h: y1 - y0 };
}
