// The interaction store (ui.ts): named actions, one notification per batch, Esc's order.
import { describe, expect, it } from "vitest";
import { UiStore } from "../src/interaction/ui";
import type { Port } from "../src/mirror/geometry";
import type { EdgeState } from "../src/mirror/types";

const out: Port = { key: "out:a:0:0", kind: "out", layer: "a", call: 0, index: 0, label: "", at: { x: 0, y: 0 } };
const edge: EdgeState = { src: ["a", 0, 0], dst: ["b", 0, 0], shape: null, dtype: null, built: true };

function store() {
  const ui = new UiStore();
  const seen: number[] = [];
  ui.subscribe(() => seen.push(1));
  return { ui, seen };
}

describe("ui store", () => {
  it("selecting boxes clears the selected edge, its highlight and an old refusal", () => {
    const { ui } = store();
    ui.selectEdge(edge, "a:0:0>b:0:0");
    ui.refuse("units must be positive");
    expect(ui.state).toMatchObject({ edge: "a:0:0>b:0:0", highlighted: "a" });
    ui.selectBoxes(["b"]);
    expect([...ui.state.selected]).toEqual(["b"]);
    expect(ui.state).toMatchObject({ edge: null, highlighted: null, inspectorError: null });
    ui.addSelectedBoxes(["c", "b"]);
    expect([...ui.state.selected]).toEqual(["b", "c"]);
  });

  it("selecting an edge unselects the boxes", () => {
    const { ui } = store();
    ui.selectBoxes(["a", "b"]);
    ui.selectEdge(edge, "k");
    expect(ui.state.selected.size).toBe(0);
  });

  it("an edge's explanation is kept only while that edge is selected", () => {
    const { ui } = store();
    const told = { title: "KerasTensor", rows: [] as [string, unknown][] };
    ui.selectEdge(edge, "k");
    ui.explainEdge("other", told); // an answer about an edge no longer selected
    expect(ui.state.explanation).toBeNull();
    ui.explainEdge("k", told);
    expect(ui.state.explanation).toBe(told);
    ui.selectEdge(edge, "k"); // selected again: explained afresh
    expect(ui.state.explanation).toBeNull();
    ui.explainEdge("k", told);
    ui.selectBoxes(["a"]);
    expect(ui.state.explanation).toBeNull();
    ui.selectEdge(edge, "k");
    ui.explainEdge("k", told);
    ui.clearEdge();
    expect(ui.state.explanation).toBeNull();
  });

  it("keeps only what still exists after an edit", () => {
    const { ui } = store();
    ui.selectBoxes(["a", "gone"]);
    ui.keepExisting((n) => n !== "gone", () => true);
    expect([...ui.state.selected]).toEqual(["a"]);
    ui.selectEdge(edge, "k");
    ui.keepExisting(() => true, () => false);
    expect(ui.state.edge).toBeNull();
    expect(ui.state.highlighted).toBeNull();
  });

  it("tells subscribers once per change, once per batch, never for no change", () => {
    const { ui, seen } = store();
    ui.selectBoxes(["a"]);
    expect(seen.length).toBe(1);
    ui.batch(() => { ui.arm(out); ui.copy(["a"]); ui.setView({ x: 1, y: 2, k: 3 }); });
    expect(seen.length).toBe(2);
    ui.arm(out); // the same port: nothing changed
    expect(seen.length).toBe(2);
    let before: unknown = null;
    ui.subscribe((_s, b) => { before = b.armed; });
    ui.arm(null);
    expect(before).toBe(out);
  });

  it("the clipboard, the camera, the armed port and the hints are actions of their own", () => {
    const { ui } = store();
    ui.copy(new Set(["a", "b"]));
    expect(ui.state.clipboard).toEqual(["a", "b"]);
    ui.setView({ x: 5, y: 6, k: 2 });
    expect(ui.state.view).toEqual({ x: 5, y: 6, k: 2 });
    ui.arm(out);
    expect(ui.state.armed).toBe(out);
    const hints = { key: "k", accept: new Set(["in:b:0:0"]), refuse: new Set<string>(), classes: null };
    ui.setHints(hints);
    expect(ui.state.hints).toBe(hints);
  });

  it("Esc ends the gesture first, then the selection, then has nothing (the host's turn)", () => {
    const { ui } = store();
    ui.selectBoxes(["a"]);
    ui.arm(out);
    ui.gesture({ kind: "press-port", port: out });
    expect(ui.state.gesture.kind).toBe("dragging-wire");
    expect(ui.escape()).toBe(true);
    expect(ui.state.gesture.kind).toBe("idle");
    expect(ui.state.selected.size).toBe(1); // one step per press
    expect(ui.escape()).toBe(true);
    expect(ui.state.selected.size).toBe(0);
    expect(ui.state.armed).toBeNull();
    expect(ui.escape()).toBe(false);
  });

  it("a release after Esc during a wire drag does nothing", () => {
    const { ui } = store();
    ui.gesture({ kind: "press-port", port: out });
    ui.escape();
    expect(ui.gesture({ kind: "release" }).kind).toBe("idle");
  });
});

describe("refusals", () => {
  it("each refusal is a change, the same message twice included (the inspector shows the kernel's values again)", () => {
    const ui = new UiStore();
    let told = 0;
    ui.subscribe(() => told++);
    ui.refuse("units must be positive");
    ui.refuse("units must be positive");
    expect(told).toBe(2);
    expect(ui.state.refusals).toBe(2);
    ui.refuse(null);
    expect(ui.state.inspectorError).toBeNull();
  });
});
