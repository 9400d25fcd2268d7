import { describe, expect, it } from "vitest";
import { contentKey, edgeKey } from "../src/scene/scene";
import { portName } from "../src/scene/portlabels";
import type { EdgeState, LayerState } from "../src/mirror/types";
import { type Drawn, kernelLayer } from "./kernel";

function layer(over: Partial<Drawn> = {}, edges: EdgeState[] = []): LayerState {
  return kernelLayer({ name: "dense", class_name: "Dense", group: "core", config: { units: 4 }, is_input: false, x: 0, y: 0, pinned: false,
    slots: { kind: "single", names: ["inputs"], min: 1, max: 1 }, n_outputs: 1,
    calls: [{ index: 0, built: true, output_shapes: [[null, 4]], missing: null }], params: 20, depth: 0, problems: [],
    inner_layers: null, expanded: false, inner: null, ...over }, edges);
}

describe("what a box's drawing depends on", () => {
  it("a move or a pin leaves the content key alone: the box is only translated", () => {
    expect(contentKey(layer({ x: 300, y: 80, pinned: true }))).toBe(contentKey(layer()));
  });

  it("a config, a call, a problem or a size changes it: the box is drawn again", () => {
    const base = contentKey(layer());
    expect(contentKey(layer({ config: { units: 5 } }))).not.toBe(base);
    expect(contentKey(layer({ calls: [...layer().calls, { index: 1, built: false, output_shapes: null, missing: "inputs" }] }))).not.toBe(base);
    expect(contentKey(layer({ problems: ["pending"] }))).not.toBe(base);
    expect(contentKey({ ...layer(), h: 80 })).not.toBe(base);
  });

  it("edges are keyed by source and slot; ports named for people", () => {
    expect(edgeKey({ src: ["a", 0, 2], dst: ["b", 1, 0], shape: null, dtype: null, built: true })).toBe("a:0:2>b:1:0");
    const mha = layer({ slots: { kind: "args", names: ["query", "value", "key"], min: 2, max: 3 } });
    expect(portName(mha, { kind: "in", call: 0, index: 1 })).toBe("value");
    expect(portName(layer({ n_outputs: 3 }), { kind: "out", call: 1, index: 2 })).toBe("output 2 · call 1");
  });
});
