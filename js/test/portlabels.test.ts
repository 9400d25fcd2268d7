import { describe, expect, it } from "vitest";
import { ports } from "../src/mirror/geometry";
import { markerRect, portLabels } from "../src/scene/portlabels";
import type { LayerState, Slots } from "../src/mirror/types";
import written from "./fixtures/boxes.json";
import writtenRight from "./fixtures/boxes-right.json";

type Box = { w: number; h: number; ports: LayerState["ports"] };

/** Every box of the kernel's geometry fixture (kerascanvas/geometry/boxes.py), as a layer at (100, 50);
 * `right`: as laid out in a drawing that flows left to right. */
function fixtureLayers(right = false): LayerState[] {
  return Object.entries((right ? writtenRight : written) as unknown as Record<string, Box>).map(([key, box], i) => {
    const [isInput, [kind, names, min, max], nOutputs, filled] = JSON.parse(key) as [boolean, [Slots["kind"], string[], number, number | null], number, number[]];
    return {
      name: `l${i}`, class_name: "Dense", group: "core", config: {}, is_input: isInput,
      slots: { kind, names, min, max }, n_outputs: nOutputs, made_from: "config", params: null, trainable: "yes", trainable_params: null, lora_rank: null, lora_ready: false, dtype_policy: "float32", quantize_ready: [], weight_bytes: null, problems: [],
      calls: filled.map((_, index) => ({ index, built: true, output_shapes: null, missing: null, settings: {} })),
      inner_layers: null, expanded: false, inner: null, run: null, fold: null,
      x: 100, y: 50, w: box.w, h: box.h, pinned: false, depth: 0, ports: box.ports,
    } as LayerState;
  });
}

const overlap = (a: { x: number; y: number; w: number; h: number }, b: typeof a) =>
  a.x < b.x + b.w && b.x < a.x + a.w && a.y < b.y + b.h && b.y < a.y + a.h;

describe("port labels", () => {
  it("no two of a box's port names overlap, on every box of the kernel's geometry", () => {
    const layers = fixtureLayers();
    expect(layers.some((l) => l.calls.length > 1 && l.n_outputs > 1)).toBe(true); // a shared LSTM(return_state=True)
    for (const l of layers) {
      const labels = portLabels(l, ports(l), { x: l.x, y: l.y });
      for (let i = 0; i < labels.length; i++) {
        for (let j = i + 1; j < labels.length; j++) {
          expect(overlap(labels[i].rect, labels[j].rect), `${JSON.stringify(l.slots)} ${l.n_outputs} outputs ${l.calls.length} calls: "${labels[i].text}" and "${labels[j].text}"`).toBe(false);
        }
      }
    }
  });

  it("a shared multi-output box writes node_index.tensor_index under each output port", () => {
    const lstm = fixtureLayers().find((l) => l.calls.length === 2 && l.n_outputs === 3 && l.ports.in.length === 2)!;
    const texts = portLabels(lstm, ports(lstm), { x: lstm.x, y: lstm.y }).map((t) => t.text);
    expect(texts.filter((t) => /^\d\.\d$/.test(t))).toEqual(["0.0", "0.1", "0.2", "1.0", "1.1", "1.2"]);
    expect(texts.filter((t) => t === "call 0" || t === "call 1")).toEqual(["call 0", "call 1"]); // the two slots
  });

  it("a later call's slot on the box's side is named beside it, outside the box", () => {
    const shared = fixtureLayers().find((l) => l.calls.length === 2 && l.n_outputs === 1 && l.slots.kind === "single" && l.ports.in.length === 2)!;
    const side = shared.ports.in.find(([k]) => k === 1)!;
    expect(side[2]).toBe(0); // left edge
    expect(side[3]).toBeGreaterThan(0);
    const label = portLabels(shared, ports(shared), { x: shared.x, y: shared.y }).find((t) => t.text === "call 1")!;
    expect(label.rect.x + label.rect.w).toBeLessThanOrEqual(0);
  });
});

describe("port labels in a drawing that flows left to right", () => {
  it("slots are named left of the box and outputs right of it, each beside its port, none over another", () => {
    const layers = fixtureLayers(true);
    expect(layers.length).toBeGreaterThan(10);
    let named = 0;
    for (const l of layers) {
      const labels = portLabels(l, ports(l), { x: l.x, y: l.y });
      for (let i = 0; i < labels.length; i++) {
        for (let j = i + 1; j < labels.length; j++) {
          expect(overlap(labels[i].rect, labels[j].rect), `${JSON.stringify(l.slots)}: "${labels[i].text}" and "${labels[j].text}"`).toBe(false);
        }
        // relative to the box: wholly left of it (a slot) or wholly right of it (an output)
        const r = labels[i].rect;
        expect(r.x + r.w <= 0 || r.x >= l.w, `"${labels[i].text}" inside its box`).toBe(true);
        named++;
      }
    }
    expect(named).toBeGreaterThan(20);
    const decoder = layers.find((l) => l.slots.names.includes("decoder_sequence"))!;
    const texts = portLabels(decoder, ports(decoder), { x: decoder.x, y: decoder.y });
    expect(texts.filter((t) => t.rect.x + t.rect.w <= 0).map((t) => t.text)).toContain("encoder_sequence");
  });
});

describe("output markers", () => {
  it("a marked output's badge covers no port name, on every box of the kernel's geometry, and stays under its port", () => {
    let moved = 0;
    for (const l of fixtureLayers()) {
      const found = ports(l);
      const labels = portLabels(l, found, { x: 0, y: 0 }); // in the ports' own coordinates
      for (const p of found.filter((q) => q.kind === "out")) {
        for (const w of [14, 60]) { // "+", and "0: a_long_key"
          const r = markerRect(p.at, w, labels);
          for (const q of labels) expect(overlap(r, q.rect), `${l.name} ${p.key} "${q.text}"`).toBe(false);
          expect(r.x + r.w / 2).toBe(p.at.x);
          if (r.y > p.at.y + 8) moved++;
        }
      }
    }
    expect(moved).toBeGreaterThan(0); // some outputs are named: their markers went below the name
  });

  it("a wire's shape label under a port's name sends the marker beside the name, never over a name", () => {
    const l = fixtureLayers().find((q) => q.calls.length > 1 && q.n_outputs === 1)!; // outputs named "call k"
    const found = ports(l).filter((q) => q.kind === "out");
    const names = portLabels(l, ports(l), { x: 0, y: 0 });
    const p = found[found.length - 1];
    const own = names.find((n) => n.text === `call ${p.call}`)!.rect;
    const below = markerRect(p.at, 14, names);
    expect(below.y).toBeGreaterThanOrEqual(own.y + own.h); // under its name when that is free
    const taken = [{ x: below.x - 20, y: below.y, w: below.w + 40, h: 12 }]; // "(None, 3)" there
    const r = markerRect(p.at, 14, names, taken);
    expect([r.x >= own.x + own.w, r.x + r.w <= own.x]).toContain(true); // beside the name
    for (const q of [...names.map((n) => n.rect), ...taken]) expect(overlap(r, q)).toBe(false);
  });

  it("an output with no name written keeps its marker just under the port", () => {
    expect(markerRect({ x: 50, y: 100 }, 20, [])).toEqual({ x: 40, y: 108, w: 20, h: 14 });
  });
});
