// The mirrored state's one description (kerascanvas/mirror/state.json): the types are generated from it,
// and the fixtures tests/test_shape.py writes from the kernel, and checks there, pass the same
// checks here (and the broken ones fail at the same place).
import { describe, expect, it } from "vitest";
import description from "../../kerascanvas/mirror/state.json";
import { type Description, generate } from "../src/mirror/shapegen";
import { VIEW_ROW, boxLayer, diffProblem, emptyState, stateProblem, viewRow } from "../src/mirror/shape";
import generated from "../src/mirror/statetypes.ts?raw";
import states from "./fixtures/states.json";
import diffs from "./fixtures/diffs.json";
import type { GraphState } from "../src/mirror/types";

describe("the description", () => {
  it("is what src/mirror/statetypes.ts was generated from (npm run gen:types after changing it)", () => {
    expect(generated).toBe(generate(description as Description));
  });

  it("generates a type for every part and every described record", () => {
    const text = generate(description as Description);
    for (const name of ["LayerEntry", "LayerState", "EdgeState", "GraphState", "StateDiff", "ViewRow", "Drawing", "PortLayout", "Slots"]) {
      expect(text).toMatch(new RegExp(`export (interface|type) ${name}\\b`));
    }
    const broken = { ...description, layer: { ...description.layer, fields: { ...description.layer.fields, colour: "hue" } } };
    expect(() => generate(broken as unknown as Description)).toThrow(/undescribed type hue/);
  });
});

describe("the shared fixtures", () => {
  it("the kernel's states and diffs are as described", () => {
    expect(states.states.length).toBeGreaterThan(3);
    for (const s of states.states) expect(stateProblem(s)).toBeNull();
    for (const d of states.diffs) expect(diffProblem(d)).toBeNull();
    for (const s of [diffs.initial, diffs.final, diffs.held_before_loss]) expect(stateProblem(s)).toBeNull();
    for (const d of diffs.diffs) expect(diffProblem(d)).toBeNull();
  });

  it("each broken copy is refused at the place the kernel's check names", () => {
    expect(states.departures.length).toBeGreaterThan(8);
    for (const c of states.departures) {
      const problem = c.what === "state" ? stateProblem(c.value) : diffProblem(c.value);
      expect(problem, c.at).toContain(c.at);
    }
  });
});

describe("the reducer's view row and the empty state", () => {
  it("a layer's view row goes back to the same layer", () => {
    const state = states.states[0] as unknown as GraphState;
    const top = Math.max(...state.layers.map((l) => l.depth ?? 0));
    for (const l of state.layers) {
      const row = viewRow(l, top);
      expect(row).toHaveLength(VIEW_ROW.length);
      expect(boxLayer(l, row, top)).toEqual(l);
    }
  });

  it("the empty state is as described, at revision 0", () => {
    expect(stateProblem(emptyState())).toBeNull();
    expect(emptyState()).toMatchObject({ revision: 0, layers: [], edges: [], model: null });
    expect(emptyState()).not.toBe(emptyState());
  });
});
