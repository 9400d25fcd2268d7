import { describe, expect, it } from "vitest";
import { callText, fieldText, grouped, memoryText, paramsText, parseField, problemLines, search, shapeText, summary, trainableText } from "../src/mirror/mirror";
import { Client } from "../src/mirror/protocol";
import { emptyState } from "../src/mirror/shape";
import type { GraphState } from "../src/mirror/types";
import { kernelLayer } from "./kernel";

const state: GraphState = {
  ...emptyState(),
  layers: [kernelLayer({ name: "x", class_name: "InputLayer", group: "input", config: {}, is_input: true, x: 0, y: 0, pinned: false,
    slots: { kind: "none", names: [], min: 0, max: 0 }, n_outputs: 1, calls: [{ index: 0, built: true, output_shapes: [[null, 4]], missing: null }],
    params: 0, depth: 1, problems: [], inner_layers: null, expanded: false, inner: null })],
  model: { inputs: ["x"], outputs: [["d", 0, 0]], params: 1234, trainable_params: 1234, non_trainable_params: 0 },
};

describe("texts", () => {
  it("formats shapes, params, calls and the summary", () => {
    expect(shapeText([null, 4])).toBe("(None, 4)");
    expect(shapeText([3])).toBe("(3,)");
    expect(paramsText(25_000)).toBe("25.0k");
    expect(callText(state.layers[0], 0)).toBe("node 0 → (None, 4)");
    expect(summary(state)).toBe("1234 params · inputs: x · outputs: d[0.0]");
    // some parameters frozen: both counts (issue 41)
    const frozen = { ...state, model: { ...state.model!, params: 2_270_794, trainable_params: 12_810, non_trainable_params: 2_257_984 } };
    expect(summary(frozen)).toBe("2.27M params (12.8k trainable, 2.26M non-trainable) · inputs: x · outputs: d[0.0]");
    expect(trainableText({ trainable_params: 5, non_trainable_params: 0 })).toBe("");
    // the weights' memory as Keras's model.summary writes it (issue 41: quantization shrinks it)
    expect(summary({ ...frozen, model: { ...frozen.model, weight_bytes: 9_083_176 } }))
      .toBe("2.27M params (12.8k trainable, 2.26M non-trainable) · 8.66 MB · inputs: x · outputs: d[0.0]");
    expect([memoryText(0), memoryText(1023), memoryText(7280), memoryText(3 * 1024 ** 3)]).toEqual(["0.00 B", "1023.00 B", "7.11 KB", "3.00 GB"]);
    expect(summary({ ...state, model: null, problems: [{ message: "m", layer: null, call: null, slot: null }] })).toContain("1 problem");
  });
});

describe("palette", () => {
  const entries = [{ class_name: "Dense", group: "core" }, { class_name: "Conv2D", group: "convolutional" }, { class_name: "Dropout", group: "regularization" }];
  it("searches by class or group and groups in order", () => {
    expect(search(entries, "d").map((e) => e.class_name)).toEqual(["Dense", "Conv2D", "Dropout"]);
    expect(search(entries, "conv").map((e) => e.class_name)).toEqual(["Conv2D"]);
    expect(grouped(entries).map(([g]) => g)).toEqual(["core", "convolutional", "regularization"]);
  });
});

describe("form fields", () => {
  it("parses typed values and refuses bad ones with a message", () => {
    expect(parseField("int", " 12 ")).toBe(12);
    expect(parseField("float", "0.5")).toBe(0.5);
    expect(parseField("ints", "(3, 3)")).toEqual([3, 3]);
    expect(parseField("ints", "2")).toBe(2);
    expect(parseField("str", "None")).toBeNull();
    expect(parseField("shape", "(16,)")).toEqual([16]);
    expect(parseField("shape", "4, -1")).toEqual([4, -1]);
    expect(() => parseField("shape", "a")).toThrow(/sizes like/);
    expect(() => parseField("int", "1.5")).toThrow(/integer/);
    expect(() => parseField("float", "abc")).toThrow(/number/);
    expect(parseField("shape", "None, 8")).toEqual([null, 8]);
    expect(parseField("bool", "True")).toBe(true);
    expect(() => parseField("bool", "yes")).toThrow(/true or false/);
    expect(() => parseField("ints", "")).toThrow(/integers/);
  });

  it("shows values the way the form parses them back", () => {
    expect(fieldText([3, 3])).toBe("3, 3");
    expect(fieldText([null, 8])).toBe("None, 8");
    expect(fieldText(null)).toBe("None");
    expect(parseField("shape", fieldText([null, 8]))).toEqual([null, 8]);
    expect(parseField("ints", fieldText([3, 3]))).toEqual([3, 3]);
  });
});

describe("problems", () => {
  it("says why a call is pending and lists drawing-wide problems first", () => {
    const pending = { ...state.layers[0], calls: [{ index: 0, built: false, output_shapes: null, missing: "its 'inputs' input is empty", settings: {} }] };
    expect(callText(pending, 0)).toBe("call 0: pending (its 'inputs' input is empty)");
    const lines = problemLines({ ...state, problems: [
      { message: "conv call 0 is pending", layer: "conv", call: 0, slot: null },
      { message: "The drawing has no input.", layer: null, call: null, slot: null }] });
    expect(lines).toEqual([{ text: "The drawing has no input.", layer: null }, { text: "conv call 0 is pending", layer: "conv" }]);
  });
});

describe("protocol client", () => {
  it("matches replies to intents by id", async () => {
    const sent: any[] = [];
    let handler: (m: any) => void = () => {};
    const model = { get: () => null, on: (_: string, cb: any) => { handler = cb; }, off: () => {}, send: (c: any) => sent.push(c) };
    const client = new Client(model);
    const a = client.send("undo");
    const b = client.send("connect", { src: ["x", 0, 0], dst: ["d", 0, 0] });
    expect(sent.map((m) => [m.kind, m.id])).toEqual([["undo", 1], ["connect", 2]]);
    handler({ id: 2, error: "refused" });
    handler({ id: 1, ok: true, result: null });
    expect(await a).toEqual({ ok: true, result: null });
    expect(await b).toEqual({ ok: false, error: "refused" });
  });
});
