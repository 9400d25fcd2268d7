// Training insights on the canvas (issue 21): a small live strip under each box (weight norm and
// activation spread over the records), a mark on a box with a problem (its messages on hover, as
// text), and for the selected box its histograms over the run with an epoch slider.
// The kernel sends only small summaries (kerascanvas/insights.py: summary, detail).
import { clear, el, svg } from "./dom";
import { type Writable, chooseEpoch, epochIndex, epochText, shownEpoch } from "./epochs";

export interface InsightProblem { kind: string; epoch: number | null; message: string }
/** A box's strip, one entry per record (the last few): its epoch, weight norm, activation spread. */
export interface InsightLayer { epochs: (number | null)[]; norms: (number | null)[]; spreads: (number | null)[]; problems: InsightProblem[] }
export interface InsightSummary { layers?: Record<string, InsightLayer> }
/** The summary as the kernel sends it (kerascanvas/insights.py: wire_summary): per box its strip
 * as one string, points joined by "," and each point's epoch, norm and spread by ";". */
export interface InsightStrips { layers?: Record<string, { strip?: unknown; problems?: unknown }> }

function wireNumber(text: string | undefined): number | null {
  if (!text) return null;
  const v = Number(text);
  return Number.isFinite(v) ? v : null;
}

function isProblem(p: unknown): p is InsightProblem {
  const q = p as InsightProblem | null;
  return typeof q === "object" && q !== null && typeof q.kind === "string" && typeof q.message === "string";
}

const readBefore = new WeakMap<object, InsightSummary>(); // (the canvas asks at every draw)

/** The strips the kernel sent, as numbers (a malformed entry reads as an empty strip). */
export function readStrips(wire: InsightStrips | null | undefined): InsightSummary {
  if (!wire || typeof wire !== "object") return { layers: {} };
  const known = readBefore.get(wire);
  if (known) return known;
  // (no prototype: a box may be named "__proto__")
  const layers: Record<string, InsightLayer> = Object.create(null);
  const sent = typeof wire.layers === "object" && wire.layers ? wire.layers : {};
  for (const [name, entry] of Object.entries(sent)) {
    const strip = typeof entry?.strip === "string" && entry.strip ? entry.strip.split(",") : [];
    const points = strip.map((p) => p.split(";"));
    layers[name] = {
      epochs: points.map((p) => wireNumber(p[0])),
      norms: points.map((p) => wireNumber(p[1])),
      spreads: points.map((p) => wireNumber(p[2])),
      problems: Array.isArray(entry?.problems) ? entry.problems.filter(isProblem) : [],
    };
  }
  const summary = { layers };
  readBefore.set(wire, summary);
  return summary;
}
export interface Histogram { counts: number[]; range: (number | null)[]; mean: number | null; std: number | null }
export interface InsightDetail {
  layer?: string;
  epochs?: (number | null)[];
  weights?: Record<string, (Histogram | null)[]>;
  activations?: (Histogram | null)[];
}

export const STRIP_HEIGHT = 10;

/** Polyline points for one column of a strip (the weight norms or the activation spreads), scaled
 * to its own range in a w x h box; "" with fewer than one finite value. */
export function stripPoints(column: readonly (number | null)[] | undefined, w: number, h: number): string {
  const values = (Array.isArray(column) ? column : []).filter((v): v is number => typeof v === "number" && Number.isFinite(v));
  if (!values.length) return "";
  const lo = Math.min(...values), hi = Math.max(...values);
  const span = hi - lo || 1;
  const n = Math.max(values.length - 1, 1);
  return values.map((v, i) => `${((i / n) * w).toFixed(1)},${(h - ((v - lo) / span) * h).toFixed(1)}`).join(" ");
}

/** The hover text of a box's mark: each problem's message on its own line. */
export function problemText(problems: InsightProblem[]): string {
  return problems.map((p) => p.message).join("\n");
}

/** Bars of one histogram in a w x h box: [x, y, width, height] each. */
export function bars(h: Histogram, w: number, height: number): [number, number, number, number][] {
  const top = Math.max(...h.counts, 1);
  const bw = w / Math.max(h.counts.length, 1);
  return h.counts.map((c, i) => [i * bw, height - (c / top) * height, Math.max(bw - 1, 1), (c / top) * height]);
}

function fmt(v: number | null | undefined): string {
  return typeof v === "number" && Number.isFinite(v) ? v.toPrecision(3) : "—";
}

/** Draws a box's strip and mark into the group the scene keeps with it (scene.decor). */
export function decorate(g: SVGGElement, layer: InsightLayer | undefined, width: number, height: number): void {
  const key = layer ? JSON.stringify(layer) : "";
  if (g.getAttribute("data-insight") === key && g.getAttribute("data-size") === `${width}x${height}`) return;
  g.setAttribute("data-insight", key);
  g.setAttribute("data-size", `${width}x${height}`);
  clear(g);
  if (!layer) return;
  const strip = svg("g", { class: "kc-strip", transform: `translate(0,${height + 2})` });
  strip.append(svg("title", {}, "weight norm (blue) and activation spread (orange) over the records"));
  const w = stripPoints(layer.norms, width, STRIP_HEIGHT), a = stripPoints(layer.spreads, width, STRIP_HEIGHT);
  if (w) strip.append(svg("polyline", { points: w, class: "kc-strip-weights" }));
  if (a) strip.append(svg("polyline", { points: a, class: "kc-strip-activations" }));
  g.append(strip);
  if (layer.problems.length) {
    const mark = svg("g", { class: "kc-insight-problem", transform: `translate(${width - 7},-7)`, role: "img",
      "aria-label": `training problem: ${layer.problems.map((p) => p.kind).join(", ")}` });
    mark.append(svg("circle", { r: 7 }), svg("text", { "text-anchor": "middle", y: 4 }, "!"),
      svg("title", {}, problemText(layer.problems)));
    g.append(mark);
  }
}

/** The selected box's histograms at one record, chosen with a slider that replays the run.
 * While the forward-pass view shows recorded activations, its epoch and this slider's are one:
 * moving either moves the other. */
export class InsightPanel {
  readonly root: HTMLElement;
  private title: HTMLElement;
  private slider: HTMLInputElement;
  private when: HTMLElement;
  private plots: HTMLElement;
  private detail: InsightDetail = {};
  private followLast = true;

  private readonly followShown = () => this.showEpoch(shownEpoch(this.model));

  constructor(private model: Writable) {
    this.root = el("div", { class: "kc-insights", "aria-label": "training insights" });
    this.title = el("div", { class: "kc-muted" }, "Select a trained box to see its histograms.");
    this.slider = el("input", { type: "range", min: "0", max: "0", value: "0", "aria-label": "record" });
    this.when = el("span", { class: "kc-muted" });
    this.plots = el("div", { class: "kc-insight-plots" });
    this.slider.addEventListener("input", () => {
      this.followLast = Number(this.slider.value) === Number(this.slider.max);
      this.drawAt(Number(this.slider.value));
      const epoch = this.detail.epochs?.[Number(this.slider.value)];
      if (shownEpoch(this.model) !== null && typeof epoch === "number") chooseEpoch(this.model, epoch);
    });
    model.on("change:insight_epoch", this.followShown);
    const row = el("div", { class: "kc-row" });
    row.append(this.slider, this.when);
    this.root.append(this.title, row, this.plots);
  }

  update(detail: InsightDetail): void {
    const sameLayer = detail.layer === this.detail.layer;
    this.detail = detail ?? {};
    const n = detail.epochs?.length ?? 0;
    this.slider.max = String(Math.max(n - 1, 0));
    this.slider.disabled = n < 2;
    if (!sameLayer || this.followLast || Number(this.slider.value) > n - 1) this.slider.value = String(Math.max(n - 1, 0));
    this.title.textContent = detail.layer ? `${detail.layer}: histograms over the run` : "Select a trained box to see its histograms.";
    this.drawAt(Number(this.slider.value));
    this.followShown();
  }

  /** The forward-pass view shows `epoch`: this slider goes there too, if the box has a record. */
  private showEpoch(epoch: number | null): void {
    const n = this.detail.epochs?.length ?? 0;
    const i = epochIndex(this.detail.epochs ?? [], epoch);
    if (i === null || i === Number(this.slider.value)) return;
    this.slider.value = String(i);
    this.followLast = i === n - 1;
    this.drawAt(i);
  }

  destroy(): void {
    this.model.off("change:insight_epoch", this.followShown);
  }

  private drawAt(i: number): void {
    clear(this.plots);
    const d = this.detail;
    const epochs = d.epochs ?? [];
    this.when.textContent = epochs.length ? `epoch ${epochText(epochs[i])} (${i + 1} of ${epochs.length})` : "";
    const plot = (label: string, h: Histogram | null | undefined) => {
      if (!h) return;
      const box = el("figure", { class: "kc-histogram" });
      const pic = svg("svg", { width: 160, height: 48, viewBox: "0 0 160 48", role: "img", "aria-label": `${label} histogram` });
      for (const [x, y, w, hh] of bars(h, 160, 48)) pic.append(svg("rect", { x, y, width: w, height: hh }));
      box.append(pic, el("figcaption", {}, `${label}: ${fmt(h.range[0])} … ${fmt(h.range[1])}, mean ${fmt(h.mean)}, std ${fmt(h.std)}`));
      this.plots.append(box);
    };
    plot("output", d.activations?.[i]);
    for (const [name, series] of Object.entries(d.weights ?? {})) plot(name, series[i]);
  }
}
