import { describe, expect, it } from "vitest";
import { boxAt, boxHeight, boxWidth, boxesIn, bounds, edgePath, fitText, fitView, fitsIn, inLabel, outLabel, portAt, ports, portKey, rectFrom, slotKey, sourceKey, toScreen, toWorld, zoomAt } from "../src/mirror/geometry";
import type { EdgeState, LayerState } from "../src/mirror/types";
import { type Drawn, kernelLayer } from "./kernel";

function layer(over: Partial<Drawn>, edges: EdgeState[] = []): LayerState {
  return kernelLayer({ name: "dense", class_name: "Dense", group: "core", config: {}, is_input: false, x: 0, y: 0, pinned: false,
    slots: { kind: "single", names: ["inputs"], min: 1, max: 1 }, n_outputs: 1,
    calls: [{ index: 0, built: true, output_shapes: [[null, 4]], missing: null }], params: 20, depth: 0, problems: [],
    inner_layers: null, expanded: false, inner: null, ...over }, edges);
}

describe("ports", () => {
  it("names ports by the accessibility contract", () => {
    expect(inLabel("dense_1", 0, 1)).toBe("dense_1 in 0.1");
    expect(outLabel("lstm", 2, 1)).toBe("lstm out 2.1");
  });

  it("gives a multi-output layer one output port per tensor_index and call", () => {
    const lstm = layer({ name: "lstm", n_outputs: 3, calls: [{ index: 0, built: true, output_shapes: null, missing: null }, { index: 1, built: false, output_shapes: null, missing: "x" }] });
    const outs = ports(lstm, []).filter((p) => p.kind === "out").map((p) => p.label);
    expect(outs).toEqual(["lstm out 0.0", "lstm out 0.1", "lstm out 0.2", "lstm out 1.0", "lstm out 1.1", "lstm out 1.2"]);
  });

  it("offers a merge layer one free slot after its filled ones", () => {
    const add = layer({ name: "add", slots: { kind: "list", names: [], min: 2, max: null } });
    const edge: EdgeState = { src: ["a", 0, 0], dst: ["add", 0, 0], shape: [null, 4], dtype: "float32", built: true };
    const ins = (l: LayerState) => ports(l).filter((p) => p.kind === "in").map((p) => p.label);
    expect(ins(add)).toEqual(["add in 0.0", "add in 0.1"]);
    const two = [edge, { ...edge, dst: ["add", 0, 1] as [string, number, number] }];
    expect(ins(layer({ name: "add", slots: add.slots }, two))).toEqual(["add in 0.0", "add in 0.1", "add in 0.2"]);
    expect(ins(layer({ name: "add", slots: { kind: "list", names: [], min: 2, max: 2 } }, two))).toHaveLength(2);
  });

  it("puts no input slot on an Input and three on MultiHeadAttention", () => {
    expect(ports(layer({ is_input: true, slots: { kind: "none", names: [], min: 0, max: 0 } }), []).filter((p) => p.kind === "in")).toEqual([]);
    const mha = layer({ name: "mha", slots: { kind: "args", names: ["query", "value", "key"], min: 2, max: 3 } });
    expect(ports(mha, []).filter((p) => p.kind === "in")).toHaveLength(3);
  });

  it("places inputs on the top edge and outputs on the bottom edge", () => {
    const l = layer({ x: 100, y: 50 });
    const [inp, out] = ports(l, []);
    expect(inp.at).toEqual({ x: 100 + boxWidth(l) / 2, y: 50 });
    expect(out.at).toEqual({ x: 100 + boxWidth(l) / 2, y: 50 + boxHeight(l) });
  });
});

describe("hit tests", () => {
  it("finds the nearest port within the radius and the topmost box", () => {
    const l = layer({ x: 0, y: 0 });
    const ps = ports(l, []);
    expect(portAt(ps, { x: boxWidth(l) / 2 + 3, y: 2 })?.kind).toBe("in");
    expect(portAt(ps, { x: 5, y: 200 })).toBeNull();
    expect(boxAt([l], { x: 10, y: 10 })?.name).toBe("dense");
    expect(boxAt([l], { x: -1, y: 10 })).toBeNull();
  });

  it("finds the box drawn last where boxes overlap", () => {
    const a = layer({ name: "a", x: 0, y: 0 }), b = layer({ name: "b", x: 50, y: 10 });
    expect(boxAt([a, b], { x: 60, y: 20 })?.name).toBe("b");
    expect(boxAt([b, a], { x: 60, y: 20 })?.name).toBe("a");
  });

  it("selects the boxes a dragged rectangle touches, whichever corner it starts from", () => {
    const ls = [layer({ name: "a", x: 0, y: 0 }), layer({ name: "b", x: 400, y: 0 }), layer({ name: "c", x: 0, y: 400 })];
    expect(rectFrom({ x: 10, y: 30 }, { x: 0, y: 0 })).toEqual({ x: 0, y: 0, w: 10, h: 30 });
    expect(boxesIn(ls, rectFrom({ x: 450, y: 20 }, { x: 100, y: 5 }))).toEqual(["a", "b"]);
    expect(boxesIn(ls, rectFrom({ x: 300, y: 100 }, { x: 350, y: 300 }))).toEqual([]);
  });
});

describe("minimap", () => {
  it("is needed only when some box is off screen", () => {
    const ls = [layer({ x: 0, y: 0 }), layer({ name: "b", x: 1000, y: 0 })];
    const b = bounds(ls);
    expect(fitsIn(b, { x: 0, y: 0, k: 1 }, 2000, 500)).toBe(true);
    expect(fitsIn(b, { x: 0, y: 0, k: 1 }, 800, 500)).toBe(false);
    expect(fitsIn(b, { x: 0, y: 0, k: 0.5 }, 800, 500)).toBe(true);
    expect(fitsIn(b, { x: -20, y: 0, k: 1 }, 2000, 500)).toBe(false);
    expect(fitsIn(bounds([]), { x: 0, y: 0, k: 1 }, 10, 10)).toBe(true);
  });
});

describe("view", () => {
  it("round-trips screen and world coordinates and zooms about the pointer", () => {
    const v = { x: 30, y: -10, k: 2 };
    const p = { x: 17, y: 41 };
    expect(toScreen(v, toWorld(v, p))).toEqual(p);
    const z = zoomAt(v, p, 1.5);
    expect(z.k).toBe(3);
    const a = toWorld(v, p), b = toWorld(z, p);
    expect(b.x).toBeCloseTo(a.x);
    expect(b.y).toBeCloseTo(a.y);
  });

  it("fits every box into the area", () => {
    const ls = [layer({ x: 0, y: 0 }), layer({ name: "b", x: 1000, y: 2000 })];
    const v = fitView(ls, 400, 300);
    for (const l of ls) {
      const s = toScreen(v, { x: l.x, y: l.y });
      expect(s.x).toBeGreaterThanOrEqual(0);
      expect(s.y).toBeGreaterThanOrEqual(0);
      expect(s.x).toBeLessThanOrEqual(400);
      expect(s.y).toBeLessThanOrEqual(300);
    }
  });

  it("draws edges as curves between the two points", () => {
    expect(edgePath({ x: 0, y: 0 }, { x: 10, y: 100 })).toMatch(/^M0,0 C.* 10,100$/);
  });
});

describe("box texts", () => {
  it("keeps short texts, squeezes a little longer ones and cuts long ones", () => {
    expect(fitText("dense", 7, 164)).toEqual({ text: "dense", squeeze: false, cut: false });
    expect(fitText("<img src=x onerror=alert(1)>", 7, 164)).toEqual({ text: "<img src=x onerror=alert(1)>", squeeze: true, cut: false });
    const cut = fitText("x".repeat(100), 7, 164);
    expect(cut.cut).toBe(true);
    expect(cut.text.endsWith("…")).toBe(true);
    expect(cut.text.length).toBeLessThanOrEqual(31);
  });
});

describe("nested models", () => {
  const inner = { layers: [{ name: "a", class_name: "InputLayer", x: 12, y: 48, w: 130, h: 36, nested: false, output: false, shape: [null, 3] }],
    edges: [] as [string, string][], width: 400, height: 150 };

  it("grows an expanded box to its inside and spreads its ports over the new width", () => {
    const model = layer({ name: "inner", class_name: "Functional", inner_layers: 3, expanded: true, inner, n_outputs: 3 });
    expect(boxWidth(model)).toBe(400);
    expect(boxHeight(model)).toBe(150);
    const outs = ports(model, []).filter((p) => p.kind === "out");
    expect(outs.map((p) => p.at)).toEqual([{ x: 100, y: 150 }, { x: 200, y: 150 }, { x: 300, y: 150 }]);
    expect(boxAt([model], { x: 390, y: 140 })?.name).toBe("inner");
    expect(bounds([model])).toEqual({ x: 0, y: 0, w: 400, h: 150 });
  });

  it("keeps a collapsed one (or one whose inside is unknown) at the usual size", () => {
    const folded = layer({ class_name: "Functional", inner_layers: 3, expanded: false, inner });
    expect(boxWidth(folded)).toBe(boxWidth(layer({})));
    expect(boxHeight(folded)).toBe(boxHeight(layer({})));
    expect(boxWidth(layer({ expanded: true, inner: null }))).toBe(boxWidth(layer({})));
    expect(boxAt([folded], { x: 390, y: 40 })).toBeNull();
  });
});

describe("box size and ports", () => {
  it("are the kernel's: drawn and hit where the state says, not worked out here", () => {
    const told = { ...layer({ x: 10, y: 20 }), w: 252, h: 110, ports: { in: [[0, 0, 30, 0]], out: [[0, 0, 200, 110]] } } as LayerState;
    expect([boxWidth(told), boxHeight(told)]).toEqual([252, 110]);
    expect(ports(told).map((p) => [p.key, p.at])).toEqual([["in:dense:0:0", { x: 40, y: 20 }], ["out:dense:0:0", { x: 210, y: 130 }]]);
    expect(boxAt([told], { x: 250, y: 120 })?.name).toBe("dense");
  });
});

describe("port keys", () => {
  it("are made one way for ports, edge ends and slots", () => {
    expect(portKey("in", "add", 0, 1)).toBe("in:add:0:1");
    expect(slotKey(["add", 0, 1])).toBe("in:add:0:1");
    expect(sourceKey(["lstm", 1, 2])).toBe("out:lstm:1:2");
    const l = layer({ name: "add", slots: { kind: "list", names: [], min: 2, max: null } });
    expect(ports(l).map((p) => p.key)).toEqual([slotKey(["add", 0, 0]), slotKey(["add", 0, 1]), sourceKey(["add", 0, 0])]);
  });
});
