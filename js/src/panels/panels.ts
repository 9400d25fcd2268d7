// The palette (searchable, grouped) and the inspector (a typed form from the catalog schema).
import { clear, el } from "../base/dom";
import { fieldText, grouped, parseField, search } from "../mirror/mirror";
import type { LayerState, PaletteEntry } from "../mirror/types";

/** Input boxes the palette offers, by their palette name: the shape each starts with. */
export const INPUT_PRESETS: Record<string, number[]> = {
  "Input": [8],
  "Input 28x28x1": [28, 28, 1],
  "Input 32x32x3": [32, 32, 3],
  "Input 16x8 sequence": [16, 8],
};

export function renderPalette(
  host: HTMLElement, entries: PaletteEntry[],
  onPick: (className: string, ev: PointerEvent | KeyboardEvent) => void,
): void {
  clear(host);
  const input = el("input", { type: "search", placeholder: "Search layers", "aria-label": "Search layers", class: "kc-search" });
  const list = el("div", { class: "kc-palette-list", role: "list" });
  host.append(input, list);
  const inputs = Object.keys(INPUT_PRESETS).map((class_name) => ({ class_name, group: "input", slots: { kind: "none" as const, names: [], min: 0, max: 0 }, schema: [], suggested: {} }));
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

export function renderInspector(
  host: HTMLElement, layer: LayerState | null, entry: PaletteEntry | undefined,
  error: string | null, onChange: (config: Record<string, unknown>) => void,
  onRename: (name: string) => void,
): void {
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
  if (layer.is_input) {
    const shape = (layer.config.batch_shape as (number | null)[] | undefined)?.slice(1) ?? [];
    const field = el("input", { value: shape.map((d) => (d === null ? "None" : d)).join(", "), "aria-label": "shape", class: "kc-field" });
    field.addEventListener("change", () => {
      try { onChange({ shape: field.value.split(",").map((s) => s.trim()).filter(Boolean).map((s) => (s === "None" ? null : parseInt(s, 10))) }); }
      catch (e) { onError(host, String(e)); }
    });
    host.append(row("shape", field));
    return;
  }
  for (const f of entry?.schema ?? []) {
    if (f.type === "layer" || f.type === "any" || !(f.name in layer.config)) continue;
    const value = layer.config[f.name];
    let input: HTMLInputElement | HTMLSelectElement;
    if (f.type === "bool") {
      input = el("input", { type: "checkbox", "aria-label": f.name });
      (input as HTMLInputElement).checked = Boolean(value);
      input.addEventListener("change", () => onChange({ [f.name]: (input as HTMLInputElement).checked }));
    } else if (f.type === "choice" && f.choices) {
      input = el("select", { "aria-label": f.name, class: "kc-field" });
      for (const c of f.choices) {
        const opt = el("option", { value: JSON.stringify(c) }, c === null ? "None" : String(c));
        if (JSON.stringify(c) === JSON.stringify(value)) opt.selected = true;
        input.append(opt);
      }
      input.addEventListener("change", () => onChange({ [f.name]: JSON.parse((input as HTMLSelectElement).value) }));
    } else if (value !== null && typeof value === "object" && !Array.isArray(value)) {
      // serialized Keras objects (initializers, regularizers): shown, edited from Python
      const v = value as { class_name?: string };
      input = el("input", { value: v.class_name ?? JSON.stringify(value), "aria-label": f.name, class: "kc-field", disabled: "" });
    } else {
      input = el("input", { value: fieldText(value), "aria-label": f.name, class: "kc-field" });
      input.addEventListener("change", () => {
        try { onChange({ [f.name]: parseField(f.type, (input as HTMLInputElement).value) }); }
        catch (e) { onError(host, (e as Error).message); }
      });
    }
    host.append(row(f.name, input));
  }
}

function row(label: string, input: HTMLElement): HTMLElement {
  const r = el("label", { class: "kc-row" });
  r.append(el("span", {}, label), input);
  return r;
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
