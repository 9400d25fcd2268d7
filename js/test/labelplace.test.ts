import { describe, expect, it } from "vitest";
import { cut, fitParts, hits, placeGreedy, spreadRow, wireSpots } from "../src/scene/labelplace";
import { CHAR_WIDTH, portLabels } from "../src/scene/portlabels";
import { ports } from "../src/mirror/geometry";
import type { LayerState, Slots } from "../src/mirror/types";
import written from "./fixtures/boxes.json";

type Box = { w: number; h: number; ports: LayerState["ports"] };

const DECODER = ["decoder_sequence", "encoder_sequence", "decoder_padding_mask", "decoder_attention_mask",
  "encoder_padding_mask", "encoder_attention_mask"];

/** The kernel's box (kerascanvas/geometry/boxes.py, via the fixture) for these slots and fills. */
function kernelLayer(slots: Slots, filled: number[]): LayerState {
  const key = JSON.stringify([false, [slots.kind, slots.names, slots.min, slots.max], 1, filled, null, false]);
  const box = (written as unknown as Record<string, Box>)[key];
  expect(box, key).toBeDefined();
  return {
    name: "l", class_name: "TransformerDecoder", group: "core", config: {}, is_input: false, slots, n_outputs: 1,
    made_from: "config", params: null, trainable: "yes", trainable_params: null, lora_rank: null, lora_ready: false, dtype_policy: "float32", quantize_ready: [], weight_bytes: null, problems: [], inner_layers: null, expanded: false, inner: null, run: null, fold: null,
    calls: filled.map((_, index) => ({ index, built: true, output_shapes: null, missing: null, settings: {} })),
    x: 0, y: 0, w: box.w, h: box.h, pinned: false, depth: 0, ports: box.ports,
  } as LayerState;
}

const none = (rects: { x: number; y: number; w: number; h: number }[]) => {
  for (let i = 0; i < rects.length; i++) for (let j = i + 1; j < rects.length; j++) if (hits(rects[i], rects[j])) return [i, j];
  return null;
};

describe("spreading names along an edge", () => {
  it("short names stay on one row, whole", () => {
    const placed = spreadRow([{ x: 45, text: "query" }, { x: 90, text: "value" }, { x: 135, text: "key" }], CHAR_WIDTH);
    expect(placed.map((p) => p.row)).toEqual([0, 0, 0]);
    expect(placed.every((p) => !p.cut)).toBe(true);
  });

  it("crowded names go on two staggered rows; still too wide, they are cut with an ellipsis", () => {
    const names = DECODER.map((text, i) => ({ x: 30 * (i + 1), text }));
    const placed = spreadRow(names, CHAR_WIDTH);
    expect(placed.map((p) => p.row)).toEqual([0, 1, 0, 1, 0, 1]);
    expect(placed.some((p) => p.cut && p.text.endsWith("…"))).toBe(true);
    const rects = placed.map((p, i) => ({ x: names[i].x - p.w / 2, y: p.row * 12, w: p.w, h: 11 }));
    expect(none(rects)).toBeNull();
  });

  it("cut keeps the start and ends in an ellipsis", () => {
    expect(cut("decoder_padding_mask", 8)).toBe("decoder…");
    expect(cut("key", 8)).toBe("key");
  });
});

describe("port names of many-slot calls (the kernel's widths)", () => {
  it("a TransformerDecoder's six slot names are all written whole, none over another", () => {
    const l = kernelLayer({ kind: "args", names: DECODER, min: 1, max: 6 }, [0]);
    expect(l.w).toBeGreaterThan(180); // the kernel widened the box for them
    const labels = portLabels(l, ports(l), { x: 0, y: 0 });
    expect(labels.map((t) => t.text)).toEqual(DECODER);
    expect(labels.every((t) => !t.full)).toBe(true);
    expect(none(labels.map((t) => t.rect))).toBeNull();
    expect(labels.every((t) => t.rect.y + t.rect.h <= 2)).toBe(true); // above the box
  });

  it("a merge of eight writes its nine slot names apart", () => {
    const l = kernelLayer({ kind: "list", names: ["inputs"], min: 2, max: null }, [8]);
    const labels = portLabels(l, ports(l), { x: 0, y: 0 });
    expect(labels).toHaveLength(9);
    expect(labels.every((t) => !t.full)).toBe(true);
    expect(none(labels.map((t) => t.rect))).toBeNull();
  });

  it("a box too narrow for its names cuts them, keeping the whole name for the tooltip", () => {
    const l = kernelLayer({ kind: "args", names: DECODER, min: 1, max: 6 }, [0]);
    const squeezed = { ...l, w: 180, ports: { in: l.ports.in.map(([k, s]) => [k, s, (180 * (s + 1)) / 7, 0]), out: l.ports.out } } as LayerState;
    const labels = portLabels(squeezed, ports(squeezed), { x: 0, y: 0 });
    expect(labels.some((t) => t.full && t.text.endsWith("…") && DECODER.includes(t.full))).toBe(true);
    expect(none(labels.map((t) => t.rect))).toBeNull();
  });
});

describe("greedy placement", () => {
  it("each label takes its first free spot; one with none is left out", () => {
    const box = { x: 0, y: 0, w: 100, h: 40 };
    const a = { spots: [{ x: 10, y: 10, w: 20, h: 10 }, { x: 120, y: 0, w: 20, h: 10 }] }; // first spot over the box
    const b = { spots: [{ x: 125, y: 5, w: 20, h: 10 }, { x: 120, y: 20, w: 20, h: 10 }] }; // first over a's
    const c = { spots: [{ x: 50, y: 10, w: 10, h: 10 }] }; // only over the box
    const placed = placeGreedy([a, b, c], [box]);
    expect(placed).toEqual([{ x: 120, y: 0, w: 20, h: 10 }, { x: 120, y: 20, w: 20, h: 10 }, null]);
  });

  it("touching (within half a pixel) is not overlapping", () => {
    const placed = placeGreedy([{ spots: [{ x: 10, y: 0, w: 10, h: 10 }] }], [{ x: 0, y: 0, w: 10.3, h: 10 }]);
    expect(placed[0]).not.toBeNull();
  });

  it("values along crossing wires never cover each other or the boxes", () => {
    const boxes = [{ x: 0, y: 0, w: 180, h: 62 }, { x: 0, y: 200, w: 180, h: 62 }, { x: 220, y: 200, w: 180, h: 62 }];
    const wires = [[{ x: 90, y: 62 }, { x: 90, y: 200 }], [{ x: 90, y: 62 }, { x: 310, y: 200 }], [{ x: 60, y: 62 }, { x: 60, y: 200 }],
      [{ x: 120, y: 62 }, { x: 120, y: 200 }]];
    const labels = wires.map((w) => ({ spots: wireSpots(w, 140, 14) }));
    const placed = placeGreedy(labels, boxes);
    const got = placed.filter((r): r is NonNullable<typeof r> => r !== null);
    expect(got.length).toBeGreaterThanOrEqual(3);
    expect(none([...got, ...boxes])).toBeNull();
  });

  it("places 2,000 labels beside 2,000 boxes, each in a spot of its own (timed in benchmarks/)", () => {
    const fixed = Array.from({ length: 2000 }, (_, i) => ({ x: (i % 40) * 220, y: Math.floor(i / 40) * 120, w: 180, h: 62 }));
    const labels = fixed.map((b) => ({ spots: wireSpots([{ x: b.x + 90, y: b.y + 62 }, { x: b.x + 90, y: b.y + 120 }], 120, 14) }));
    const placed = placeGreedy(labels, fixed);
    expect(placed.every((r) => r !== null)).toBe(true);
  });
});

describe("a box's subtitle", () => {
  const parts = [{ text: "TransformerDecoder", drop: 0 }, { text: "gelu_approximate", drop: 2 }, { text: "", drop: 1 },
    { text: "2,890 params", drop: 3 }, { text: "depth 3", drop: 4 }];
  it("written whole when it fits", () => {
    expect(fitParts(parts, 5.6, 1000)).toEqual({ text: "TransformerDecoder · gelu_approximate · 2,890 params · depth 3", full: null });
  });
  it("the least telling parts left out first, the whole kept for the tooltip", () => {
    expect(fitParts(parts, 5.6, 300).text).toBe("TransformerDecoder · gelu_approximate · 2,890 params"); // depth first
    const fit = fitParts(parts, 5.6, 220);
    expect(fit.text).toBe("TransformerDecoder · gelu_approximate");
    expect(fit.full).toBe("TransformerDecoder · gelu_approximate · 2,890 params · depth 3");
    expect(fitParts(parts, 5.6, 60).text).toBe("TransformerDecoder"); // the class always stays
  });
});
