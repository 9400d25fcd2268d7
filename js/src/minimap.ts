// The minimap's geometry: where on the drawing a point of the minimap is, and where the view goes
// while its viewport is dragged. Pure, so vitest checks it without a browser.
import type { Point, View } from "./geometry";

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
