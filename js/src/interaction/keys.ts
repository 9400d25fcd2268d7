// The canvas's keys: which command a key press means, from the key, the element it was pressed
// on and what is selected. Pure (vitest checks each), the canvas runs the command; a press
// that means nothing (null) goes on to JupyterLab.
import { type Intent, keyIntent } from "./gestures";
import type { EdgeState } from "../mirror/types";

export interface KeyPress { key: string; ctrl: boolean; shift: boolean; alt: boolean }

/** The drawn element with the focus: its port key, fold button, edge index or box name. */
export interface FocusedOn { port: string | null; toggle: string | null; edge: number | null; box: string | null; field: boolean }

export interface KeyContext {
  selected: string[];
  edge: EdgeState | null;   // the selected edge
  clipboard: number;        // layers copied
  pointerInside: boolean;   // the mouse is over the drawing
}

export type KeyCommand =
  | { kind: "port"; port: string }           // Enter on a port: arm an output, or connect the armed one here
  | { kind: "toggle"; name: string }         // fold a nested model out or back
  | { kind: "inspect-edge"; index: number }
  | { kind: "edge-menu"; index: number }
  | { kind: "box-menu"; name: string }
  | { kind: "select-box"; name: string; add: boolean }
  | { kind: "find" }
  | { kind: "edit"; intent: Intent }         // Delete, Undo, Redo (gestures.keyIntent)
  | { kind: "copy" }
  | { kind: "paste" }
  | { kind: "select-all" }
  | { kind: "quick-add" }
  | { kind: "rename" }
  | { kind: "nudge"; dx: number; dy: number }    // arrows: the selected boxes move (Shift: farther)
  | { kind: "pan"; dx: number; dy: number }      // arrows with nothing selected: the view moves
  | { kind: "escape" };

const ARROWS: Record<string, [number, number]> = { ArrowLeft: [-1, 0], ArrowRight: [1, 0], ArrowUp: [0, -1], ArrowDown: [0, 1] };

export function keyCommand(k: KeyPress, on: FocusedOn, ctx: KeyContext): KeyCommand | null {
  if (on.field) return null; // typing in a form field, the find bar or quick-add
  const key = k.key.toLowerCase();
  const menuKey = k.key === "ContextMenu" || (k.shift && k.key === "F10");
  if (k.key === "Enter" && on.port) return { kind: "port", port: on.port };
  if (on.toggle && (k.key === "Enter" || k.key === " ")) return { kind: "toggle", name: on.toggle };
  if (k.key === "Enter" && on.edge !== null) return { kind: "inspect-edge", index: on.edge };
  if (on.edge !== null && menuKey) return { kind: "edge-menu", index: on.edge };
  if (on.box && menuKey) return { kind: "box-menu", name: on.box };
  if (k.key === "Enter" && on.box) return { kind: "select-box", name: on.box, add: k.shift };
  if (k.ctrl && key === "f") return { kind: "find" };
  const intent = keyIntent({ key: k.key, ctrl: k.ctrl, shift: k.shift }, ctx.selected, ctx.edge);
  if (intent) return { kind: "edit", intent };
  if (k.ctrl && key === "c" && ctx.selected.length) return { kind: "copy" };
  if (k.ctrl && key === "v" && ctx.clipboard) return { kind: "paste" };
  if (k.ctrl && key === "a") return { kind: "select-all" };
  // Shift+A (Blender) always; Tab (Houdini, ComfyUI) while the pointer is over the drawing, so
  // that Tab still moves the keyboard focus from box to box for people without a mouse
  if (!k.ctrl && !k.alt && ((k.key === "Tab" && !k.shift && ctx.pointerInside) || (k.shift && key === "a"))) return { kind: "quick-add" };
  if (k.key === "F2" && ctx.selected.length === 1) return { kind: "rename" };
  const arrow = ARROWS[k.key];
  if (arrow && !k.ctrl && !k.alt) {
    if (ctx.selected.length) { const d = k.shift ? 50 : 10; return { kind: "nudge", dx: arrow[0] * d, dy: arrow[1] * d }; }
    const d = k.shift ? 200 : 60;
    return { kind: "pan", dx: -arrow[0] * d || 0, dy: -arrow[1] * d || 0 };
  }
  if (k.key === "Escape") return { kind: "escape" };
  return null;
}

/** A key the host (JupyterLab's command mode: A, B, X, C, V, D, M, Y, 1-6, Enter, arrows;
 * Notebook, VS Code, marimo alike) would act on, kept from it while the canvas has the focus
 * even when the canvas has no use for it: a cell must not be cut or inserted from a drawing.
 * Shortcuts with Ctrl/Cmd or Alt that the canvas does not use (Shift+Enter, Ctrl+S) still go to
 * the host. */
export function hostKey(k: KeyPress, typing: boolean): boolean {
  if (typing || k.ctrl || k.alt) return false; // (typing: in a text field, which the host leaves alone)
  if (k.key === "Enter") return !k.shift;
  return k.key.length === 1 || k.key in ARROWS;
}
