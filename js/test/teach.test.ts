// Keras's walk, the forward pass, outputs and the node view: the pure parts of the teaching views.
import { describe, expect, it } from "vitest";
import { type DepthStep, type ForwardStep, forwardAt, forwardStepText, walkAt, walkStepText } from "../src/teaching/walk";
import { playerKey, playerTitle, shownAt } from "../src/teaching/teach";
import { boxStatus, nodeBadge } from "../src/teaching/walkdraw";
import { moveOutput, outputsIntent, renameKey, toggleOutput, withKeys } from "../src/teaching/outputs";
import { NODE_H, NODE_W, type NodeGraph, layoutNodes, openingView, overlaps, placeLabel, tensorEdges, tensorLabel, zoomAt } from "../src/teaching/nodeview";

// inp -> A, inp2 -> A (call 1), A -> B -> C; outputs (A,1,0), (C,0,0): as the kernel sends it
const WALK: DepthStep[] = [
  { kind: "start", output: 0, port: ["A", 1, 0], key: null },
  { kind: "enter", node: ["A", 1] }, { kind: "enter", node: ["inp2", 0] }, { kind: "finish", node: ["inp2", 0] },
  { kind: "finish", node: ["A", 1] },
  { kind: "start", output: 1, port: ["C", 0, 0], key: null },
  { kind: "enter", node: ["C", 0] }, { kind: "enter", node: ["B", 0] }, { kind: "enter", node: ["A", 0] },
  { kind: "enter", node: ["inp", 0] }, { kind: "finish", node: ["inp", 0] }, { kind: "finish", node: ["A", 0] },
  { kind: "finish", node: ["B", 0] }, { kind: "finish", node: ["C", 0] },
  { kind: "depth", node: ["C", 0], depth: 0, reason: "depth 0 = max(0: no node consumes it)", consumers: [], layer_so_far: null },
  { kind: "depth", node: ["B", 0], depth: 1, reason: "depth 1 = max(depth of C node 0 + 1 = 1)", consumers: [[["C", 0], 1]], layer_so_far: null },
  { kind: "depth", node: ["A", 0], depth: 2, reason: "depth 2 = max(depth of B node 0 + 1 = 2)", consumers: [[["B", 0], 2]], layer_so_far: null },
  { kind: "depth", node: ["A", 1], depth: 2, reason: "depth 2 = max(0, depth of layer A so far = 2)", consumers: [], layer_so_far: 2 },
  { kind: "nodes_by_depth", map: { 0: [["C", 0]] } },
];

describe("Keras's walk, replayed", () => {
  it("keeps the stack of calls in progress and marks them finished", () => {
    const at = walkAt(WALK, 8); // C, B, A0 entered
    expect(at.stack).toEqual([["C", 0], ["B", 0], ["A", 0]]);
    expect(at.status.get("C:0")).toBe("progress");
    expect(at.status.get("A:1")).toBe("finished");
    expect(at.output).toEqual({ index: 1, port: ["C", 0, 0], key: null });
    expect(at.current).toEqual(["A", 0]);
    const done = walkAt(WALK, 13);
    expect(done.stack).toEqual([]);
    expect([...done.status.values()].every((s) => s === "finished")).toBe(true);
  });

  it("reveals each depth with its reason", () => {
    const at = walkAt(WALK, WALK.length - 2);
    expect(at.depths.get("A:1")).toEqual({ depth: 2, reason: "depth 2 = max(0, depth of layer A so far = 2)" });
    expect(walkAt(WALK, 15).depths.has("A:1")).toBe(false);
    expect(walkStepText(WALK[17])).toBe("A node 1: depth 2 = max(0, depth of layer A so far = 2)");
    expect(walkStepText(WALK[0])).toBe("Start from output 0: A node 1, tensor 0");
  });

  it("colours a shared layer's box by its busiest call and badges each call", () => {
    const at = walkAt(WALK, 8);
    expect(boxStatus("A", 2, at)).toBe("progress");
    expect(nodeBadge("A", 2, at)).toEqual([{ node: 0, text: "in progress", status: "progress" }, { node: 1, text: "finished", status: "finished" }]);
    expect(nodeBadge("A", 2, walkAt(WALK, 16)).map((b) => [b.node, b.text])).toEqual([[0, "depth 2"], [1, "finished"]]);
    expect(nodeBadge("A", 2, walkAt(WALK, 17)).map((b) => b.text)).toEqual(["depth 2", "depth 2"]);
    expect(boxStatus("inp", 1, walkAt(WALK, 0))).toBe(null);
  });
});

const FORWARD: ForwardStep[] = [
  { node: ["lstm", 0], depth: 1, outputs: [0, 1, 2].map((t) => ({ tensor_index: t, shape: [1, 4], mean: t, std: 0, min: 0, max: 1, picture: null })) },
  { node: ["add", 0], depth: 0, outputs: [{ tensor_index: 0, shape: [1, 4], mean: 3, std: 0, min: 0, max: 1, picture: null }] },
];

describe("the forward pass", () => {
  it("knows every tensor_index of a node once it ran", () => {
    expect([...forwardAt(FORWARD, 0).keys()]).toEqual(["lstm:0:0", "lstm:0:1", "lstm:0:2"]);
    expect(forwardAt(FORWARD, 1).get("add:0:0")?.mean).toBe(3);
    expect(forwardStepText(FORWARD[0])).toContain("[2] (1, 4) mean 2.000");
    expect(shownAt({ kind: "forward", steps: FORWARD }, 1).layer).toBe("add");
  });
});

describe("the player", () => {
  it("has a plain title and keyboard commands", () => {
    expect(playerTitle({ kind: "walk", steps: [] })).toBe("How keras.Model finds each node's depth");
    expect(playerKey("ArrowRight")).toBe("next");
    expect(playerKey("ArrowLeft")).toBe("previous");
    expect(playerKey(" ")).toBe("play");
    expect(playerKey("Escape")).toBe("close");
    expect(playerKey("x")).toBe(null);
  });
});

describe("outputs made explicit", () => {
  const o = { ports: [["a", 0, 0], ["b", 0, 0]] as [string, number, number][], keys: [] as string[] };
  it("marks, unmarks and reorders", () => {
    expect(toggleOutput(o, ["c", 0, 1]).ports).toEqual([["a", 0, 0], ["b", 0, 0], ["c", 0, 1]]);
    expect(toggleOutput(o, ["a", 0, 0]).ports).toEqual([["b", 0, 0]]);
    expect(moveOutput(o, 1, -1).ports).toEqual([["b", 0, 0], ["a", 0, 0]]);
    expect(moveOutput(o, 0, -1)).toBe(o);
    expect(outputsIntent(o)).toEqual({ outputs: o.ports });
  });
  it("keys dict outputs by layer name, unique", () => {
    const keyed = withKeys({ ports: [["a", 0, 0], ["a", 1, 0]], keys: [] }, true);
    expect(keyed.keys).toEqual(["a", "a_1_0"]);
    expect(outputsIntent(renameKey(keyed, 0, "left"))).toEqual({ outputs: keyed.ports, keys: ["left", "a_1_0"] });
    expect(toggleOutput(keyed, ["a", 0, 0]).keys).toEqual(["a_1_0"]);
    expect(withKeys(keyed, false).keys).toEqual([]);
  });
});

describe("node view", () => {
  it("puts one box per node in rows by depth, inputs on top", () => {
    const node = (layer: string, k: number, depth: number | null) => ({ layer, node_index: k, depth, class_name: "Dense", outputs: [[null, 3]] });
    const { placed } = layoutNodes({ nodes: [node("inp", 0, 2), node("A", 0, 1), node("A", 1, 1), node("C", 0, 0), node("x", 0, null)],
      tensors: [], outputs: [], keys: [] });
    const y = new Map(placed.map((p) => [`${p.node.layer}:${p.node.node_index}`, p.y]));
    expect(y.get("inp:0")!).toBeLessThan(y.get("A:0")!);
    expect(y.get("A:0")).toBe(y.get("A:1"));
    expect(y.get("C:0")!).toBeLessThan(y.get("x:0")!);
    expect(placed.find((p) => p.node.layer === "A" && p.node.node_index === 1)!.x).toBeGreaterThan(placed.find((p) => p.node.layer === "A" && p.node.node_index === 0)!.x);
    expect(tensorLabel(["lstm", 1, 2])).toBe("(lstm, 1, 2)");
  });
});

describe("node view at scale (issue 40)", () => {
  const node = (layer: string, depth: number) => ({ layer, node_index: 0, depth, class_name: "Dense", outputs: [[null, 3]] });
  // a wide graph: 30 nodes fed by one input, every edge labelled with the same long tensor name
  const wide: NodeGraph = {
    nodes: [node("transformer_layer_input", 1), ...Array.from({ length: 30 }, (_, i) => node(`block_${i}`, 0))],
    tensors: Array.from({ length: 30 }, (_, i) => ({ src: ["transformer_layer_input", 0, 0] as [string, number, number], dst: [`block_${i}`, 0, 0] as [string, number, number] })),
    outputs: [], keys: [],
  };
  const look = { selected: new Set<string>(), shownPort: null, node: null, status: new Map(), depths: new Map() };

  it("opens a big graph at scale 1 from its top, a small one fitted", () => {
    expect(openingView(5000, 3000, { width: 800, height: 400 })).toEqual({ k: 0.8, x: 0, y: 0 });
    const small = openingView(400, 200, { width: 800, height: 400 });
    expect(small.k).toBeGreaterThanOrEqual(1);
    expect(small.x).toBeGreaterThanOrEqual(0);
  });

  it("zooms about the pointer: the point under it stays put", () => {
    const v = { k: 1, x: 10, y: 20 };
    const z = zoomAt(v, 2, 300, 100);
    expect(((300 - v.x) / v.k) * z.k + z.x).toBeCloseTo(300);
    expect(((100 - v.y) / v.k) * z.k + z.y).toBeCloseTo(100);
    expect(zoomAt(v, 1000, 0, 0).k).toBe(4);
  });

  it("places a label where it meets nothing, or nowhere", () => {
    const line = (u: number) => ({ x: 100, y: u * 100 });
    const first = placeLabel(line, 50, [])!;
    const second = placeLabel(line, 50, [first])!;
    expect(overlaps(first, second)).toBe(false);
    expect(placeLabel(line, 50, [{ x: -1000, y: -1000, w: 3000, h: 3000 }])).toBeNull();
  });

  it("draws no edge label over another or over a box; a label left out is still the edge's", () => {
    const { placed } = layoutNodes(wide);
    const drawn = tensorEdges(wide, placed);
    expect(drawn.length).toBe(30);
    const labels = drawn.map((t) => t.label).filter((r) => r !== null);
    expect(labels.length).toBeGreaterThan(10);
    for (let i = 0; i < labels.length; i++) for (let j = i + 1; j < labels.length; j++) expect(overlaps(labels[i]!, labels[j]!)).toBe(false);
    const boxes = placed.map((p) => ({ x: p.x, y: p.y, w: NODE_W, h: NODE_H }));
    for (const l of labels) for (const b of boxes) expect(overlaps(l!, b)).toBe(false);
  });
});
