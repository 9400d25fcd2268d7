// The model's outputs made explicit: mark, unmark and reorder them (one set_outputs intent each,
// one undo step), dict keys too. The list operations are pure; the panel lists the outputs in
// order, says that Keras's walk starts from them in that order, and sends the new list.
import { clear, el } from "../base/dom";
import { type Triple, tensorId } from "./walk";

export interface Outputs { ports: Triple[]; keys: string[] }

const same = (a: Triple, b: Triple) => tensorId(a) === tensorId(b);

/** Marked if it was not (at the end), unmarked if it was. */
export function toggleOutput(o: Outputs, port: Triple): Outputs {
  const i = o.ports.findIndex((p) => same(p, port));
  if (i < 0) return { ports: [...o.ports, port], keys: o.keys.length ? [...o.keys, freeKey(o.keys, port)] : [] };
  return { ports: o.ports.filter((_, j) => j !== i), keys: o.keys.filter((_, j) => j !== i) };
}

/** Output i moved by `by` places (kept inside the list). */
export function moveOutput(o: Outputs, i: number, by: number): Outputs {
  const j = Math.max(0, Math.min(o.ports.length - 1, i + by));
  if (i === j || i < 0 || i >= o.ports.length) return o;
  const move = <T>(xs: T[]) => { const c = [...xs]; const [x] = c.splice(i, 1); c.splice(j, 0, x); return c; };
  return { ports: move(o.ports), keys: o.keys.length ? move(o.keys) : [] };
}

/** Dict outputs keyed by their layer names (made unique), or a list again. */
export function withKeys(o: Outputs, on: boolean): Outputs {
  if (!on) return { ports: o.ports, keys: [] };
  const keys: string[] = [];
  for (const p of o.ports) keys.push(freeKey(keys, p));
  return { ports: o.ports, keys };
}

/** Output i's key renamed. */
export function renameKey(o: Outputs, i: number, key: string): Outputs {
  return { ports: o.ports, keys: o.keys.map((k, j) => (j === i ? key : k)) };
}

function freeKey(taken: string[], port: Triple): string {
  let key = port[1] || port[2] ? `${port[0]}_${port[1]}_${port[2]}` : port[0];
  while (taken.includes(key)) key += "_";
  return key;
}

/** The set_outputs intent's fields: keys only for dict outputs. */
export function outputsIntent(o: Outputs): { outputs: Triple[]; keys?: string[] } {
  return o.keys.length ? { outputs: o.ports, keys: o.keys } : { outputs: o.ports };
}

/** The panel beside the drawing while outputs are edited. */
export class OutputsPanel {
  readonly root = el("div", { class: "kc-outputs", role: "region", "aria-label": "Model outputs" });

  constructor(private send: (o: Outputs) => void, private close: () => void, private walk: () => void) {}

  /** Until the kernel says which ports are the outputs. */
  asking(): void {
    clear(this.root);
    this.root.append(el("b", {}, "Model outputs"), el("div", { class: "kc-muted" }, "Asking the kernel…"));
  }

  show(o: Outputs, explicit: boolean): void {
    clear(this.root);
    const head = el("div", { class: "kc-teach-head" });
    head.append(el("b", {}, "Model outputs"));
    const closeButton = el("button", { class: "kc-button", "aria-label": "Close outputs" }, "✕");
    closeButton.addEventListener("click", () => this.close());
    head.append(closeButton);
    this.root.append(head, el("div", { class: "kc-muted" }, explicit
      ? "Marked by you, in this order. Click + on an output port of the drawing to mark it, a number to unmark it."
      : "Every port nothing consumes, in creation order (none marked yet). Click + on a port to choose them yourself."),
    el("div", { class: "kc-muted" }, "Keras's walk starts from output 0, then 1, ... (Keras's walk shows it)."));
    const list = el("ol", { class: "kc-output-list", start: "0" });
    o.ports.forEach((p, i) => {
      const item = el("li", { class: "kc-output-item", "data-output": tensorId(p) });
      if (o.keys.length) {
        const key = el("input", { class: "kc-field kc-output-key", value: o.keys[i], "aria-label": `key of output ${i}` });
        key.addEventListener("change", () => this.send(renameKey(o, i, key.value)));
        key.addEventListener("keydown", (ev) => ev.stopPropagation());
        item.append(key);
      }
      item.append(el("span", {}, `${p[0]} node ${p[1]} tensor ${p[2]}`));
      const button = (text: string, label: string, next: () => Outputs) => {
        const b = el("button", { class: "kc-button", "aria-label": label }, text);
        b.addEventListener("click", () => this.send(next()));
        item.append(b);
      };
      if (!o.keys.length) {
        button("↑", `move output ${i} up`, () => moveOutput(o, i, -1));
        button("↓", `move output ${i} down`, () => moveOutput(o, i, 1));
      }
      button("✕", `unmark output ${i}`, () => toggleOutput(o, p));
      list.append(item);
    });
    this.root.append(list);
    if (o.keys.length) this.root.append(el("div", { class: "kc-muted" }, "Dict outputs come in their keys' sorted order, as Keras keeps them."));
    const foot = el("div", { class: "kc-teach-controls" });
    const dict = el("label", {});
    const box = el("input", { type: "checkbox", "aria-label": "dict outputs (keys)" });
    box.checked = o.keys.length > 0;
    box.addEventListener("change", () => this.send(withKeys(o, box.checked)));
    dict.append(box, document.createTextNode(" dict outputs (keys)"));
    const walk = el("button", { class: "kc-button", "aria-label": "Walk from these outputs" }, "Walk from these outputs");
    walk.addEventListener("click", () => this.walk());
    const reset = el("button", { class: "kc-button", "aria-label": "Unmark all outputs" }, "Unmark all");
    reset.addEventListener("click", () => this.send({ ports: [], keys: [] }));
    foot.append(dict, walk, reset);
    this.root.append(foot);
  }
}
