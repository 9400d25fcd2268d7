// Wires out of one shared port (one output feeding several boxes) fan out: a few px below the
// port each wire runs apart from the others, so each can be told apart and clicked there; the
// fan is ordered by where the wires go, so it does not cross itself.
import { describe, expect, it } from "vitest";
import type { Point, Rect } from "../src/mirror/geometry";
import { edgeAt, fanOut, nearestOnPolyline } from "../src/scene/edges";
import { ALONE, FAN_DROP, type Fan, fanStart, route } from "../src/scene/router";

const W = 180, H = 62;
const box = (x: number, y: number): Rect => ({ x, y, w: W, h: H });
const out = (r: Rect): Point => ({ x: r.x + r.w / 2, y: r.y + r.h });
const into = (r: Rect): Point => ({ x: r.x + r.w / 2, y: r.y });

/** The points of `pts` every px along it. */
function sample(pts: Point[]): Point[] {
  const got: Point[] = [];
  for (let i = 1; i < pts.length; i++) {
    const a = pts[i - 1], b = pts[i];
    const n = Math.max(1, Math.ceil(Math.hypot(b.x - a.x, b.y - a.y)));
    for (let k = 0; k < n; k++) got.push({ x: a.x + ((b.x - a.x) * k) / n, y: a.y + ((b.y - a.y) * k) / n });
  }
  return got;
}

/** The least distance between wire i and any other wire, over wire i's points between `from`
 * and `to` px (straight-line) from the port. */
function apart(routes: Point[][], port: Point, from: number, to: number): number {
  let least = Infinity;
  routes.forEach((pts, i) => {
    for (const p of sample(pts)) {
      const d = Math.hypot(p.x - port.x, p.y - port.y);
      if (d < from || d > to) continue;
      routes.forEach((other, j) => { if (j !== i) least = Math.min(least, nearestOnPolyline(p, other).distance); });
    }
  });
  return least;
}

/** One source box feeding `targets`; `between` are boxes in the way (skip wires go round them). */
function fanned(targets: Rect[], between: Rect[] = [], fans = true): { port: Point; routes: Point[][] } {
  const src = box(300, 0);
  const port = out(src);
  const ends = targets.map(into);
  const order: Fan[] = fans ? fanOut(targets.map(() => "out:src:0:0"), ends) : targets.map(() => ALONE);
  const routes = targets.map((t, i) => route(port, ends[i], between, i % 4, [src, t], { out: i, in: 0 }, t, order[i]).points);
  return { port, routes };
}

describe("the fan out of a shared port", () => {
  const row = [box(0, 200), box(300, 200), box(600, 200)];

  it("each wire ends where it did and starts at the port", () => {
    const { port, routes } = fanned(row);
    routes.forEach((pts, i) => {
      expect(pts[0]).toEqual(port);
      expect(pts[pts.length - 1]).toEqual(into(row[i]));
    });
  });

  it("plain wires to a row of boxes: 6 px apart or more from FAN_DROP px below the port on", () => {
    const { port, routes } = fanned(row);
    expect(apart(routes, port, FAN_DROP, 60)).toBeGreaterThanOrEqual(6);
    // without the fan they run within 3 px of each other there (the defect: one thick wire)
    const plain = fanned(row, [], false);
    expect(apart(plain.routes, plain.port, FAN_DROP, 20)).toBeLessThan(3);
  });

  it("skip wires going round a box in the way, and one straight down, are apart too", () => {
    const blocker = box(300, 150);
    const targets = [box(300, 400), box(-100, 400), box(700, 400), box(300, 150)];
    const { port, routes } = fanned(targets, [blocker].filter((b) => b !== targets[3]));
    expect(apart(routes, port, FAN_DROP, 40)).toBeGreaterThanOrEqual(3);
  });

  it("a box close under the port (a residual block's first layer): its wire still goes straight down", () => {
    const x = box(-90, 0), a = box(-90, 102), b = box(-90, 204), add = box(-90, 306);
    const slot = { x: 0, y: 306 }; // the Add's middle slot
    const fans = fanOut(["p", "p"], [into(a), slot]);
    const toA = route(out(x), into(a), [], 0, [x, a], { out: 0, in: 0 }, a, fans[0]).points;
    const toAdd = route(out(x), slot, [a, b], 1, [x, add], { out: 1, in: 0 }, add, fans[1]).points;
    expect(Math.max(...toA.map((p) => Math.abs(p.x)))).toBeLessThanOrEqual(8); // no detour out and back
    expect(toA[toA.length - 1]).toEqual(into(a));
    expect(apart([toA, toAdd], out(x), FAN_DROP, 30)).toBeGreaterThanOrEqual(4);
  });

  it("a click on a wire's own stretch of the fan picks that wire", () => {
    const { port, routes } = fanned(row);
    routes.forEach((pts, i) => {
      const p = sample(pts).find((q) => Math.hypot(q.x - port.x, q.y - port.y) >= FAN_DROP + 2)!;
      expect(edgeAt(routes, p, 6)).toBe(i);
    });
  });

  it("the fan is ordered by where the wires go (it does not cross), and a lone wire has none", () => {
    const ends = [{ x: 500, y: 300 }, { x: 0, y: 300 }, null, { x: 250, y: 300 }];
    const fans = fanOut(["p", "p", "p", "p"], ends);
    expect(fans.map((f) => f.index)).toEqual([2, 0, 0, 1]);
    expect(fans.map((f) => f.count)).toEqual([3, 3, 1, 3]);
    const starts = [1, 3, 0].map((i) => fanStart({ x: 100, y: 100 }, fans[i]).x);
    expect(starts).toEqual([...starts].sort((a, b) => a - b));
    expect(fanStart({ x: 100, y: 100 }, ALONE)).toEqual({ x: 100, y: 100 });
    expect(fanOut(["p", "q"], [{ x: 0, y: 0 }, { x: 9, y: 9 }])).toEqual([ALONE, ALONE]);
  });

  it("many wires of one port keep the fan narrow", () => {
    const fans = fanOut(Array(9).fill("p"), Array.from({ length: 9 }, (_, i) => ({ x: i * 100, y: 300 })));
    const xs = fans.map((f) => fanStart({ x: 0, y: 0 }, f).x);
    expect(Math.max(...xs) - Math.min(...xs)).toBeLessThanOrEqual(48);
  });
});
