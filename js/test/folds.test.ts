// Folded runs of repeated blocks: which boxes are drawn and where the edges go.
import { describe, expect, it } from "vitest";
import { drawnEdges, foldAllMenu, foldMenu, foldOf, foldTexts, hiddenLayers, shownLayers } from "../src/mirror/folds";
import { edgeTitle } from "../src/mirror/mirror";
import type { EdgeState, LayerState } from "../src/mirror/types";
import { type Drawn, kernelLayer } from "./kernel";

function layer(name: string, over: Partial<Drawn> = {}, edges: EdgeState[] = []): LayerState {
  return kernelLayer({ name, class_name: "Dense", group: "core", config: {}, is_input: false, x: 0, y: 0, pinned: false,
    slots: { kind: "single", names: ["inputs"], min: 1, max: 1 }, n_outputs: 1,
    calls: [{ index: 0, built: true, output_shapes: [[null, 8]], missing: null }], params: 0, depth: 0, problems: [],
    inner_layers: null, expanded: false, inner: null, run: null, fold: null, ...over }, edges);
}

function edge(src: string, dst: string, slot = 0): EdgeState {
  return { src: [src, 0, 0], dst: [dst, 0, slot], shape: [null, 8], dtype: "float32", built: true };
}

// stem -> [a0 -> add0(skip from stem) ] -> [a1 -> add1(skip from add0)] -> head
const FOLD = { copies: 2, layers: 2, last: "add1", classes: "Dense, Add", members: 4 };
function drawing(folded: boolean): { layers: LayerState[]; edges: EdgeState[] } {
  const run = { run: "a0" };
  const layers = [layer("stem"), layer("a0", { ...run, fold: folded ? FOLD : null }), layer("add0", run),
    layer("a1", run), layer("add1", run), layer("head")];
  const edges = [edge("stem", "a0"), edge("a0", "add0", 0), edge("stem", "add0", 1),
    edge("add0", "a1"), edge("a1", "add1", 0), edge("add0", "add1", 1), edge("add1", "head")];
  return { layers, edges };
}

describe("folded runs", () => {
  it("a folded run hides all its layers but the first, whose box stands for the run", () => {
    const { layers } = drawing(true);
    expect([...hiddenLayers(layers)]).toEqual([["add0", "a0"], ["a1", "a0"], ["add1", "a0"]]);
    expect(shownLayers(layers).map((l) => l.name)).toEqual(["stem", "a0", "head"]);
    expect(foldOf(layers, "add1")).toBe("a0");
    expect(foldOf(layers, "a0")).toBe("a0");
    expect(foldOf(layers, "head")).toBeNull();
  });

  it("an unfolded run hides nothing: the same arrays come back", () => {
    const { layers, edges } = drawing(false);
    expect(hiddenLayers(layers).size).toBe(0);
    expect(shownLayers(layers)).toBe(layers);
    expect(drawnEdges(edges, layers)).toBe(edges);
  });

  it("edges into and out of the run attach to its box; edges inside it are not drawn", () => {
    const { layers, edges } = drawing(true);
    const drawn = drawnEdges(edges, layers);
    expect(drawn.slice(0, edges.length)).toEqual(edges); // the state's edges keep their indexes
    const added = drawn.slice(edges.length).map((e) => `${e.src.join(":")}>${e.dst.join(":")}`);
    // stem -> add0 (the skip) is the same wire as stem -> a0 once add0 is folded away: one wire;
    // add1 -> head comes out of the folded box
    expect(added).toEqual(["a0:0:0>head:0:0"]);
    expect(drawn[edges.length].shape).toEqual([null, 8]); // the tensor that leaves the run
    expect(drawn[edges.length].real).toEqual({ src: ["add1", 0, 0], dst: ["head", 0, 0] });
    expect(edgeTitle(drawn[edges.length])).toBe('("add1", node_index=0, tensor_index=0) → head call 0 slot 0 (into or out of a folded run)');
    expect(drawnEdges(edges, layers)).toBe(drawn); // made once per state
  });

  it("a wire from outside to a hidden layer goes to the box's first port", () => {
    const { layers, edges } = drawing(true);
    const extra = [...edges, edge("head", "a1", 0)];
    const added = drawnEdges(extra, layers).slice(extra.length).map((e) => `${e.src.join(":")}>${e.dst.join(":")}`);
    expect(added).toEqual(["a0:0:0>head:0:0", "head:0:0>a0:0:0"]);
  });

  it("the box says what it holds and offers to unfold; a box in a run offers to fold", () => {
    const { layers } = drawing(true);
    expect(foldTexts(layers[1])).toEqual({ title: "a0", count: "×2",
      copies: "2 blocks of 2 layers, to add1", classes: "Dense, Add" });
    expect(foldMenu(layers[1])).toEqual({ label: "Unfold (show its 4 layers)", folded: false });
    expect(foldMenu(drawing(false).layers[3])).toEqual({ label: "Fold repeated blocks into one box", folded: true });
    expect(foldMenu(layers[0])).toBeNull();
    expect(foldTexts(layers[0])).toBeNull();
  });

  it("the drawing's menu folds every run or unfolds every folded one", () => {
    expect(foldAllMenu(drawing(false).layers)).toEqual([{ label: "Fold repeated blocks (1 run)", folded: true }]);
    expect(foldAllMenu(drawing(true).layers)).toEqual([{ label: "Unfold all repeated blocks", folded: false }]);
    expect(foldAllMenu([layer("solo")])).toEqual([]);
  });
});
