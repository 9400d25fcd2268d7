// Pure helpers over the kernel's state: lookups, texts, summaries. No DOM.
import type { DrawnEdge } from "./folds";
import type { GraphState, LayerState } from "./types";

export function shapeText(shape: (number | null)[] | null): string {
  if (!shape) return "?";
  return "(" + shape.map((d) => (d === null ? "None" : String(d))).join(", ") + (shape.length === 1 ? ",)" : ")");
}

export function paramsText(n: number): string {
  if (n >= 1e6) return `${(n / 1e6).toFixed(2)}M`;
  if (n >= 1e4) return `${(n / 1e3).toFixed(1)}k`;
  return String(n);
}

export function callText(layer: LayerState, k: number): string {
  const call = layer.calls[k];
  if (!call) return "";
  if (!call.built) return `call ${k}: pending` + (call.missing ? ` (${call.missing})` : "");
  const shapes = (call.output_shapes ?? []).map(shapeText).join(" ");
  return `node ${k} → ${shapes}`;
}

export function edgeTitle(e: DrawnEdge): string {
  const { src, dst } = e.real ?? e; // a wire to or from a folded run's box tells the edge it stands for
  return `(${JSON.stringify(src[0])}, node_index=${src[1]}, tensor_index=${src[2]}) → ${dst[0]} call ${dst[1]} slot ${dst[2]}`
    + (e.real ? " (into or out of a folded run)" : "");
}

/** " (12.8k trainable, 2.26M non-trainable)" where some parameters do not train, else "". */
export function trainableText(model: { trainable_params?: number; non_trainable_params?: number }): string {
  const frozen = model.non_trainable_params ?? 0;
  if (!frozen) return "";
  return ` (${paramsText(model.trainable_params ?? 0)} trainable, ${paramsText(frozen)} non-trainable)`;
}

/** The memory of the weights as Keras's model.summary writes it: "7.11 KB" (1024 to a KB). */
export function memoryText(bytes: number): string {
  const units = ["B", "KB", "MB", "GB", "TB"];
  let i = 0;
  while (bytes >= 1024 && i < units.length - 1) { bytes /= 1024; i++; }
  return `${bytes.toFixed(2)} ${units[i]}`;
}

export function summary(state: GraphState): string {
  const params = state.layers.reduce((sum, l) => sum + (l.params ?? 0), 0);
  if (state.model) {
    const outs = state.model.outputs.map((o) => `${o[0]}[${o[1]}.${o[2]}]`).join(", ");
    const memory = state.model.weight_bytes === undefined ? "" : ` · ${memoryText(state.model.weight_bytes)}`;
    return `${paramsText(state.model.params)} params${trainableText(state.model)}${memory} · inputs: ${state.model.inputs.join(", ")} · outputs: ${outs}`;
  }
  if (!state.layers.length) return "Empty: drag an Input from the palette, or start from an example.";
  const n = state.problems.length;
  return `${paramsText(params)} params · not a model yet: ${n} problem${n === 1 ? "" : "s"}`;
}

/** Filter palette entries by a search text (class name or group), case-insensitive. */
export function search<T extends { class_name: string; group: string }>(entries: T[], text: string): T[] {
  const q = text.trim().toLowerCase();
  if (!q) return entries;
  return entries.filter((e) => e.class_name.toLowerCase().includes(q) || e.group.toLowerCase().includes(q));
}

export function grouped<T extends { group: string }>(entries: T[]): [string, T[]][] {
  const groups = new Map<string, T[]>();
  for (const e of entries) {
    if (!groups.has(e.group)) groups.set(e.group, []);
    groups.get(e.group)!.push(e);
  }
  return [...groups.entries()];
}

/** Parse a form field back to a config value of the schema's type; throws with a message. */
export function parseField(type: string, text: string): unknown {
  const t = text.trim();
  if (type === "int") {
    if (!/^-?\d+$/.test(t)) throw new Error(`expected an integer, got "${text}"`);
    return parseInt(t, 10);
  }
  if (type === "float") {
    const v = Number(t);
    if (t === "" || !Number.isFinite(v)) throw new Error(`expected a number, got "${text}"`);
    return v;
  }
  if (type === "ints") {
    const parts = listParts(t);
    if (!parts.length || !parts.every((p) => /^-?\d+$/.test(p))) throw new Error(`expected integers like 3, 3, got "${text}"`);
    return parts.length === 1 ? parseInt(parts[0], 10) : parts.map((p) => parseInt(p, 10));
  }
  if (type === "shape") {
    // a target shape: always a list, None for a size left open
    const parts = listParts(t);
    if (!parts.every((p) => /^-?\d+$/.test(p) || p === "None")) throw new Error(`expected sizes like 4, 8 (None for any), got "${text}"`);
    return parts.map((p) => (p === "None" ? null : parseInt(p, 10)));
  }
  if (type === "bool") {
    if (/^(true|false)$/i.test(t)) return t.toLowerCase() === "true";
    throw new Error(`expected true or false, got "${text}"`);
  }
  if (t === "None" || t === "null") return null;
  return t;
}

function listParts(text: string): string[] {
  return text.replace(/[()[\]]/g, "").split(",").map((s) => s.trim()).filter((s) => s !== "");
}

/** A field's value as the form shows it: lists as "3, 3", null as "None". */
export function fieldText(value: unknown): string {
  if (value === null || value === undefined) return "None";
  if (Array.isArray(value)) return value.map((v) => (v === null ? "None" : String(v))).join(", ");
  return String(value);
}

/** The problems the kernel reports, one line each, the drawing-wide ones (no layer) first. */
export function problemLines(state: GraphState): { text: string; layer: string | null }[] {
  const general = state.problems.filter((p) => p.layer === null);
  const located = state.problems.filter((p) => p.layer !== null);
  return [...general, ...located].map((p) => ({ text: p.message, layer: p.layer }));
}
