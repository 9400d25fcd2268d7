// Issue 18's pure parts: the camera following the work, quick-add's layers before functions,
// the keys the canvas keeps from the host, the wire a press picks.
import { describe, expect, it } from "vitest";
import { kernelLayer } from "./kernel";
import { cameraAt, keepInView } from "../src/scene/camera";
import { isFunction, offerKind, rank } from "../src/interaction/quickadd";
import { hostKey, keyCommand } from "../src/interaction/keys";
import { pickEdge } from "../src/interaction/pointer";

const stage = { width: 800, height: 500 };

describe("the view follows the work", () => {
  it("leaves the view alone when the box is in view", () => {
    const view = { x: 0, y: 0, k: 1 };
    expect(keepInView(view, { x: 100, y: 100, w: 180, h: 60 }, stage)).toBe(view);
  });

  it("pans the least that brings a box in, keeping the scale", () => {
    const v = keepInView({ x: 0, y: 0, k: 1 }, { x: 1000, y: 900, w: 180, h: 60 }, stage, 40);
    expect(v.k).toBe(1);
    // the box's right and bottom edges land on the margin
    expect(1000 + 180 + v.x).toBe(800 - 40);
    expect(900 + 60 + v.y).toBe(500 - 40);
    const left = keepInView({ x: 0, y: 0, k: 2 }, { x: -300, y: 10, w: 100, h: 50 }, stage, 40);
    expect(-300 * 2 + left.x).toBe(40);
  });

  it("zooms out, centred, for a rectangle bigger than the view", () => {
    const v = keepInView({ x: 0, y: 0, k: 1 }, { x: 0, y: 0, w: 2000, h: 400 }, stage, 40);
    expect(v.k).toBeCloseTo(720 / 2000);
    expect(v.x + 1000 * v.k).toBeCloseTo(400);
  });

  it("glides: starts where it was, ends where it goes, in between on the way", () => {
    const a = { x: 0, y: 0, k: 1 }, b = { x: -400, y: -200, k: 1 };
    expect(cameraAt(a, b, 0)).toEqual(a);
    expect(cameraAt(a, b, 1)).toEqual(b);
    const mid = cameraAt(a, b, 0.5);
    expect(mid.x).toBeLessThan(0);
    expect(mid.x).toBeGreaterThan(-400);
    const zoom = cameraAt({ x: 0, y: 0, k: 1 }, { x: 0, y: 0, k: 4 }, 0.5);
    expect(zoom.k).toBeGreaterThan(1);
    expect(zoom.k).toBeLessThan(4);
  });
});

describe("quick-add: layers before keras.ops functions", () => {
  const entries = [{ class_name: "add", group: "ops" }, { class_name: "Add", group: "merging" },
    { class_name: "abs", group: "ops" }, { class_name: "Dense", group: "core" }, { class_name: "AdditiveAttention", group: "attention" }];

  it("'Add' ranks the Add layer first, then the function", () => {
    expect(rank(entries, "Add").map((e) => e.class_name).slice(0, 2)).toEqual(["Add", "add"]);
    expect(rank(entries, "add").map((e) => e.class_name).slice(0, 2)).toEqual(["Add", "add"]);
  });

  it("with nothing typed, layers come first", () => {
    const ranked = rank(entries, "");
    const firstFunction = ranked.findIndex(isFunction);
    expect(ranked.slice(firstFunction).every(isFunction)).toBe(true);
    expect(firstFunction).toBe(3);
  });

  it("says what each entry is", () => {
    expect(offerKind({ class_name: "Add", group: "merging" })).toBe("layer · merging");
    expect(offerKind({ class_name: "add", group: "ops" })).toBe("function · keras.ops");
    expect(offerKind({ class_name: "Custom" })).toBe("layer");
  });
});

describe("keys the canvas keeps", () => {
  const nowhere = { port: null, toggle: null, edge: null, box: null, field: false };
  const idle = { selected: [], edge: null, clipboard: 0, pointerInside: true };
  const press = (key: string, over = {}) => ({ key, ctrl: false, shift: false, alt: false, ...over });

  it("JupyterLab's command-mode keys stay with the canvas; Shift+Enter and Ctrl+S go on", () => {
    for (const key of ["a", "b", "x", "c", "v", "d", "m", "y", "1", "Enter", "ArrowDown"]) expect(hostKey(press(key), false)).toBe(true);
    expect(hostKey(press("Enter", { shift: true }), false)).toBe(false);
    expect(hostKey(press("s", { ctrl: true }), false)).toBe(false);
    expect(hostKey(press("a"), true)).toBe(false); // typing in a field
  });

  it("Tab and Shift+A open quick-add after a click on the drawing", () => {
    expect(keyCommand(press("Tab"), nowhere, idle)).toEqual({ kind: "quick-add" });
    expect(keyCommand(press("A", { shift: true }), nowhere, idle)).toEqual({ kind: "quick-add" });
  });

  it("arrows move the selected boxes, or else the view", () => {
    expect(keyCommand(press("ArrowRight"), nowhere, { ...idle, selected: ["a"] })).toEqual({ kind: "nudge", dx: 10, dy: 0 });
    expect(keyCommand(press("ArrowUp", { shift: true }), nowhere, { ...idle, selected: ["a"] })).toEqual({ kind: "nudge", dx: 0, dy: -50 });
    expect(keyCommand(press("ArrowDown"), nowhere, idle)).toEqual({ kind: "pan", dx: 0, dy: -60 });
  });
});

describe("a press on a wire", () => {
  it("picks the wire drawn nearest the pointer, not the one on top", () => {
    const routes = [[{ x: 0, y: 0 }, { x: 0, y: 100 }], [{ x: 6, y: 0 }, { x: 6, y: 100 }], null];
    expect(pickEdge(routes, { x: 5, y: 50 }, 1, 0)).toBe(1);
    expect(pickEdge(routes, { x: 1, y: 50 }, 1, 1)).toBe(0);
    expect(pickEdge(routes, { x: 200, y: 50 }, 1, 1)).toBe(1); // nothing near: the one pressed
  });
});

describe("the minimap of a tall model", () => {
  it("is taller and narrower, not a thin strip", async () => {
    const { miniSize } = await import("../src/scene/minimap");
    const tall = miniSize({ w: 260, h: 5000 }, 280, 312);
    expect(tall.height).toBe(312);
    expect(tall.width).toBeGreaterThanOrEqual(70);
    const usual = miniSize({ w: 1400, h: 1000 }, 280, 312);
    expect(usual).toEqual({ width: 140, height: 100 });
    const wide = miniSize({ w: 5000, h: 200 }, 280, 312);
    expect(wide.width).toBe(280);
  });

  it("never draws its viewport rectangle outside itself", async () => {
    const { clampedViewport } = await import("../src/scene/minimap");
    const frame = { x: 0, y: 0, width: 200, height: 1000 };
    expect(clampedViewport({ x: 10, y: 10, width: 50, height: 50 }, frame)).toEqual({ x: 10, y: 10, width: 50, height: 50 });
    const off = clampedViewport({ x: 500, y: -900, width: 300, height: 200 }, frame);
    expect(off.x).toBeGreaterThanOrEqual(0);
    expect(off.x + off.width).toBeLessThanOrEqual(200);
    expect(off.y).toBeGreaterThanOrEqual(0);
    expect(off.y + off.height).toBeLessThanOrEqual(1000);
    const big = clampedViewport({ x: -100, y: -100, width: 1000, height: 5000 }, frame);
    expect(big).toEqual(frame);
  });
});

describe("a refusal's details", () => {
  it("are kept whole on the stage, near its bottom too", async () => {
    const { toastSpot } = await import("../src/panels/toast");
    const stage = { width: 800, height: 500 };
    const spot = toastSpot({ x: 100, y: 480 }, stage, { w: 400, h: 220 });
    expect(spot.y + 220).toBeLessThanOrEqual(500);
    expect(spot.x + 400).toBeLessThanOrEqual(800);
  });
});

describe("what the view follows", () => {
  it("a deleted box's neighbours; a folded layer's run box", async () => {
    const { neighbours } = await import("../src/scene/edges");
    const e = (a: string, b: string) => ({ src: [a, 0, 0] as [string, number, number], dst: [b, 0, 0] as [string, number, number], shape: null, dtype: null, built: true });
    expect(neighbours([e("x", "a"), e("a", "b"), e("x", "b")], "a").sort()).toEqual(["b", "x"]);
    const { workRect } = await import("../src/scene/camera");
    const layer = (name: string, y: number, over = {}) => kernelLayer({ name, class_name: "Dense", group: "core", config: {}, is_input: false, x: 0, y,
      pinned: false, slots: { kind: "single" as const, names: ["inputs"], min: 1, max: 1 }, n_outputs: 1, calls: [], params: 0, depth: 0,
      problems: [], inner_layers: null, expanded: false, inner: null, ...over });
    const layers = [layer("a", 0), layer("b", 100), layer("c", 200)];
    expect(workRect(layers, ["b", "c"])).toEqual({ x: 0, y: 100, w: 180, h: 162 });
    expect(workRect(layers, ["zzz"])).toBeNull();
  });
});

describe("wires that would share a stretch", () => {
  it("run apart: a port's wires turn at different heights and take lanes of their own", async () => {
    const { route } = await import("../src/scene/router");
    // a box right under the port: both wires detour around it to boxes further down
    const a = { x: 90, y: 62 };
    const wall = [{ x: 0, y: 100, w: 180, h: 62 }];
    const one = route(a, { x: 90, y: 300 }, wall, 0, [], { out: 0, in: 0 }).points;
    const two = route(a, { x: 60, y: 300 }, wall, 1, [], { out: 1, in: 0 }).points;
    expect(one.length).toBeGreaterThan(2);
    expect(two.length).toBeGreaterThan(2);
    expect(one[1].y).not.toBe(two[1].y);   // the turn out of the port
    expect(one[2].x).not.toBe(two[2].x);   // the lane beside the box
    const into = route({ x: 400, y: 0 }, { x: 90, y: 300 }, wall, 2, [], { out: 0, in: 1 }).points;
    expect(into[into.length - 2].y).not.toBe(one[one.length - 2].y); // into one box: apart too
  });
});

describe("a wire as hit tests see it", () => {
  it("follows the rounded corners drawn, not the corner they round", async () => {
    const { roundedPoints } = await import("../src/scene/router");
    const pts = roundedPoints([{ x: 0, y: 0 }, { x: 0, y: 40 }, { x: 100, y: 40 }]);
    expect(pts[0]).toEqual({ x: 0, y: 0 });
    expect(pts[pts.length - 1]).toEqual({ x: 100, y: 40 });
    expect(pts).not.toContainEqual({ x: 0, y: 40 }); // the corner itself is not on the drawn wire
    expect(pts[1]).toEqual({ x: 0, y: 32 });
  });
});

describe("the view follows the keyboard focus", () => {
  it("a box off screen is brought to the middle, one in view leaves the view alone", async () => {
    const { revealView } = await import("../src/interaction/focus");
    const layer = kernelLayer({ name: "a", class_name: "Dense", group: "core", config: {}, is_input: false, x: 1000, y: 1000,
      pinned: false, slots: { kind: "single" as const, names: ["inputs"], min: 1, max: 1 }, n_outputs: 1, calls: [], params: 0,
      depth: 0, problems: [], inner_layers: null, expanded: false, inner: null });
    const view = { x: 0, y: 0, k: 1 };
    const moved = revealView(view, layer, { width: 800, height: 500 });
    expect(moved.x + 1090 * moved.k).toBe(400);
    expect(moved.y + 1031 * moved.k).toBe(250);
    expect(revealView(view, { ...layer, x: 10, y: 10 }, { width: 800, height: 500 })).toBe(view);
  });
});
