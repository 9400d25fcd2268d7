// Edge routing: an edge that would run behind a box it does not join goes around it, in a lane
// beside the boxes in its way (rounded orthogonal path); shape labels are placed where they
// collide with no box and no other label. Pure: rectangles and points in, paths out.
import { type Flow, type Point, type Rect, turn, turnPath, turnRect } from "../mirror/geometry";

export interface Route { d: string; points: Point[] } // the SVG path, and a polyline to hit-test

const MARGIN = 10;   // clearance kept around boxes
const LANE_GAP = 8;  // parallel lanes beside the same boxes are this far apart
const BEND = 16;     // vertical run out of a port before a lane turns
const RADIUS = 8;    // corner rounding
const STAGGER = 5;   // wires out of one port (or into one box) turn this far apart

/** Which of the wires out of its port (`out`) and into its box (`in`) an edge is: 0, 1, 2... */
export interface Stagger { out: number; in: number }
const NO_STAGGER: Stagger = { out: 0, in: 0 };

/** A wire's place in the fan out of a port several wires share: `index` of `count`, the wires
 * ordered left to right by where they go (edges.fanOut), so that their fan does not cross. */
export interface Fan { index: number; count: number }
export const ALONE: Fan = { index: 0, count: 1 };
export const FAN_DROP = 10;  // a shared port's wires are apart this far below it...
export const FAN_GAP = 8;    // ...by this much (less when many share it: the fan is at most FAN_WIDTH wide)
const FAN_WIDTH = 48;

/** Where a wire out of shared port `a` starts its own course: a short slant out of the port to
 * its place in the fan, so that each wire of the port can be told apart and clicked from there. */
export function fanStart(a: Point, fan: Fan): Point {
  if (fan.count < 2) return a;
  const gap = Math.min(FAN_GAP, FAN_WIDTH / (fan.count - 1));
  return { x: a.x + (fan.index - (fan.count - 1) / 2) * gap, y: a.y + FAN_DROP };
}

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

function inside(p: Point, r: Rect): boolean {
  return p.x >= r.x && p.x <= r.x + r.w && p.y >= r.y && p.y <= r.y + r.h;
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

/** The polyline of roundedPath(points): each rounded corner as the two ends of its curve and
 * the curve's middle, so that hit tests measure the wire as drawn (two wires leaving one port
 * together part where the drawn one bends away, not at the corner it rounds). */
export function roundedPoints(points: Point[], radius = RADIUS): Point[] {
  if (points.length < 3) return points;
  const out: Point[] = [points[0]];
  for (let i = 1; i < points.length - 1; i++) {
    const p = points[i - 1], c = points[i], n = points[i + 1];
    const l1 = Math.hypot(c.x - p.x, c.y - p.y), l2 = Math.hypot(n.x - c.x, n.y - c.y);
    const r = Math.min(radius, l1 / 2, l2 / 2);
    if (r <= 0.01) { out.push(c); continue; }
    const a = { x: c.x + ((p.x - c.x) / l1) * r, y: c.y + ((p.y - c.y) / l1) * r };
    const b = { x: c.x + ((n.x - c.x) / l2) * r, y: c.y + ((n.y - c.y) / l2) * r };
    out.push(a, { x: (a.x + 2 * c.x + b.x) / 4, y: (a.y + 2 * c.y + b.y) / 4 }, b);
  }
  out.push(points[points.length - 1]);
  return out;
}

/**
 * The route of an edge from `a` (an output port, on a box's bottom) to `b` (an input port, on a
 * box's top). `obstacles` are the other boxes; `lane` spreads edges that detour beside the same
 * boxes; `ends` are the boxes the edge joins (its source's and its consumer's).
 *
 * Downward, the plain curve is kept while it crosses no box; a skip connection goes around the
 * boxes it skips in a lane beside them. An edge going up (or with no room to turn between the
 * rows: boxes side by side) leaves its port downward, runs up in a lane beside every box in its
 * span, its own two included, and comes into its port from above: never behind a box.
 */
export function route(a: Point, b: Point, obstacles: Rect[], lane = 0, ends: Rect[] = [], stagger: Stagger = NO_STAGGER,
  into: Rect | null = null, fan: Fan = ALONE): Route {
  const start = fanStart(a, fan);
  if (start === a) return routeFrom(a, b, obstacles, lane, ends, stagger, into, fan);
  // a wire of a shared port: its fan's slant, then its own course from there
  const r = routeFrom(start, b, obstacles, lane, ends, stagger, into, fan, a.y);
  const curved = r.d.includes("C");
  const points = [a, ...r.points];
  return { d: curved ? `M${a.x},${a.y} L${r.d.slice(1)}` : roundedPath(points), points };
}

/** `route` in a drawing that flows `flow`: left to right, the edge is routed as the top-to-bottom
 * one the drawing mirrors over its diagonal (outputs on the right edge are the mirror's bottom
 * edge), and the route mirrored back. */
export function routeFlowing(flow: Flow, a: Point, b: Point, obstacles: Rect[], lane = 0, ends: Rect[] = [],
  stagger: Stagger = NO_STAGGER, into: Rect | null = null, fan: Fan = ALONE): Route {
  if (flow === "down") return route(a, b, obstacles, lane, ends, stagger, into, fan);
  const r = route(turn(a), turn(b), obstacles.map(turnRect), lane, ends.map(turnRect), stagger,
    into ? turnRect(into) : null, fan);
  return { d: turnPath(r.d), points: r.points.map(turn) };
}

/** How many STAGGER steps below its port (or its place in the fan) a wire turns aside towards
 * `side`: the wires of a fan that turn the same way turn outermost first, so that none runs
 * across another's stem; a lone wire by its order out of the port. */
function turnStep(stagger: Stagger, fan: Fan, side: number): number {
  if (fan.count < 2) return stagger.out % 3;
  return Math.min(4, side > 0 ? fan.count - 1 - fan.index : fan.index);
}

/** route() from `a` (the port, or a wire's place in its port's fan); `y0` is the port's row:
 * whether there is room to go down, and where the wire turns, are measured from it. */
function routeFrom(a: Point, b: Point, obstacles: Rect[], lane: number, ends: Rect[], stagger: Stagger, into: Rect | null, fan: Fan,
  y0 = a.y): Route {
  const side = into ? sideOf(b, into) : 0;
  // the lane keeps clear of the source's box too (not of the slot's own: it ends on it)
  const others = [...obstacles, ...ends.filter((r) => into && !(r.x === into.x && r.y === into.y))];
  if (into && side) return sideRoute(a, b, into, others.map((r) => inflate(r, MARGIN)), side, lane, stagger, fan, y0);
  const curve = curvePoints(a, b);
  const grown = obstacles.map((r) => inflate(r, MARGIN));
  const down = b.y - y0 >= 2 * BEND + 4;
  if (down) {
    const hit = grown.filter((r) => polylineHits(curve, r));
    if (!hit.length) return { d: curvePath(a, b), points: curve };
    const best = detour(a, b, grown, hit, lane, stagger, fan, y0);
    return best ? { d: roundedPath(best), points: best } : { d: curvePath(a, b), points: curve };
  }
  // up, or level: the lane clears the edge's own boxes too (the curve would run behind them)
  const walls = [...grown, ...ends.map((r) => inflate(r, MARGIN))];
  const lo = Math.min(a.y, b.y) - BEND, hi = Math.max(a.y, b.y) + BEND;
  const span = walls.filter((r) => r.y < hi && r.y + r.h > lo);
  const best = detour(a, b, walls, span.filter((r) => r.x < Math.max(a.x, b.x) && r.x + r.w > Math.min(a.x, b.x)), lane, stagger, fan, y0);
  return best ? { d: roundedPath(best), points: best } : { d: curvePath(a, b), points: curve };
}

/** -1 or 1 when slot `b` is on the left or right side of its box `into` (a later call's slot,
 * kerascanvas/geometry/boxes.py port_layout), 0 when on its top edge. */
export function sideOf(b: Point, into: Rect): -1 | 0 | 1 {
  if (b.y <= into.y + 1) return 0;
  return b.x <= into.x + 1 ? -1 : b.x >= into.x + into.w - 1 ? 1 : 0;
}

/**
 * The route into a slot on a box's side: out of `a` downward, across to a lane beside that side
 * of the box (moved out past any box in its way), along it to the slot's row, then straight in:
 * it enters the call's row from outside, never looping over its own box.
 */
function sideRoute(a: Point, b: Point, into: Rect, walls: Rect[], side: -1 | 1, lane: number, stagger: Stagger, fan: Fan,
  y0: number): Route {
  const y1 = y0 + BEND + turnStep(stagger, fan, side) * STAGGER;
  let x = (side < 0 ? into.x : into.x + into.w) + side * (BEND + lane * LANE_GAP);
  let pts: Point[] = [];
  for (let i = 0; i < 12; i++) {
    pts = [a, { x: a.x, y: y1 }, { x, y: y1 }, { x, y: b.y }, b];
    const lanes = walls.filter((r) => segmentHits(pts[2], pts[3], r) || segmentHits(pts[3], pts[4], r));
    if (!lanes.length) break;
    x = side < 0 ? Math.min(x, ...lanes.map((r) => r.x - 1)) : Math.max(x, ...lanes.map((r) => r.x + r.w + 1));
  }
  return { d: roundedPath(pts), points: pts };
}

/**
 * An orthogonal path a -> down BEND -> across to a lane -> along the lane -> across above b -> b,
 * with the lane right or left of `blockers` (widened while it crosses more boxes), the shorter of
 * the two that crosses no box in `walls`; null when neither side is clear.
 */
function detour(a: Point, b: Point, walls: Rect[], blockers: Rect[], lane: number, stagger: Stagger, fan: Fan,
  y0: number): Point[] | null {
  const candidates: Point[][] = [];
  for (const side of [1, -1]) {
    let beside = blockers;
    // wires out of one port turn at different heights, and so do wires into one box's slots:
    // their stretches across run apart, not on top of each other
    let y1 = y0 + BEND + turnStep(stagger, fan, side) * STAGGER, y2 = b.y - BEND - (stagger.in % 3) * STAGGER;
    for (let i = 0; i < 12; i++) {
      const edge = beside.length ? (side > 0 ? Math.max(...beside.map((r) => r.x + r.w)) : Math.min(...beside.map((r) => r.x)))
        : (side > 0 ? Math.max(a.x, b.x) + MARGIN : Math.min(a.x, b.x) - MARGIN);
      const x = edge + side * (1 + lane * LANE_GAP); // just outside: touching a margin counts as crossing
      const pts = [a, { x: a.x, y: y1 }, { x, y: y1 }, { x, y: y2 }, { x: b.x, y: y2 }, b];
      // the stems out of a and into b start inside their own boxes' margins: those do not count
      const stems = walls.filter((r) => (!inside(a, r) && segmentHits(pts[0], pts[1], r))
        || (!inside(b, r) && segmentHits(pts[4], pts[5], r)));
      const across1 = walls.filter((r) => segmentHits(pts[1], pts[2], r));
      const across2 = walls.filter((r) => segmentHits(pts[3], pts[4], r));
      const lanes = walls.filter((r) => segmentHits(pts[2], pts[3], r));
      if (!stems.length && !across1.length && !across2.length && !lanes.length) { candidates.push(pts); break; }
      if (stems.length) break; // a box right under a or over b: this side has no way round
      // a box across a horizontal run: that run moves past it (below it out of a, above it into b)
      if (across1.length) y1 = Math.max(y1, ...across1.map((r) => r.y + r.h + 2));
      if (across2.length) y2 = Math.min(y2, ...across2.map((r) => r.y - 2));
      beside = [...beside, ...lanes.filter((r) => !beside.includes(r))];
    }
  }
  if (!candidates.length) return null;
  const cost = (pts: Point[]) => Math.abs(pts[2].x - a.x) + Math.abs(pts[3].x - b.x)
    + Math.abs(pts[1].y - a.y) + Math.abs(b.y - pts[4].y);
  return candidates.sort((p, q) => cost(p) - cost(q))[0];
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

/** Rectangles bucketed in square cells, so that "does anything overlap this rectangle" looks
 * at the few rectangles nearby instead of all of them (label placement asks it a few times per
 * edge, for every edge: quadratic on a graph of hundreds). `any` calls `test` with the index of
 * every rectangle sharing a cell with `r` (a superset of those overlapping it), once each. */
export class RectGrid {
  private cells = new Map<number, number[]>();
  private wide: number[] = [];   // rectangles over too many cells: tried every time
  private stamp: number[] = [];  // the query that last tried each index
  private query = 0;

  constructor(private cell = 200) {}

  private span(r: Rect): [number, number, number, number] {
    const c = this.cell;
    return [Math.floor(r.x / c), Math.floor((r.x + r.w) / c), Math.floor(r.y / c), Math.floor((r.y + r.h) / c)];
  }

  add(r: Rect, index: number): void {
    const [x0, x1, y0, y1] = this.span(r);
    if (!Number.isFinite(x0 + x1 + y0 + y1) || (x1 - x0 + 1) * (y1 - y0 + 1) > 256) { this.wide.push(index); return; }
    for (let x = x0; x <= x1; x++) for (let y = y0; y <= y1; y++) {
      const k = x * 1048576 + y;
      const list = this.cells.get(k);
      if (list) list.push(index); else this.cells.set(k, [index]);
    }
  }

  any(r: Rect, test: (index: number) => boolean): boolean {
    const q = ++this.query;
    const once = (i: number) => { if (this.stamp[i] === q) return false; this.stamp[i] = q; return test(i); };
    for (const i of this.wide) if (once(i)) return true;
    const [x0, x1, y0, y1] = this.span(r);
    if (!Number.isFinite(x0 + x1 + y0 + y1) || (x1 - x0 + 1) * (y1 - y0 + 1) > 256) {
      for (const list of this.cells.values()) for (const i of list) if (once(i)) return true;
      return false;
    }
    for (let x = x0; x <= x1; x++) for (let y = y0; y <= y1; y++) {
      const list = this.cells.get(x * 1048576 + y);
      if (list) for (const i of list) if (once(i)) return true;
    }
    return false;
  }
}

/** Top-left corners to try for a label of `w` x `height` at point `p` of its edge, best first:
 * beside the edge where it runs down (`across` false), above or below it where it runs across;
 * near it, then a little farther (clear of a slanted stretch of its own line). */
export function labelSpots(p: Point, across: boolean, w: number, height: number): Point[] {
  const spots: Point[] = [];
  for (const gap of [4, 12]) {
    const beside = [{ x: p.x + gap, y: p.y - height / 2 }, { x: p.x - gap - w, y: p.y - height / 2 }];
    const over = [{ x: p.x - w / 2, y: p.y - height - gap + 1 }, { x: p.x - w / 2, y: p.y + gap - 1 }];
    spots.push(...(across ? [...over, ...beside] : [...beside, ...over]));
  }
  return spots;
}

/**
 * Places one label per route (text of `widths[i]` px, `height` px high) at the first spot along
 * its edge (middle first, then either side) where it overlaps no box, no label placed before it
 * and no edge (its own included): beside the edge where it runs down, above or below it where it runs across.
 * Null when every spot collides: the label is left out (the edge's tooltip still says it).
 * `x`, `y` of a spot are where the text's baseline starts.
 */
export function placeLabels(routes: Point[][], widths: number[], boxes: Rect[], height = 12): (LabelSpot | null)[] {
  const placed: Rect[] = [];
  const ts = [0.5, 0.4, 0.6, 0.3, 0.7, 0.2, 0.8];
  const extents = routes.map(extent);
  const boxGrid = new RectGrid(), edgeGrid = new RectGrid(), placedGrid = new RectGrid();
  boxes.forEach((b, i) => boxGrid.add(b, i));
  extents.forEach((e, j) => edgeGrid.add(e, j));
  // its own wire counts too: beside a bend or a slanted stretch the label would sit on the line
  // (the farther spots are for those)
  const onAnEdge = (rect: Rect) => edgeGrid.any(rect, (j) => overlaps(extents[j], rect) && polylineHits(routes[j], rect));
  return routes.map((pts, i) => {
    const w = widths[i];
    for (const t of ts) {
      const [p, q, r] = along(pts, [t, Math.max(0, t - 0.02), Math.min(1, t + 0.02)]);
      const across = Math.abs(r.x - q.x) > Math.abs(r.y - q.y);
      for (const at of labelSpots(p, across, w, height)) {
        const rect = { x: at.x, y: at.y, w, h: height };
        if (boxGrid.any(rect, (b) => overlaps(boxes[b], rect)) || placedGrid.any(rect, (o) => overlaps(placed[o], rect))
          || onAnEdge(rect)) continue;
        placedGrid.add(rect, placed.length);
        placed.push(rect);
        return { x: rect.x, y: rect.y + height - 2, rect };
      }
    }
    return null;
  });
}

/** The bounding rectangle of a polyline. */
function extent(points: Point[]): Rect {
  const xs = points.map((p) => p.x), ys = points.map((p) => p.y);
  const x = Math.min(...xs), y = Math.min(...ys);
  return { x, y, w: Math.max(...xs) - x, h: Math.max(...ys) - y };
}
