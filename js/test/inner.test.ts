// Working inside a nested model: Find reaches the layers inside (expanded or not), an inner layer
// is selected on its own and its Delete is refused with the reason, folded runs inside unfold in
// the browser (the boxes below make room), and expanding shows the top of the inside readable.
import { describe, expect, it, vi } from "vitest";
import { findLayers } from "../src/interaction/find";
import { innerLayers, innerPath, innerRunOf, openInner, splitPath, unfoldInner } from "../src/mirror/folds";
import { Keyboard, type KeyboardHost } from "../src/interaction/keyboard";
import { CanvasMenus, type MenusHost, innerAnchor, innerRefusal } from "../src/interaction/contextmenus";
import type { Edits } from "../src/interaction/edits";
import type { ContextMenu } from "../src/interaction/menu";
import { UiStore } from "../src/interaction/ui";
import { OPEN_SCALE, showTop } from "../src/scene/camera";
import type { GraphState, InnerBox, InnerView, LayerState } from "../src/mirror/types";

const BOX = { w: 150, h: 36 };
function ib(name: string, y: number, over: Partial<InnerBox> = {}): InnerBox {
  return { name, class_name: "Conv2D", x: 12, y, ...BOX, nested: false, output: false, shape: [null, 4, 4, 8], hidden: null, fold: null, ...over };
}

// input -> stem -> [b1_expand, b1_add] [b2_expand, b2_add] (a run of 2, folded) -> out
const FOLDED: InnerView = {
  layers: [
    ib("b1_add", 106, { hidden: "b1_expand" }), ib("b2_expand", 106, { hidden: "b1_expand" }), ib("b2_add", 106, { hidden: "b1_expand" }),
    ib("input_layer", 48, { class_name: "InputLayer" }), ib("stem", 77),
    ib("b1_expand", 106, { w: 190, h: 50, fold: { copies: 2, layers: 2, last: "b2_add", classes: "Conv2D, Add", members: 4, stack: 6 } }),
    ib("out", 178, { output: true }),
  ],
  edges: [["input_layer", "stem"], ["stem", "b1_expand"], ["b1_expand", "out"]],
  width: 214, height: 226,
  runs: [{ head: "b1_expand", members: ["b1_expand", "b1_add", "b2_expand", "b2_add"], offsets: [[0, 0], [0, 58], [0, 116], [0, 174]], grow: 160 }],
  links: [["input_layer", "stem"], ["stem", "b1_expand"], ["b1_expand", "b1_add"], ["stem", "b1_add"], ["b1_add", "b2_expand"],
    ["b2_expand", "b2_add"], ["b1_add", "b2_add"], ["b2_add", "out"]],
};

function box(name: string, y: number, over: Partial<LayerState> = {}): LayerState {
  return { name, class_name: "Dense", group: "core", config: {}, is_input: false, slots: { kind: "single", names: ["inputs"], min: 1, max: 1 },
    n_outputs: 1, calls: [], made_from: "config", params: 0, problems: [], inner_layers: null, expanded: false, inner: null, run: null,
    fold: null, x: 0, y, w: 180, h: 62, pinned: false, depth: 0, ports: { in: [[0, 0, 90, 0]], out: [[0, 0, 90, 62]] }, ...over } as LayerState;
}

function drawing(expanded: boolean): LayerState[] {
  return [box("inputs", 0, { is_input: true }),
    box("base", 100, { class_name: "Functional", inner_layers: 6, expanded, inner: FOLDED, h: expanded ? 226 : 62,
      ports: { in: [[0, 0, 90, 0]], out: [[0, 0, 90, expanded ? 226 : 62]] } }),
    box("pool", expanded ? 366 : 202), box("head", expanded ? 468 : 304)];
}

describe("Find inside nested models", () => {
  it("lists every inner layer by its path, collapsed models too, and finds it by its own name", () => {
    const layers = drawing(false);
    const inner = innerLayers(layers);
    expect(inner.map((l) => l.name)).toContain("base/b2_expand"); // a layer a folded run hides, in a collapsed model
    const hits = findLayers([...layers, ...inner], "b2_expand");
    expect(hits[0].name).toBe("base/b2_expand");
    expect(splitPath(hits[0].name)).toEqual(["base", "b2_expand"]);
    expect(innerRunOf(FOLDED, "b2_expand")).toBe("b1_expand");
    expect(splitPath("dense")).toBeNull();
    // the drawing's own layers before those inside on an equal match
    expect(findLayers([...layers, ...inner], "stem").map((l) => l.name)).toEqual(["base/stem"]);
    const withStem = [box("stem", 0), ...layers];
    expect(findLayers([...withStem, ...innerLayers(withStem)], "stem").map((l) => l.name)).toEqual(["stem", "base/stem"]);
  });
});

describe("folded runs inside a nested model", () => {
  it("unfold in the browser: the run's layers placed, the boxes below moved down, its edges drawn", () => {
    const { view, grow } = unfoldInner(FOLDED, new Set(["b1_expand"]));
    expect(grow).toBe(160);
    const at = Object.fromEntries(view.layers.map((b) => [b.name, b]));
    expect(at.b1_expand.fold).toBeNull();
    expect(at.b1_expand.h).toBe(36);
    expect([at.b1_add.y, at.b2_expand.y, at.b2_add.y]).toEqual([164, 222, 280]);
    expect(view.layers.every((b) => !b.hidden)).toBe(true);
    expect(at.out.y).toBe(178 + 160);
    expect(at.stem.y).toBe(77); // above the run: stays
    expect(view.edges).toContainEqual(["b1_add", "b2_add"]);
    expect(view.height).toBe(226 + 160);
    expect(unfoldInner(FOLDED, new Set()).view).toBe(FOLDED);
  });

  it("the nested model's box grows, its outputs and the boxes below it move down; nothing open: the same array", () => {
    const layers = drawing(true);
    expect(openInner(layers, new Set())).toBe(layers);
    expect(openInner(layers, new Set(["other/b1_expand"]))).toBe(layers);
    const opened = openInner(layers, new Set([innerPath("base", "b1_expand")]));
    const at = Object.fromEntries(opened.map((l) => [l.name, l]));
    expect(at.base.h).toBe(226 + 160);
    expect(at.base.ports.out[0][3]).toBe(226 + 160);
    expect(at.pool.y).toBe(366 + 160);
    expect(at.head.y).toBe(468 + 160);
    expect(at.inputs.y).toBe(0);
    // a collapsed model shows no inside: nothing to unfold
    expect(openInner(drawing(false), new Set(["base/b1_expand"]))).toEqual(drawing(false));
  });

  it("the interaction store keeps which runs are open", () => {
    const ui = new UiStore();
    ui.openInnerRun("base/b1_expand", true);
    expect([...ui.state.innerOpen]).toEqual(["base/b1_expand"]);
    const before = ui.state.innerOpen;
    ui.openInnerRun("base/b1_expand", true);
    expect(ui.state.innerOpen).toBe(before);
    ui.openInnerRun("base/b1_expand", false);
    expect(ui.state.innerOpen.size).toBe(0);
  });
});

function fakeEdits(): Edits {
  return { connect: vi.fn(), remove: vi.fn(), removeEdge: vi.fn(), perform: vi.fn(), paste: vi.fn(), nudge: vi.fn(),
    toggle: vi.fn(), inspectEdge: vi.fn(), act: vi.fn(), actOn: vi.fn(), selectedEdge: vi.fn(() => null) } as unknown as Edits;
}

describe("an inner layer is selected on its own and is read-only", () => {
  const layers = drawing(true);
  const state = { name: "m", layers, edges: [] } as unknown as GraphState;

  it("Delete on a selected inner layer is refused with the reason and sends nothing", () => {
    const ui = new UiStore();
    const showError = vi.fn();
    const host = {
      ui, edits: fakeEdits(), menus: { openBox: vi.fn(), openEdge: vi.fn() } as unknown as CanvasMenus,
      state: () => state, placed: () => layers, routes: () => [], ports: () => [], view: () => ui.state.view,
      pointer: () => ({ inside: true, last: { x: 5, y: 6 } }), cancelGesture: () => false, closeMenu: vi.fn(), hideError: () => false,
      glideTo: vi.fn(), quickAdd: vi.fn(), find: vi.fn(), rename: vi.fn(), copied: vi.fn(), focusBox: vi.fn(), focusPort: vi.fn(),
      showError,
    } satisfies KeyboardHost;
    const k = new Keyboard(host, new EventTarget() as HTMLElement, new AbortController().signal);
    ui.selectBoxes(["base/stem"]);
    expect([...ui.state.selected]).toEqual(["base/stem"]); // the inner layer, not the base
    k.run({ kind: "edit", intent: { kind: "remove", names: ["base/stem"] } });
    expect(host.edits.remove).not.toHaveBeenCalled();
    expect(showError).toHaveBeenCalledWith("a layer inside nested model 'base' is read-only: edit the nested model in Python",
      { x: 0 + 12 + 150, y: 100 + 77 });
    k.run({ kind: "nudge", dx: 10, dy: 0 });
    expect(host.edits.nudge).not.toHaveBeenCalled();
  });

  it("its menu: Delete refused, a folded run unfolds", () => {
    const ui = new UiStore();
    const showError = vi.fn(), toggleInner = vi.fn();
    let entries: [string, () => void][] = [];
    const host = {
      ui, edits: fakeEdits(), menu: { show: (_at: unknown, e: [string, () => void][]) => { entries = e; } } as unknown as ContextMenu,
      stage: { getBoundingClientRect: () => ({ left: 0, top: 0, right: 800, bottom: 600, width: 800, height: 600 }) } as unknown as HTMLElement,
      state: () => state, placed: () => layers, view: () => ui.state.view, local: () => ({ x: 0, y: 0 }), quickAdd: vi.fn(), rename: vi.fn(),
      copied: vi.fn(), fit: vi.fn(), find: vi.fn(), focusBox: vi.fn(), focusEdge: vi.fn(), focusCanvas: vi.fn(), showError, toggleInner,
    } satisfies MenusHost;
    vi.stubGlobal("window", { innerWidth: 800, innerHeight: 600 });
    const menus = new CanvasMenus(host);
    menus.openInner("base/b1_expand", { x: 10, y: 10 });
    expect([...ui.state.selected]).toEqual(["base/b1_expand"]);
    expect(entries.map((e) => e[0])).toEqual(["Unfold (show its 4 layers)", "Delete"]);
    entries[1][1]();
    expect(showError.mock.calls[0][0]).toBe(innerRefusal("base/b1_expand"));
    entries[0][1]();
    expect(toggleInner).toHaveBeenCalledWith("base/b1_expand");
    expect(host.edits.remove).not.toHaveBeenCalled();
    expect(innerAnchor(layers, "base/nothing")).toBeUndefined();
    vi.unstubAllGlobals();
  });

  it("its menu: a layer inside freezes and unfreezes by its path (issue 41)", () => {
    const ui = new UiStore();
    let entries: [string, () => void][] = [];
    const host = {
      ui, edits: fakeEdits(), menu: { show: (_at: unknown, e: [string, () => void][]) => { entries = e; } } as unknown as ContextMenu,
      stage: { getBoundingClientRect: () => ({ left: 0, top: 0, right: 800, bottom: 600, width: 800, height: 600 }) } as unknown as HTMLElement,
      state: () => state, placed: () => layers, view: () => ui.state.view, local: () => ({ x: 0, y: 0 }), quickAdd: vi.fn(), rename: vi.fn(),
      copied: vi.fn(), fit: vi.fn(), find: vi.fn(), focusBox: vi.fn(), focusEdge: vi.fn(), focusCanvas: vi.fn(), showError: vi.fn(),
    } satisfies MenusHost;
    vi.stubGlobal("window", { innerWidth: 800, innerHeight: 600 });
    new CanvasMenus(host).openInner("base/stem", { x: 10, y: 10 });
    expect(entries.map((e) => e[0])).toEqual(["Freeze (trainable = False)", "Unfreeze (trainable = True)", "Delete"]);
    entries[0][1]();
    expect(host.edits.act).toHaveBeenCalledWith("set_trainable", { name: "base/stem", trainable: false }, expect.anything());
    entries[1][1]();
    expect(host.edits.act).toHaveBeenCalledWith("set_trainable", { name: "base/stem", trainable: true }, expect.anything());
    vi.unstubAllGlobals();
  });
});

describe("expanding shows the top of the inside, readable", () => {
  const stage = { width: 800, height: 500 };
  it("a tall inside: its top at a readable scale, never all of it made small", () => {
    const tall = { x: 100, y: 200, w: 214, h: 6254 };
    for (const k of [0.2, 0.6, 1, 1.5]) {
      const v = showTop({ x: 0, y: 0, k }, tall, stage);
      expect(v.k).toBe(Math.max(k, OPEN_SCALE));
      expect(tall.y * v.k + v.y).toBe(40); // its top just under the stage's top
      const cx = (tall.x + tall.w / 2) * v.k + v.x;
      expect(cx).toBeCloseTo(stage.width / 2);
    }
  });
  it("a small inside that fits: the least pan, as any follow", () => {
    const small = { x: 100, y: 100, w: 200, h: 200 };
    expect(showTop({ x: 0, y: 0, k: 1 }, small, stage)).toEqual({ x: 0, y: 0, k: 1 });
  });
});
