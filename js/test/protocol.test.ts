import { describe, expect, it } from "vitest";
import { type IntentKind, intentFields, isIntentKind } from "../src/protocol";
import { type Intent, connectIntent, insertIntent, keyIntent } from "../src/gestures";
import { ports } from "../src/geometry";
import type { LayerState } from "../src/types";
import description from "../../kerascanvas/intents.json";

function layer(name: string, over: Partial<LayerState> = {}): LayerState {
  return { name, class_name: "Dense", group: "core", config: {}, is_input: false, x: 0, y: 0, pinned: false,
    slots: { kind: "single", names: ["inputs"], min: 1, max: 1 }, n_outputs: 1,
    calls: [{ index: 0, built: true, output_shapes: [[null, 4]], missing: null }], params: 20, depth: 0, problems: [],
    inner_layers: null, expanded: false, inner: null, ...over };
}

/** An intent as sent agrees with the description: every required field there, no other field. */
function agrees(intent: { kind: string } & Record<string, unknown>): void {
  expect(isIntentKind(intent.kind)).toBe(true);
  const { required, optional } = intentFields(intent.kind as IntentKind);
  const fields = Object.keys(intent).filter((f) => f !== "kind");
  for (const f of Object.keys(required)) expect(fields, `${intent.kind} needs ${f}`).toContain(f);
  for (const f of fields) expect([...Object.keys(required), ...Object.keys(optional)], `${intent.kind}.${f}`).toContain(f);
}

describe("the intents' one description (kerascanvas/intents.json)", () => {
  it("knows the kinds the kernel handles and nothing else", () => {
    expect(isIntentKind("connect")).toBe(true);
    expect(isIntentKind("state")).toBe(true);
    expect(isIntentKind("exec")).toBe(false);
    expect(isIntentKind("__proto__")).toBe(false);
    expect(isIntentKind(7)).toBe(false);
    // the same list tests/test_intents.py checks against the kernel's handlers
    expect(Object.keys(description.kinds).length).toBe(30); // fold, fold_all: issue 12 folds
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

  it("catches an intent that leaves out a required field", () => {
    expect(() => agrees({ kind: "move", name: "a", x: 1 })).toThrow();
    expect(() => agrees({ kind: "move", name: "a", x: 1, y: 2, z: 3 })).toThrow();
  });
});
