// Layers for tests as the kernel would send them: their box size and port layout are the
// kernel's (kerascanvas/geometry/boxes.py), read from fixtures/boxes.json, which tests/test_shape.py
// writes from the kernel (KC_WRITE_FIXTURES=1) and checks against it.
import type { Call, EdgeState, FoldInfo, LayerState } from "../src/mirror/types";
import written from "./fixtures/boxes.json";

const BOXES = written as unknown as Record<string, { w: number; h: number; ports: LayerState["ports"]; stack: number | null }>;

/** A layer without the kernel's geometry (what a test writes by hand). */
export type Drawn = Omit<LayerState, "w" | "h" | "ports" | "run" | "fold" | "calls" | "made_from" | "trainable" | "trainable_params" | "lora_rank" | "lora_ready" | "dtype_policy" | "quantize_ready" | "weight_bytes"> & {
  calls: (Omit<Call, "settings"> & { settings?: Call["settings"] })[];
  made_from?: LayerState["made_from"]; run?: string | null; fold?: Omit<FoldInfo, "stack"> | null;
  trainable?: string; trainable_params?: number | null; lora_rank?: number | null; lora_ready?: boolean;
  dtype_policy?: string | null; quantize_ready?: string[]; weight_bytes?: number | null;
};

/** `layer` with the size and port layout the kernel gives it, given the edges into it. */
export function kernelLayer(layer: Drawn, edges: EdgeState[] = []): LayerState {
  const calls = Math.max(1, layer.calls.length);
  const filled = Array.from({ length: calls }, (_, k) => edges.filter((e) => e.dst[0] === layer.name && e.dst[1] === k).length);
  const s = layer.slots;
  const inside = layer.expanded && layer.inner ? [layer.inner.width, layer.inner.height] : null;
  const key = JSON.stringify([layer.is_input, [s.kind, s.names, s.min, s.max], layer.n_outputs, filled, inside, !!layer.fold]);
  const box = BOXES[key];
  if (!box) throw new Error(`no kernel box for ${key}: add it to BOX_CASES in tests/test_shape.py and write the fixtures`);
  const fold = layer.fold ? { ...layer.fold, stack: box.stack ?? 0 } : null;
  const made = layer.calls.map((c) => ({ settings: {}, ...c }));
  return { run: null, made_from: "config", trainable: "yes", trainable_params: layer.params, lora_rank: null, lora_ready: false, dtype_policy: "float32", quantize_ready: [], weight_bytes: layer.params === null ? null : 4 * layer.params, ...layer, calls: made, fold, w: box.w, h: box.h, ports: box.ports };
}
