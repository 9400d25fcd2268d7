// The palette (searchable, grouped) and the inspector (a form of the fields the kernel reads off the
// live layer: every key of its get_config(), read-only where the kernel cannot check an edit).
import { clear, el } from "../base/dom";
import { fieldText, grouped, search } from "../mirror/mirror";
import type { LayerState, PaletteEntry } from "../mirror/types";
import type { DataInput } from "../training/training";

/** An Input box the palette offers: the shape (and dtype, and name) it starts with. */
export interface InputPreset { shape: (number | null)[]; dtype?: string; name?: string }

/** Input boxes the palette always offers, by their palette name. */
export const INPUT_PRESETS: Record<string, InputPreset> = {
  "Input": { shape: [8] },
  "Input 28x28x1": { shape: [28, 28, 1] },
  "Input 32x32x3": { shape: [32, 32, 3] },
  "Input 16x8 sequence": { shape: [16, 8] },
};

/** The palette's Inputs: first those shaped like the data set_data got ("Input 8x8x1 (your
 * data)", named by a dict's key), then the built-in ones. */
export function inputPresets(data: readonly DataInput[] | undefined): Record<string, InputPreset> {
  const found: Record<string, InputPreset> = {};
  for (const d of data ?? []) {
    const dims = d.shape.length ? d.shape.map((n) => (n === null ? "?" : String(n))).join("x") : "scalar";
    found[`Input ${d.name ? `${d.name} ` : ""}${dims} (your data)`] = { shape: d.shape, dtype: d.dtype, ...(d.name ? { name: d.name } : {}) };
  }
  return { ...found, ...INPUT_PRESETS };
}

export function renderPalette(
  host: HTMLElement, entries: PaletteEntry[],
  onPick: (className: string, ev: PointerEvent | KeyboardEvent) => void,
  presets: Record<string, InputPreset> = INPUT_PRESETS,
): void {
  clear(host);
  const input = el("input", { type: "search", placeholder: "Search layers", "aria-label": "Search layers", class: "kc-search" });
  const list = el("div", { class: "kc-palette-list", role: "list" });
  host.append(input, list);
  const inputs = Object.keys(presets).map((class_name) => ({ class_name, group: "input", slots: { kind: "none" as const, names: [], min: 0, max: 0 }, schema: [], suggested: {} }));
  const all: PaletteEntry[] = [...inputs, ...entries];
  const draw = () => {
    clear(list);
    for (const [group, items] of grouped(search(all, input.value))) {
      list.append(el("div", { class: "kc-group" }, group));
      for (const item of items) {
        const entry = el("div", { class: "kc-entry", role: "button", tabindex: "0", "aria-label": item.class_name, "data-class": item.class_name }, item.class_name);
        entry.addEventListener("pointerdown", (ev) => onPick(item.class_name, ev));
        entry.addEventListener("keydown", (ev) => { if (ev.key === "Enter") { ev.stopPropagation(); onPick(item.class_name, ev); } });
        list.append(entry);
      }
    }
  };
  input.addEventListener("input", draw);
  input.addEventListener("keydown", (ev) => {
    if (ev.key !== "Enter") return;
    ev.stopPropagation(); // the notebook's Enter would leave the field
    const first = search(all, input.value)[0];
    if (first) onPick(first.class_name, ev);
  });
  draw();
}

/** One field of the inspector, as the kernel's `inspect` intent gives it (kerascanvas/mirror/fields.py):
 * one per key of the live layer's get_config(), its value exactly as Keras gives it. */
export interface InspectField {
  name: string;
  value: unknown;
  text: string;                          // the value as short text (a serialized function by its name)
  kind: "bool" | "int" | "float" | "text" | "choice" | "list" | "shape" | "object";
  editable: boolean;                     // whether the kernel can check an edit (g.configure)
  reason: string | null;                 // why not, when it cannot
  choices?: unknown[];                   // a choice's values: the current one always among them
  omitted?: boolean;                     // summed up, not sent (a nested model's layers)
  source?: string;                       // "box": an operation's constant, kept with the box
}

/** The `inspect` intent's answer for a layer, or for a layer inside a nested model by its path. */
export interface Inspected {
  name: string; path: string; class_name: string; inside: string | null; is_input: boolean;
  fields: InspectField[];
  problem?: string | null;               // why the live layer's config could not be read (fields from the drawing)
}

/** The form of a layer: its name, the kernel's refusal, and a place (.kc-fields) for its fields,
 * filled now when `fields` is given and later by `renderFields` when the kernel answers. */
export function renderInspector(
  host: HTMLElement, layer: LayerState | null, entry: PaletteEntry | undefined,
  error: string | null, onChange: (config: Record<string, unknown>) => void,
  onRename: (name: string) => void, fields?: Inspected | null,
): void {
  void entry; // (the kernel's fields are refined by the palette's schema already)
  clear(host);
  if (!layer) {
    host.append(el("div", { class: "kc-muted" }, "Select a layer to edit its config."));
    return;
  }
  host.append(el("div", { class: "kc-title" }, `${layer.name} · ${layer.class_name}`));
  const name = el("input", { value: layer.name, "aria-label": "layer name", class: "kc-field" });
  name.addEventListener("change", () => onRename(name.value));
  host.append(row("name", name));
  if (error) host.append(el("div", { class: "kc-error", role: "alert" }, error));
  const box = el("div", { class: "kc-fields" });
  host.append(box);
  if (fields) renderFields(host, fields, onChange);
  else box.append(el("div", { class: "kc-muted" }, "Reading the layer's config…"));
}

/** A layer inside a nested model (read-only but for its trainable flag): its title, where it is, and its fields. */
export function renderInnerInspector(host: HTMLElement, path: string, fields: Inspected | null, error?: string,
  onChange: (config: Record<string, unknown>) => void = () => undefined): void {
  clear(host);
  const parts = path.split("/");
  host.append(el("div", { class: "kc-title" }, `${parts[parts.length - 1]} · ${fields?.class_name ?? "…"}`));
  host.append(el("div", { class: "kc-muted", "aria-label": "inside" }, `inside nested model ${parts.slice(0, -1).join("/")}`));
  const box = el("div", { class: "kc-fields" });
  host.append(box);
  if (error) box.append(el("div", { class: "kc-error", role: "alert" }, error));
  else if (fields) renderFields(host, fields, onChange); // only its trainable flag is editable
  else box.append(el("div", { class: "kc-muted" }, "Reading the layer's config…"));
}

/** Fill the form's .kc-fields with one row per field; read-only ones disabled with their reason
 * as the title and as a hint (once for all, when every field has the same reason). */
export function renderFields(host: HTMLElement, inspected: Inspected, onChange: (config: Record<string, unknown>) => void): void {
  const box = host.querySelector(".kc-fields") as HTMLElement | null;
  if (!box) return;
  clear(box);
  const shown = inspected.fields.filter((f) => !(f.name === "name" && !inspected.inside)); // the name row renames
  // an inner layer: every field read-only for one reason but its trainable flag (said once)
  const counted = inspected.inside ? shown.filter((f) => !f.editable) : shown;
  const reasons = new Set(counted.map((f) => (f.editable ? null : f.reason)));
  const common = reasons.size === 1 && counted.length > 1 ? [...reasons][0] : null;
  if (inspected.problem) box.append(el("div", { class: "kc-muted kc-hint" }, inspected.problem));
  if (common && common !== inspected.problem) box.append(el("div", { class: "kc-muted kc-hint" }, common));
  for (const f of shown) {
    if (inspected.is_input && f.name === "batch_shape") {
      box.append(...fieldRow("shape", shapeInput(host, f, onChange), f, common));
      continue;
    }
    box.append(...fieldRow(f.name, fieldInput(host, f, onChange), f, common));
  }
}

function fieldRow(label: string, input: HTMLElement, f: InspectField, common: string | null): HTMLElement[] {
  const r = row(label, input);
  if (f.editable || !f.reason) return [r];
  r.setAttribute("title", f.reason);
  input.setAttribute("title", f.reason);
  return f.reason === common ? [r] : [r, el("div", { class: "kc-muted kc-hint", style: "font-size: 11px; margin: 0 0 4px 94px" }, f.reason)];
}

/** An Input's shape without its batch size (the kernel's batch_shape), sent as `shape`. */
function shapeInput(host: HTMLElement, f: InspectField, onChange: (config: Record<string, unknown>) => void): HTMLElement {
  const shape = Array.isArray(f.value) ? (f.value as (number | null)[]).slice(1) : [];
  const text = shape.map((d) => (d === null ? "None" : d)).join(", ");
  const input = el("input", { value: text, "aria-label": "shape", class: "kc-field" });
  if (!f.editable) input.setAttribute("disabled", "");
  input.addEventListener("change", () => {
    try { onChange({ shape: parseFieldValue("shape", input.value) }); }
    catch (e) { refusedHere(host, input, text, `shape: ${(e as Error).message}`); }
  });
  return input;
}

function fieldInput(host: HTMLElement, f: InspectField, onChange: (config: Record<string, unknown>) => void): HTMLElement {
  let input: HTMLInputElement | HTMLSelectElement;
  if (f.kind === "bool" && typeof f.value === "boolean") {
    input = el("input", { type: "checkbox", "aria-label": f.name });
    (input as HTMLInputElement).checked = f.value;
    input.addEventListener("change", () => onChange({ [f.name]: (input as HTMLInputElement).checked }));
  } else if (f.kind === "choice" && f.choices) {
    input = el("select", { "aria-label": f.name, class: "kc-field" });
    const current = JSON.stringify(f.value);
    for (const c of f.choices) {
      const same = JSON.stringify(c) === current;
      const opt = el("option", { value: JSON.stringify(c) }, same ? f.text : choiceText(c));
      if (same) opt.selected = true;
      input.append(opt);
    }
    input.addEventListener("change", () => onChange({ [f.name]: JSON.parse((input as HTMLSelectElement).value) }));
  } else {
    const text = f.kind === "object" && f.editable ? (f.value === null ? "None" : JSON.stringify(f.value)) : f.text;
    input = el("input", { value: text, "aria-label": f.name, class: "kc-field" });
    input.addEventListener("change", () => {
      try { onChange({ [f.name]: parseFieldValue(f.kind, (input as HTMLInputElement).value) }); }
      catch (e) { refusedHere(host, input as HTMLInputElement, text, `${f.name}: ${(e as Error).message}`); }
    });
  }
  if (!f.editable) input.setAttribute("disabled", "");
  return input;
}

function choiceText(c: unknown): string {
  if (c === null) return "None";
  if (typeof c === "object") {
    const o = c as { class_name?: unknown; config?: unknown };
    return typeof o.config === "string" ? o.config : typeof o.class_name === "string" ? o.class_name : JSON.stringify(c);
  }
  return String(c);
}

/** What a field's typed text means for its kind: None is null (but in a text field); a list is
 * comma-separated; an object is JSON, or else a name. Throws saying what was expected. */
export function parseFieldValue(kind: InspectField["kind"], text: string): unknown {
  const t = text.trim();
  if (kind === "text") return text;
  if (t === "None" || t === "null") return null;
  if (kind === "int") {
    if (!/^-?\d+$/.test(t)) throw new Error(`expected a whole number, got "${text}"`);
    return parseInt(t, 10);
  }
  if (kind === "float") {
    const v = Number(t);
    if (t === "" || !Number.isFinite(v)) throw new Error(`expected a number, got "${text}"`);
    return v;
  }
  if (kind === "bool") {
    if (/^(true|false)$/i.test(t)) return t.toLowerCase() === "true";
    throw new Error(`expected True or False, got "${text}"`);
  }
  if (kind === "list" || kind === "shape") {
    const parts = t.replace(/^[[(]|[\])]$/g, "").split(",").map((p) => p.trim()).filter((p) => p !== "");
    return parts.map((p) => {
      if (p === "None" || p === "null") return null;
      if (kind === "shape") {
        if (!/^-?\d+$/.test(p)) throw new Error(`expected sizes like 4, 8 (None for any), got "${text}"`);
        return parseInt(p, 10);
      }
      const n = Number(p);
      return p !== "" && Number.isFinite(n) ? n : p.replace(/^(['"])(.*)\1$/, "$2");
    });
  }
  try { return JSON.parse(t); }
  catch { return t; } // a name Keras knows ("l2", "glorot_uniform"): the kernel checks it
}

/** The fields the mirrored config gives, every one read-only with `reason`: what the inspector
 * shows when the kernel cannot answer (the standalone view). */
export function configFields(layer: LayerState, reason: string): Inspected {
  const fields: InspectField[] = Object.entries(layer.config).map(([name, value]) => ({
    name, value, text: value !== null && typeof value === "object" && !Array.isArray(value) ? choiceText(value) : fieldText(value),
    kind: typeof value === "boolean" ? "bool" : "text", editable: false, reason,
  }));
  return { name: layer.name, path: layer.name, class_name: layer.class_name, inside: null, is_input: layer.is_input, fields };
}

function row(label: string, input: HTMLElement): HTMLElement {
  const r = el("label", { class: "kc-row" });
  r.append(el("span", {}, label), input);
  return r;
}

/** Typed text refused before anything is sent: the field shows the kernel's value again (the
 * form never shows what the layer does not have) and the message says what was typed. */
function refusedHere(host: HTMLElement, input: HTMLInputElement, kept: string, message: string): void {
  input.value = kept;
  onError(host, `${message}; it stays ${kept}.`);
}

/** A mistake caught before anything is sent, shown where the kernel's refusals are. */
export function onError(host: HTMLElement, message: string): void {
  host.querySelector(".kc-error")?.remove();
  host.insertBefore(el("div", { class: "kc-error", role: "alert" }, message), host.children[2] ?? null);
}

export interface Explanation { title: string; rows: [string, unknown][] }

/** The inspector's "Keras internals" section: each node of the layer and its coordinates. */
export function renderNodes(host: HTMLElement, nodes: Explanation[], layer?: Explanation): void {
  host.querySelector(".kc-nodes")?.remove();
  const box = el("div", { class: "kc-nodes" });
  const outbound = (layer?.rows ?? []).filter(([label]) => label.startsWith("_outbound_nodes"));
  if (outbound.length) {
    box.append(el("div", { class: "kc-title" }, "Consumers (_outbound_nodes)"));
    for (const [label, value] of outbound) box.append(el("div", { class: "kc-node-row" }, `${label}: ${String(value)}`));
  }
  box.append(el("div", { class: "kc-title" }, "Keras nodes (_inbound_nodes)"));
  nodes.forEach((node, k) => {
    const item = el("div", { class: "kc-node", tabindex: "0", "aria-label": node.title.replace(/^Node/, "node") });
    item.append(el("div", { class: "kc-node-title" }, node.title));
    for (const [label, value] of node.rows) {
      if (label === "input_tensors" || label === "output_tensors") continue;
      item.append(el("div", { class: "kc-node-row" }, `${label}: ${Array.isArray(value) ? JSON.stringify(value) : String(value)}`));
    }
    box.append(item);
    void k;
  });
  host.append(box);
}

/** One explanation (an edge's tensor) as the inspector's content. */
export function renderExplanation(host: HTMLElement, e: Explanation): void {
  clear(host);
  const box = el("div", { class: "kc-node", "aria-label": e.title });
  box.append(el("div", { class: "kc-node-title" }, e.title));
  for (const [label, value] of e.rows) box.append(el("div", { class: "kc-node-row" }, `${label}: ${Array.isArray(value) ? JSON.stringify(value) : String(value)}`));
  host.append(box);
}
