// The standalone view's read-only model (js/src/mirror/readonly.ts): answers from the embedded data,
// view changes made locally the way the kernel makes them, edits refused.
import { describe, expect, it } from "vitest";
import { READ_ONLY, ReadOnlyModel, answer, edgeKey, withFold, type ViewerData } from "../src/mirror/readonly";
import type { GraphState, LayerState, PortLayout } from "../src/mirror/types";

function layer(name: string, y: number, over: Partial<LayerState> = {}): LayerState {
  return { name, class_name: "Dense", group: "core", config: {}, is_input: false, x: 0, y, w: 180, h: 62, pinned: false,
    slots: { kind: "single", names: ["inputs"], min: 1, max: 1 }, n_outputs: 1,
    calls: [{ index: 0, built: true, output_shapes: [[null, 8]], missing: null, settings: {} }], params: 0, depth: 0, problems: [],
    inner_layers: null, expanded: false, inner: null, run: null, fold: null, ports: { in: [], out: [] }, ...over } as LayerState;
}

const INFO = { copies: 2, layers: 1, last: "b", classes: "Dense", members: 2, stack: 8 };

// stem; a run (a, b) folded into a's box; head below it
function data(): ViewerData {
  const state: GraphState = { version: 1, revision: 3, name: "m", problems: [], model: null, can_undo: false, can_redo: false,
    history_dropped: 0, notes: [], direction: "down", box: { w: 180, h: 62, header: 40, call_row: 16 },
    layers: [layer("stem", 0), layer("a", 100, { run: "a", fold: INFO, w: 240, h: 80 }), layer("b", 100, { run: "a" }),
      layer("head", 220)],
    edges: [{ src: ["stem", 0, 0], dst: ["a", 0, 0], shape: [null, 8], dtype: "float32", built: true }] };
  return { format: 1, state, explain: { a: { layer: { text: "a" }, nodes: [] } },
    edges: { [edgeKey(["stem", 0, 0], ["a", 0, 0])]: { text: "tensor" } }, code: { code: "x = 1", error: null },
    runs: { a: { info: INFO, members: { a: [0, 0], b: [0, 102] }, size: [180, 62] } }, folded_size: [240, 80], inner: {} };
}

describe("the read-only model", () => {
  it("unfolds a run: its layers where the layout puts them, the boxes below moved down by the growth", () => {
    const d = data();
    const open = withFold(d.state, d, "a", false);
    const at = Object.fromEntries(open.layers.map((l) => [l.name, l]));
    expect(at.a.fold).toBeNull();
    expect([at.a.w, at.a.h]).toEqual([180, 62]);
    expect([at.b.x, at.b.y]).toEqual([0, 202]);
    expect(at.head.y).toBe(220 + (102 + 62 - 80)); // the run is 164 tall unfolded, 80 folded
    expect(at.stem.y).toBe(0);
    const again = withFold(open, d, "a", true); // and folding it again puts everything back
    expect(again.layers.map((l) => [l.name, l.y, l.h])).toEqual(d.state.layers.map((l) => [l.name, l.y, l.h]));
    expect(again.layers[1].fold).toEqual(INFO);
  });

  it("in a drawing that flows right, unfolding moves the boxes right of the run, and ports stay on the side edges", () => {
    const d = data();
    // the same drawing turned: stem, the run (a, b) and head in columns left to right
    const turned = (l: LayerState) => ({ ...l, x: l.y * 3, y: 0 });
    const ports: PortLayout = { in: [[0, 0, 0, 40]], out: [[0, 0, 240, 40]] };
    d.state = { ...d.state, direction: "right", layers: d.state.layers.map((l) => (l.name === "a" ? { ...turned(l), ports } : turned(l))) };
    d.runs.a.members = { a: [0, 0], b: [290, 0] };
    const open = withFold(d.state, d, "a", false);
    const at = Object.fromEntries(open.layers.map((l) => [l.name, l]));
    expect([at.b.x, at.b.y]).toEqual([300 + 290, 0]);
    expect(at.head.x).toBe(660 + (290 + 180 - 240)); // the run is 470 wide unfolded, 240 folded
    expect(at.head.y).toBe(0);
    expect((at.a as LayerState & { ports: PortLayout }).ports).toEqual({ in: [[0, 0, 0, 31]], out: [[0, 0, 180, 31]] });
    const again = withFold(open, d, "a", true);
    expect(again.layers.map((l) => [l.name, l.x, l.w])).toEqual(d.state.layers.map((l) => [l.name, l.x, l.w]));
  });

  it("a box that changes size keeps its ports spread along its edges, as the kernel lays them out", () => {
    const d = data();
    const ports: PortLayout = { in: [[0, 0, 90, 0]], out: [[0, 0, 90, 62]] };
    const open = { ...d.state, layers: d.state.layers.map((l) => (l.name === "a" ? { ...l, fold: null, w: 180, h: 62, ports } : l)) };
    const folded = withFold(open, d, "a", true).layers.find((l) => l.name === "a") as LayerState & { ports: typeof ports };
    expect(folded.ports).toEqual({ in: [[0, 0, 120, 0]], out: [[0, 0, 120, 80]] });
  });

  it("answers what the kernel would from the embedded data, and refuses edits", () => {
    const d = data();
    expect(answer(d, d.state, { kind: "explain", name: "a" })).toEqual({ ok: true, result: d.explain.a });
    expect(answer(d, d.state, { kind: "explain_edge", src: ["stem", 0, 0], dst: ["a", 0, 0] }))
      .toEqual({ ok: true, result: { text: "tensor" } });
    expect(answer(d, d.state, { kind: "code" })).toEqual({ ok: true, result: d.code });
    for (const kind of ["remove", "connect", "add_layer", "configure", "rename", "undo", "train"]) {
      expect(answer(d, d.state, { kind, name: "a" })).toEqual({ ok: false, error: READ_ONLY });
    }
    expect(answer(d, d.state, { kind: "fold", name: "stem", folded: true }).ok).toBe(false);
  });

  it("a view change sets the state (a new revision) before the reply comes", async () => {
    const model = new ReadOnlyModel(data());
    const seen: string[] = [];
    model.on("change:state", () => seen.push(`state ${model.get("state").revision}`));
    model.on("msg:custom", (m: any) => seen.push(`reply ${m.id} ${m.ok ?? m.error}`));
    model.send({ kind: "fold", id: 7, name: "b", folded: false });
    model.send({ kind: "remove", id: 8, names: ["a"] });
    await new Promise((r) => setTimeout(r, 0));
    expect(seen).toEqual(["state 4", "reply 7 true", `reply 8 ${READ_ONLY}`]);
    expect(model.get("state").layers.find((l: LayerState) => l.name === "b").y).toBe(202);
  });
});
