import { describe, expect, it } from "vitest";
import { glidePoints } from "../src/scene/glide";
import type { LayerState } from "../src/mirror/types";

describe("boxes glide to the new state's places", () => {
  it("starts where they were seen, eases out, ends where the state says", () => {
    const moving = [{ name: "d", x: 100, y: 40 } as LayerState];
    const before = new Map([["d", { x: 0, y: 0 }]]);
    expect(glidePoints(moving, before, 0).get("d")).toEqual({ x: 0, y: 0 });
    expect(glidePoints(moving, before, 0.5).get("d")).toEqual({ x: 75, y: 30 }); // past half way: eased
    expect(glidePoints(moving, before, 1).get("d")).toEqual({ x: 100, y: 40 });
  });
});
