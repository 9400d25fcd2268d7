// The training chart's data over several runs (issue 41, fine-tuning): the earlier runs on this
// drawing that were not undone stay drawn, fainter, and the epochs count on across runs as Keras's
// initial_epoch would (the keras.io transfer-learning picture: head first, then fine-tuning).
// The kernel sends them (kerascanvas/canvas/widget.py: _runs_view); nothing is kept here.

/** A run as the kernel describes it; earlier runs carry their (thinned) curve and validation history. */
export interface RunView {
  run: number;
  number: number;
  first_epoch: number;
  learning_rate: number | null;
  optimizer: string | null;
  curve?: Record<string, number | null>[];
  history?: Record<string, (number | null)[]>;
}

export interface RunsInput {
  curve?: Record<string, number | null>[];
  history?: Record<string, (number | null)[]>;
  runs?: RunView[];
  this_run?: RunView | null;
}

/** One series of the chart: its metric, and the run it belongs to when an earlier one. */
export interface SeriesInfo { label: string; key: string; earlier: boolean; run: number }

/** Where each run begins on the x axis and what it is called there. */
export interface RunMark { at: number; label: string; current: boolean }

/** A learning rate as a person writes it: 0.001, 0.01, 1e-4, 2.5e-5. */
export function rateText(rate: number): string {
  if (!Number.isFinite(rate)) return String(rate);
  if (rate >= 1e-3 && rate < 1e4) return String(Number(rate.toPrecision(4)));
  return Number(rate.toPrecision(4)).toExponential();
}

/** "run 2 · lr 1e-4": its number, and its learning rate and optimizer where they changed. */
export function runLabel(run: RunView, before: RunView | null): string {
  const parts = [`run ${run.number}`];
  if (before && run.optimizer && before.optimizer && run.optimizer !== before.optimizer) parts.push(run.optimizer);
  if (before && run.learning_rate !== null && run.learning_rate !== before.learning_rate) {
    parts.push(`lr ${rateText(run.learning_rate)}`);
  }
  return parts.join(" · ");
}

const isVal = (k: string) => k.startsWith("val_");

/** Chart data: x = epochs (counted on from earlier runs); per run its running training values and
 * per-epoch validation values. The current run's series come first under their plain names
 * ("loss", "val_loss": the legend's), then each earlier run's ("run 1 loss"). */
export function chartData(view: RunsInput): { labels: string[]; data: (number | null)[][]; series: SeriesInfo[]; marks: RunMark[] } {
  const earlier = view.runs ?? [];
  const current: RunView = { ...(view.this_run ?? { run: 0, number: 0, first_epoch: 0, learning_rate: null, optimizer: null }),
    curve: view.curve ?? [], history: view.history ?? {} };
  const runs = [current, ...earlier];
  const series: SeriesInfo[] = [];
  const xs = new Set<number>();
  const shift = (r: RunView) => r.first_epoch || 0;
  for (const r of runs) {
    const curve = r.curve ?? [];
    const history = r.history ?? {};
    const trainKeys = [...new Set(curve.flatMap((p) => Object.keys(p)))].filter((k) => k !== "epoch");
    const valKeys = Object.keys(history).filter(isVal);
    const earlierRun = r !== current;
    for (const key of [...trainKeys, ...valKeys]) {
      series.push({ key, earlier: earlierRun, run: r.number, label: earlierRun ? `run ${r.number} ${key}` : key });
    }
    for (const p of curve) xs.add((p.epoch as number) + shift(r));
    const epochs = valKeys.length ? history[valKeys[0]].length : 0;
    for (let e = 1; e <= epochs; e++) xs.add(e + shift(r));
  }
  const x = [...xs].sort((a, b) => a - b);
  const at = new Map(x.map((v, i) => [v, i]));
  const data = series.map(() => new Array<number | null>(x.length).fill(null));
  series.forEach((s, i) => {
    const r = s.earlier ? earlier.find((e) => e.number === s.run)! : current;
    if (isVal(s.key)) (r.history?.[s.key] ?? []).forEach((v, e) => { data[i][at.get(e + 1 + shift(r))!] = v; });
    else for (const p of r.curve ?? []) data[i][at.get((p.epoch as number) + shift(r))!] = p[s.key] ?? null;
  });
  const marks: RunMark[] = [];
  if (earlier.length && view.this_run) {
    const ordered = [...earlier, view.this_run];
    ordered.forEach((r, i) => marks.push({ at: shift(r), label: runLabel(r, ordered[i - 1] ?? null), current: i === ordered.length - 1 }));
  }
  return { labels: series.map((s) => s.label), data: [x, ...data], series, marks };
}

/** The last value a series holds (the legend writes the run's final metrics while no point is hovered). */
export function lastValue(values: (number | null)[]): number | null {
  for (let i = values.length - 1; i >= 0; i--) if (values[i] !== null && Number.isFinite(values[i])) return values[i];
  return null;
}

/** A legend value: up to 4 significant digits. */
export function legendValue(v: number | null): string {
  return v === null || !Number.isFinite(v) ? "--" : String(Number(v.toPrecision(4)));
}

/** Marks that would overlap their left neighbour go down a row: [left px, row] for each. */
export function markRows(lefts: number[], widths: number[]): number[] {
  const rowEnds: number[] = [];
  return lefts.map((left, i) => {
    let row = rowEnds.findIndex((end) => end + 4 <= left);
    if (row < 0) row = rowEnds.length;
    rowEnds[row] = left + widths[i];
    return row;
  });
}

// Lower is better for losses and errors; higher for the rest (accuracy, auc, precision, ...).
const LOWER_BETTER = /loss|error|mae|mse|mape|msle|crossentropy|hinge|divergence|poisson|cosh/;

/** After a run, each metric as it ended and at its best, with the epoch (counted on from earlier
 * runs, as on the chart): "loss 0.312 (best 0.298, epoch 5) · accuracy 0.91 (best, epoch 6)". */
export function runSummary(history: Record<string, (number | null)[]>, firstEpoch = 0): string {
  const parts: string[] = [];
  // loss first, each metric followed by its validation value (as people read a Keras log)
  const plain = Object.keys(history).filter((k) => !isVal(k)).sort((a, b) => Number(b === "loss") - Number(a === "loss"));
  const keys = [...new Set([...plain.flatMap((k) => [k, `val_${k}`]), ...Object.keys(history)])].filter((k) => k in history);
  for (const key of keys) {
    const values = history[key];
    const last = lastValue(values);
    if (last === null) continue;
    const lower = LOWER_BETTER.test(key.replace(/^val_/, ""));
    let best = -1;
    values.forEach((v, i) => {
      if (v === null || !Number.isFinite(v)) return;
      if (best < 0 || (lower ? v < (values[best] as number) : v > (values[best] as number))) best = i;
    });
    const at = firstEpoch + best + 1;
    const lastAt = values.lastIndexOf(last);
    parts.push(lastAt === best ? `${key} ${legendValue(last)} (best, epoch ${at})`
      : `${key} ${legendValue(last)} (best ${legendValue(values[best])}, epoch ${at})`);
  }
  return parts.length ? `Final: ${parts.join(" · ")}` : "";
}
