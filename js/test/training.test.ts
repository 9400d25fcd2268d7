import { describe, expect, it } from "vitest";
import { chartData, dataText, deviceText, meshText, progressText } from "../src/training/training";

describe("training panel", () => {
  it("aligns running training values with per-epoch validation values", () => {
    const { labels, data } = chartData({
      curve: [{ epoch: 0.5, loss: 2 }, { epoch: 1, loss: 1.5 }, { epoch: 1.5, loss: 1.2 }, { epoch: 2, loss: 1 }],
      history: { loss: [1.5, 1], val_loss: [1.6, 1.1] },
    });
    expect(labels).toEqual(["loss", "val_loss"]);
    expect(data[0]).toEqual([0.5, 1, 1.5, 2]);
    expect(data[1]).toEqual([2, 1.5, 1.2, 1]);
    expect(data[2]).toEqual([null, 1.6, null, 1.1]);
  });

  it("describes progress", () => {
    expect(progressText({})).toBe("Not trained yet.");
    expect(dataText({})).toBe("No data yet: canvas.set_data(x, y) in a cell.");
    expect(dataText({ data: "1,797 samples · x (8, 8, 1) float32 · y int64, 10 classes" }))
      .toBe("Data: 1,797 samples · x (8, 8, 1) float32 · y int64, 10 classes");
    expect(progressText({ status: { state: "running", epoch: 2, epochs: 5, batch: 10, batches: 47, eta_s: 3.2,
      device: "CPU", message: "", traceback: null } })).toBe("running · epoch 2/5 · batch 10/47 · 4 s left");
  });
});

describe("deviceText", () => {
  it("names the Keras backend and the device", () => {
    expect(deviceText("jax", "GPU: NVIDIA H100")).toBe("Keras backend: jax · device: GPU: NVIDIA H100");
    expect(deviceText("torch", null)).toBe("Keras backend: torch");
    expect(deviceText("", "CPU")).toBe("device: CPU");
  });
});

describe("meshText", () => {
  it("says the mesh the chosen engine would use, before a run", () => {
    const meshes = { none: "one device", model_parallel: "mesh (batch: 1, model: 2) over 2 devices (cpu:0, cpu:1)" };
    expect(meshText(meshes, "model_parallel")).toBe("will run on mesh (batch: 1, model: 2) over 2 devices (cpu:0, cpu:1)");
    expect(meshText(meshes, "none")).toBe("runs on one device");
    expect(meshText(meshes, "data_parallel")).toBe("");  // not said: nothing shown
    expect(meshText(undefined, "none")).toBe("");       // an older kernel
    expect(meshText({ none: 3 }, "none")).toBe("");     // not a string: not shown
  });
});
