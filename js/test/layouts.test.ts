// How a box says its weights lie over the devices after a run on a mesh (issue 46).
import { describe, expect, it } from "vitest";
import { layoutLine } from "../src/training/layouts";

describe("weight layouts on the boxes", () => {
  it("names the mesh axes a box's weights are split on, every weight in the tooltip", () => {
    const line = layoutLine({ kernel: "sharded on model (dim 1 of 2)", bias: "replicated" });
    expect(line.text).toBe("split on model");
    expect(line.title).toBe("kernel: sharded on model (dim 1 of 2)\nbias: replicated");
  });

  it("says replicated when nothing is split, and each axis once", () => {
    expect(layoutLine({ kernel: "replicated" }).text).toBe("replicated");
    expect(layoutLine({ "attention/query/kernel": "sharded on model (dim 2 of 3)",
      "attention/key/kernel": "sharded on model (dim 2 of 3)", embeddings: "sharded on batch (dim 0 of 2)" }).text)
      .toBe("split on model, batch");
    expect(layoutLine({ kernel: "sharded on batch (dim 0 of 2), sharded on model+seq (dim 1 of 2)" }).text)
      .toBe("split on batch, model, seq");
  });
});
