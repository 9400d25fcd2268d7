// The pure parts of the canvas's find bar, context menus, pointer gestures, toast and minimap.
import { describe, expect, it } from "vitest";
import { FindCursor, findLayers } from "../src/interaction/find";
import { blankMenu, boxMenu, edgeMenu, placeMenu, visibleArea } from "../src/interaction/menu";
import { classifyPress, doublePress, dragged, pressSelection } from "../src/interaction/pointer";
import { toastSpot } from "../src/panels/toast";
import { frozenText } from "../src/scene/boxes";
import { boxesKey, sameKey, viewportRect } from "../src/scene/minimap";
import type { Port } from "../src/mirror/geometry";
import type { EdgeState, LayerState } from "../src/mirror/types";
import { type Drawn, kernelLayer } from "./kernel";

function layer(over: Partial<Drawn>, edges: EdgeState[] = []): LayerState {
  return kernelLayer({ name: "dense", class_name: "Dense", group: "core", config: {}, is_input: false, x: 0, y: 0, pinned: false,
    slots: { kind: "single", names: ["inputs"], min: 1, max: 1 }, n_outputs: 1,
    calls: [{ index: 0, built: true, output_shapes: [[null, 4]], missing: null }], params: 20, depth: 0, problems: [],
    inner_layers: null, expanded: false, inner: null, ...over }, edges);
}

function edge(src: string, dst: string, slot = 0): EdgeState {
  return { src: [src, 0, 0], dst: [dst, 0, slot], shape: null, dtype: null, built: true };
}

function port(kind: "in" | "out", layerName: string, index = 0): Port {
  return { key: `${kind}:${layerName}:0:${index}`, kind, layer: layerName, call: 0, index, label: "", at: { x: 0, y: 0 } };
}

describe("find", () => {
  const layers = [layer({ name: "conv_head", class_name: "Conv2D" }), layer({ name: "dense" }), layer({ name: "dense_1" }),
    layer({ name: "head", class_name: "Dense" }), layer({ name: "x", class_name: "InputLayer", is_input: true })];

  it("ranks names: exact, prefix, word start, substring; class-name matches last", () => {
    expect(findLayers(layers, "head").map((l) => l.name)).toEqual(["head", "conv_head"]);
    expect(findLayers(layers, "dense").map((l) => l.name)).toEqual(["dense", "dense_1", "head"]);
    expect(findLayers(layers, "input").map((l) => l.name)).toEqual(["x"]);
  });

  it("finds nothing for a blank query or no match", () => {
    expect(findLayers(layers, "  ")).toEqual([]);
    expect(findLayers(layers, "zzz")).toEqual([]);
  });

  it("shows the first hit as the query changes, and each Enter the next, round", () => {
    const c = new FindCursor();
    const hits = ["a", "b", "c"];
    expect(c.pick(hits, false)).toBe("a");
    expect([c.pick(hits, true), c.pick(hits, true), c.pick(hits, true), c.pick(hits, true)]).toEqual(["a", "b", "c", "a"]);
    expect(c.pick(hits, false)).toBe("a");
    expect(c.pick([], true)).toBeUndefined();
  });
});

describe("context menus", () => {
  const labels = (entries: { label: string }[]) => entries.map((e) => e.label);

  it("a plain layer with one wire in: call again, rename, copy, delete, delete keeping the chain", () => {
    expect(labels(boxMenu(layer({}), [edge("x", "dense")]))).toEqual(["Call again (shared weights)", "Freeze (trainable = False)",
      "Freeze everything before this box", "Rename", "Copy", "Delete", "Delete, keep the chain joined (Shift+Del)"]);
  });

  it("an Input cannot be called again; a layer with two calls can lose its last; a nested model folds", () => {
    expect(labels(boxMenu(layer({ name: "x", is_input: true }), []))).toEqual(["Rename", "Copy", "Delete"]);
    const twice = layer({ calls: [layer({}).calls[0], { index: 1, built: false, output_shapes: null, missing: "inputs" }] });
    expect(boxMenu(twice, [edge("x", "dense")]).map((e) => e.action)).toEqual(["call-again", "remove-call", "freeze", "freeze-before", "rename", "copy", "delete"]);
    expect(labels(boxMenu(twice, []))[1]).toBe("Remove call 1");
    expect(labels(boxMenu(layer({ inner_layers: 3 }), []))).toContain("Expand (show its layers)");
    expect(labels(boxMenu(layer({ inner_layers: 3, expanded: true }), []))).toContain("Collapse");
  });

  it("freeze, unfreeze, both for a partly frozen nested model; freeze everything before a box with wires in (issue 41)", () => {
    const actions = (l: LayerState, e = [edge("x", "dense")]) => boxMenu(l, e).map((m) => m.action);
    expect(actions(layer({ trainable: "no" }))).toEqual(expect.arrayContaining(["unfreeze", "freeze-before"]));
    expect(actions(layer({ trainable: "no" }))).not.toContain("freeze");
    expect(actions(layer({ trainable: "partly", inner_layers: 3 }))).toEqual(expect.arrayContaining(["freeze", "unfreeze"]));
    expect(actions(layer({ trainable: "yes" }), [])).not.toContain("freeze-before");
    expect(labels(boxMenu(layer({ trainable: "no" }), []))).toContain("Unfreeze (trainable = True)");
  });

  it("a frozen box says so; a partly frozen nested model says how much trains", () => {
    expect(frozenText(layer({}))).toBeNull();
    expect(frozenText(layer({ trainable: "no" }))).toBe("frozen");
    expect(frozenText(layer({ trainable: "partly", params: 2_257_984, trainable_params: 307_200 })))
      .toBe("partly frozen (307.2k of 2.26M params trainable)");
  });

  it("a merge layer with two wires in is not offered the bridged delete", () => {
    expect(boxMenu(layer({ name: "add" }), [edge("a", "add", 0), edge("b", "add", 1)]).map((e) => e.action)).not.toContain("delete-bridged");
  });

  it("edges and empty space", () => {
    expect(edgeMenu().map((e) => e.action)).toEqual(["delete-edge", "insert-into-edge", "show-tensor"]);
    expect(blankMenu(false).map((e) => e.action)).toEqual(["add-here", "fit", "find"]);
    expect(blankMenu(true).map((e) => e.action)).toEqual(["add-here", "paste", "fit", "find"]);
  });

  it("runs of repeated blocks fold from a box's menu and all at once from empty space", () => {
    const run = [layer({ name: "b0", run: "b0" }), layer({ name: "b1", run: "b0" })];
    expect(boxMenu(run[1], []).map((e) => e.action)).toContain("fold");
    const folded = { copies: 2, layers: 1, last: "b1", classes: "Dense", members: 2, stack: 8 };
    expect(boxMenu(layer({ name: "b0", run: "b0", fold: folded }), []).map((e) => e.action)).toContain("unfold");
    expect(boxMenu(layer({}), []).map((e) => e.action)).not.toContain("fold");
    expect(blankMenu(false, run).map((e) => e.action)).toEqual(["add-here", "fit", "find", "fold-all"]);
    expect(blankMenu(false, [{ ...run[0], fold: folded }, run[1]]).map((e) => e.action)).toContain("unfold-all");
  });

  it("stays inside the part of the stage the window shows", () => {
    const area = visibleArea({ left: 100, top: 600, width: 800, height: 500 }, { width: 700, height: 900 });
    expect(area).toEqual({ w: 600, h: 300 });
    expect(visibleArea({ left: 0, top: 0, width: 800, height: 500 }, { width: 1200, height: 900 })).toEqual({ w: 800, h: 500 });
    // a menu opened near the cut-off bottom opens upwards, inside what is seen
    expect(placeMenu({ x: 50, y: 280 }, { w: 150, h: 120 }, area)).toEqual({ x: 50, y: 160 });
  });
});

describe("pointer presses", () => {
  const none = { port: null, toggle: null, edge: null, box: null };
  const box = layer({ name: "dense" });

  it("an output port starts a wire; a filled slot lifts its wire; an empty slot is a press on its box", () => {
    const out = port("out", "dense");
    expect(classifyPress({ ...none, port: out, box }, [], false)).toEqual({ kind: "wire", port: out });
    const slot = port("in", "dense");
    const e = edge("x", "dense");
    expect(classifyPress({ ...none, port: slot, box }, [e], false)).toEqual({ kind: "rewire", edge: e, port: slot });
    expect(classifyPress({ ...none, port: slot, box }, [], false)).toEqual({ kind: "box", box });
  });

  it("then the fold button, an edge, a box; empty space pans, or draws a band with Shift", () => {
    expect(classifyPress({ ...none, toggle: "inner", box }, [], false)).toEqual({ kind: "toggle", name: "inner" });
    expect(classifyPress({ ...none, edge: 3, box }, [], false)).toEqual({ kind: "edge", index: 3 });
    expect(classifyPress({ ...none, box }, [], true)).toEqual({ kind: "box", box });
    expect(classifyPress(none, [], false)).toEqual({ kind: "pan" });
    expect(classifyPress(none, [], true)).toEqual({ kind: "band" });
  });

  it("the selection follows a press: Shift toggles, a press on a selected box keeps the group", () => {
    const two = new Set(["a", "b"]);
    expect([...pressSelection(two, "c", false)]).toEqual(["c"]);
    expect(pressSelection(two, "a", false)).toBe(two);
    expect([...pressSelection(two, "a", true)]).toEqual(["b"]);
    expect([...pressSelection(two, "c", true)]).toEqual(["a", "b", "c"]);
    expect([...two]).toEqual(["a", "b"]); // not changed in place
  });

  it("a drag is more than 3 px; a double press is on the same box within 400 ms", () => {
    expect(dragged({ x: 0, y: 0 }, { x: 2, y: 1 })).toBe(false);
    expect(dragged({ x: 0, y: 0 }, { x: 2, y: 2 })).toBe(true);
    expect(doublePress({ name: "a", at: 1000 }, "a", 1300)).toBe(true);
    expect(doublePress({ name: "a", at: 1000 }, "a", 1400)).toBe(false);
    expect(doublePress({ name: "a", at: 1000 }, "b", 1100)).toBe(false);
    expect(doublePress(null, "a", 0)).toBe(false);
  });
});

describe("toast and minimap placement", () => {
  it("a refusal sits below-right of its spot, kept on the stage", () => {
    expect(toastSpot({ x: 100, y: 50 }, { width: 800, height: 500 })).toEqual({ x: 112, y: 62 });
    expect(toastSpot({ x: 790, y: 490 }, { width: 800, height: 500 })).toEqual({ x: 500, y: 440 });
    expect(toastSpot({ x: -50, y: -50 }, { width: 200, height: 40 })).toEqual({ x: 0, y: 0 });
  });

  it("the minimap's viewport is the world rectangle on screen; its boxes are redrawn only when one moved", () => {
    expect(viewportRect({ x: -200, y: 100, k: 2 }, { width: 800, height: 600 })).toEqual({ x: 100, y: -50, width: 400, height: 300 });
    const a = boxesKey([{ x: 0, y: 0, w: 180, h: 62 }, { x: 0, y: 102, w: 180, h: 62 }]);
    expect(sameKey(a, boxesKey([{ x: 0, y: 0, w: 180, h: 62 }, { x: 0, y: 102, w: 180, h: 62 }]))).toBe(true);
    expect(sameKey(a, boxesKey([{ x: 0, y: 0, w: 180, h: 62 }, { x: 1, y: 102, w: 180, h: 62 }]))).toBe(false);
    expect(sameKey(a, boxesKey([{ x: 0, y: 0, w: 180, h: 62 }]))).toBe(false);
  });
});
