import { describe, expect, it } from "vitest";
import { PROBLEMS_SHOWN, presentFamilies, problemItems } from "../src/panels/legend";
import type { GraphState, LayerState } from "../src/mirror/types";

const layer = (over: Partial<LayerState>) => ({ name: "l", class_name: "Dense", group: "core", is_input: false,
  inner_layers: null, ...over }) as LayerState;

describe("the legend and the problem list", () => {
  it("names each family present once, in the legend's order", () => {
    const layers = [layer({ group: "convolutional" }), layer({ name: "x", is_input: true, group: "input" }),
      ...Array.from({ length: 50 }, (_, i) => layer({ name: `d${i}` }))];
    expect(presentFamilies(layers).map((f) => f.name)).toEqual(["Input", "Core / dense", "Convolution"]);
    expect(presentFamilies([])).toEqual([]);
  });

  it("shows the drawing-wide problems first and says how many more there are", () => {
    const problems = [{ message: "d is pending", layer: "d", call: 0, slot: null },
      { message: "The drawing has no output.", layer: null, call: null, slot: null },
      ...Array.from({ length: PROBLEMS_SHOWN + 3 }, (_, i) => ({ message: `p${i}`, layer: `l${i}`, call: 0, slot: null }))];
    const { shown, more } = problemItems({ problems, layers: [{ name: "d" }] } as unknown as GraphState);
    expect(shown[0]).toEqual({ text: "The drawing has no output.", layer: null });
    expect(shown.length).toBe(PROBLEMS_SHOWN);
    expect(more).toBe(problems.length - PROBLEMS_SHOWN);
  });

  it("shows no problem on an empty canvas (it says how to begin instead, never red)", () => {
    const problems = [{ message: "The drawing has no Input: drag an Input from the palette.", layer: null, call: null, slot: null }];
    expect(problemItems({ problems, layers: [] } as unknown as GraphState)).toEqual({ shown: [], more: 0 });
  });
});
