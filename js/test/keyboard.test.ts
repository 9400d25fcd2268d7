// The canvas's keys and context menus at work (keyboard.ts, contextmenus.ts): Esc from every
// gesture state, from a menu, a selection and a refusal, one step a press, until the host's
// turn; the commands reach the edits and the store; a menu's entries run the edits they name.
import { afterEach, describe, expect, it, vi } from "vitest";
import { Keyboard, type KeyboardHost } from "../src/interaction/keyboard";
import { CanvasMenus, type MenusHost } from "../src/interaction/contextmenus";
import type { Edits } from "../src/interaction/edits";
import type { ContextMenu } from "../src/interaction/menu";
import { type GestureEvent, pointerBusy } from "../src/interaction/machine";
import { UiStore } from "../src/interaction/ui";
import type { Port } from "../src/mirror/geometry";
import type { EdgeState, GraphState, LayerState } from "../src/mirror/types";
import { type Drawn, kernelLayer } from "./kernel";

const out: Port = { key: "out:a:0:0", kind: "out", layer: "a", call: 0, index: 0, label: "", at: { x: 0, y: 0 } };
const slot: Port = { key: "in:b:0:0", kind: "in", layer: "b", call: 0, index: 0, label: "", at: { x: 0, y: 80 } };
const edge: EdgeState = { src: ["a", 0, 0], dst: ["b", 0, 0], shape: null, dtype: null, built: true };

function layer(over: Partial<Drawn>): LayerState {
  return kernelLayer({ name: "a", class_name: "Dense", group: "core", config: {}, is_input: false, x: 0, y: 0, pinned: false,
    slots: { kind: "single", names: ["inputs"], min: 1, max: 1 }, n_outputs: 1,
    calls: [{ index: 0, built: true, output_shapes: [[null, 4]], missing: null }], params: 20, depth: 0, problems: [],
    inner_layers: null, expanded: false, inner: null, ...over }, [edge]);
}

const state = { name: "m", layers: [layer({ name: "a" }), layer({ name: "b", y: 80 })], edges: [edge] } as unknown as GraphState;

/** Events that reach each gesture state from idle (machine.ts). */
const states: Record<string, GestureEvent[]> = {
  pressing: [{ kind: "press-box", name: "a", at: { x: 1, y: 1 }, start: { x: 0, y: 0 } }],
  "dragging-box": [{ kind: "press-box", name: "a", at: { x: 1, y: 1 }, start: { x: 0, y: 0 } }, { kind: "moved", far: true }],
  "dragging-wire": [{ kind: "press-port", port: out }],
  "dragging-wire-end": [{ kind: "press-slot", edge, port: slot }],
  panning: [{ kind: "press-blank", at: { x: 1, y: 1 }, view: { x: 0, y: 0, k: 1 } }, { kind: "moved", far: true }],
  banding: [{ kind: "press-band", at: { x: 1, y: 1 } }],
  minimap: [{ kind: "press-minimap" }],
  placing: [{ kind: "pick-palette", className: "Dense" }],
  menu: [{ kind: "open-menu" }],
  "quick-add": [{ kind: "open-quick-add" }],
};

function fakeEdits(): Edits {
  return { connect: vi.fn(), remove: vi.fn(), removeEdge: vi.fn(), perform: vi.fn(), paste: vi.fn(), nudge: vi.fn(),
    toggle: vi.fn(), inspectEdge: vi.fn(), act: vi.fn(), actOn: vi.fn(), selectedEdge: vi.fn(() => null) } as unknown as Edits;
}

function keyboard(ui = new UiStore()) {
  let error = false; // a refusal shown
  const host = {
    ui, edits: fakeEdits(), menus: { openBox: vi.fn(), openEdge: vi.fn() } as unknown as CanvasMenus,
    state: () => state, placed: () => state.layers, routes: () => [[{ x: 0, y: 0 }, { x: 0, y: 80 }]], ports: () => [out, slot],
    view: () => ui.state.view, pointer: () => ({ inside: true, last: { x: 5, y: 6 } }),
    // as pointer.ts: a gesture holding the pointer ends
    cancelGesture: () => pointerBusy(ui.state.gesture) && (ui.gesture({ kind: "escape" }), true),
    closeMenu: vi.fn(() => ui.gesture({ kind: "close" })),
    hideError: () => { const was = error; error = false; return was; },
    glideTo: vi.fn(), quickAdd: vi.fn(), find: vi.fn(), rename: vi.fn(), copied: vi.fn(), focusBox: vi.fn(), focusPort: vi.fn(),
  } satisfies KeyboardHost;
  const k = new Keyboard(host, new EventTarget() as HTMLElement, new AbortController().signal);
  return { k, host, ui, showError: () => { error = true; } };
}

/** Esc pressed until the canvas lets it go to the host: how many presses it kept. */
function escapes(k: Keyboard): number {
  let kept = 0;
  while (k.escape()) { kept++; if (kept > 10) throw new Error("Esc never reaches the host"); }
  return kept;
}

describe("Esc on the canvas", () => {
  for (const [name, events] of Object.entries(states)) {
    it(`from ${name}: back to idle, then the selection goes, then the host's turn`, () => {
      const { k, ui } = keyboard();
      ui.selectBoxes(["a"]);
      for (const ev of events) ui.gesture(ev);
      expect(ui.state.gesture.kind).toBe(name);
      expect(k.escape()).toBe(true);
      expect(ui.state.gesture.kind).toBe("idle");
      expect(ui.state.selected.has("a")).toBe(true); // one step a press: the gesture first
      expect(k.escape()).toBe(true);
      expect(ui.state.selected.size).toBe(0);
      expect(k.escape()).toBe(false);
    });
  }

  it("an armed port, a selected edge and a refusal each take one press; nothing left: the host's", () => {
    const { k, ui, showError } = keyboard();
    expect(k.escape()).toBe(false);
    ui.arm(out);
    expect(escapes(k)).toBe(1);
    expect(ui.state.armed).toBeNull();
    ui.selectEdge(edge, "a:0:0>b:0:0");
    showError();
    expect(escapes(k)).toBe(1); // the edge and the refusal go together
    expect(ui.state.edge).toBeNull();
    showError();
    expect(escapes(k)).toBe(1);
  });

  it("a menu is closed through the menu (it tells the machine)", () => {
    const { k, ui, host } = keyboard();
    ui.gesture({ kind: "open-menu" });
    expect(k.escape()).toBe(true);
    expect(host.closeMenu).toHaveBeenCalledOnce();
    expect(ui.state.gesture.kind).toBe("idle");
  });
});

describe("key commands", () => {
  it("Enter on an output arms it; Enter on a slot then connects the two", () => {
    const { k, ui, host } = keyboard();
    expect(k.run({ kind: "port", port: out.key })).toBe(true);
    expect(ui.state.armed).toBe(out);
    k.run({ kind: "port", port: slot.key });
    expect(ui.state.armed).toBeNull();
    expect(host.edits.connect).toHaveBeenCalledWith(out, slot);
  });

  it("Delete removes through the edits (bridged with Shift); Delete on an edge disconnects it", () => {
    const { k, host } = keyboard();
    k.run({ kind: "edit", intent: { kind: "remove", names: ["a"], bridge: true } });
    expect(host.edits.remove).toHaveBeenCalledWith(["a"], true);
    vi.mocked(host.edits.selectedEdge).mockReturnValue(edge);
    k.run({ kind: "edit", intent: { kind: "disconnect", src: edge.src, dst: edge.dst } });
    expect(host.edits.removeEdge).toHaveBeenCalledWith(edge);
  });

  it("copy fills the store's clipboard; arrows pan the view when nothing is selected; Tab opens quick-add at the pointer", () => {
    const { k, ui, host } = keyboard();
    ui.selectBoxes(["a", "b"]);
    k.run({ kind: "copy" });
    expect(ui.state.clipboard).toEqual(["a", "b"]);
    expect(host.copied).toHaveBeenCalledWith(2);
    k.run({ kind: "pan", dx: 60, dy: 0 });
    expect(host.glideTo).toHaveBeenCalledWith({ ...ui.state.view, x: ui.state.view.x + 60 });
    k.run({ kind: "quick-add" });
    expect(host.quickAdd).toHaveBeenCalledWith({ x: 5, y: 6 });
  });

  it("the Menu key opens the focused box's menu at the box", () => {
    const { k, host } = keyboard();
    k.run({ kind: "box-menu", name: "b" });
    expect(host.menus.openBox).toHaveBeenCalledWith(state.layers[1], { x: 20 + 20, y: 20 + 100 });
  });
});

describe("context menus", () => {
  afterEach(() => { vi.unstubAllGlobals(); });
  function menus() {
    const ui = new UiStore();
    const shown: [string, () => void][][] = [];
    const host = {
      ui, edits: fakeEdits(), menu: { show: (_at: unknown, entries: [string, () => void][]) => shown.push(entries) } as unknown as ContextMenu,
      stage: { getBoundingClientRect: () => ({ left: 0, top: 0, width: 800, height: 500 }) } as HTMLElement,
      state: () => state, placed: () => state.layers, view: () => ui.state.view, local: () => ({ x: 0, y: 0 }),
      quickAdd: vi.fn(), rename: vi.fn(), copied: vi.fn(), fit: vi.fn(), find: vi.fn(),
      focusBox: vi.fn(), focusEdge: vi.fn(), focusCanvas: vi.fn(),
    } satisfies MenusHost;
    vi.stubGlobal("window", { innerWidth: 1000, innerHeight: 800 });
    const pick = (label: string) => shown[shown.length - 1].find(([l]) => l.startsWith(label))![1]();
    return { m: new CanvasMenus(host), host, ui, pick };
  }

  it("a box's menu selects it; Delete and Copy run the edits and the store", () => {
    const { m, host, ui, pick } = menus();
    m.openBox(state.layers[1], { x: 10, y: 10 });
    expect([...ui.state.selected]).toEqual(["b"]);
    pick("Delete, keep");
    expect(host.edits.remove).toHaveBeenCalledWith(["b"], true, expect.anything());
    pick("Copy");
    expect(ui.state.clipboard).toEqual(["b"]);
    pick("Call again");
    expect(host.edits.act).toHaveBeenCalledWith("add_call", { name: "b" }, expect.anything());
  });

  it("an edge's menu inspects it; Insert opens quick-add for the edge; empty space pastes only with a clipboard", () => {
    const { m, host, ui, pick } = menus();
    m.openEdge(edge, { x: 3, y: 4 });
    expect(host.edits.inspectEdge).toHaveBeenCalledWith(0);
    pick("Insert layer");
    expect(host.quickAdd).toHaveBeenCalledWith({ x: 3, y: 4 }, edge);
    m.openBlank({ x: 0, y: 0 });
    expect(() => pick("Paste")).toThrow();
    ui.copy(["a"]);
    m.openBlank({ x: 0, y: 0 });
    pick("Paste");
    expect(host.edits.paste).toHaveBeenCalledOnce();
  });
});
