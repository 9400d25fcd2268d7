import { describe, expect, it } from "vitest";
import { chartData, lastValue, legendValue, markRows, rateText, runLabel, runSummary, type RunView } from "../src/training/runs";
import { seriesOptions } from "../src/training/training";

const run = (number: number, first_epoch: number, learning_rate: number | null, more: Partial<RunView> = {}): RunView =>
  ({ run: number + 10, number, first_epoch, learning_rate, optimizer: "adam", ...more });

describe("runs on the training chart", () => {
  it("writes learning rates as a person does", () => {
    expect(rateText(0.001)).toBe("0.001");
    expect(rateText(0.01)).toBe("0.01");
    expect(rateText(1e-4)).toBe("1e-4");
    expect(rateText(2.5e-5)).toBe("2.5e-5");
    expect(rateText(0.0010000000474974513)).toBe("0.001");
  });

  it("labels a run by number, with its learning rate and optimizer where they changed", () => {
    expect(runLabel(run(1, 0, 1e-3), null)).toBe("run 1");
    expect(runLabel(run(2, 1, 1e-4), run(1, 0, 1e-3))).toBe("run 2 · lr 1e-4");
    expect(runLabel(run(3, 2, 1e-4), run(2, 1, 1e-4))).toBe("run 3");
    expect(runLabel(run(3, 2, 0.01, { optimizer: "sgd" }), run(2, 1, 1e-4))).toBe("run 3 · sgd · lr 0.01");
  });

  it("counts epochs on across runs and keeps each earlier run's series apart", () => {
    const earlier = run(1, 0, 1e-3, { curve: [{ epoch: 0.5, loss: 2 }, { epoch: 1, loss: 1.5 }], history: { val_loss: [1.6] } });
    const { labels, data, series, marks } = chartData({
      curve: [{ epoch: 0.5, loss: 1.2 }, { epoch: 1, loss: 1 }], history: { loss: [1], val_loss: [1.1] },
      runs: [earlier], this_run: run(2, 1, 1e-4),
    });
    expect(labels).toEqual(["loss", "val_loss", "run 1 loss", "run 1 val_loss"]);
    expect(series.map((s) => s.earlier)).toEqual([false, false, true, true]);
    expect(data[0]).toEqual([0.5, 1, 1.5, 2]);
    expect(data[1]).toEqual([null, null, 1.2, 1]);
    expect(data[2]).toEqual([null, null, null, 1.1]);
    expect(data[3]).toEqual([2, 1.5, null, null]);
    expect(data[4]).toEqual([null, 1.6, null, null]);
    expect(marks).toEqual([{ at: 0, label: "run 1", current: false }, { at: 1, label: "run 2 · lr 1e-4", current: true }]);
  });

  it("draws one run as before: no marks, the plain names", () => {
    const { labels, marks } = chartData({ curve: [{ epoch: 1, loss: 1 }], this_run: run(1, 0, 1e-3), runs: [] });
    expect(labels).toEqual(["loss"]);
    expect(marks).toEqual([]);
  });

  it("gives a metric one colour across runs, earlier runs fainter, and the legend the last value", () => {
    const { series, data } = chartData({ curve: [{ epoch: 1, loss: 1, accuracy: 0.5 }],
      runs: [run(1, 0, 1e-3, { curve: [{ epoch: 1, loss: 2, accuracy: 0.2 }] })], this_run: run(2, 1, 1e-4) });
    const metric = (k: string) => !/loss$/.test(k);
    const [loss, accuracy, oldLoss] = series.map((s) => seriesOptions(s, series, metric));
    expect(oldLoss.stroke).toBe(`${loss.stroke}80`);
    expect(accuracy.scale).toBe("metric");
    expect(oldLoss.width).toBeLessThan(loss.width as number);
    const value = loss.value as (u: unknown, v: number | null, s: number, i: number | null) => string;
    expect(value({ data }, null, 1, null)).toBe("1");
    expect(value({ data }, 0.123456, 1, 0)).toBe("0.1235");
    expect(lastValue([1, 2, null])).toBe(2);
    expect(legendValue(null)).toBe("--");
  });

  it("puts names that would overlap on another row", () => {
    expect(markRows([0, 30, 200], [50, 50, 50])).toEqual([0, 1, 0]);
    expect(markRows([0, 100], [50, 50])).toEqual([0, 0]);
  });
});

describe("the run's summary (issue 43: training you can read)", () => {
  it("says where each metric ended and where it was best, losses lowest, the rest highest", () => {
    const history = { loss: [0.9, 0.5, 0.55], accuracy: [0.6, 0.8, 0.85], val_loss: [1.0, 0.7, 0.9], val_mae: [0.4, null, 0.3] };
    expect(runSummary(history)).toBe("Final: loss 0.55 (best 0.5, epoch 2) · val_loss 0.9 (best 0.7, epoch 2)"
      + " · accuracy 0.85 (best, epoch 3) · val_mae 0.3 (best, epoch 3)");
    expect(runSummary({ accuracy: [0.5], loss: [1.0] })).toBe("Final: loss 1 (best, epoch 1) · accuracy 0.5 (best, epoch 1)");
    // a second run's epochs count on from the first's, as on the chart
    expect(runSummary({ loss: [0.4, 0.3] }, 5)).toBe("Final: loss 0.3 (best, epoch 7)");
    expect(runSummary({})).toBe("");
    expect(runSummary({ loss: [null, Number.NaN] })).toBe("");
  });
});

