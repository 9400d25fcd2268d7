// The canvas's context menus at work: a right click (or the Menu key) on a box, an edge or empty
// space opens that thing's menu (entries from menu.ts) and the picked entry runs through the
// edits (edits.ts) and the store's actions. The canvas supplies what they read (MenusHost).
import { el } from "../base/dom";
import { type Point, type View, boxAt, boxWidth, toWorld } from "../mirror/geometry";
import type { Edits } from "./edits";
import { type ContextMenu, type MenuAction, type MenuEntry, blankMenu, boxMenu, edgeMenu, visibleArea } from "./menu";
import { edgeKey } from "../scene/scene";
import type { UiStore } from "./ui";
import type { EdgeState, GraphState, LayerState } from "../mirror/types";
import { innerBox, innerPath, innerRunOf, splitPath } from "../mirror/folds";

/** Why an edit of a layer inside a nested model ("outer/inner") is refused: the inside is read-only. */
export function innerRefusal(path: string): string {
  const outer = splitPath(path)?.[0] ?? path;
  return `a layer inside nested model '${outer}' is read-only: edit the nested model in Python`;
}

/** Where a refusal about inner layer `path` shows: its box's top right corner (world), if drawn. */
export function innerAnchor(layers: LayerState[], path: string): Point | undefined {
  const parts = splitPath(path);
  const outer = parts && layers.find((l) => l.name === parts[0]);
  const b = outer && parts ? innerBox(outer, parts[1]) : null;
  return outer && b ? { x: outer.x + b.x + b.w, y: outer.y + b.y } : undefined;
}

/** The box menu's LoRA entry: shown only on a box whose layer can take LoRA now (the kernel says
 * so: lora_ready); it opens a rank field. */
export const LORA_LABEL = "LoRA…";
export const MAX_LORA_RANK = 4096; // the kernel's bound too (kerascanvas/graph/lora.py)

/** The rank typed in the LoRA field, or null when it is not a whole number from 1 to MAX_LORA_RANK. */
export function loraRank(text: string): number | null {
  const t = text.trim();
  if (!/^[0-9]{1,5}$/.test(t)) return null;
  const rank = Number(t);
  return rank >= 1 && rank <= MAX_LORA_RANK ? rank : null;
}

/** A box menu's entries with "LoRA…" after its freezing entries, for a box that can take LoRA. */
export function withLora(box: LayerState, entries: [string, () => void][], actions: MenuAction[], lora: () => void): [string, () => void][] {
  if (!box.lora_ready) return entries;
  const after = Math.max(...actions.map((a, i) => (a === "freeze" || a === "unfreeze" || a === "freeze-before" ? i : -1)));
  const at = after < 0 ? Math.max(0, entries.length - 1) : after + 1;
  return [...entries.slice(0, at), [LORA_LABEL, lora], ...entries.slice(at)];
}

/** A box menu's entries with "Quantize int8", "Quantize float8", ... before "Rename" (after the
 * freezing and LoRA entries): one per mode the box's layer takes now (the kernel says so:
 * quantize_ready). */
export function withQuantize(box: LayerState, entries: [string, () => void][], quantize: (mode: string) => void): [string, () => void][] {
  const modes = box.quantize_ready ?? [];
  if (!modes.length) return entries;
  const rename = entries.findIndex((e) => e[0] === "Rename");
  const at = rename < 0 ? entries.length : rename;
  const added: [string, () => void][] = modes.map((mode) => [`Quantize ${mode}`, () => quantize(mode)]);
  return [...entries.slice(0, at), ...added, ...entries.slice(at)];
}

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
  showError?(message: string, at?: Point): void;  // a refusal, next to `at` (world)
  toggleInner?(path: string): void;      // a folded run inside a nested model unfolds (or folds again)
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
    const inner = (ev.target as Element).closest?.("[data-inner-path]")?.getAttribute("data-inner-path");
    if (inner) { this.openInner(inner, p); return; }
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
    const entries = boxMenu(box, host.state().edges);
    this.show(at, entries, {
      "call-again": () => edits.act("add_call", { name }, anchor),
      "remove-call": () => edits.act("remove_call", { name, call: box.calls.length - 1 }, anchor),
      toggle: () => edits.toggle(name),
      fold: () => edits.actOn("fold", { name, folded: true }, anchor, [name]),
      unfold: () => edits.actOn("fold", { name, folded: false }, anchor, [name]),
      freeze: () => edits.act("set_trainable", { name, trainable: false }, anchor),
      unfreeze: () => edits.act("set_trainable", { name, trainable: true }, anchor),
      "freeze-before": () => edits.act("freeze_before", { name }, anchor),
      rename: () => host.rename(),
      copy: () => { host.ui.copy([name]); host.copied(1); },
      delete: () => edits.remove([name], false, anchor),
      "delete-bridged": () => edits.remove([name], true, anchor),
    }, () => host.focusBox(name), (items) => withQuantize(box, withLora(box, items, entries.map((e) => e.action),
      () => this.openLoraForm(name, at, anchor)), (mode) => edits.act("quantize", { name, mode }, anchor)));
  }

  /** "LoRA…": a rank field (4 to start) where the menu was; Enter or its button enables LoRA on
   * the box (one undo step), Esc closes it and the box gets the focus back. */
  openLoraForm(name: string, at: Point, anchor: Point): HTMLFormElement {
    const { host } = this;
    // (novalidate: a bad rank gets the message below, read out, not the browser's own bubble)
    const form = el("form", { class: "kc-menu kc-show kc-lora-form", "aria-label": `LoRA on ${name}`, novalidate: "" });
    form.style.left = `${at.x}px`;
    form.style.top = `${at.y}px`;
    const input = el("input", { type: "number", min: "1", max: String(MAX_LORA_RANK), step: "1", value: "4", name: "rank" });
    const label = el("label", {}, "LoRA rank ");
    label.append(input);
    const why = el("div", { class: "kc-lora-why", role: "alert" });
    form.append(label, el("button", { type: "submit", class: "kc-menu-item" }, "Enable LoRA"), why);
    const close = () => { form.remove(); host.focusBox(name); };
    form.addEventListener("submit", (ev) => {
      ev.preventDefault();
      const rank = loraRank(input.value);
      if (rank === null) { why.textContent = `a whole number from 1 to ${MAX_LORA_RANK}`; return; }
      close();
      host.edits.act("enable_lora", { name, rank }, anchor);
    });
    form.addEventListener("keydown", (ev) => { if (ev.key === "Escape") { ev.stopPropagation(); close(); } });
    // Enter sends the rank itself, as the find and quick-add fields do (a notebook host may take
    // Enter on its way up, and the form would not submit)
    input.addEventListener("keydown", (ev) => {
      if (ev.key === "Enter") { ev.preventDefault(); ev.stopPropagation(); form.requestSubmit(); }
    });
    host.stage.append(form);
    input.focus({ preventScroll: true });
    input.select();
    return form;
  }

  /** An inner layer's menu (a layer inside an expanded nested model, "outer/inner"): unfold the
   * folded run it stands for, or fold again the run it is part of; freeze or unfreeze it by its
   * path, "LoRA…" where it takes LoRA; Delete is refused with the
   * reason (the inside is read-only) and changes nothing. */
  openInner(path: string, at: Point): void {
    const { host } = this;
    const parts = splitPath(path);
    const outer = parts && host.state().layers.find((l) => l.name === parts[0]);
    if (!parts || !outer?.inner) return;
    host.ui.selectBoxes([path]);
    const b = innerBox(outer, parts[1]);
    const head = innerRunOf(outer.inner, parts[1]);
    const entries: MenuEntry[] = [];
    if (b?.fold) entries.push({ label: `Unfold (show its ${b.fold.members} layers)`, action: "unfold" });
    else if (head !== null && host.ui.state.innerOpen.has(innerPath(parts[0], head))) entries.push({ label: "Fold repeated blocks into one box", action: "fold" });
    if (!b?.fold) { // a layer inside freezes by its path (one undo step); a folded run's box stands for several
      entries.push({ label: "Freeze (trainable = False)", action: "freeze" }, { label: "Unfreeze (trainable = True)", action: "unfreeze" });
      if (b?.lora) entries.push({ label: LORA_LABEL, action: "lora" }); // the kernel says it takes LoRA
    }
    entries.push({ label: "Delete", action: "delete" });
    const anchor = innerAnchor(host.placed(), path);
    this.show(at, entries, {
      unfold: () => host.toggleInner?.(path),
      fold: () => host.toggleInner?.(path),
      freeze: () => host.edits.act("set_trainable", { name: path, trainable: false }, anchor),
      unfreeze: () => host.edits.act("set_trainable", { name: path, trainable: true }, anchor),
      lora: () => this.openLoraForm(path, at, anchor ?? at),
      delete: () => host.showError?.(innerRefusal(path), anchor),
    }, () => host.focusCanvas());
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
  private show(at: Point, entries: MenuEntry[], run: Partial<Record<MenuAction, () => void>>, back: () => void,
    more: (items: [string, () => void][]) => [string, () => void][] = (items) => items): void {
    const area = visibleArea(this.host.stage.getBoundingClientRect(), { width: window.innerWidth, height: window.innerHeight });
    this.host.menu.show(at, more(entries.map((e) => [e.label, () => run[e.action]?.()])), back, area);
  }
}
