// Which command a key press on the canvas means (keys.ts).
import { describe, expect, it } from "vitest";
import { type FocusedOn, type KeyContext, type KeyPress, keyCommand } from "../src/interaction/keys";
import type { EdgeState } from "../src/mirror/types";

const press = (key: string, over: Partial<KeyPress> = {}): KeyPress => ({ key, ctrl: false, shift: false, alt: false, ...over });
const nowhere: FocusedOn = { port: null, toggle: null, edge: null, box: null, field: false };
const idle: KeyContext = { selected: [], edge: null, clipboard: 0, pointerInside: false };
const edge: EdgeState = { src: ["a", 0, 0], dst: ["b", 0, 0], shape: null, dtype: null, built: true };

describe("keys on drawn elements", () => {
  it("Enter on a port, a fold button, an edge, a box", () => {
    expect(keyCommand(press("Enter"), { ...nowhere, port: "out:a:0:0", box: "a" }, idle)).toEqual({ kind: "port", port: "out:a:0:0" });
    expect(keyCommand(press(" "), { ...nowhere, toggle: "inner" }, idle)).toEqual({ kind: "toggle", name: "inner" });
    expect(keyCommand(press("Enter"), { ...nowhere, edge: 0 }, idle)).toEqual({ kind: "inspect-edge", index: 0 });
    expect(keyCommand(press("Enter", { shift: true }), { ...nowhere, box: "a" }, idle)).toEqual({ kind: "select-box", name: "a", add: true });
  });

  it("the Menu key or Shift+F10 opens the focused edge's or box's menu", () => {
    expect(keyCommand(press("ContextMenu"), { ...nowhere, edge: 2 }, idle)).toEqual({ kind: "edge-menu", index: 2 });
    expect(keyCommand(press("F10", { shift: true }), { ...nowhere, box: "a" }, idle)).toEqual({ kind: "box-menu", name: "a" });
    expect(keyCommand(press("F10"), { ...nowhere, box: "a" }, idle)).toBeNull();
  });

  it("keys typed into a field are the field's", () => {
    expect(keyCommand(press("Delete"), { ...nowhere, field: true }, { ...idle, selected: ["a"] })).toBeNull();
    expect(keyCommand(press("Escape"), { ...nowhere, field: true }, idle)).toBeNull();
  });
});

describe("keys on the canvas", () => {
  it("Delete removes the selection, else the selected edge; Ctrl+Z undoes", () => {
    expect(keyCommand(press("Delete"), nowhere, { ...idle, selected: ["a"] })).toEqual({ kind: "edit", intent: { kind: "remove", names: ["a"] } });
    expect(keyCommand(press("Delete"), nowhere, { ...idle, edge })).toEqual({ kind: "edit", intent: { kind: "disconnect", src: edge.src, dst: edge.dst } });
    expect(keyCommand(press("z", { ctrl: true }), nowhere, idle)).toEqual({ kind: "edit", intent: { kind: "undo" } });
    expect(keyCommand(press("Delete"), nowhere, idle)).toBeNull();
  });

  it("copy needs a selection, paste a copy; Ctrl+A, Ctrl+F, F2 with one selected, Escape", () => {
    expect(keyCommand(press("c", { ctrl: true }), nowhere, idle)).toBeNull();
    expect(keyCommand(press("c", { ctrl: true }), nowhere, { ...idle, selected: ["a"] })).toEqual({ kind: "copy" });
    expect(keyCommand(press("v", { ctrl: true }), nowhere, idle)).toBeNull();
    expect(keyCommand(press("v", { ctrl: true }), nowhere, { ...idle, clipboard: 2 })).toEqual({ kind: "paste" });
    expect(keyCommand(press("a", { ctrl: true }), nowhere, idle)).toEqual({ kind: "select-all" });
    expect(keyCommand(press("F", { ctrl: true }), nowhere, idle)).toEqual({ kind: "find" });
    expect(keyCommand(press("F2"), nowhere, { ...idle, selected: ["a"] })).toEqual({ kind: "rename" });
    expect(keyCommand(press("F2"), nowhere, { ...idle, selected: ["a", "b"] })).toBeNull();
    expect(keyCommand(press("Escape"), nowhere, idle)).toEqual({ kind: "escape" });
  });

  it("Shift+A always opens quick-add; Tab only while the pointer is over the drawing", () => {
    expect(keyCommand(press("A", { shift: true }), nowhere, idle)).toEqual({ kind: "quick-add" });
    expect(keyCommand(press("Tab"), nowhere, idle)).toBeNull();
    expect(keyCommand(press("Tab"), nowhere, { ...idle, pointerInside: true })).toEqual({ kind: "quick-add" });
    expect(keyCommand(press("Tab", { shift: true }), nowhere, { ...idle, pointerInside: true })).toBeNull();
    expect(keyCommand(press("Tab", { alt: true }), nowhere, { ...idle, pointerInside: true })).toBeNull();
  });
});
