// The two lists under the drawing's toolbar and under the drawing: the legend of layer families
// present, and the drawing's problems in words (a click on one goes to its box). What each
// shows is pure (presentFamilies, problemItems, tested); the classes keep their elements while
// that does not change (the focus on a problem line stays).
import { clear, el } from "../base/dom";
import { FAMILIES, family } from "../scene/families";
import { problemLines } from "../mirror/mirror";
import type { GraphState, LayerState } from "../mirror/types";

export const PROBLEMS_SHOWN = 12; // lines in the problem list under the drawing

/** The families the layers belong to, in the legend's order. */
export function presentFamilies(layers: LayerState[]): typeof FAMILIES {
  // family() once per kind of layer, not once per layer (thousands on a big graph)
  const kinds = new Set<string>();
  const present = new Set<string>();
  for (const l of layers) {
    const kind = `${l.is_input}|${l.inner_layers !== null}|${l.group}`;
    if (kinds.has(kind)) continue;
    kinds.add(kind);
    const f = family(l);
    if (f) present.add(f.name);
  }
  return FAMILIES.filter((f) => present.has(f.name));
}

/** The problem lines shown (at most PROBLEMS_SHOWN) and how many more there are. */
export function problemItems(state: GraphState): { shown: { text: string; layer: string | null }[]; more: number } {
  const lines = state.layers.length ? problemLines(state) : []; // an empty canvas shows how to begin instead
  return { shown: lines.slice(0, PROBLEMS_SHOWN), more: Math.max(0, lines.length - PROBLEMS_SHOWN) };
}

export class Legend {
  readonly root = el("div", { class: "kc-legend", "aria-label": "Layer families" });
  private key: string | null = null;

  draw(layers: LayerState[]): void {
    const families = presentFamilies(layers);
    const key = families.map((f) => f.name).join("|");
    if (key === this.key) return;
    this.key = key;
    clear(this.root);
    for (const f of families) {
      const item = el("span", { class: "kc-legend-item" });
      const swatch = el("span", { class: "kc-swatch" });
      swatch.style.setProperty("--kc-hue", String(f.hue));
      item.append(swatch, document.createTextNode(f.name));
      this.root.append(item);
    }
  }
}

export class ProblemList {
  readonly root = el("ul", { class: "kc-problems", "aria-label": "Problems" });
  private key: string | null = null;

  /** `go(name)`: a problem's line was chosen; its layer's box is to be selected and focused. */
  constructor(private go: (name: string) => void, private signal: AbortSignal) {}

  draw(state: GraphState): void {
    const { shown, more } = problemItems(state);
    const key = JSON.stringify(shown.map((l) => [l.text, l.layer])) + more;
    if (key === this.key) return; // the same list: its items (and their focus) stay
    this.key = key;
    clear(this.root);
    for (const line of shown) {
      const item = el("li", { class: "kc-problem-line" }, line.text);
      if (line.layer) {
        const name = line.layer;
        item.setAttribute("tabindex", "0");
        item.setAttribute("role", "button");
        item.addEventListener("click", () => this.go(name), { signal: this.signal });
        item.addEventListener("keydown", (ev) => { if (ev.key === "Enter") { ev.stopPropagation(); this.go(name); } }, { signal: this.signal });
      }
      this.root.append(item);
    }
    if (more) this.root.append(el("li", { class: "kc-muted" }, `and ${more} more`));
  }
}
