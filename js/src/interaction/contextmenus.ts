// The canvas's context menus at work: a right click (or the Menu key) on a box, an edge or empty
// space opens that thing's menu (entries from menu.ts) and the picked entry runs through the
// edits (edits.ts) and the store's actions. The canvas supplies what they read (MenusHost).
import { type Point, type View, boxAt, boxWidth, toWorld } from "../mirror/geometry";
import type { Edits } from "./edits";
import { type ContextMenu, type MenuAction, type MenuEntry, blankMenu, boxMenu, edgeMenu, visibleArea } from "./menu";
import { edgeKey } from "../scene/scene";
import type { UiStore } from "./ui";
import type { EdgeState, GraphState, LayerState } from "../mirror/types";

export interface MenusHost {
  readonly ui: UiStore;
  readonly edits: Edits;
  readonly menu: ContextMenu;
  readonly stage: HTMLElement;          // menus are placed in it, inside its visible part
  state(): GraphState;
  placed(): LayerState[];               // where the boxes are seen
  view(): View;
  local(ev: MouseEvent): Point;         // an event's point on the stage
  quickAdd(at: Point, into?: EdgeState): void;  // quick-add at a stage point (for inserting into an edge)
  rename(): void;                       // the inspector's name field gets the focus
  copied(count: number): void;          // says so
  fit(): void;
  find(): void;
  focusBox(name: string): void;
  focusEdge(key: string): void;
  focusCanvas(): void;
}

export class CanvasMenus {
  constructor(private host: MenusHost) {}

  /** A right click on the drawing: the menu of what is under the pointer. */
  openAt(ev: MouseEvent): void {
    const { host } = this;
    const p = host.local(ev);
    const edgeEl = (ev.target as Element).closest?.("[data-edge]");
    if (edgeEl) {
      const e = host.state().edges[Number(edgeEl.getAttribute("data-edge"))];
      if (e) { this.openEdge(e, p); return; }
    }
    const box = boxAt(host.placed(), toWorld(host.view(), p));
    if (box) { this.openBox(box, p); return; }
    this.openBlank(p);
  }

  /** A box's menu (right click, or the Menu key / Shift+F10 on a focused box), at stage point `at`. */
  openBox(box: LayerState, at: Point): void {
    const { host } = this;
    const { edits } = host;
    host.ui.selectBoxes([box.name]);
    const anchor = { x: box.x + boxWidth(box), y: box.y }; // where a refusal shows
    const name = box.name;
    this.show(at, boxMenu(box, host.state().edges), {
      "call-again": () => edits.act("add_call", { name }, anchor),
      "remove-call": () => edits.act("remove_call", { name, call: box.calls.length - 1 }, anchor),
      toggle: () => edits.toggle(name),
      fold: () => edits.actOn("fold", { name, folded: true }, anchor, [name]),
      unfold: () => edits.actOn("fold", { name, folded: false }, anchor, [name]),
      rename: () => host.rename(),
      copy: () => { host.ui.copy([name]); host.copied(1); },
      delete: () => edits.remove([name], false, anchor),
      "delete-bridged": () => edits.remove([name], true, anchor),
    }, () => host.focusBox(name));
  }

  /** An edge's menu: delete it, insert a layer into it, show its tensor. */
  openEdge(e: EdgeState, at: Point): void {
    const { host } = this;
    const index = host.state().edges.indexOf(e);
    host.edits.inspectEdge(index);
    this.show(at, edgeMenu(), {
      "delete-edge": () => host.edits.removeEdge(e),
      "insert-into-edge": () => host.quickAdd(at, e),
      "show-tensor": () => host.edits.inspectEdge(index),
    }, () => host.focusEdge(edgeKey(e)));
  }

  /** Empty space: add a layer there, paste, fit, find, fold or unfold every run. */
  openBlank(at: Point): void {
    const { host } = this;
    this.show(at, blankMenu(host.ui.state.clipboard.length > 0, host.state().layers), {
      "add-here": () => host.quickAdd(at),
      paste: () => host.edits.paste(),
      fit: () => host.fit(),
      find: () => host.find(),
      "fold-all": () => host.edits.act("fold_all", { folded: true }),
      "unfold-all": () => host.edits.act("fold_all", { folded: false }),
    }, () => host.focusCanvas());
  }

  /** Shows a menu's entries, each run here, kept inside the visible stage; `back` gets the focus
   * back to what it was opened on when Esc closes it. */
  private show(at: Point, entries: MenuEntry[], run: Partial<Record<MenuAction, () => void>>, back: () => void): void {
    const area = visibleArea(this.host.stage.getBoundingClientRect(), { width: window.innerWidth, height: window.innerHeight });
    this.host.menu.show(at, entries.map((e) => [e.label, () => run[e.action]?.()]), back, area);
  }
}
