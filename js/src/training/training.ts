// The training panel: options, Train / Stop, progress, device, and live curves (uPlot).
import type { AnyModel } from "@anywidget/types";
import uPlot from "uplot";
import { clear, el } from "../base/dom";
import type { Client, Model } from "../mirror/protocol";
import { type InsightDetail, type InsightSummary, InsightPanel, decorate, readStrips } from "./insights";
import { type RunMark, type RunView, type SeriesInfo, chartData, lastValue, legendValue, markRows, runSummary } from "./runs";
import { type WeightLayouts, drawLayouts } from "./layouts";

export { chartData } from "./runs";

export interface TrainingView {
  status?: { state: string; epoch: number; epochs: number; batch: number; batches: number | null;
    eta_s: number | null; device: string; message: string; traceback: string | null;
    layouts?: WeightLayouts };      // after a run on a device mesh: how each box's weights lie
  history?: Record<string, (number | null)[]>;
  curve?: Record<string, number | null>[];
  run?: number | null;
  undone?: boolean;                 // the run shown was undone (Ctrl+Z): its weights are gone
  runs?: RunView[];                 // earlier runs on this drawing not undone, oldest first
  this_run?: RunView | null;        // the run shown: its number, first epoch, learning rate
  data?: string | null;             // what set_data got, in words (training/data.py: summary)
  data_inputs?: DataInput[];        // the Inputs x fits (training/data.py: data_inputs): the palette offers them
}

/** An Input the data set fits: its key in x (a dict's), its shape per sample and dtype. */
export interface DataInput { name: string | null; shape: (number | null)[]; dtype: string }

/** The panel's data line: what set_data got, or how to give it data. */
export function dataText(view: TrainingView): string {
  return view.data ? `Data: ${view.data}` : "No data yet: canvas.set_data(x, y) in a cell.";
}

export const UNDONE = "Undone (Ctrl+Z): the weights from before this run are back, and its records are gone. Redo (Ctrl+Shift+Z) brings them back.";

/** The panel's message: the run's own, or that it was undone. */
export function messageText(view: TrainingView): string {
  const s = view.status;
  if (view.undone) return UNDONE;
  if (!s) return "";
  return s.traceback ? `${s.message}\n${s.traceback}` : s.message ?? "";
}

/** What the chosen engine would run on, before a run ("one device", or its mesh), from the
 * kernel's train_choices.meshes; "" when the kernel said nothing of it. */
export function meshText(meshes: unknown, strategy: string): string {
  const said = meshes && typeof meshes === "object" ? (meshes as Record<string, unknown>)[strategy] : undefined;
  return typeof said === "string" && said ? `${strategy === "none" ? "runs on" : "will run on"} ${said}` : "";
}

/** Where a box's decorations go and how big the box is (scene.decor); null when not drawn. */
export type Decor = (name: string) => { g: SVGGElement; width: number; height: number } | null;

/** "Keras backend: jax · device: GPU: NVIDIA H100" (either part left out when unknown). */
export function deviceText(backend: string, device: string | null): string {
  const parts = [backend ? `Keras backend: ${backend}` : "", device ? `device: ${device}` : ""];
  return parts.filter(Boolean).join(" · ");
}

export function progressText(view: TrainingView): string {
  const s = view.status;
  if (!s) return "Not trained yet.";
  if (view.undone) return `undone · was ${s.state} at epoch ${s.epoch}/${s.epochs}`;
  const batches = s.batches ? `/${s.batches}` : "";
  const eta = s.eta_s !== null && s.state === "running" ? ` · ${Math.ceil(s.eta_s)} s left` : "";
  return `${s.state} · epoch ${s.epoch}/${s.epochs} · batch ${s.batch}${batches}${eta}`;
}

/** An axis's tick labels with as many decimals as the step between ticks needs, so that ticks
 * 0.0001 apart do not all read "2.303" (uPlot's default keeps at most 3 decimals). */
export function tickLabels(splits: number[], step: number): string[] {
  const decimals = Number.isFinite(step) && step > 0 ? Math.min(12, Math.max(0, Math.ceil(-Math.log10(step) - 1e-9))) : 3;
  return splits.map((v) => (v == null || !Number.isFinite(v) ? "" : v.toFixed(decimals)));
}

/** An axis's width in pixels for its tick labels (uPlot's fixed 50 lets a long label run into
 * the axis's title). */
export function axisSize(values: readonly (string | null)[] | null | undefined): number {
  const longest = Math.max(3, ...(values ?? []).map((v) => (typeof v === "string" ? v.length : 0)));
  return 26 + 7 * longest;
}

const COLORS = ["#1976d2", "#e65100", "#2e7d32", "#6a1b9a", "#c62828", "#00838f", "#5d4037", "#ad1457"];

/** A series' look: one colour per metric across runs; earlier runs fainter, thinner and dotted;
 * validation dashed; the current run's legend value, while no point is hovered, its last one. */
export function seriesOptions(s: SeriesInfo, all: SeriesInfo[], metric: (label: string) => boolean, grey = false): uPlot.Series {
  const keys = [...new Set(all.map((x) => x.key))];
  const colour = grey && !s.earlier ? "#9e9e9e" : COLORS[keys.indexOf(s.key) % COLORS.length];
  const val = s.key.startsWith("val_");
  return {
    label: s.label, scale: metric(s.key) ? "metric" : "loss", spanGaps: true,
    stroke: s.earlier ? `${colour}80` : colour,
    width: s.earlier ? 1 : val ? 2 : 1.5,
    dash: val ? [6, 3] : s.earlier ? [2, 2] : undefined,
    value: (u: uPlot, v: number | null, sidx: number, idx: number | null) =>
      legendValue(idx === null ? lastValue((u.data[sidx] ?? []) as (number | null)[]) : v),
  };
}

export class TrainingPanel {
  readonly root: HTMLElement;
  private progress: HTMLProgressElement;
  private text: HTMLElement;
  private device: HTMLElement;
  private backend = "";
  private idleDevice = "";
  private message: HTMLElement;
  private summary: HTMLElement;
  private dataLine: HTMLElement;
  private chartHost: HTMLElement;
  private chart: uPlot | null = null;
  private labels = "";
  private fields: Record<string, HTMLInputElement | HTMLSelectElement> = {};

  constructor(private model: Model, private client: Client, private onError: (m: string) => void) {
    this.root = el("details", { class: "kc-training" });
    this.root.append(el("summary", {}, "Train"));
    const choices = model.get("train_choices") ?? { optimizers: ["adam"], losses: ["auto"], metrics: [] };
    this.backend = typeof choices.backend === "string" ? choices.backend : "";
    this.idleDevice = typeof choices.device === "string" ? choices.device : "";
    const form = el("div", { class: "kc-train-form" });
    const select = (name: string, options: string[], value: string, multiple = false) => {
      const s = el("select", { "aria-label": name, class: "kc-field" });
      if (multiple) s.multiple = true;
      for (const o of options) { const opt = el("option", { value: o }, o); if (o === value) opt.selected = true; s.append(opt); }
      this.fields[name] = s;
      return s;
    };
    const number = (name: string, value: string, step: string) => {
      const i = el("input", { type: "number", value, step, "aria-label": name, class: "kc-field" });
      this.fields[name] = i;
      return i;
    };
    const rows: [string, HTMLElement][] = [
      ["optimizer", select("optimizer", choices.optimizers, "adam")],
      ["learning rate", number("learning_rate", "0.001", "any")],
      ["loss", select("loss", choices.losses, "auto")],
      ["metrics", select("metrics", choices.metrics, "accuracy", true)],
      ["epochs", number("epochs", "5", "1")],
      ["batch size", number("batch_size", "32", "1")],
      ["validation split", number("validation_split", "0.2", "0.05")],
      ["devices", select("strategy", choices.strategies ?? ["auto"], "auto")],
    ];
    for (const [label, input] of rows) {
      input.setAttribute("aria-label", label); // what a screen reader says: the label shown
      const r = el("label", { class: "kc-row" });
      r.append(el("span", {}, label), input);
      form.append(r);
    }
    // the mesh the chosen engine would use, said before any run (issue 46)
    const mesh = el("div", { class: "kc-muted kc-mesh", "aria-label": "devices used" });
    const showMesh = () => { mesh.textContent = meshText(choices.meshes, this.fields.strategy.value); };
    this.fields.strategy.addEventListener("change", showMesh);
    showMesh();
    form.append(mesh);
    const buttons = el("div", { class: "kc-toolbar" });
    const train = el("button", { class: "kc-button", "aria-label": "Train" }, "Train");
    const stop = el("button", { class: "kc-button", "aria-label": "Stop" }, "Stop");
    train.addEventListener("click", () => this.train());
    stop.addEventListener("click", () => this.client.send("stop"));
    buttons.append(train, stop);
    this.progress = el("progress", { max: "1", value: "0", class: "kc-progress", "aria-label": "training progress" });
    this.text = el("div", { class: "kc-muted", role: "status" }, "Not trained yet.");
    this.device = el("div", { class: "kc-muted kc-device" }, deviceText(this.backend, this.idleDevice));
    this.message = el("pre", { class: "kc-train-message" });
    this.summary = el("div", { class: "kc-muted kc-run-summary", "aria-label": "final metrics" });
    this.dataLine = el("div", { class: "kc-muted kc-data", "aria-label": "training data" });
    this.chartHost = el("div", { class: "kc-chart", "aria-label": "training curves" });
    const left = el("div");
    left.append(form, buttons, this.progress, this.text, this.dataLine, this.device, this.summary);
    const body = el("div", { class: "kc-train-body" });
    body.append(left, this.chartHost);
    this.insightPanel = new InsightPanel(model);
    this.root.append(body, this.message, this.insightPanel.root);
    this.update(model.get("training") ?? {});
    const problems = () => readStrips(model.get("insight_strips")).layers?.[this.insightPanel.layer ?? ""]?.problems ?? [];
    this.onSummary = () => { this.showInsights(); this.insightPanel.setProblems(problems()); };
    this.onDetail = () => { this.insightPanel.update(model.get("insight_detail") ?? {}); this.insightPanel.setProblems(problems()); };
    model.on("change:insight_strips", this.onSummary);
    model.on("change:insight_detail", this.onDetail);
    this.onDetail();
  }

  private insightPanel: InsightPanel;
  private onSummary: () => void;
  private onDetail: () => void;
  private decor: Decor | null = null;
  private boxes: string[] = [];
  private decorated: string[] = [];
  private laidOut: string[] = []; // boxes showing how their weights lie

  /** Called after the canvas draws: each drawn box gets its live strip and problem mark, and the
   * one selected box's histograms are asked for. */
  showInsights(decor: Decor | null = this.decor, selected?: ReadonlySet<string>, names?: string[]): void {
    this.decor = decor;
    if (names) this.boxes = names;
    const summary: InsightSummary = readStrips(this.model.get("insight_strips"));
    const layers = summary.layers ?? {};
    if (decor) { // only boxes with records, and those that had some (a big drawing pays nothing)
      const drawn = new Set(this.boxes);
      const now = Object.keys(layers).filter((n) => drawn.has(n));
      for (const name of new Set([...this.decorated, ...now])) {
        const d = decor(name);
        if (d) decorate(d.g, layers[name], d.width, d.height);
      }
      this.decorated = now;
      // after a run on a device mesh, each box says how its weights lie (issue 46)
      const layouts = this.lastView?.undone ? {} : this.lastView?.status?.layouts ?? {};
      const laid = Object.keys(layouts).filter((n) => drawn.has(n));
      drawLayouts(decor, layouts, new Set([...this.laidOut, ...laid]));
      this.laidOut = laid;
    }
    if (selected) {
      const focus = selected.size === 1 ? [...selected][0] : "";
      // (a box without records too: the panel then stops showing another box's, and shows
      // this one's as they land)
      if (focus && focus !== this.model.get("insight_focus")) {
        const writable = this.model as Partial<Pick<AnyModel, "set" | "save_changes">>;
        writable.set?.("insight_focus", focus); // a trait the kernel checks (a known box name)
        writable.save_changes?.();
      }
    }
  }

  private async train(): Promise<void> {
    const f = this.fields;
    const metrics = [...(f.metrics as HTMLSelectElement).selectedOptions].map((o) => o.value);
    const reply = await this.client.send("train", {
      optimizer: f.optimizer.value, learning_rate: Number(f.learning_rate.value), loss: f.loss.value, metrics,
      epochs: Number(f.epochs.value), batch_size: Number(f.batch_size.value), validation_split: Number(f.validation_split.value),
      strategy: f.strategy.value,
    });
    if (!reply.ok) { this.message.textContent = reply.error ?? "refused"; this.onError(reply.error ?? "refused"); }
  }

  update(view: TrainingView): void {
    const s = view.status;
    this.text.textContent = progressText(view);
    if (s) {
      const done = s.epochs ? (Math.max(0, s.epoch - 1) + (s.batches ? s.batch / s.batches : 0)) / s.epochs : 0;
      this.progress.value = s.state === "finished" ? 1 : Math.min(1, done);
      this.device.textContent = deviceText(this.backend, s.device ?? this.idleDevice);
      this.root.classList.toggle("kc-failed", s.state === "failed" && !view.undone);
    }
    this.message.textContent = messageText(view);
    this.dataLine.textContent = dataText(view);
    // a run that ended says where each metric ended and where it was best
    this.summary.textContent = s && s.state !== "running" && !view.undone
      ? runSummary(view.history ?? {}, view.this_run?.first_epoch ?? 0) : "";
    this.root.classList.toggle("kc-undone", !!view.undone); // its curves greyed
    this.lastView = view;
    this.draw(view);
  }

  private theme = "";

  private marks: RunMark[] = [];
  private markLayer: HTMLElement | null = null;

  private draw(view: TrainingView): void {
    const { labels, data, series, marks } = chartData(view);
    if (!labels.length || data[0].length < 1) return;
    this.marks = marks;
    // an undone run greys alone when earlier runs stay (they still hold): its series go grey
    const greyCurrent = !!view.undone && marks.length > 0;
    this.chartHost.style.filter = greyCurrent ? "none" : "";
    this.chartHost.style.opacity = greyCurrent ? "1" : "";
    const key = `${labels.join(",")}|${greyCurrent}`;
    const ink = themeInk(this.root);
    if (!this.chart || key !== this.labels || ink.text + ink.grid !== this.theme) {
      this.chart?.destroy();
      clear(this.chartHost);
      this.labels = key;
      this.theme = ink.text + ink.grid;
      // loss on the left axis, every other metric (accuracy...) on its own axis on the right
      const metric = (label: string) => !/loss$/.test(label);
      const axis = (extra: uPlot.Axis = {}): uPlot.Axis => ({ stroke: ink.text, grid: { stroke: ink.grid, width: 1 }, ticks: { stroke: ink.grid, width: 1 },
        values: (_u: uPlot, splits: number[], _axis: number, _space: number, step: number) => tickLabels(splits, step), ...extra });
      const hasMetric = labels.some(metric);
      this.chart = new uPlot({
        width: 420, height: 220, scales: { x: { time: false, range: (_u, min, max) => [Math.min(0, min), max] }, loss: {}, metric: {} },
        series: [{ label: "epoch", value: (u: uPlot, v: number | null, _s: number, idx: number | null) => // (the last while none is hovered)
          legendValue(idx === null ? lastValue((u.data[0] ?? []) as (number | null)[]) : v) },
        ...series.map((s) => seriesOptions(s, series, metric, greyCurrent))],
        axes: [axis({ label: "epoch" }), axis({ scale: "loss", label: "loss", size: (_u: uPlot, values: string[]) => axisSize(values) }),
          ...(hasMetric ? [axis({ scale: "metric", side: 1, label: "metric", grid: { show: false }, size: (_u: uPlot, values: string[]) => axisSize(values) })] : [])],
        hooks: { draw: [(u) => this.placeMarks(u)] },
      }, data as uPlot.AlignedData, this.chartHost);
      // the legend names the current run's series; earlier runs are named on the chart itself
      const rows = this.chart.root.querySelectorAll<HTMLElement>(".u-legend .u-series");
      series.forEach((s, i) => { if (s.earlier && rows[i + 1]) rows[i + 1].style.display = "none"; });
      this.markLayer = null;
      this.placeMarks(this.chart);
    } else {
      this.chart.setData(data as uPlot.AlignedData);
    }
  }

  /** Each run's name where it begins ("run 2 · lr 1e-4"), with a dashed line there; names that
   * would overlap go down a row. */
  private placeMarks(u: uPlot): void {
    if (!this.markLayer || !this.markLayer.isConnected) {
      this.markLayer = el("div", { class: "kc-run-marks" });
      Object.assign(this.markLayer.style, { position: "absolute", inset: "0", pointerEvents: "none" });
      u.over.append(this.markLayer);
    }
    const layer = this.markLayer;
    clear(layer);
    const lefts = this.marks.map((m) => Math.max(0, u.valToPos(m.at, "x")));
    const names = this.marks.map((m, i) => {
      const name = el("span", { class: "kc-run-mark" }, m.label);
      Object.assign(name.style, { position: "absolute", left: `${lefts[i] + 3}px`, whiteSpace: "nowrap", fontSize: "10px",
        lineHeight: "12px", padding: "0 2px", background: "var(--jp-layout-color1, #fff)", color: "var(--jp-ui-font-color1, #222)",
        opacity: m.current ? "1" : "0.75" });
      const line = el("div", { class: "kc-run-line" });
      Object.assign(line.style, { position: "absolute", left: `${lefts[i]}px`, top: "0", bottom: "0",
        borderLeft: "1px dashed var(--jp-ui-font-color2, #888)" });
      layer.append(line, name);
      return name;
    });
    const rows = markRows(lefts.map((l) => l + 3), names.map((n) => n.offsetWidth || n.textContent!.length * 6));
    names.forEach((n, i) => { n.style.top = `${2 + 13 * rows[i]}px`; });
  }
  /** Redraw the chart in the current theme's colours (JupyterLab switched theme). */
  retheme(): void {
    if (this.lastView) this.draw(this.lastView);
  }

  private lastView: TrainingView | null = null;

  destroy(): void {
    this.model.off("change:insight_strips", this.onSummary);
    this.model.off("change:insight_detail", this.onDetail);
    this.insightPanel.destroy();
    this.chart?.destroy();
  }
}

/** The chart's ink from JupyterLab's theme variables (uPlot draws on a canvas: CSS cannot reach it). */
export function themeInk(node: Element): { text: string; grid: string } {
  const css = getComputedStyle(node);
  const text = css.getPropertyValue("--jp-ui-font-color1").trim() || "#222";
  const grid = css.getPropertyValue("--jp-border-color2").trim() || "rgba(128,128,128,0.3)";
  return { text, grid };
}
