// The minimap's viewport moves with the pointer from where it was taken; a press beside it
// centres the view there.
import { describe, expect, it } from "vitest";
import { toWorld } from "../src/mirror/geometry";
import { miniGrab, miniView, miniWorld } from "../src/scene/minimap";

const stage = { width: 800, height: 400 };

describe("minimap", () => {
  it("maps a minimap point to the world, the viewBox fitted keeping its aspect", () => {
    // a 100x400 world in a 200x200 minimap: scale 0.5, 75 px of margin on the left
    const box = { x: 0, y: 0, width: 100, height: 400 };
    const screen = { left: 10, top: 20, width: 200, height: 200 };
    expect(miniWorld(box, screen, { x: 10 + 75, y: 20 })).toEqual({ x: 0, y: 0 });
    expect(miniWorld(box, screen, { x: 10 + 125, y: 220 })).toEqual({ x: 100, y: 400 });
  });

  it("a press inside the viewport keeps the grabbed point under the pointer", () => {
    const view = { x: 0, y: 0, k: 2 }; // shows world 0..400 x 0..200
    const grab = miniGrab(view, stage, { x: 100, y: 20 }); // near the top-left corner
    expect(grab).toEqual({ x: -100, y: -80 });
    // pressing without moving leaves the view where it is
    expect(miniView(view, stage, { x: 100, y: 20 }, grab)).toEqual(view);
    // moving 50 world units down moves the view by as much
    const moved = miniView(view, stage, { x: 100, y: 70 }, grab);
    expect(toWorld(moved, { x: 0, y: 0 })).toEqual({ x: 0, y: 50 });
  });

  it("a press beside the viewport centres the view there", () => {
    const view = { x: 0, y: 0, k: 2 };
    const grab = miniGrab(view, stage, { x: 1000, y: 1000 });
    expect(grab).toEqual({ x: 0, y: 0 });
    const jumped = miniView(view, stage, { x: 1000, y: 1000 }, grab);
    expect(toWorld(jumped, { x: 400, y: 200 })).toEqual({ x: 1000, y: 1000 });
  });
});
