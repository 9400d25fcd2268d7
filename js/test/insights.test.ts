import { describe, expect, it } from "vitest";
import { bars, problemText, readStrips, recordText, recordedText, stripPoints, stripText, weightsLeftOutText } from "../src/training/insights";
import strips from "./fixtures/strips.json";
import { UNDONE, axisSize, messageText, progressText, tickLabels } from "../src/training/training";

describe("training insights on the canvas", () => {
  it("scales a strip column to its own range, skipping missing values", () => {
    expect(stripPoints([2, 4, 6], 100, 10)).toBe("0.0,10.0 50.0,5.0 100.0,0.0");
    expect(stripPoints([null, 0.5, 1.5], 100, 10)).toBe("0.0,10.0 100.0,0.0");
    expect(stripPoints([null], 100, 10)).toBe("");
    expect(stripPoints(undefined, 100, 10)).toBe(""); // a kernel that sent no column
    expect(stripPoints([3], 100, 10)).toBe("100.0,5.0"); // one record: at the right end, the latest's place
    expect(stripPoints([2, 2], 100, 10)).toBe("0.0,5.0 100.0,5.0"); // unchanged: a level line mid-lane
  });

  it("names the epochs recorded: whole epochs only, a long list shortened", () => {
    expect(recordedText([1, 5, 9, 12])).toBe("recorded at epochs 1, 5, 9, 12");
    expect(recordedText([1, 1.5, 2])).toBe("recorded at epochs 1, 2"); // (1.5: within an epoch)
    expect(recordedText([3])).toBe("recorded at epoch 3");
    expect(recordedText([])).toBe("");
    expect(recordedText(undefined)).toBe("");
    expect(recordedText([1, 2, 3, 4, 5, 6, 7, 8, 9, 10], 4)).toBe("recorded at epochs 1, 2, …, 9, 10");
  });

  it("says what a record holds besides its histogram: gradients, zeros and dead units", () => {
    const base = { counts: [1, 2], range: [0, 1], mean: 0.5, std: 0.1 };
    expect(recordText({ ...base, norm: 0.0123, update_ratio: 0.00042 })).toBe("gradient norm 0.0123 · update / weight 0.000420");
    expect(recordText({ ...base, norm: null, update_ratio: null })).toBe("gradient norm — · update / weight —"); // not finite
    expect(recordText({ ...base, zeros: 0.516, dead_units: 16, units: 16 })).toBe("zeros 52% · dead units 16 of 16");
    expect(recordText(base)).toBe(""); // an older kernel's detail: nothing more to say
  });

  it("says a strip's lines in words on hover: first and latest values, and which records", () => {
    const layer = { epochs: [1, 2, 3], norms: [1.5, null, 2.25], spreads: [0.5, 0.4, 0.3], problems: [] };
    expect(stripText(layer)).toBe("weight norm (blue): 1.50 → 2.25\nactivation spread (orange): 0.500 → 0.300\n"
      + "over the last 3 records (epoch 1 to 3)");
    const plain = { epochs: [1], norms: [], spreads: [0.125], problems: [] }; // a box without weights
    expect(stripText(plain)).toBe("activation spread (orange): 0.125\nat epoch 1");
  });

  it("labels a chart's ticks apart however close they are (a loss that barely moves)", () => {
    expect(tickLabels([2.3025, 2.3026, 2.3027], 0.0001)).toEqual(["2.3025", "2.3026", "2.3027"]);
    expect(tickLabels([0, 0.5, 1], 0.5)).toEqual(["0.0", "0.5", "1.0"]);
    expect(tickLabels([0, 2, 4], 2)).toEqual(["0", "2", "4"]);
    expect(tickLabels([0.1, 0.2], Number.NaN)).toEqual(["0.100", "0.200"]);
    expect(axisSize(["2.3030", "2.3028"])).toBeGreaterThan(axisSize(["0.5", "1.0"])); // room for them
    expect(axisSize(null)).toBe(axisSize(["0.5"]));
  });

  it("reads the strips as the kernel sends them into the numbers the summary says", () => {
    expect(readStrips(strips.wire)).toEqual(strips.summary); // (fixture written by tests/test_insights.py)
    expect(readStrips(strips.wire)).toBe(readStrips(strips.wire)); // read once per message, not per draw
  });

  it("reads a malformed strip message as empty strips, never a throw", () => {
    expect(readStrips(null)).toEqual({ layers: {} });
    expect(readStrips({ layers: null } as never)).toEqual({ layers: {} });
    const odd = readStrips({ layers: { a: { strip: 7, problems: "x" }, b: { strip: "1;abc;Infinity,;;" }, c: null } } as never);
    expect(odd.layers?.a).toEqual({ epochs: [], norms: [], spreads: [], problems: [] });
    expect(odd.layers?.b).toEqual({ epochs: [1, null], norms: [null, null], spreads: [null, null], problems: [] });
    expect(odd.layers?.c?.epochs).toEqual([]);
    // a box named "__proto__" (a valid Keras name) keeps its strip; a problem without words goes
    const box = readStrips(JSON.parse('{"layers": {"__proto__": {"strip": "1;2;3", "problems": [null, {"kind": "dead_units"}, {"kind": "x", "message": "m"}]}}}'));
    expect(Object.keys(box.layers ?? {})).toEqual(["__proto__"]); // a box named so keeps its strip
    expect(box.layers?.["__proto__"]).toEqual({ epochs: [1], norms: [2], spreads: [3], problems: [{ kind: "x", message: "m" }] });
  });

  it("writes every problem's message on hover, as text", () => {
    expect(problemText([{ kind: "dead_units", epoch: 2, message: "16 of 16 units are dead <b>" },
      { kind: "vanishing_gradients", epoch: 2, message: "zero" }])).toBe("16 of 16 units are dead <b>\nzero");
  });

  it("draws histogram bars scaled to the largest count", () => {
    const b = bars({ counts: [0, 5, 10], range: [0, 1], mean: 0, std: 1 }, 30, 20);
    expect(b.map((r) => r[3])).toEqual([0, 10, 20]);
    expect(b[2][1]).toBe(0);
  });
});

describe("the training panel after an undo", () => {
  const status = { state: "stopped", epoch: 2, epochs: 5, batch: 3, batches: 10, eta_s: null, device: "CPU",
    message: "Stopped; the weights trained so far are kept.", traceback: null };
  it("says the run was undone instead of its own last word", () => {
    expect(messageText({ status })).toBe(status.message);
    expect(messageText({ status, undone: true })).toBe(UNDONE);
    expect(progressText({ status, undone: true })).toBe("undone · was stopped at epoch 2/5");
    expect(progressText({ status, undone: false })).toContain("stopped · epoch 2/5");
  });

  it("says when the panel shows only the first of a box's weights", () => {
    expect(weightsLeftOutText(6, 158)).toBe("the first 6 of its 158 weights shown");
    expect(weightsLeftOutText(2, 2)).toBe("");
    expect(weightsLeftOutText(2, undefined)).toBe("");
  });
});
