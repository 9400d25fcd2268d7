// The edge router: skip connections and edges going up run around boxes, never behind them, and
// shape labels collide with no box and no other label.
import { describe, expect, it } from "vitest";
import { type Point, type Rect, edgePath, turnPath, turnRect } from "../src/mirror/geometry";
import { BoxIndex } from "../src/scene/obstacles";
import { placeLabels, polylineHits, route, routeFlowing, segmentHits, sideOf } from "../src/scene/router";

const W = 180, H = 62; // a plain box

function box(x: number, y: number, h = H, w = W): Rect {
  return { x, y, w, h };
}

/** Port spots of a box: the middle of its bottom (output) and top (input). */
const out = (r: Rect): Point => ({ x: r.x + r.w / 2, y: r.y + r.h });
const into = (r: Rect): Point => ({ x: r.x + r.w / 2, y: r.y });

/** The route's polyline, without the stubs inside its own ends' boxes, crosses none of `boxes`. */
function clear(points: Point[], boxes: Rect[]): boolean {
  return boxes.every((b) => !polylineHits(points, b));
}

function orthogonal(points: Point[]): boolean {
  return points.every((p, i) => i === 0 || p.x === points[i - 1].x || p.y === points[i - 1].y);
}

describe("router: skip connections", () => {
  it("a downward skip over a box goes around it and keeps its ends", () => {
    const src = box(0, 0), mid = box(0, 100), dst = box(0, 200);
    const r = route(out(src), into(dst), [mid], 0, [src, dst]);
    expect(clear(r.points, [mid])).toBe(true);
    expect(r.points[0]).toEqual(out(src));
    expect(r.points[r.points.length - 1]).toEqual(into(dst));
    expect(orthogonal(r.points)).toBe(true);
    expect(r.d).toContain("Q"); // rounded corners
  });

  it("a skip that must go wide turns below the taller boxes beside its source, not through them", () => {
    // the block input feeds an Add far below; a wide box (an expanded nested model) is in the way,
    // so the lane runs beyond it; boxes with two calls (taller) stand beside the source on both
    // sides and reach below the row where the skip turns
    const src = box(0, 0), add = box(0, 400);
    const tallL = box(-240, -20, 120), tallR = box(240, -20, 120);
    const mid = box(0, 150), wide = box(-400, 260, H, 880);
    const others = [tallL, tallR, mid, wide];
    const r = route(out(src), into(add), others, 0, [src, add]);
    expect(clear(r.points, others)).toBe(true);
    expect(orthogonal(r.points)).toBe(true);
  });

  it("a skip with boxes in its way on both sides takes the shorter side", () => {
    const src = box(0, 0), dst = box(0, 300);
    const left = box(-150, 120), right = box(60, 120); // right reaches less far past the line
    const r = route(out(src), into(dst), [left, right], 0, [src, dst]);
    expect(clear(r.points, [left, right])).toBe(true);
  });

  it("keeps the plain curve when nothing is in the way", () => {
    const src = box(0, 0), dst = box(0, 200);
    const r = route(out(src), into(dst), [box(400, 100)], 0, [src, dst]);
    expect(r.d.startsWith(`M${out(src).x},${out(src).y} C`)).toBe(true);
  });
});

describe("router: edges going up", () => {
  it("an edge to a box higher up leaves downward, runs beside every box and comes in from above", () => {
    const dst = box(0, 0), mid = box(0, 100), src = box(0, 200); // src's output feeds dst, above it
    const a = out(src), b = into(dst);
    const r = route(a, b, [mid], 0, [src, dst]);
    expect(clear(r.points.slice(1, -1), [mid, src, dst])).toBe(true);
    expect(clear(r.points, [mid])).toBe(true);
    expect(r.points[1].y).toBeGreaterThan(a.y); // out of the port downward
    expect(r.points[r.points.length - 2].y).toBeLessThan(b.y); // into the port from above
    expect(orthogonal(r.points)).toBe(true);
  });

  it("an edge between boxes side by side in one row runs behind neither", () => {
    const left = box(0, 0), right = box(260, 0);
    const r = route(out(left), into(right), [], 0, [left, right]);
    // only the stubs into the ports touch the boxes: the middle of the route crosses neither
    expect(clear(r.points.slice(1, -1), [left, right])).toBe(true);
  });

  it("lanes of different sources going up beside the same boxes are apart", () => {
    const dst = box(0, 0), src = box(0, 200);
    const a = route(out(src), into(dst), [], 0, [src, dst]);
    const b = route(out(src), into(dst), [], 1, [src, dst]);
    expect(a.points[2].x).not.toBe(b.points[2].x);
  });
});

describe("labels", () => {
  it("two labels at the same spot are placed apart", () => {
    // two edges crossing at (100, 100): both midpoints there
    const one = [{ x: 0, y: 0 }, { x: 200, y: 200 }];
    const two = [{ x: 200, y: 0 }, { x: 0, y: 200 }];
    const spots = placeLabels([one, two], [60, 60], []);
    expect(spots[0]).not.toBeNull();
    expect(spots[1]).not.toBeNull();
    const [p, q] = [spots[0]!.rect, spots[1]!.rect];
    expect(p.x + p.w <= q.x || q.x + q.w <= p.x || p.y + p.h <= q.y || q.y + q.h <= p.y).toBe(true);
  });

  it("a label beside a box goes to the other side of its edge rather than being left out", () => {
    // a short vertical edge with a box just right of it: the right side is taken all along
    const line = [{ x: 0, y: 0 }, { x: 0, y: 40 }];
    const spots = placeLabels([line], [60], [{ x: 2, y: -20, w: 200, h: 80 }]);
    expect(spots[0]).not.toBeNull();
    expect(spots[0]!.rect.x + spots[0]!.rect.w).toBeLessThanOrEqual(0);
  });

  it("a label keeps off other edges", () => {
    // a vertical edge, and a second one running down just right of it: the first label goes left
    const one = [{ x: 0, y: 0 }, { x: 0, y: 200 }];
    const two = [{ x: 30, y: 0 }, { x: 30, y: 200 }];
    const [a] = placeLabels([one, two], [60, 60], []);
    expect(a).not.toBeNull();
    expect(polylineHits(two, a!.rect)).toBe(false);
    expect(a!.rect.x + a!.rect.w).toBeLessThanOrEqual(0);
  });

  it("a label of an edge running across sits above it, not on it", () => {
    const across = [{ x: 0, y: 100 }, { x: 300, y: 100 }];
    const [a] = placeLabels([across], [60], []);
    expect(a!.rect.y + a!.rect.h).toBeLessThan(100);
    expect(a!.y).toBeLessThan(100); // the baseline too
  });
});

describe("router: every box in the way counts", () => {
  it("a detour beside a row of boxes clears the far ones too (not only those within 400 px)", async () => {
    const { BoxIndex } = await import("../src/scene/obstacles");
    // a row of boxes 10 px apart under the source: the lane must go past the whole row
    const src = box(0, 0), dst = box(0, 200);
    const rects = new Map<string, Rect>([["src", src], ["dst", dst]]);
    for (let i = -3; i <= 3; i++) rects.set(`row${i}`, box(i * 190, 100));
    const a = out(src), b = into(dst);
    const r = route(a, b, new BoxIndex(rects).obstacles(a, b, "src", "dst"), 0, [src, dst]);
    const row = [...rects].filter(([n]) => n.startsWith("row")).map(([, q]) => q);
    expect(clear(r.points, row)).toBe(true);
  });

  it("the index gives each edge only the boxes in its vertical span, at any distance to the side", async () => {
    const { BoxIndex } = await import("../src/scene/obstacles");
    const rects = new Map<string, Rect>();
    for (let i = 0; i < 2000; i++) rects.set(`b${i}`, box((i % 40) * 240, Math.floor(i / 40) * 100));
    const index = new BoxIndex(rects);
    const found = index.obstacles({ x: 90, y: 62 }, { x: 90, y: 300 }, "b0", "b120");
    const want = [...rects].filter(([n, q]) => n !== "b0" && n !== "b120" && q.y + q.h >= 62 && q.y <= 300);
    expect(found.length).toBe(want.length);
    expect(found.some((q) => q.x > 5000)).toBe(true);
  });
});

describe("a wire into a later call's slot, on its box's side", () => {
  const box = { x: 100, y: 100, w: 180, h: 78 };
  const slot = { x: 100, y: 164 }; // call 1's slot: the left side, at call 1's row

  it("its own output fed back (d(d(x))) comes in from beside the box, never over its top", () => {
    const out = { x: 160, y: 178 }; // call 0's output port, on the bottom edge
    const r = route(out, slot, [], 0, [box, box], undefined, box);
    expect(Math.min(...r.points.map((p) => p.y))).toBeGreaterThan(box.y + 16); // never near the top edge
    const [p, q] = r.points.slice(-2);
    expect(p.y).toBe(slot.y); // the last stretch runs level, at the call's row
    expect(p.x).toBeLessThan(box.x); // from outside the box
    expect(sideOf(slot, box)).toBe(-1);
    expect(q).toEqual(slot);
  });

  it("from a box above, it keeps clear of a box in the lane's way", () => {
    const src = { x: 100, y: 0, w: 180, h: 62 };
    const inWay = { x: 40, y: 90, w: 40, h: 50 }; // beside the box, above the slot's row
    const r = route({ x: 190, y: 62 }, slot, [inWay], 0, [src, box], undefined, box);
    const grown = { x: inWay.x - 10, y: inWay.y - 10, w: inWay.w + 20, h: inWay.h + 20 };
    for (let i = 1; i < r.points.length; i++) expect(segmentHits(r.points[i - 1], r.points[i], grown)).toBe(false);
    expect(r.points[r.points.length - 2].y).toBe(slot.y);
  });

  it("a slot on the top edge is routed as before", () => {
    expect(sideOf({ x: 190, y: 100 }, box)).toBe(0);
  });
});

describe("router: a drawing that flows left to right", () => {
  // ports on the right edge (outputs) and the left edge (inputs), boxes in columns
  const outR = (r: Rect): Point => ({ x: r.x + r.w, y: r.y + r.h / 2 });
  const intoL = (r: Rect): Point => ({ x: r.x, y: r.y + r.h / 2 });

  it("mirrors an SVG path's points and nothing else", () => {
    expect(turnPath("M1,2 C1,32 5.5,-4 5.5,20 L1e-3,7")).toBe("M2,1 C32,1 -4,5.5 20,5.5 L7,1e-3");
    expect(turnRect({ x: 1, y: 2, w: 3, h: 4 })).toEqual({ x: 2, y: 1, w: 4, h: 3 });
  });

  it("a plain edge leaves the right edge and comes into the left edge, level", () => {
    const src = box(0, 0), dst = box(290, 0);
    const r = routeFlowing("right", outR(src), intoL(dst), [], 0, [src, dst]);
    expect(r.points[0]).toEqual(outR(src));
    expect(r.points[r.points.length - 1]).toEqual(intoL(dst));
    expect(r.d.startsWith(`M${outR(src).x},${outR(src).y} C`)).toBe(true);
    // the curve leaves and arrives horizontally: its control points are level with its ends
    expect(r.d).toContain(`C${outR(src).x + 55},${outR(src).y}`);
  });

  it("a skip over a box between goes around it (above or below), never through it", () => {
    const src = box(0, 0), mid = box(290, 0), dst = box(580, 0);
    const r = routeFlowing("right", outR(src), intoL(dst), [mid], 0, [src, dst]);
    expect(clear(r.points, [mid])).toBe(true);
    expect(orthogonal(r.points)).toBe(true);
    expect(r.points[0]).toEqual(outR(src));
    expect(r.points[r.points.length - 1]).toEqual(intoL(dst));
  });

  it("the index gives an edge the boxes in its horizontal span, at any distance up or down", () => {
    const rects = new Map<string, Rect>([["a", box(0, 0)], ["far", box(290, 5000)], ["after", box(900, 0)], ["b", box(580, 0)]]);
    const found = new BoxIndex(rects, "right").obstacles(outR(rects.get("a")!), intoL(rects.get("b")!), "a", "b");
    expect(found).toEqual([rects.get("far")]);
  });

  it("the wire being drawn curves sideways", () => {
    expect(edgePath({ x: 0, y: 0 }, { x: 100, y: 40 }, "right")).toBe("M0,0 C50,0 50,40 100,40");
  });
});
