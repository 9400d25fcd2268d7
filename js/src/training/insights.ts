// Training insights on the canvas (issue 21): a small live strip under each box (weight norm and
// activation spread over the records), a mark on a box with a problem (its messages on hover, as
// text), and for the selected box its histograms over the run with an epoch slider.
// The kernel sends only small summaries (kerascanvas/insights/insights.py: summary, detail).
import { clear, el, svg } from "../base/dom";
import { type Writable, chooseEpoch, epochIndex, epochText, shownEpoch } from "./epochs";

export interface InsightProblem { kind: string; epoch: number | null; message: string }
/** A box's strip, one entry per record (the last few): its epoch, weight norm, activation spread. */
export interface InsightLayer { epochs: (number | null)[]; norms: (number | null)[]; spreads: (number | null)[]; problems: InsightProblem[] }
export interface InsightSummary { layers?: Record<string, InsightLayer> }
/** Which epochs a box's records are of, in words: records stay within a share of training time
 * (kerascanvas/insights/recording.py), so short epochs are recorded every few epochs, a run's first
 * and last always. Records taken within an epoch (fractional epochs) are left out; a long list
 * keeps its first and last few. */
export function recordedText(epochs: readonly (number | null)[] | undefined, shown = 8): string {
  const whole = (epochs ?? []).filter((e): e is number => typeof e === "number" && Number.isInteger(e));
  if (!whole.length) return "";
  const words = whole.length <= shown ? whole.map(epochText).join(", ")
    : [...whole.slice(0, shown / 2).map(epochText), "…", ...whole.slice(-shown / 2).map(epochText)].join(", ");
  return `recorded at epoch${whole.length > 1 ? "s" : ""} ${words}`;
}

/** The summary as the kernel sends it (kerascanvas/insights/insights.py: wire_summary): per box its strip
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
export interface Histogram {
  counts: number[]; range: (number | null)[]; mean: number | null; std: number | null;
  norm?: number | null; update_ratio?: number | null;                        // a weight's gradient
  zeros?: number | null; dead_units?: number | null; units?: number | null; // a box's output
}

/** What a record says besides its histogram: a weight's gradient norm on the probe batch and its
 * update since the record before (as a share of the weight); an output's zeros and dead units. */
export function recordText(h: Histogram): string {
  const parts: string[] = [];
  if (h.norm !== undefined) parts.push(`gradient norm ${fmt(h.norm)}`);
  if (h.update_ratio !== undefined) parts.push(`update / weight ${fmt(h.update_ratio)}`);
  if (typeof h.zeros === "number") parts.push(`zeros ${Math.round(h.zeros * 100)}%`);
  if (typeof h.dead_units === "number" && typeof h.units === "number") parts.push(`dead units ${h.dead_units} of ${h.units}`);
  return parts.join(" · ");
}
export interface InsightDetail {
  layer?: string;
  epochs?: (number | null)[];
  weights?: Record<string, (Histogram | null)[]>;
  activations?: (Histogram | null)[];
  weight_count?: number; // the box's weights: the panel shows the first few
}

/** What the panel says when it shows fewer of a box's weights than it has (a nested model). */
export function weightsLeftOutText(shown: number, total: number | undefined): string {
  return typeof total === "number" && total > shown ? `the first ${shown} of its ${total} weights shown` : "";
}

export const STRIP_HEIGHT = 14; // two lanes: weight norm above, activation spread below
const LANE = 6;
/** The strip's widest (it sits under the box's left half, clear of the port and edge at its
 * middle and of the shape label to the edge's right). */
export const STRIP_WIDTH = 56;

function finite(column: readonly (number | null)[] | undefined): number[] {
  return (Array.isArray(column) ? column : []).filter((v): v is number => typeof v === "number" && Number.isFinite(v));
}

/** Polyline points for one column of a strip (the weight norms or the activation spreads), scaled
 * to its own range in a w x h box, the latest at the right end (a single value too); "" with no
 * finite value. */
export function stripPoints(column: readonly (number | null)[] | undefined, w: number, h: number): string {
  const values = finite(column);
  if (!values.length) return "";
  const lo = Math.min(...values), hi = Math.max(...values);
  const n = values.length - 1;
  const y = (v: number) => (hi > lo ? h - ((v - lo) / (hi - lo)) * h : h / 2); // (unchanged: level, mid-lane)
  return values.map((v, i) => `${(n ? (i / n) * w : w).toFixed(1)},${y(v).toFixed(1)}`).join(" ");
}

/** The strip's hover text: each line's first and latest value, in words. */
export function stripText(layer: InsightLayer): string {
  const line = (what: string, colour: string, column: (number | null)[]) => {
    const values = finite(column);
    if (!values.length) return "";
    const change = values.length > 1 ? `${fmt(values[0])} → ${fmt(values[values.length - 1])}` : fmt(values[0]);
    return `${what} (${colour}): ${change}`;
  };
  const records = layer.epochs.length;
  const head = records === 1 ? `at epoch ${epochText(layer.epochs[0])}` :
    `over the last ${records} records (epoch ${epochText(layer.epochs[0])} to ${epochText(layer.epochs[records - 1])})`;
  return [line("weight norm", "blue", layer.norms), line("activation spread", "orange", layer.spreads), head].filter(Boolean).join("\n");
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
  // a small framed chart under the box's left half (a bare line across the box's width read as
  // a stray edge, and crossed the port and edge at its middle); the frame takes the hover
  const sw = Math.max(24, Math.min(STRIP_WIDTH, width / 2 - 12));
  const strip = svg("g", { class: "kc-strip", transform: `translate(2,${height + 3})` });
  const frame = svg("rect", { class: "kc-strip-frame", width: sw, height: STRIP_HEIGHT, rx: 2 });
  frame.append(svg("title", {}, stripText(layer)));
  strip.append(frame);
  const lanes = [[layer.norms, "kc-strip-weights", 2], [layer.spreads, "kc-strip-activations", 4 + LANE]] as const;
  for (const [column, cls, top] of lanes) { // (each line in a lane of its own: two level lines stay two)
    const points = stripPoints(column, sw - 6, LANE);
    if (!points) continue;
    const lane = svg("g", { transform: `translate(3,${top})` });
    const [x, y] = points.slice(points.lastIndexOf(" ") + 1).split(",");
    lane.append(svg("polyline", { points, class: cls }), svg("circle", { cx: x, cy: y, r: 1.6, class: `${cls}-now` }));
    strip.append(lane);
  }
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
  private said: HTMLElement;
  private recorded: HTMLElement; // which epochs have records (recordedText)
  private row: HTMLElement; // the slider and its words: hidden while the box has no records
  private detail: InsightDetail = {};
  private followLast = true;

  private readonly followShown = () => this.showEpoch(shownEpoch(this.model));

  constructor(private model: Writable) {
    this.root = el("div", { class: "kc-insights", "aria-label": "training insights" });
    this.title = el("div", { class: "kc-muted" }, "Select a trained box to see its histograms.");
    this.slider = el("input", { type: "range", min: "0", max: "0", value: "0", "aria-label": "record" });
    this.when = el("span", { class: "kc-muted" });
    this.plots = el("div", { class: "kc-insight-plots" });
    this.said = el("div", { class: "kc-insight-said", role: "note" }); // the box's problems, in words
    this.recorded = el("div", { class: "kc-muted kc-insight-recorded" });
    this.slider.addEventListener("input", () => {
      this.followLast = Number(this.slider.value) === Number(this.slider.max);
      this.drawAt(Number(this.slider.value));
      const epoch = this.detail.epochs?.[Number(this.slider.value)];
      if (shownEpoch(this.model) !== null && typeof epoch === "number") chooseEpoch(this.model, epoch);
    });
    model.on("change:insight_epoch", this.followShown);
    this.row = el("div", { class: "kc-row" });
    this.row.append(this.slider, this.when);
    this.row.hidden = true;
    this.root.append(this.title, this.recorded, this.said, this.row, this.plots);
  }

  /** The box shown (null before any). */
  get layer(): string | null {
    return this.detail.layer ?? null;
  }

  /** The shown box's problems as its mark says them on hover (here without a hover). */
  setProblems(problems: readonly InsightProblem[]): void {
    const text = problemText([...problems]);
    if (this.said.textContent !== text) this.said.textContent = text;
  }

  update(detail: InsightDetail): void {
    const sameLayer = detail.layer === this.detail.layer;
    this.detail = detail ?? {};
    const n = detail.epochs?.length ?? 0;
    this.slider.max = String(Math.max(n - 1, 0));
    this.slider.disabled = n < 2;
    this.row.hidden = n === 0;
    if (!sameLayer || this.followLast || Number(this.slider.value) > n - 1) this.slider.value = String(Math.max(n - 1, 0));
    this.title.textContent = detail.layer ? `${detail.layer}: histograms over the run` : "Select a trained box to see its histograms.";
    this.recorded.textContent = recordedText(detail.epochs);
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
      const said = recordText(h);
      box.append(pic, el("figcaption", {}, `${label}: ${fmt(h.range[0])} … ${fmt(h.range[1])}, mean ${fmt(h.mean)}, std ${fmt(h.std)}`));
      if (said) box.append(el("figcaption", { class: "kc-record-text" }, said));
      this.plots.append(box);
    };
    plot("output", d.activations?.[i]);
    const weights = Object.entries(d.weights ?? {});
    for (const [name, series] of weights) plot(name, series[i]);
    const leftOut = weightsLeftOutText(weights.length, d.weight_count);
    if (leftOut && epochs.length) this.plots.append(el("div", { class: "kc-muted kc-insight-left-out" }, leftOut));
  }
}
