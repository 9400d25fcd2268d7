import { describe, expect, it } from "vitest";
import { connectIntent, dropRewire, dropWire, insertIntent, keyIntent } from "../src/interaction/gestures";
import { boxAt, portAt, ports } from "../src/mirror/geometry";
import type { EdgeState, LayerState } from "../src/mirror/types";
import { type Drawn, kernelLayer } from "./kernel";

function layer(over: Partial<Drawn>, edges: EdgeState[] = []): LayerState {
  return kernelLayer({ name: "dense", class_name: "Dense", group: "core", config: {}, is_input: false, x: 0, y: 0, pinned: false,
    slots: { kind: "single", names: ["inputs"], min: 1, max: 1 }, n_outputs: 1,
    calls: [{ index: 0, built: true, output_shapes: [[null, 4]], missing: null }], params: 20, depth: 0, problems: [],
    inner_layers: null, expanded: false, inner: null, ...over }, edges);
}

// x at the top, an LSTM with 3 outputs (output, h, c) and two calls, MultiHeadAttention
// (query, value, key), an Add (a list slot), a Dense far to the right
const x = layer({ name: "x", class_name: "InputLayer", is_input: true, slots: { kind: "none", names: [], min: 0, max: 0 }, x: 0, y: 0 });
const lstm = layer({ name: "lstm", x: 0, y: 200, n_outputs: 3, calls: [
  { index: 0, built: true, output_shapes: null, missing: null }, { index: 1, built: true, output_shapes: null, missing: null }] });
const mha = layer({ name: "mha", x: 300, y: 400, slots: { kind: "args", names: ["query", "value", "key"], min: 2, max: 3 } });
const add = layer({ name: "add", x: 0, y: 600, slots: { kind: "list", names: ["inputs"], min: 2, max: null } });
const far = layer({ name: "far", x: 1000, y: 400 });
const layers = [x, lstm, mha, add, far];
const edge = (src: [string, number, number], dst: [string, number, number]): EdgeState => ({ src, dst, shape: [null, 4], dtype: "float32", built: true });
const edges = [edge(["x", 0, 0], ["lstm", 0, 0]), edge(["lstm", 0, 0], ["add", 0, 0])];
const all = layers.flatMap((l) => ports(l, edges));
const port = (key: string) => all.find((p) => p.key === key)!;

describe("hit testing", () => {
  it("finds the port within its radius, the nearest first, and none beyond", () => {
    const q = port("in:mha:0:1");
    expect(portAt(all, { x: q.at.x + 3, y: q.at.y - 2 })?.key).toBe("in:mha:0:1");
    expect(portAt(all, { x: q.at.x, y: q.at.y - 40 })).toBeNull();
  });

  it("finds the box under a point, the later box when two overlap", () => {
    expect(boxAt(layers, { x: 310, y: 420 })?.name).toBe("mha");
    expect(boxAt(layers, { x: 700, y: 100 })).toBeNull();
    const over = layer({ name: "over", x: 280, y: 410 });
    expect(boxAt([...layers, over], { x: 310, y: 420 })?.name).toBe("over");
  });
});

describe("a wire dragged from an output port", () => {
  it("dropped on a slot connects with that output's node and tensor index and the slot's call and index", () => {
    const from = port("out:lstm:1:2"); // call 1's third output (c)
    const to = port("in:mha:0:1");     // value
    const out = dropWire(from, { x: to.at.x + 5, y: to.at.y + 5 }, all, layers, edges);
    expect(out).toEqual({ intent: { kind: "connect", src: ["lstm", 1, 2], dst: ["mha", 0, 1] }, at: to.at });
  });

  it("into a merge layer's list appends (slot null)", () => {
    const to = port("in:add:0:1");
    expect(connectIntent(port("out:lstm:0:1"), to, layers)).toEqual({ kind: "connect", src: ["lstm", 0, 1], dst: ["add", 0, null] });
  });

  it("dropped on a box takes its first free slot", () => {
    const out = dropWire(port("out:lstm:0:0"), { x: mha.x + 90, y: mha.y + 40 }, all, layers, edges);
    expect(out).toEqual({ intent: { kind: "connect", src: ["lstm", 0, 0], dst: ["mha", 0, 0] }, at: port("in:mha:0:0").at });
  });

  it("dropped on a box with no free slot, or back on its own box, does nothing", () => {
    expect(dropWire(port("out:x:0:0"), { x: lstm.x + 90, y: lstm.y + 30 }, all, layers, [...edges,
      edge(["x", 0, 0], ["lstm", 1, 0])])).toBeNull();
    expect(dropWire(port("out:mha:0:0"), { x: mha.x + 90, y: mha.y + 30 }, all, layers, edges)).toBeNull();
  });

  it("let go in empty space asks for a layer to put there; near where it started, nothing", () => {
    const from = port("out:far:0:0");
    expect(dropWire(from, { x: from.at.x + 150, y: from.at.y + 150 }, all, layers, edges)).toEqual({ search: from });
    expect(dropWire(from, { x: from.at.x + 5, y: from.at.y + 12 }, all, layers, edges)).toBeNull();
  });
});

describe("a wire dragged off a filled slot", () => {
  const e = edges[0];
  const from = port("in:lstm:0:0");

  it("onto another slot re-wires it there", () => {
    const to = port("in:mha:0:2"); // key
    expect(dropRewire(e, from, to.at, all, layers)).toEqual(
      { intent: { kind: "rewire", src: ["x", 0, 0], old: ["lstm", 0, 0], new: ["mha", 0, 2] }, at: to.at });
  });

  it("away from any slot unplugs it; back onto its own slot does nothing", () => {
    expect(dropRewire(e, from, { x: 700, y: 50 }, all, layers)).toEqual(
      { intent: { kind: "rewire", src: ["x", 0, 0], old: ["lstm", 0, 0], new: null }, at: from.at });
    expect(dropRewire(e, from, { x: from.at.x + 2, y: from.at.y }, all, layers)).toBeNull();
  });
});

describe("keys", () => {
  const k = (key: string, ctrl = false, shift = false) => ({ key, ctrl, shift });

  it("Delete removes the selected boxes (Shift keeps the chain joined), else the selected edge", () => {
    expect(keyIntent(k("Delete"), ["lstm", "add"], null)).toEqual({ kind: "remove", names: ["lstm", "add"] });
    expect(keyIntent(k("Delete", false, true), ["lstm"], edges[0])).toEqual({ kind: "remove", names: ["lstm"], bridge: true });
    expect(keyIntent(k("Backspace"), [], edges[1])).toEqual({ kind: "disconnect", src: ["lstm", 0, 0], dst: ["add", 0, 0] });
    expect(keyIntent(k("Delete"), [], null)).toBeNull();
  });

  it("Ctrl+Z undoes, Ctrl+Shift+Z and Ctrl+Y redo; other keys are no edit", () => {
    expect(keyIntent(k("z", true), [], null)).toEqual({ kind: "undo" });
    expect(keyIntent(k("Z", true, true), [], null)).toEqual({ kind: "redo" });
    expect(keyIntent(k("y", true), [], null)).toEqual({ kind: "redo" });
    expect(keyIntent(k("z"), ["lstm"], null)).toBeNull();
  });
});

describe("a palette entry dropped on a wire", () => {
  it("inserts the layer into that edge, centred on the wire where it was dropped", () => {
    const route = [{ x: 100, y: 0 }, { x: 100, y: 400 }];
    expect(insertIntent("Dropout", edges[1], route, { x: 130, y: 200 })).toEqual(
      { kind: "insert_layer", class_name: "Dropout", src: ["lstm", 0, 0], dst: ["add", 0, 0], x: 10, y: 169 });
  });
});
