import { describe, expect, it } from "vitest";
import { DiffGap, applyDiff } from "../src/mirror/diffs";
import { StateStore, type StoreModel } from "../src/mirror/store";
import { emptyState } from "../src/mirror/shape";
import type { GraphState, StateDiff, ViewRow } from "../src/mirror/types";
import { kernelLayer } from "./kernel";

// Written by tests/test_diffs.py from what the kernel really sends (KC_WRITE_FIXTURES=1).
import written from "./fixtures/diffs.json";

const fixture = written as unknown as {
  initial: GraphState; diffs: StateDiff[]; final: GraphState; lost_at: number; held_before_loss: GraphState;
};

describe("applyDiff", () => {
  it("reproduces the kernel's full state exactly, diff by diff", () => {
    let held = fixture.initial;
    for (const d of fixture.diffs) held = applyDiff(held, d);
    expect(held).toEqual(fixture.final);
    expect(fixture.diffs.length).toBeGreaterThan(20);
  });

  it("is pure: the state it was given is left as it was", () => {
    const before = JSON.stringify(fixture.initial);
    applyDiff(fixture.initial, fixture.diffs[0]);
    expect(JSON.stringify(fixture.initial)).toBe(before);
  });

  it("refuses a diff that does not follow the revision held", () => {
    expect(() => applyDiff(fixture.held_before_loss, fixture.diffs[fixture.lost_at + 1])).toThrow(DiffGap);
  });

  it("moves one box without touching the others", () => {
    const base = fixture.final;
    const name = base.layers[0].name;
    const next = applyDiff(base, { base: base.revision!, revision: base.revision! + 1, view: { [name]: [7, 8, 180, 62, true, 0, base.layers[0].ports] } });
    expect(next.layers[0]).toMatchObject({ x: 7, y: 8, pinned: true });
    expect(next.layers.slice(1)).toEqual(base.layers.slice(1));
    expect(next.layers.slice(1).every((l, i) => l === base.layers[i + 1])).toBe(true);
  });
});

class FakeModel implements StoreModel {
  values = new Map<string, any>();
  handlers = new Map<string, ((...a: any[]) => void)[]>();
  sent: any[] = [];
  get(name: string) { return this.values.get(name); }
  set(name: string, value: unknown) { this.values.set(name, value); this.emit(`change:${name}`); }
  on(event: string, cb: (...a: any[]) => void) { this.handlers.set(event, [...(this.handlers.get(event) ?? []), cb]); }
  off(event?: string | null, cb?: ((...a: any[]) => void) | null) {
    if (event) this.handlers.set(event, (this.handlers.get(event) ?? []).filter((h) => h !== cb));
  }
  send(content: any) { this.sent.push(content); }
  emit(event: string, ...args: any[]) { for (const h of this.handlers.get(event) ?? []) h(...args); }
  listeners() { return [...this.handlers.values()].reduce((n, hs) => n + hs.length, 0); }
}

function model(snapshot: GraphState, revision = snapshot.revision): FakeModel {
  const m = new FakeModel();
  m.values.set("snapshot", snapshot);
  m.values.set("revision", revision);
  return m;
}

describe("StateStore", () => {
  it("keeps `state` current from diffs and tells the views", () => {
    const m = model(fixture.initial);
    const store = new StateStore(m);
    let changes = 0;
    m.on("change:state", () => changes++);
    for (const d of fixture.diffs) m.emit("msg:custom", { diff: d });
    expect(m.get("state")).toEqual(fixture.final);
    expect(changes).toBe(fixture.diffs.length);
    expect(m.sent).toEqual([]);
    store.destroy();
  });

  it("detects a lost diff, asks once for the full state and carries on from it", () => {
    const m = model(fixture.initial);
    const store = new StateStore(m);
    const { diffs, lost_at } = fixture;
    for (const d of diffs.slice(0, lost_at)) m.emit("msg:custom", { diff: d });
    for (const d of diffs.slice(lost_at + 1, lost_at + 3)) m.emit("msg:custom", { diff: d }); // diffs[lost_at] lost
    expect(m.sent).toHaveLength(1);
    expect(m.sent[0]).toMatchObject({ kind: "state", have: diffs[lost_at - 1].revision });
    // the kernel answers with the state as it is now (after diffs[lost_at + 2])
    let full = fixture.initial;
    for (const d of diffs.slice(0, lost_at + 3)) full = applyDiff(full, d);
    m.emit("msg:custom", { id: "someone-else", ok: true, result: fixture.initial }); // another request's answer
    m.emit("msg:custom", { id: m.sent[0].id, ok: true, result: full });
    expect(m.get("state")).toEqual(full);
    for (const d of diffs.slice(lost_at + 3)) m.emit("msg:custom", { diff: d });
    expect(m.get("state")).toEqual(fixture.final);
    expect(m.sent).toHaveLength(1);
    store.destroy();
  });

  it("tells the host of an edit made on the canvas by setting `edits` from the front end", () => {
    const m = model(fixture.initial);
    let saved = 0;
    const store = new StateStore(Object.assign(m, { save_changes: () => { saved++; } }));
    const [first, second] = fixture.diffs;
    m.emit("msg:custom", { diff: first }); // a change made from Python
    m.emit("msg:custom", { id: 8, ok: true, result: null });
    expect([m.get("edits"), saved]).toEqual([undefined, 0]);
    m.emit("msg:custom", { diff: second, edit: true }); // one made on the canvas
    expect([m.get("edits"), saved]).toEqual([second.revision, 1]);
    expect(m.get("state").revision).toBe(second.revision);
    store.destroy();
  });

  it("asks at once when the snapshot is older than the kernel's revision (a reloaded page)", () => {
    const m = model(fixture.initial, fixture.final.revision);
    new StateStore(m).destroy();
    expect(m.sent).toEqual([{ kind: "state", id: "kc-state-1", have: fixture.initial.revision }]);
  });

  it("takes a newer snapshot (a loaded file) and ignores diffs it already holds", () => {
    const m = model(fixture.initial);
    const store = new StateStore(m);
    m.set("snapshot", fixture.final);
    expect(m.get("state")).toBe(fixture.final);
    m.emit("msg:custom", { diff: fixture.diffs[fixture.diffs.length - 1] });
    expect(m.get("state")).toBe(fixture.final);
    expect(m.sent).toEqual([]);
    store.destroy();
  });

  it("removes every listener it added on destroy", () => {
    const m = model(fixture.initial);
    const before = m.listeners();
    new StateStore(m).destroy();
    expect(m.listeners()).toBe(before);
  });

  it("starts empty without a snapshot and asks for the state", () => {
    const m = new FakeModel();
    m.values.set("revision", 3);
    const store = new StateStore(m);
    expect(m.get("state").layers).toEqual([]);
    expect(m.sent).toMatchObject([{ kind: "state", have: 0 }]);
    m.emit("msg:custom", { id: m.sent[0].id, ok: true, result: fixture.final });
    expect(m.get("state")).toBe(fixture.final);
    store.destroy();
  });
});

describe("applyDiff and layer names that are also Object's", () => {
  it("a layer named constructor or toString keeps its own view row", () => {
    const layer = (name: string, y: number) => kernelLayer({ name, class_name: "Dense", group: "core", config: {}, is_input: false,
      x: 0, y, pinned: false, slots: { kind: "single" as const, names: ["inputs"], min: 1, max: 1 },
      n_outputs: 1, calls: [], params: 0, depth: 0, problems: [], inner_layers: null, expanded: false, inner: null });
    const state: GraphState = { ...emptyState(), revision: 1, name: "m", layers: [layer("constructor", 0), layer("toString", 100)] };
    const row: ViewRow = [5, 200, 180, 62, true, 0, state.layers[1].ports];
    const next = applyDiff(state, { base: 1, revision: 2, view: { toString: row } });
    expect(next.layers[0]).toBe(state.layers[0]);
    expect(next.layers[1]).toMatchObject({ name: "toString", x: 5, y: 200, pinned: true, depth: 0 });
  });
});
