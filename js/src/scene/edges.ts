// Edges as objects: which edge is under a point, and where a box dropped on a wire goes. Pure.
import type { Point } from "../mirror/geometry";
import type { Fan } from "./router";
import type { EdgeState } from "../mirror/types";

/** Each wire's place in the fan out of its port: wire i leaves port `ports[i]` for `ends[i]`
 * (null: not drawn); the wires of one port are ordered left to right by where they go, so the
 * fan they leave the port in does not cross itself (router.fanStart). */
export function fanOut(ports: string[], ends: (Point | null)[]): Fan[] {
  const byPort = new Map<string, number[]>();
  ports.forEach((port, i) => {
    if (!ends[i]) return;
    let wires = byPort.get(port);
    if (!wires) byPort.set(port, wires = []);
    wires.push(i);
  });
  const fans: Fan[] = ports.map(() => ({ index: 0, count: 1 }));
  for (const wires of byPort.values()) {
    if (wires.length < 2) continue;
    wires.sort((i, j) => ends[i]!.x - ends[j]!.x || ends[i]!.y - ends[j]!.y || i - j);
    wires.forEach((w, index) => { fans[w] = { index, count: wires.length }; });
  }
  return fans;
}

/** The boxes wired to `name` (in or out): what stays in view when it is deleted. */
export function neighbours(edges: EdgeState[], name: string): string[] {
  const out = new Set<string>();
  for (const e of edges) {
    if (e.dst[0] === name) out.add(e.src[0]);
    if (e.src[0] === name) out.add(e.dst[0]);
  }
  out.delete(name);
  return [...out];
}

/** Distance from p to segment a-b. */
export function segmentDistance(p: Point, a: Point, b: Point): number {
  const dx = b.x - a.x, dy = b.y - a.y;
  const len = dx * dx + dy * dy;
  const t = len === 0 ? 0 : Math.max(0, Math.min(1, ((p.x - a.x) * dx + (p.y - a.y) * dy) / len));
  return Math.hypot(p.x - (a.x + t * dx), p.y - (a.y + t * dy));
}

/** The nearest point of a polyline to p, with its distance. */
export function nearestOnPolyline(p: Point, pts: Point[]): { at: Point; distance: number } {
  let best = { at: pts[0] ?? p, distance: Infinity };
  for (let i = 1; i < pts.length; i++) {
    const a = pts[i - 1], b = pts[i];
    const dx = b.x - a.x, dy = b.y - a.y;
    const len = dx * dx + dy * dy;
    const t = len === 0 ? 0 : Math.max(0, Math.min(1, ((p.x - a.x) * dx + (p.y - a.y) * dy) / len));
    const q = { x: a.x + t * dx, y: a.y + t * dy };
    const d = Math.hypot(p.x - q.x, p.y - q.y);
    if (d < best.distance) best = { at: q, distance: d };
  }
  return best;
}

/** The index of the edge (by its polyline) within `tolerance` of p, nearest first; -1 if none. */
export function edgeAt(polylines: (Point[] | null)[], p: Point, tolerance: number): number {
  let found = -1, bestD = tolerance;
  polylines.forEach((pts, i) => {
    if (!pts || pts.length < 2) return;
    const { distance } = nearestOnPolyline(p, pts);
    if (distance <= bestD) { bestD = distance; found = i; }
  });
  return found;
}

/** Where a box of width w and height h dropped on a wire at p goes: centred on the wire's
 * nearest point, so the wire runs through it. */
export function insertPlacement(p: Point, pts: Point[], w: number, h: number): Point {
  const { at } = nearestOnPolyline(p, pts);
  return { x: Math.round(at.x - w / 2), y: Math.round(at.y - h / 2) };
}

/** Which end of an edge a press at p grabs (the input end, within `radius` of it), for
 * dragging a wire off a slot to re-wire or unplug it. */
export function grabbedEnd(p: Point, input: Point, radius: number): boolean {
  return Math.hypot(p.x - input.x, p.y - input.y) <= radius;
}
