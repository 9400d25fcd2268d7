// Find a layer (Ctrl+F): which layers match a query and in what order is pure (findLayers, tested);
// the bar is a small search field that tells the canvas what to show. The canvas selects the
// hit and centres the view on it.
import { el } from "../base/dom";
import { matchRank } from "./quickadd";

/** What Find searches: a layer of the drawing, or one inside a nested model (`name` its path
 * "outer/inner", `label` its own name, matched as a top-level layer's name is). */
export interface Findable { name: string; class_name: string; label?: string }

/** Layers whose name (or else class name) matches `query`, best first: by the name's rank
 * (matchRank: exact, prefix, word start, substring, letters in order), a class-name-only match
 * after every name match; equal ranks keep drawing order (the drawing's layers before those inside
 * nested models, mirror/folds.ts innerLayers). Nothing for a blank query. */
export function findLayers<T extends Findable>(layers: T[], query: string): T[] {
  if (query.trim() === "") return [];
  const hits: { l: T; r: number }[] = [];
  for (const l of layers) {
    const r = matchRank(l.label ?? l.name, query) ?? (matchRank(l.class_name, query) === null ? null : 5);
    if (r !== null) hits.push({ l, r });
  }
  return hits.sort((a, b) => a.r - b.r).map((h) => h.l); // a stable sort: ties in drawing order
}

/** Which hit to show: the first as the query is typed; each Enter the next one, round. */
export class FindCursor {
  private at = 0;

  pick<T>(hits: T[], next: boolean): T | undefined {
    if (!hits.length) return undefined;
    if (!next) this.at = 0;
    const hit = hits[this.at % hits.length];
    if (next) this.at++;
    return hit;
  }
}

/** The find bar over the drawing: typing shows the best hit, Enter the next, Escape closes. */
export class FindBar {
  readonly root: HTMLElement;
  private input: HTMLInputElement;
  private count: HTMLElement;
  private cursor = new FindCursor();

  /** `show(name, next)`: the layer to select and centre (`next`: Enter asked for it); `done()`: the
   * bar closed (keys go back to the canvas). */
  constructor(private layers: () => Findable[], private show: (name: string, next: boolean) => void,
    private done: () => void, signal: AbortSignal) {
    this.root = el("div", { class: "kc-find", role: "search" });
    this.input = el("input", { type: "search", class: "kc-field", placeholder: "Find a layer", "aria-label": "find layer" });
    this.count = el("span", { class: "kc-muted" });
    this.root.append(this.input, this.count);
    this.input.addEventListener("input", () => this.find(false), { signal });
    this.input.addEventListener("keydown", (ev) => {
      ev.stopPropagation(); // the canvas's and JupyterLab's keys stay out of the field
      if (ev.key === "Enter") { ev.preventDefault(); this.find(true); }
      if (ev.key === "Escape") { ev.preventDefault(); this.close(); }
    }, { signal });
  }

  open(): void {
    this.root.classList.add("kc-show");
    this.input.focus({ preventScroll: true });
    this.input.select();
    this.find(false);
  }

  close(): void {
    this.root.classList.remove("kc-show");
    this.done();
  }

  private find(next: boolean): void {
    const q = this.input.value;
    const hits = findLayers(this.layers(), q);
    this.count.textContent = q.trim() ? `${hits.length} found` : "";
    const hit = this.cursor.pick(hits, next);
    if (hit) this.show(hit.name, next);
  }
}
