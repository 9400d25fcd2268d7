// The canvas's own context menus. Which entries a box, an edge or empty space offers
// (boxMenu, edgeMenu, blankMenu) and where the menu goes (placeMenu, visibleArea) are pure and
// tested; ContextMenu is the small DOM that shows them.
import { clear, el } from "../base/dom";
import type { Point } from "../mirror/geometry";
import { foldAllMenu, foldMenu } from "../mirror/folds";
import type { EdgeState, LayerState } from "../mirror/types";

/** Top-left corner for a menu of `size` opened at `at`, inside `area` (width, height): it opens
 * leftwards/upwards when it would cross the right/bottom edge, and never starts outside. */
export function placeMenu(at: Point, size: { w: number; h: number }, area: { w: number; h: number }): Point {
  let x = at.x, y = at.y;
  if (x + size.w > area.w) x = at.x - size.w;
  if (y + size.h > area.h) y = at.y - size.h;
  x = Math.max(0, Math.min(x, area.w - size.w));
  y = Math.max(0, Math.min(y, area.h - size.h));
  return { x, y };
}

/** The part of the stage (its page rectangle) the page shows: the notebook may be scrolled so
 * that the window cuts it on the right or at the bottom. */
export function visibleArea(stage: { left: number; top: number; width: number; height: number },
  page: { width: number; height: number }): { w: number; h: number } {
  return { w: Math.min(stage.width, page.width - stage.left), h: Math.min(stage.height, page.height - stage.top) };
}

export type MenuAction =
  | "call-again" | "remove-call" | "toggle" | "fold" | "unfold" | "rename" | "copy" | "delete"  // a box
  | "delete-bridged" | "freeze" | "unfreeze" | "freeze-before" | "lora"
  | "delete-edge" | "insert-into-edge" | "show-tensor"                                         // an edge
  | "add-here" | "paste" | "fit" | "find" | "fold-all" | "unfold-all";                         // empty space

export interface MenuEntry { label: string; action: MenuAction }

/** A box's menu: call it again (not an Input), remove its last call, fold a nested model, freeze
 * or unfreeze it, freeze every layer upstream of it (the fine-tuning cut), rename,
 * copy, delete; and delete keeping the chain joined where one wire comes in and one tensor goes on. */
export function boxMenu(box: LayerState, edges: EdgeState[]): MenuEntry[] {
  const entries: MenuEntry[] = [];
  if (!box.is_input) entries.push({ label: "Call again (shared weights)", action: "call-again" });
  if (box.calls.length > 1) entries.push({ label: `Remove call ${box.calls.length - 1}`, action: "remove-call" });
  if (box.inner_layers !== null) entries.push({ label: box.expanded ? "Collapse" : "Expand (show its layers)", action: "toggle" });
  const fold = foldMenu(box); // a layer of a run of repeated blocks, or a folded run's box
  if (fold) entries.push({ label: fold.label, action: fold.folded ? "fold" : "unfold" });
  if (!box.is_input) {
    // a partly frozen nested model offers both: Freeze all of it, or Unfreeze all of it
    if (box.trainable !== "no") entries.push({ label: "Freeze (trainable = False)", action: "freeze" });
    if (box.trainable !== "yes") entries.push({ label: "Unfreeze (trainable = True)", action: "unfreeze" });
  }
  if (edges.some((e) => e.dst[0] === box.name)) entries.push({ label: "Freeze everything before this box", action: "freeze-before" });
  entries.push({ label: "Rename", action: "rename" }, { label: "Copy", action: "copy" }, { label: "Delete", action: "delete" });
  const into = edges.filter((e) => e.dst[0] === box.name).length;
  if (into === 1 && box.calls.length === 1 && box.n_outputs === 1) {
    entries.push({ label: "Delete, keep the chain joined (Shift+Del)", action: "delete-bridged" });
  }
  return entries;
}

export function edgeMenu(): MenuEntry[] {
  return [
    { label: "Delete edge", action: "delete-edge" },
    { label: "Insert layer here…", action: "insert-into-edge" },
    { label: "Show tensor", action: "show-tensor" },
  ];
}

/** Empty space: add a layer there, paste (when something was copied), fit, find, and fold or
 * unfold every run of repeated blocks the drawing has. */
export function blankMenu(canPaste: boolean, layers: LayerState[] = []): MenuEntry[] {
  const entries: MenuEntry[] = [{ label: "Add layer here… (Tab)", action: "add-here" }];
  if (canPaste) entries.push({ label: "Paste", action: "paste" });
  entries.push({ label: "Fit (show the drawing)", action: "fit" }, { label: "Find a layer… (Ctrl+F)", action: "find" });
  for (const f of foldAllMenu(layers)) entries.push({ label: f.label, action: f.folded ? "fold-all" : "unfold-all" });
  return entries;
}

/** The menu element: buttons that run their entry; Escape closes it and calls `back` (the focus
 * returns to what the menu was opened on). */
export class ContextMenu {
  readonly root: HTMLElement;

  /** `opened(true)` when it shows, `opened(false)` when it hides (the gesture machine's menu state). */
  constructor(private signal: AbortSignal, private opened: (open: boolean) => void = () => {}) {
    this.root = el("div", { class: "kc-menu", role: "menu" });
  }

  /** Shows `entries` at `at` (stage coordinates), kept inside `area`; the first entry has the focus. */
  show(at: Point, entries: [string, () => void][], back: () => void, area: { w: number; h: number }): void {
    clear(this.root);
    for (const [label, run] of entries) {
      const b = el("button", { role: "menuitem", class: "kc-menu-item" }, label);
      b.addEventListener("click", () => { this.hide(); run(); }, { signal: this.signal });
      b.addEventListener("keydown", (ev) => {
        if (ev.key === "Escape") { ev.stopPropagation(); this.hide(); back(); }
      }, { signal: this.signal });
      this.root.append(b);
    }
    this.root.style.left = `${at.x}px`;
    this.root.style.top = `${at.y}px`;
    this.root.classList.add("kc-show");
    const spot = placeMenu(at, { w: this.root.offsetWidth, h: this.root.offsetHeight }, area);
    this.root.style.left = `${spot.x}px`;
    this.root.style.top = `${spot.y}px`;
    (this.root.firstChild as HTMLElement | null)?.focus({ preventScroll: true });
    this.opened(true);
  }

  hide(): void {
    if (!this.root.classList.contains("kc-show")) return;
    this.root.classList.remove("kc-show");
    this.opened(false);
  }

  contains(node: Node | null): boolean {
    return this.root.contains(node);
  }
}
