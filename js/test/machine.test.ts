// The gesture machine (machine.ts): every state, how it is entered, and Esc and focus loss from
// each one; a release after Esc finds idle (no half gesture).
import { describe, expect, it } from "vitest";
import { type Gesture, type GestureEvent, IDLE, escapable, nextGesture, pointerBusy } from "../src/interaction/machine";
import type { Port } from "../src/mirror/geometry";
import type { EdgeState } from "../src/mirror/types";

const out: Port = { key: "out:a:0:0", kind: "out", layer: "a", call: 0, index: 0, label: "", at: { x: 0, y: 0 } };
const slot: Port = { key: "in:b:0:0", kind: "in", layer: "b", call: 0, index: 0, label: "", at: { x: 0, y: 50 } };
const edge: EdgeState = { src: ["a", 0, 0], dst: ["b", 0, 0], shape: null, dtype: null, built: true };
const view = { x: 0, y: 0, k: 1 };

function run(events: GestureEvent[], from: Gesture = IDLE): Gesture {
  return events.reduce(nextGesture, from);
}

/** Each state of the machine, with the events that lead there from idle. */
const paths: Record<Gesture["kind"] | "pressing-blank", GestureEvent[]> = {
  idle: [],
  pressing: [{ kind: "press-box", name: "a", at: { x: 1, y: 1 }, start: { x: 0, y: 0 } }],
  "pressing-blank": [{ kind: "press-blank", at: { x: 1, y: 1 }, view }],
  "dragging-box": [{ kind: "press-box", name: "a", at: { x: 1, y: 1 }, start: { x: 0, y: 0 } }, { kind: "moved", far: true }],
  "dragging-wire": [{ kind: "press-port", port: out }],
  "dragging-wire-end": [{ kind: "press-slot", edge, port: slot }],
  panning: [{ kind: "press-blank", at: { x: 1, y: 1 }, view }, { kind: "moved", far: true }],
  banding: [{ kind: "press-band", at: { x: 1, y: 1 } }],
  minimap: [{ kind: "press-minimap" }],
  placing: [{ kind: "pick-palette", className: "Dense" }],
  menu: [{ kind: "open-menu" }],
  "quick-add": [{ kind: "open-quick-add" }],
};

describe("gesture machine", () => {
  it("reaches every state from idle", () => {
    for (const [name, events] of Object.entries(paths)) {
      expect(run(events).kind).toBe(name === "pressing-blank" ? "pressing" : name);
    }
  });

  it("Esc and focus loss return to idle from every state", () => {
    for (const events of Object.values(paths)) {
      expect(run([...events, { kind: "escape" }])).toEqual(IDLE);
      expect(run([...events, { kind: "blur" }])).toEqual(IDLE);
    }
  });

  it("after Esc, a release or a move starts nothing (no half gesture leaks)", () => {
    for (const events of Object.values(paths)) {
      const after = run([...events, { kind: "escape" }, { kind: "moved", far: true }, { kind: "release" }]);
      expect(after).toEqual(IDLE);
    }
  });

  it("a small move is still a press; a far one starts a box drag or a pan", () => {
    const box = paths.pressing;
    expect(run([...box, { kind: "moved", far: false }]).kind).toBe("pressing");
    const dragging = run([...box, { kind: "moved", far: true }]);
    expect(dragging).toMatchObject({ kind: "dragging-box", name: "a", start: { x: 0, y: 0 } });
    expect(run([...paths["pressing-blank"], { kind: "moved", far: true }])).toMatchObject({ kind: "panning", view });
  });

  it("a release ends the pointer gestures, not a menu or quick-add", () => {
    for (const [name, events] of Object.entries(paths)) {
      const after = run([...events, { kind: "release" }]).kind;
      expect(after).toBe(name === "menu" || name === "quick-add" ? name : "idle");
    }
    expect(run([...paths.menu, { kind: "close" }])).toEqual(IDLE);
    expect(run([...paths["quick-add"], { kind: "close" }])).toEqual(IDLE);
    expect(run([...paths["dragging-wire"], { kind: "close" }]).kind).toBe("dragging-wire"); // close is a menu's event
  });

  it("a press while a gesture is under way starts nothing new", () => {
    const wiring = run(paths["dragging-wire"]);
    expect(nextGesture(wiring, { kind: "press-box", name: "b", at: { x: 0, y: 0 }, start: { x: 0, y: 0 } })).toBe(wiring);
    expect(run([...paths.menu, { kind: "press-port", port: out }]).kind).toBe("menu"); // the canvas closes it first
  });

  it("a palette ghost remembers the wire it is over; the minimap its grab", () => {
    expect(run([...paths.placing, { kind: "over-wire", wire: 3 }])).toEqual({ kind: "placing", className: "Dense", wire: 3 });
    const grabbed = run([...paths.minimap, { kind: "grab-minimap", grab: { x: 5, y: 6 } }, { kind: "grab-minimap", grab: { x: 9, y: 9 } }]);
    expect(grabbed).toEqual({ kind: "minimap", grab: { x: 5, y: 6 } }); // taken once, kept while dragging
  });

  it("says which states hold the pointer and which Esc can end", () => {
    expect(pointerBusy(IDLE)).toBe(false);
    expect(pointerBusy(run(paths.menu))).toBe(false);
    expect(pointerBusy(run(paths["quick-add"]))).toBe(false);
    expect(pointerBusy(run(paths["dragging-wire"]))).toBe(true);
    expect(escapable(IDLE)).toBe(false);
    for (const [name, events] of Object.entries(paths)) if (name !== "idle") expect(escapable(run(events))).toBe(true);
  });
});
