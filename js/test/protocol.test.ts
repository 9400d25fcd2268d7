import { describe, expect, it, vi } from "vitest";
import { Client, type IntentFields, type IntentKind, type Model, intentFields, intentProblem, isIntentKind } from "../src/mirror/protocol";
import { type Intent, connectIntent, insertIntent, keyIntent } from "../src/interaction/gestures";
import { ports } from "../src/mirror/geometry";
import type { EdgeState, LayerState } from "../src/mirror/types";
import description from "../../kerascanvas/canvas/intents.json";
import cases from "./fixtures/intent_types.json";
import { type Drawn, kernelLayer } from "./kernel";

function layer(name: string, over: Partial<Drawn> = {}, edges: EdgeState[] = []): LayerState {
  return kernelLayer({ name, class_name: "Dense", group: "core", config: {}, is_input: false, x: 0, y: 0, pinned: false,
    slots: { kind: "single", names: ["inputs"], min: 1, max: 1 }, n_outputs: 1,
    calls: [{ index: 0, built: true, output_shapes: [[null, 4]], missing: null }], params: 20, depth: 0, problems: [],
    inner_layers: null, expanded: false, inner: null, ...over }, edges);
}

/** An intent as sent agrees with the description: every required field there, no other field,
 * each of its type. */
function agrees(intent: { kind: string } & Record<string, unknown>): void {
  expect(isIntentKind(intent.kind)).toBe(true);
  const { required, optional } = intentFields(intent.kind as IntentKind);
  const fields = Object.keys(intent).filter((f) => f !== "kind");
  for (const f of Object.keys(required)) expect(fields, `${intent.kind} needs ${f}`).toContain(f);
  for (const f of fields) expect([...Object.keys(required), ...Object.keys(optional)], `${intent.kind}.${f}`).toContain(f);
  expect(intentProblem(intent), JSON.stringify(intent)).toBeNull();
}

/** A model that keeps what is sent. */
function recorder(): Model & { sent: any[] } {
  const sent: any[] = [];
  return { sent, get: () => undefined, on: () => {}, off: () => {}, send: (m: any) => { sent.push(m); } } as any;
}

describe("the intents' one description (kerascanvas/canvas/intents.json)", () => {
  it("knows the kinds the kernel handles and nothing else", () => {
    expect(isIntentKind("connect")).toBe(true);
    expect(isIntentKind("state")).toBe(true);
    expect(isIntentKind("exec")).toBe(false);
    expect(isIntentKind("__proto__")).toBe(false);
    expect(isIntentKind(7)).toBe(false);
    // the same list tests/test_intents.py checks against the kernel's handlers
    expect(Object.keys(description.kinds).length).toBe(44); // compare, compare_choices: issue 44; set_direction: issue 40 (left to right); example: issue 43; set_trainable, freeze_before, enable_lora, quantize: issue 41; fold, fold_all: issue 12 folds; internals, node_graph, set_outputs: issue 25; export_html: issue 19; configure_call: issue 23; inspect: issue 40
  });

  it("agrees with every intent a gesture makes", () => {
    const a = layer("a"), b = layer("b", { y: 200 }), add = layer("add", { y: 400, slots: { kind: "list", names: ["inputs"], min: 2, max: null } });
    const [, out] = ports(a, []);
    const into = ports(add, [])[0];
    const edge = { src: ["a", 0, 0] as [string, number, number], dst: ["b", 0, 0] as [string, number, number], shape: null, dtype: null, built: true };
    const made: Intent[] = [
      connectIntent(out, into, [a, b, add]),
      insertIntent("Dropout", edge, [{ x: 0, y: 0 }, { x: 0, y: 100 }], { x: 5, y: 50 }),
      keyIntent({ key: "Delete", ctrl: false, shift: true }, ["a"], null)!,
      keyIntent({ key: "Delete", ctrl: false, shift: false }, [], edge)!,
      keyIntent({ key: "z", ctrl: true, shift: false }, [], null)!,
      { kind: "rewire", src: ["a", 0, 0], old: ["b", 0, 0], new: null },
    ];
    for (const intent of made) agrees(intent as unknown as { kind: string } & Record<string, unknown>);
  });

  it("catches an intent that leaves out a required field, adds one or holds one of another type", () => {
    expect(() => agrees({ kind: "move", name: "a", x: 1 })).toThrow();
    expect(() => agrees({ kind: "move", name: "a", x: 1, y: 2, z: 3 })).toThrow();
    expect(() => agrees({ kind: "move", name: "a", x: 1, y: "2" })).toThrow();
    expect(() => agrees({ kind: "connect", src: ["a", 0, 0], dst: ["b", 0.5, null] })).toThrow();
  });

  it("names the intent, the field, what it must be and what came", () => {
    expect(intentProblem({ kind: "connect", src: ["x", 0, 0], dst: ["d", "x", 0] }))
      .toBe(`connect: 'call' of 'dst' must be a whole number, got "x".`);
    expect(intentProblem({ kind: "remove", names: ["d", 3] })).toBe("remove: item 1 of 'names' must be a layer name, got 3.");
    expect(intentProblem({ kind: "rewire", src: ["a", 0, 0], old: ["b", 0, 0], new: ["b", 0] }))
      .toBe(`rewire: 'new' must be [layer, call, slot or null] or null, got ["b",0].`);
    expect(intentProblem({ kind: "move", name: "a", x: 1 })).toBe("A 'move' intent needs 'y'.");
    expect(intentProblem({ kind: "exec" })).toBe(`Unknown intent kind "exec".`);
    // as JSON carries it: NaN is null, which a nullable field takes and another refuses
    expect(intentProblem({ kind: "train", learning_rate: NaN })).toBeNull();
    expect(intentProblem({ kind: "train", epochs: NaN })).toBe("train: 'epochs' must be a whole number, got null.");
    expect(intentProblem({ kind: "add_layer", class_name: "Dense", x: undefined })).toBeNull();
  });

  it("refuses exactly what the kernel refuses, in the same words (fixtures/intent_types.json)", () => {
    // written by tests/test_intents.py from the kernel's own check (KC_WRITE_FIXTURES=1)
    expect(cases.length).toBeGreaterThan(500);
    for (const { intent, refused } of cases as { intent: { kind: string } & Record<string, unknown>; refused: string | null }[]) {
      const problem = intentProblem(intent);
      expect(problem === null ? null : problem.split(", got ")[0], JSON.stringify(intent)).toBe(refused);
    }
  });

  it("sends what the description takes, and says on the console what it does not", () => {
    const model = recorder();
    const client = new Client(model);
    const error = vi.spyOn(console, "error").mockImplementation(() => {});
    client.send("move", { name: "a", x: 1, y: 2 });
    client.send("undo");
    client.send("accepts", { src: ["a", 0, 0] });
    expect(error).not.toHaveBeenCalled();
    client.send("remove_call", { name: "a", call: "1" });
    expect(error).toHaveBeenCalledTimes(1);
    expect(String(error.mock.calls[0][0])).toContain(`remove_call: 'call' must be a whole number, got "1".`);
    expect(model.sent.map((m) => m.kind)).toEqual(["move", "undo", "accepts", "remove_call"]); // the kernel answers why
    error.mockRestore();
    client.close();
  });

  it("types each kind's fields from the description when the code compiles", () => {
    const move: IntentFields<"move"> = { name: "a", x: 1, y: 2 };
    // @ts-expect-error a required field left out
    const short: IntentFields<"move"> = { name: "a", x: 1 };
    // @ts-expect-error a field the description does not name
    const extra: IntentFields<"move"> = { name: "a", x: 1, y: 2, z: 3 };
    // @ts-expect-error a kind without fields takes none
    const undo: IntentFields<"undo"> = { steps: 2 };
    const add: IntentFields<"add_layer"> = { class_name: "Dense" }; // optional fields may stay out
    expect([move, short, extra, undo, add]).toHaveLength(5);
  });
});
