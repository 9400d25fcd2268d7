// Edge routing: an edge that would run behind a box it does not join goes around it, in a lane
// beside the boxes in its way (rounded orthogonal path); shape labels are placed where they
// collide with no box and no other label. Pure: rectangles and points in, paths out.
import type { Point, Rect } from "./geometry";

export interface Route { d: string; points: Point[] } // the SVG path, and a polyline to hit-test

const MARGIN = 10;   // clearance kept around boxes
const LANE_GAP = 8;  // parallel lanes beside the same boxes are this far apart
const BEND = 16;     // vertical run out of a port before a lane turns
const RADIUS = 8;    // corner rounding

/** Points along the default S-curve (cubic Bezier) from a port below a box to a port above one. */
export function curvePoints(a: Point, b: Point, n = 16): Point[] {
  const dy = Math.max(30, Math.abs(b.y - a.y) / 2);
  const c1 = { x: a.x, y: a.y + dy }, c2 = { x: b.x, y: b.y - dy };
  const out: Point[] = [];
  for (let i = 0; i <= n; i++) {
    const t = i / n, u = 1 - t;
    out.push({ x: u * u * u * a.x + 3 * u * u * t * c1.x + 3 * u * t * t * c2.x + t * t * t * b.x,
      y: u * u * u * a.y + 3 * u * u * t * c1.y + 3 * u * t * t * c2.y + t * t * t * b.y });
  }
  return out;
}

export function curvePath(a: Point, b: Point): string {
  const dy = Math.max(30, Math.abs(b.y - a.y) / 2);
  return `M${a.x},${a.y} C${a.x},${a.y + dy} ${b.x},${b.y - dy} ${b.x},${b.y}`;
}

function inflate(r: Rect, m: number): Rect {
  return { x: r.x - m, y: r.y - m, w: r.w + 2 * m, h: r.h + 2 * m };
}

/** Whether segment p-q passes through rectangle r. */
export function segmentHits(p: Point, q: Point, r: Rect): boolean {
  // Liang-Barsky clipping
  let t0 = 0, t1 = 1;
  const dx = q.x - p.x, dy = q.y - p.y;
  const checks: [number, number][] = [[-dx, p.x - r.x], [dx, r.x + r.w - p.x], [-dy, p.y - r.y], [dy, r.y + r.h - p.y]];
  for (const [pp, qq] of checks) {
    if (pp === 0) { if (qq < 0) return false; continue; }
    const t = qq / pp;
    if (pp < 0) { if (t > t1) return false; if (t > t0) t0 = t; }
    else { if (t < t0) return false; if (t < t1) t1 = t; }
  }
  return t0 <= t1;
}

export function polylineHits(points: Point[], r: Rect): boolean {
  for (let i = 1; i < points.length; i++) if (segmentHits(points[i - 1], points[i], r)) return true;
  return false;
}

/** A polyline with rounded corners as an SVG path. */
export function roundedPath(points: Point[], radius = RADIUS): string {
  if (points.length < 3) return "M" + points.map((p) => `${p.x},${p.y}`).join(" L");
  let d = `M${points[0].x},${points[0].y}`;
  for (let i = 1; i < points.length - 1; i++) {
    const p = points[i - 1], c = points[i], n = points[i + 1];
    const l1 = Math.hypot(c.x - p.x, c.y - p.y), l2 = Math.hypot(n.x - c.x, n.y - c.y);
    const r = Math.min(radius, l1 / 2, l2 / 2);
    if (r <= 0.01) { d += ` L${c.x},${c.y}`; continue; }
    const a = { x: c.x + ((p.x - c.x) / l1) * r, y: c.y + ((p.y - c.y) / l1) * r };
    const b = { x: c.x + ((n.x - c.x) / l2) * r, y: c.y + ((n.y - c.y) / l2) * r };
    d += ` L${a.x},${a.y} Q${c.x},${c.y} ${b.x},${b.y}`;
  }
  const last = points[points.length - 1];
  return d + ` L${last.x},${last.y}`;
}

/**
 * The route of an edge from `a` (an output port, on a box's bottom) to `b` (an input port, on a
 * box's top). `obstacles` are the other boxes; `lane` spreads edges that detour beside the same
 * boxes. Edges going up (the user put the consumer higher) keep the plain curve.
 */
export function route(a: Point, b: Point, obstacles: Rect[], lane = 0): Route {
  const curve = curvePoints(a, b);
  if (b.y - a.y < 2 * BEND + 4) return { d: curvePath(a, b), points: curve };
  const grown = obstacles.map((r) => inflate(r, MARGIN));
  const hit = grown.filter((r) => polylineHits(curve, r));
  if (!hit.length) return { d: curvePath(a, b), points: curve };
  const y1 = a.y + BEND, y2 = b.y - BEND;
  const inSpan = grown.filter((r) => r.y < y2 && r.y + r.h > y1);
  // try a lane right and left of the boxes in the way; widen until the lane itself is clear
  const candidates: Point[][] = [];
  for (const side of [1, -1]) {
    let blockers = hit;
    for (let i = 0; i < 8; i++) {
      const x = side > 0 ? Math.max(...blockers.map((r) => r.x + r.w)) + lane * LANE_GAP
        : Math.min(...blockers.map((r) => r.x)) - lane * LANE_GAP;
      const pts = [a, { x: a.x, y: y1 }, { x, y: y1 }, { x, y: y2 }, { x: b.x, y: y2 }, b];
      const more = inSpan.filter((r) => !blockers.includes(r) && polylineHits(pts.slice(1, 5), r));
      if (!more.length) { candidates.push(pts); break; }
      blockers = [...blockers, ...more];
    }
  }
  if (!candidates.length) return { d: curvePath(a, b), points: curve };
  const cost = (pts: Point[]) => Math.abs(pts[2].x - a.x) + Math.abs(pts[3].x - b.x);
  const best = candidates.sort((p, q) => cost(p) - cost(q))[0];
  return { d: roundedPath(best), points: best };
}

/** Evenly spaced points along a polyline, at fractions `ts` of its length. */
export function along(points: Point[], ts: number[]): Point[] {
  const lens = [0];
  for (let i = 1; i < points.length; i++) lens.push(lens[i - 1] + Math.hypot(points[i].x - points[i - 1].x, points[i].y - points[i - 1].y));
  const total = lens[lens.length - 1] || 1;
  return ts.map((t) => {
    const want = t * total;
    let i = 1;
    while (i < lens.length - 1 && lens[i] < want) i++;
    const seg = lens[i] - lens[i - 1] || 1;
    const f = Math.min(1, Math.max(0, (want - lens[i - 1]) / seg));
    return { x: points[i - 1].x + (points[i].x - points[i - 1].x) * f, y: points[i - 1].y + (points[i].y - points[i - 1].y) * f };
  });
}

function overlaps(a: Rect, b: Rect): boolean {
  return a.x < b.x + b.w && b.x < a.x + a.w && a.y < b.y + b.h && b.y < a.y + a.h;
}

export interface LabelSpot { x: number; y: number; rect: Rect }

/**
 * Places one label per route (text of `widths[i]` px, 12 px high): at the first spot along its
 * edge (middle first, then either side) that overlaps no box and no label placed before it;
 * null when every spot collides (the label is left out; the edge's tooltip still says it).
 */
export function placeLabels(routes: Point[][], widths: number[], boxes: Rect[], height = 12): (LabelSpot | null)[] {
  const placed: Rect[] = [];
  const ts = [0.5, 0.4, 0.6, 0.3, 0.7, 0.2, 0.8];
  return routes.map((pts, i) => {
    for (const p of along(pts, ts)) {
      const rect = { x: p.x + 4, y: p.y - height + 2, w: widths[i], h: height };
      if (boxes.some((b) => overlaps(b, rect)) || placed.some((q) => overlaps(q, rect))) continue;
      placed.push(rect);
      return { x: rect.x, y: p.y, rect };
    }
    return null;
  });
}
