// Label placement with a spatial grid gives exactly what the plain all-pairs search gave.
import { describe, expect, it } from "vitest";
import type { Point, Rect } from "../src/mirror/geometry";
import { RectGrid, along, labelSpots, placeLabels, polylineHits } from "../src/scene/router";

/** A small deterministic random source (tests must not flake). */
function random(seed: number): () => number {
  let s = seed >>> 0;
  return () => { s = (s * 1664525 + 1013904223) >>> 0; return s / 4294967296; };
}

function overlaps(a: Rect, b: Rect): boolean {
  return a.x < b.x + b.w && b.x < a.x + a.w && a.y < b.y + b.h && b.y < a.y + a.h;
}

function extent(points: Point[]): Rect {
  const xs = points.map((p) => p.x), ys = points.map((p) => p.y);
  const x = Math.min(...xs), y = Math.min(...ys);
  return { x, y, w: Math.max(...xs) - x, h: Math.max(...ys) - y };
}

/** The search as it was before the grid: every box, label and edge tried for every spot. */
function reference(routes: Point[][], widths: number[], boxes: Rect[], height = 12) {
  const placed: Rect[] = [];
  const ts = [0.5, 0.4, 0.6, 0.3, 0.7, 0.2, 0.8];
  const extents = routes.map(extent);
  const onAnEdge = (rect: Rect) => routes.some((pts, j) => overlaps(extents[j], rect) && polylineHits(pts, rect));
  return routes.map((pts, i) => {
    const w = widths[i];
    for (const t of ts) {
      const [p, q, r] = along(pts, [t, Math.max(0, t - 0.02), Math.min(1, t + 0.02)]);
      const across = Math.abs(r.x - q.x) > Math.abs(r.y - q.y);
      for (const at of labelSpots(p, across, w, height)) {
        const rect = { x: at.x, y: at.y, w, h: height };
        if (boxes.some((b) => overlaps(b, rect)) || placed.some((o) => overlaps(o, rect)) || onAnEdge(rect)) continue;
        placed.push(rect);
        return { x: rect.x, y: rect.y + height - 2, rect };
      }
    }
    return null;
  });
}

describe("RectGrid", () => {
  it("finds every rectangle that overlaps a query, as a scan of all would", () => {
    const rnd = random(7);
    const rects: Rect[] = [];
    const grid = new RectGrid(50);
    for (let i = 0; i < 300; i++) {
      const r = { x: rnd() * 2000 - 1000, y: rnd() * 2000 - 1000, w: rnd() < 0.05 ? 30000 : rnd() * 120, h: rnd() * 120 };
      rects.push(r);
      grid.add(r, i);
    }
    for (let n = 0; n < 300; n++) {
      const q = { x: rnd() * 2200 - 1100, y: rnd() * 2200 - 1100, w: rnd() * 200, h: rnd() * 200 };
      const found: number[] = [];
      grid.any(q, (i) => { if (overlaps(rects[i], q)) found.push(i); return false; });
      const all = rects.map((r, i) => (overlaps(r, q) ? i : -1)).filter((i) => i >= 0);
      expect(found.sort((a, b) => a - b)).toEqual(all);
    }
  });

  it("tries each rectangle once per query, and stops at the first hit", () => {
    const grid = new RectGrid(10);
    grid.add({ x: 0, y: 0, w: 100, h: 100 }, 0); // spans many cells
    const tried: number[] = [];
    expect(grid.any({ x: 5, y: 5, w: 50, h: 50 }, (i) => { tried.push(i); return false; })).toBe(false);
    expect(tried).toEqual([0]);
    expect(grid.any({ x: 5, y: 5, w: 1, h: 1 }, () => true)).toBe(true);
  });
});

describe("placeLabels with the grid", () => {
  it("places the same labels as the all-pairs search on a crowded drawing", () => {
    const rnd = random(11);
    const boxes: Rect[] = [];
    for (let i = 0; i < 120; i++) boxes.push({ x: (i % 6) * 260 + rnd() * 40, y: Math.floor(i / 6) * 102, w: 180, h: 62 });
    const routes: Point[][] = [];
    for (let i = 0; i < 200; i++) {
      const a = boxes[Math.floor(rnd() * boxes.length)], b = boxes[Math.floor(rnd() * boxes.length)];
      const p = { x: a.x + 90, y: a.y + 62 }, q = { x: b.x + 90, y: b.y };
      routes.push(rnd() < 0.5 ? [p, q] : [p, { x: p.x, y: (p.y + q.y) / 2 }, { x: q.x, y: (p.y + q.y) / 2 }, q]);
    }
    const widths = routes.map(() => 30 + Math.floor(rnd() * 60));
    const got = placeLabels(routes, widths, boxes);
    expect(got).toEqual(reference(routes, widths, boxes));
    expect(got.filter((s) => s !== null).length).toBeGreaterThan(20);
  });
});

describe("a label and its own wire", () => {
  it("never sits on its own line where it bends or slants", () => {
    const slant = [{ x: 0, y: 0 }, { x: 40, y: 100 }];
    const bend = [{ x: 0, y: 0 }, { x: 0, y: 50 }, { x: 100, y: 50 }, { x: 100, y: 100 }];
    const spots = placeLabels([slant, bend], [60, 60], []);
    spots.forEach((spot, i) => {
      expect(spot).not.toBeNull();
      expect(polylineHits([slant, bend][i], spot!.rect)).toBe(false);
    });
  });
});
