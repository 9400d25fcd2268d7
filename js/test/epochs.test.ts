// The forward pass's epoch of recorded activations: its pure parts (the picker and the drawing are
// checked in a real browser: tests/browser/test_insights.py).
import { describe, expect, it } from "vitest";
import { activationLines, activationText, activationTitle, askedEpoch, chooseEpoch, epochIndex, epochText, miniBars, shownEpoch } from "../src/training/epochs";

describe("the forward pass's recorded activations of an epoch", () => {
  it("says a box's recorded output in words, every number included on hover", () => {
    const a = { mean: 0.12345, std: 2, zeros: 0.514, min: -1, max: 3, dead_units: 4, units: 16, counts: [1], range: [0, 1] };
    expect(activationText(a)).toBe("mean 0.123 std 2.000 zeros 51%");
    expect(activationLines(a)).toEqual(["mean 0.123 std 2.000", "zeros 51%"]);
    expect(activationTitle("dense", 2.5, a)).toContain("dense output at epoch 2.50");
    expect(activationTitle("dense", 3, a)).toContain("dead units 4 of 16");
    expect(activationText({ mean: null, std: null, zeros: null, counts: [], range: [] })).toBe("mean — std — zeros —");
    expect(epochText(3)).toBe("3");
  });

  it("scales the small histogram to its largest count", () => {
    expect(miniBars([0, 2, 4], 30, 10).map((b) => b[3])).toEqual([0, 5, 10]);
  });

  it("asks for the epoch the slider points at, or none while hidden", () => {
    expect(askedEpoch([1, 2, 3], 2, true)).toBe(3);
    expect(askedEpoch([1, 2, 3], 0, true)).toBe(1);
    expect(askedEpoch([1, 2, 3], 0, false)).toBe(-1);
    expect(askedEpoch([], 0, true)).toBe(-1);
    expect(askedEpoch([1, null], 1, true)).toBe(-1);
  });

  it("keeps one chosen epoch for the insights panel and the forward pass", () => {
    const values: Record<string, unknown> = { insight_epoch: -1 };
    let saved = 0;
    const model = {
      get: (k: string) => values[k], on: () => undefined, off: () => undefined,
      set: (k: string, v: unknown) => { values[k] = v; }, save_changes: () => { saved++; },
    };
    expect(shownEpoch(model as never)).toBeNull(); // -1: the forward pass shows none
    chooseEpoch(model as never, 2.5);
    expect(shownEpoch(model as never)).toBe(2.5);
    chooseEpoch(model as never, 2.5); // the same choice again sends nothing
    expect(saved).toBe(1);
    expect(epochIndex([1, 2, 2.5, 3], 2.5)).toBe(2);
    expect(epochIndex([1, 2, 3], 2.5)).toBeNull(); // a box with no record there stays where it is
    expect(epochIndex([1, 2, 3], null)).toBeNull();
  });
});
