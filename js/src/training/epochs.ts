// The forward-pass view's epochs (issue 21): after a run with training insights, pick an epoch
// and every box shows its output as recorded at that epoch on the probe batch (mean, std, share
// of zeros, a small histogram). The kernel sends the recorded summaries (kerascanvas/insights/insights.py:
// epoch_view, through the insight_epoch / insight_activations traits); nothing runs again.
import type { AnyModel } from "@anywidget/types";
import { clear, el, svg } from "../base/dom";
import { boxHeight, boxWidth } from "../mirror/geometry";
import type { Model } from "../mirror/protocol";
import type { LayerState } from "../mirror/types";

export interface EpochActivation {
  mean: number | null; std: number | null; zeros: number | null; min?: number | null; max?: number | null;
  dead_units?: number | null; units?: number | null; counts: number[]; range: (number | null)[];
}
export interface EpochView { epochs?: (number | null)[]; epoch?: number | null; layers?: Record<string, EpochActivation> }

const HIST_W = 32, HIST_H = 20, CARD_H = 26;

function num(v: number | null | undefined, digits = 3): string {
  return typeof v === "number" && Number.isFinite(v) ? v.toFixed(digits) : "—";
}

/** An epoch in words: 3, or 2.50 for a record taken within an epoch. */
export function epochText(e: number | null | undefined): string {
  if (typeof e !== "number" || !Number.isFinite(e)) return "—";
  return Number.isInteger(e) ? String(e) : e.toFixed(2);
}

/** A box's recorded output in two short lines: "mean 0.123 std 0.456", "zeros 51%". */
export function activationLines(a: EpochActivation): [string, string] {
  const zeros = typeof a.zeros === "number" && Number.isFinite(a.zeros) ? `${Math.round(a.zeros * 100)}%` : "—";
  return [`mean ${num(a.mean)} std ${num(a.std)}`, `zeros ${zeros}`];
}

/** The same on one line. */
export function activationText(a: EpochActivation): string {
  return activationLines(a).join(" ");
}

/** The same with everything recorded, for the hover text. */
export function activationTitle(layer: string, epoch: number | null | undefined, a: EpochActivation): string {
  const dead = typeof a.units === "number" && a.units > 0 ? `, dead units ${a.dead_units ?? 0} of ${a.units}` : "";
  return `${layer} output at epoch ${epochText(epoch)} (recorded on the probe batch): ${activationText(a)}, `
    + `min ${num(a.min)} max ${num(a.max)}${dead}`;
}

/** Bars of a small histogram in a w x h box: [x, y, width, height] each. */
export function miniBars(counts: number[], w: number, h: number): [number, number, number, number][] {
  const top = Math.max(...counts, 1);
  const bw = w / Math.max(counts.length, 1);
  return counts.map((c, i) => [i * bw, h - (c / top) * h, Math.max(bw - 0.5, 0.5), (c / top) * h]);
}

/** Each box's recorded output at the chosen epoch, drawn on its right, low (edges run through
 * the space above and below a box; the values of outputs no edge carries sit on its right, high). */
export function drawEpochActivations(g: SVGGElement, layers: LayerState[], view: EpochView): void {
  const shown = view.layers ?? {};
  for (const l of layers) {
    const a = shown[l.name];
    if (!a) continue;
    const lines = activationLines(a);
    const w = HIST_W + 12 + Math.max(...lines.map((t) => t.length)) * 5.3;
    const group = svg("g", { class: "kc-epoch-act", "data-layer": l.name,
      transform: `translate(${l.x + boxWidth(l) + 8},${l.y + Math.max(boxHeight(l) - CARD_H - 2, 18)})` });
    group.append(svg("rect", { x: 0, y: 0, width: w, height: CARD_H, rx: 4, class: "kc-epoch-act-bg" }));
    const hist = svg("g", { class: "kc-epoch-hist", transform: `translate(4,${(CARD_H - HIST_H) / 2})` });
    for (const [x, y, bw, bh] of miniBars(a.counts, HIST_W, HIST_H)) hist.append(svg("rect", { x, y, width: bw, height: bh }));
    group.append(hist, ...lines.map((t, i) => svg("text", { x: HIST_W + 8, y: 11 + 11 * i, class: "kc-epoch-act-text" }, t)),
      svg("title", {}, activationTitle(l.name, view.epoch, a)));
    g.append(group);
  }
}

/** The epoch to ask the kernel for: the recorded one at the slider's index, or -1 (none). */
export function askedEpoch(epochs: (number | null)[], index: number, shown: boolean): number {
  const epoch = shown ? epochs[index] : null;
  return typeof epoch === "number" ? epoch : -1;
}

export type Writable = Model & Partial<Pick<AnyModel, "set" | "save_changes">>;

/** The epoch the forward-pass view shows recorded activations of (`insight_epoch`), or null
 * while it shows none. The insights panel's slider and the player's follow it: one choice. */
export function shownEpoch(model: Model): number | null {
  const e = model.get("insight_epoch");
  return typeof e === "number" && e >= 0 ? e : null;
}

/** Where `epoch` sits in a slider over `epochs`, or null (not recorded there, or none). */
export function epochIndex(epochs: (number | null)[], epoch: number | null): number | null {
  const i = epoch === null ? -1 : epochs.indexOf(epoch);
  return i >= 0 ? i : null;
}

/** Show `epoch`'s recorded activations (-1: none); the kernel checks it is a recorded one. */
export function chooseEpoch(model: Writable, epoch: number): void {
  if (model.get("insight_epoch") === epoch) return;
  model.set?.("insight_epoch", epoch);
  model.save_changes?.();
}

/** The forward-pass player's row for picking an epoch: a checkbox to show the recorded
 * activations and a slider over the recorded epochs. It asks the kernel through `insight_epoch`
 * and hears back through `insight_activations`. */
export class EpochPicker {
  readonly root: HTMLElement;
  private show: HTMLInputElement;
  private slider: HTMLInputElement;
  private words: HTMLElement;
  private readonly changed = () => this.update();
  private known = 0; // how many epochs the last update saw

  constructor(private model: Writable, private onChange: () => void) {
    this.root = el("div", { class: "kc-epoch-picker", role: "group", "aria-label": "Recorded activations" });
    this.show = el("input", { type: "checkbox", "aria-label": "Show recorded activations" });
    this.show.checked = true;
    this.slider = el("input", { type: "range", min: "0", max: "0", value: "0", "aria-label": "epoch" });
    this.words = el("span", { class: "kc-muted kc-epoch-words", role: "status" });
    const label = el("label", { class: "kc-epoch-show" });
    label.append(this.show, el("span", {}, " each box's output as recorded in training"));
    this.root.append(label, this.slider, this.words);
    this.slider.addEventListener("input", () => this.ask());
    this.show.addEventListener("change", () => this.ask());
    model.on("change:insight_activations", this.changed);
    model.on("change:insight_epoch", this.changed); // chosen here or on the insights panel
    this.update(); // the latest epoch, to begin with
  }

  private get view(): EpochView { return (this.model.get("insight_activations") as EpochView) ?? {}; }
  private get epochs(): (number | null)[] { return this.view.epochs ?? []; }

  /** What the drawing shows: the kernel's view, while the box is ticked. */
  get shown(): EpochView | null {
    return this.show.checked && this.epochs.length ? this.view : null;
  }

  private ask(): void {
    this.set(askedEpoch(this.epochs, Number(this.slider.value), this.show.checked));
    this.update();
  }

  private set(epoch: number): void {
    chooseEpoch(this.model, epoch);
  }

  private update(): void {
    const view = this.view, epochs = this.epochs;
    const n = epochs.length;
    const follow = n !== this.known && Number(this.slider.value) >= this.known - 1; // at the latest
    this.known = n;
    this.slider.max = String(Math.max(n - 1, 0)); // (before the value: a range clamps it to max)
    const chosen = epochIndex(epochs, shownEpoch(this.model));
    if (follow && n) { // a run recorded more (or the view opened): the latest epoch is asked for
      this.slider.value = String(n - 1);
      this.set(askedEpoch(epochs, n - 1, this.show.checked));
    } else if (chosen !== null && this.show.checked) { // the insights panel chose one
      this.slider.value = String(chosen);
    }
    this.slider.disabled = n < 2 || !this.show.checked;
    this.show.disabled = n === 0;
    if (Number(this.slider.value) > n - 1) this.slider.value = String(Math.max(n - 1, 0));
    const i = Number(this.slider.value);
    this.words.textContent = !n ? "Train with insights on to see each box's output at an epoch."
      : !this.show.checked ? "hidden"
        : `epoch ${epochText(view.epoch ?? epochs[i])} (${i + 1} of ${n}): each box's output on the probe batch`;
    this.onChange();
  }

  /** The player closed: the kernel stops sending the boxes' summaries. */
  destroy(): void {
    this.model.off("change:insight_activations", this.changed);
    this.model.off("change:insight_epoch", this.changed);
    this.set(-1);
    clear(this.root);
  }
}
