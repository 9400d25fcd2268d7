// Pointer gestures on the drawing: pan, zoom, rubber band, box drags, wires drawn out of ports
// and off slots, palette drops, the minimap. What a press means and how the selection follows
// it are pure (tested); Pointer turns events into calls on its host, the canvas, through the
// PointerHost methods below, and the intents themselves come from gestures.ts.
import { el, svg } from "../base/dom";
import { type Flow, type Point, type Port, type View, boxAt, boxesIn, edgePath, portAt, rectFrom, slotKey, sourceKey, toWorld, zoomAt } from "../mirror/geometry";
import { edgeAt } from "../scene/edges";
import { type Intent, dropRewire, dropWire } from "./gestures";
import { miniGrab, miniView, miniWorld } from "../scene/minimap";
import { type Gesture, pointerBusy } from "./machine";
import type { UiStore } from "./ui";
import type { EdgeState, LayerState } from "../mirror/types";

const DOUBLE_PRESS_MS = 400;
const MOVED = 3; // px (screen for a pan, world for a box): less is a click, not a drag

/** What a press on the drawing grabs, in the order the canvas tries them. */
export type Press =
  | { kind: "wire"; port: Port }                      // an output port: a new wire
  | { kind: "rewire"; edge: EdgeState; port: Port }   // a filled slot: its wire comes off
  | { kind: "toggle"; name: string }                  // a nested model's fold button
  | { kind: "edge"; index: number }                   // an edge: selected
  | { kind: "box"; box: LayerState }                  // a box: selected, and dragged
  | { kind: "band" }                                  // Shift on empty space: rubber band
  | { kind: "pan" };                                  // empty space

/** What is under a press: the port (pressed, or near the point), the fold button and the edge
 * pressed, the box under the point. */
export interface Under { port: Port | null; toggle: string | null; edge: number | null; box: LayerState | null }

export function classifyPress(under: Under, edges: EdgeState[], shift: boolean): Press {
  const { port } = under;
  if (port?.kind === "out") return { kind: "wire", port };
  if (port?.kind === "in") {
    const edge = edges.find((x) => slotKey(x.dst) === port.key);
    if (edge) return { kind: "rewire", edge, port };
  }
  if (under.toggle !== null) return { kind: "toggle", name: under.toggle };
  if (under.edge !== null) return { kind: "edge", index: under.edge };
  if (under.box) return { kind: "box", box: under.box };
  return shift ? { kind: "band" } : { kind: "pan" };
}

/** The selection after a press on box `name`: Shift adds or takes it away; a plain press on a
 * box already selected keeps the selection (several boxes are dragged together), else only it. */
export function pressSelection(selected: Set<string>, name: string, shift: boolean): Set<string> {
  if (shift) {
    const next = new Set(selected);
    if (next.has(name)) next.delete(name); else next.add(name);
    return next;
  }
  return selected.has(name) ? selected : new Set([name]);
}

/** Whether the pointer went far enough from `from` for a drag (Manhattan distance). */
export function dragged(from: Point, to: Point): boolean {
  return Math.abs(to.x - from.x) + Math.abs(to.y - from.y) > MOVED;
}

/** A second press on the same box soon after the first. */
export function doublePress(last: { name: string; at: number } | null, name: string, now: number): boolean {
  return last?.name === name && now - last.at < DOUBLE_PRESS_MS;
}

/** The edge a press on drawn edge `hit` (the one on top) means: the wire drawn nearest the
 * point, where wires share a stretch; `hit` when no route is near (its wide hit area). */
export function pickEdge(routes: (Point[] | null)[], w: Point, k: number, hit: number): number {
  const nearest = edgeAt(routes, w, 12 / k);
  return nearest >= 0 ? nearest : hit;
}

/** What Pointer needs from the canvas. */
export interface PointerHost {
  readonly stage: HTMLElement;          // event coordinates are relative to it
  readonly svg: SVGSVGElement;
  readonly world: SVGGElement;          // the rubber band is drawn in it
  readonly overlay: SVGPathElement;     // the wire being drawn
  readonly minimap: SVGSVGElement;
  readonly ui: UiStore;                 // the gesture under way is its state (machine.ts)
  view(): View;
  flow(): Flow;                         // which way wires run (the drawing's direction)
  setView(view: View): void;            // and draw what it shows
  layers(): LayerState[];               // where the boxes are seen
  edges(): EdgeState[];
  ports(): Port[];
  routes(): (Point[] | null)[];         // each edge's drawn polyline, by index
  portPoint(key: string): Point | undefined;
  render(): void;
  focusCanvas(): void;
  closeQuickAdd(): void;                // and the context menu
  wireFrom(port: Port): void;           // a wire leaves this port: ask which slots take it
  toggle(name: string): void;
  pressInner(path: string): void;       // an inner layer of a nested model ("outer/inner") selected
  toggleInner(path: string): void;      // a folded run inside a nested model unfolds (or folds again)
  inspectEdge(index: number): void;
  pressBox(selection: Set<string>): void;  // selected (the edge selection and old refusals cleared)
  pressBlank(): void;                   // the selected edge, if any, is no longer
  select(names: string[]): void;        // added to the selection
  deselectAll(): void;
  panned(): void;
  moveBox(name: string, at: Point): void;  // one frame of a box drag
  dropBox(name: string): void;          // the drag ended: the move is sent
  cancelBox(name: string): void;        // the drag was cancelled: the box goes back
  liftEdge(edge: EdgeState): void;      // its wire is being re-plugged
  perform(intent: Intent, at?: Point): Promise<boolean>;
  search(at: Point, wire: Port): void;  // a wire let go in empty space: quick-add for its tensor
  dropLayer(className: string, at: Point, wire: number): void;  // a palette entry dropped (onto wire `wire`, or -1)
  addLayer(className: string, at: Point): void;
}


export class Pointer {
  private lastPress: { name: string; at: number } | null = null;
  /** What a gesture drew outside the scene: the rubber band, the palette ghost. */
  private band: SVGRectElement | null = null;
  private ghost: HTMLElement | null = null;
  /** Where the pointer last was on the stage, and whether it is over the drawing (Tab opens
   * quick-add there). */
  last: Point = { x: 40, y: 40 };
  inside = false;

  constructor(private host: PointerHost, signal: AbortSignal) {
    const on = { signal };
    const { svg: svgEl, stage } = host;
    svgEl.addEventListener("pointerdown", (ev) => this.down(ev), on);
    svgEl.addEventListener("pointermove", (ev) => { this.last = this.local(ev); this.inside = true; }, on);
    stage.addEventListener("pointerleave", () => { this.inside = false; }, on);
    window.addEventListener("pointermove", (ev) => this.move(ev), on);
    window.addEventListener("pointerup", (ev) => this.up(ev), on);
    // focus loss ends any gesture: no half drag is left waiting for a release that never comes
    const lost = () => {
      if (this.cancel("blur")) return;
      const open = this.gesture.kind;
      if (open === "menu" || open === "quick-add") host.closeQuickAdd(); // each tells the machine it closed
    };
    window.addEventListener("pointercancel", lost, on);
    window.addEventListener("blur", lost, on);
    svgEl.addEventListener("lostpointercapture", lost, on);
    // Esc ends a drag wherever the keyboard focus is (a palette entry dragged in leaves it
    // outside the drawing): caught on its way down, before anything else sees it
    window.addEventListener("keydown", (ev) => {
      if (ev.key === "Escape" && this.cancel("escape")) { ev.stopPropagation(); ev.preventDefault(); }
    }, { capture: true, ...on });
    document.addEventListener("visibilitychange", () => { if (document.hidden) lost(); }, on);
    svgEl.addEventListener("wheel", (ev) => {
      ev.preventDefault();
      host.setView(zoomAt(host.view(), this.local(ev), Math.exp(-ev.deltaY * 0.0015)));
    }, { passive: false, ...on });
    // the minimap: press or drag anywhere on it and the view follows
    host.minimap.addEventListener("pointerdown", (ev) => {
      ev.preventDefault();
      ev.stopPropagation();
      host.focusCanvas(); // keys (Ctrl+Z, Ctrl+F) go to the canvas after
      if (this.start({ kind: "press-minimap" })) this.miniTo(ev);
    }, on);
  }

  private get gesture(): Gesture {
    return this.host.ui.state.gesture;
  }

  /** A wire is being drawn out of a port (the slots that take it are lit). */
  get wiring(): boolean {
    return this.gesture.kind === "dragging-wire";
  }

  /** The edge a palette drag would insert into (-1: none). */
  get dropWire(): number {
    const g = this.gesture;
    return g.kind === "placing" ? g.wire : -1;
  }

  destroy(): void {
    this.cancel("blur");
  }

  /** A pointer gesture starts (from idle only: a menu or quick-add open is closed first). */
  private start(ev: Parameters<UiStore["gesture"]>[0]): boolean {
    const ui = this.host.ui;
    if (ui.state.gesture.kind === "menu" || ui.state.gesture.kind === "quick-add") {
      this.host.closeQuickAdd();
      ui.gesture({ kind: "close" });
    }
    if (pointerBusy(ui.state.gesture)) this.cancel("blur"); // a press without a release before it
    return pointerBusy(ui.gesture(ev));
  }

  /** Esc or focus loss: the gesture under way ends, and what it drew goes; the state is idle. */
  cancel(why: "escape" | "blur"): boolean {
    const g = this.gesture;
    if (!pointerBusy(g)) return false;
    this.host.ui.gesture({ kind: why });
    this.clearDrawn(g);
    if (g.kind === "dragging-box") this.host.cancelBox(g.name);
    else if (g.kind === "panning") this.host.setView(g.view); // back where it was
    else this.host.render();
    return true;
  }

  /** What gesture `g` drew outside the scene, taken away (a re-plugged wire stays lifted, and
   * its preview drawn, until the kernel's answer redraws it: `released`). */
  private clearDrawn(g: Gesture, released = false): void {
    const host = this.host;
    if (g.kind === "dragging-wire" || (g.kind === "dragging-wire-end" && !released)) {
      host.overlay.setAttribute("d", "");
      host.svg.classList.remove("kc-wiring");
      for (const lifted of host.svg.querySelectorAll(".kc-edge-lifted")) lifted.classList.remove("kc-edge-lifted");
    }
    this.band?.remove();
    this.band = null;
    this.ghost?.remove();
    this.ghost = null;
  }

  /** A point of an event, relative to the stage (not the svg: it moves while a gesture previews). */
  local(ev: { clientX: number; clientY: number }): Point {
    const r = this.host.stage.getBoundingClientRect();
    return { x: ev.clientX - r.left, y: ev.clientY - r.top };
  }

  /** A palette entry pressed: dragged onto the drawing as a ghost; from the keyboard, added in
   * the middle of the view. */
  pickFromPalette(className: string, ev: PointerEvent | KeyboardEvent): void {
    if (ev instanceof KeyboardEvent) {
      const r = this.host.stage.getBoundingClientRect();
      this.host.addLayer(className, toWorld(this.host.view(), { x: r.width / 2, y: r.height / 3 }));
      return;
    }
    ev.preventDefault();
    if (!this.start({ kind: "pick-palette", className })) return;
    this.ghost = el("div", { class: "kc-ghost" }, className);
    document.body.append(this.ghost);
    this.moveGhost(ev);
  }

  private moveGhost(ev: PointerEvent): void {
    const g = this.gesture;
    if (g.kind !== "placing" || !this.ghost) return;
    this.ghost.style.left = `${ev.clientX + 8}px`;
    this.ghost.style.top = `${ev.clientY + 8}px`;
    // over a wire: it lights up, and the drop inserts the layer into it
    const r = this.host.stage.getBoundingClientRect();
    const inside = ev.clientX >= r.left && ev.clientX <= r.right && ev.clientY >= r.top && ev.clientY <= r.bottom;
    const view = this.host.view();
    const wire = inside ? edgeAt(this.host.routes(), toWorld(view, this.local(ev)), 12 / view.k) : -1;
    if (wire !== g.wire) {
      this.host.ui.gesture({ kind: "over-wire", wire });
      this.ghost.textContent = wire >= 0 ? `${g.className} → insert into wire` : g.className;
      this.host.render();
    }
  }

  /** The view follows the pointer on the minimap: a press on the viewport drags it from where
   * it was taken; a press beside it centres the view there. */
  private miniTo(ev: PointerEvent): void {
    const box = this.host.minimap.viewBox.baseVal;
    const r = this.host.minimap.getBoundingClientRect();
    if (!box || !r.width || this.gesture.kind !== "minimap") return;
    const w = miniWorld(box, r, { x: ev.clientX, y: ev.clientY });
    const st = this.host.stage.getBoundingClientRect();
    this.host.ui.gesture({ kind: "grab-minimap", grab: miniGrab(this.host.view(), st, w) });
    const g = this.gesture;
    if (g.kind === "minimap" && g.grab) this.host.setView(miniView(this.host.view(), st, w, g.grab));
  }

  private down(ev: PointerEvent): void {
    if (ev.button !== 0) return;
    const host = this.host;
    host.closeQuickAdd();
    // keys go to the canvas after any press on it, empty space included (Tab, Shift+A, Ctrl+Z
    // are the canvas's, not the notebook's): no mouse default moves the focus elsewhere after
    ev.preventDefault();
    host.focusCanvas();
    const p = this.local(ev);
    this.last = p;
    const w = toWorld(host.view(), p);
    const target = ev.target as Element;
    const portKey = target.getAttribute?.("data-port");
    const ports = host.ports();
    const port = portKey ? ports.find((q) => q.key === portKey) ?? null : portAt(ports, w);
    const toggle = target.closest?.("[data-toggle]")?.getAttribute("data-toggle") ?? null;
    // the wire drawn nearest the press, not the one drawn on top (wires may share a stretch)
    const edgeEl = target.closest?.("[data-edge]") ?? null;
    const edge = edgeEl ? pickEdge(host.routes(), w, host.view().k, Number(edgeEl.getAttribute("data-edge"))) : null;
    const box = boxAt(host.layers(), w);
    // a box inside an expanded nested model: that inner layer, selected on its own (read-only)
    const inner = port || toggle !== null ? null : target.closest?.("[data-inner-path]")?.getAttribute("data-inner-path") ?? null;
    if (inner !== null) {
      const now = performance.now();
      const again = doublePress(this.lastPress, inner, now);
      this.lastPress = again ? null : { name: inner, at: now };
      if (again) host.toggleInner(inner); else host.pressInner(inner);
      host.focusCanvas();
      return;
    }
    const press = classifyPress({ port, toggle, edge, box }, host.edges(), ev.shiftKey);
    switch (press.kind) {
      case "wire":
        if (this.start({ kind: "press-port", port: press.port })) host.wireFrom(press.port);
        return;
      case "rewire":
        // a filled slot: its wire comes off with the pointer (drop on another slot, or in empty space to unplug)
        this.start({ kind: "press-slot", edge: press.edge, port: press.port });
        return;
      case "toggle":
        host.toggle(press.name);
        return;
      case "edge":
        host.inspectEdge(press.index); // the focus goes to the edge, for Delete
        return;
      case "box": {
        const b = press.box;
        // A second press soon after on a nested model's box folds it out (or back). Counted here,
        // not by "dblclick": the first press redraws the box, and the browser then sees two targets.
        const now = performance.now();
        const again = doublePress(this.lastPress, b.name, now);
        this.lastPress = again ? null : { name: b.name, at: now };
        if (again && (b.inner_layers !== null || b.fold)) { host.toggle(b.name); return; }
        this.start({ kind: "press-box", name: b.name, at: w, start: { x: b.x, y: b.y } });
        host.pressBox(pressSelection(new Set(host.ui.state.selected), b.name, ev.shiftKey));
        host.focusCanvas();
        return;
      }
      case "band": {
        host.pressBlank();
        if (!this.start({ kind: "press-band", at: w })) return;
        this.band = svg("rect", { class: "kc-band", x: w.x, y: w.y, width: 0, height: 0 });
        host.world.append(this.band);
        return;
      }
      case "pan":
        host.pressBlank();
        this.start({ kind: "press-blank", at: p, view: host.view() });
    }
  }

  private move(ev: PointerEvent): void {
    const g = this.gesture;
    if (!pointerBusy(g)) return;
    if (g.kind === "placing") { this.moveGhost(ev); return; }
    if (g.kind === "minimap") { this.miniTo(ev); return; }
    const host = this.host;
    const p = this.local(ev);
    const w = toWorld(host.view(), p);
    if (g.kind === "pressing") {
      if (host.ui.gesture({ kind: "moved", far: dragged(g.from, g.on === "box" ? w : p) }).kind !== "pressing") this.move(ev);
    } else if (g.kind === "panning") {
      host.setView({ ...g.view, x: g.view.x + p.x - g.from.x, y: g.view.y + p.y - g.from.y });
    } else if (g.kind === "dragging-box") {
      host.moveBox(g.name, { x: g.start.x + w.x - g.from.x, y: g.start.y + w.y - g.from.y });
    } else if (g.kind === "dragging-wire") {
      if (!host.svg.classList.contains("kc-wiring")) { host.svg.classList.add("kc-wiring"); host.render(); }
      host.overlay.setAttribute("d", edgePath(g.port.at, w, host.flow()));
    } else if (g.kind === "dragging-wire-end") {
      const src = host.portPoint(sourceKey(g.edge.src));
      if (src) host.overlay.setAttribute("d", edgePath(src, w, host.flow()));
      host.liftEdge(g.edge);
    } else if (g.kind === "banding" && this.band) {
      const r = rectFrom(g.from, w);
      for (const [k, v] of Object.entries({ x: r.x, y: r.y, width: r.w, height: r.h })) this.band.setAttribute(k, String(v));
    }
  }

  private up(ev: PointerEvent): void {
    const g = this.gesture;
    if (!pointerBusy(g)) return; // idle (or cancelled by Esc): a release means nothing
    const host = this.host;
    host.ui.gesture({ kind: "release" });
    this.clearDrawn(g, true);
    if (g.kind === "minimap") { host.render(); return; }
    if (g.kind === "placing") {
      const r = host.stage.getBoundingClientRect();
      if (ev.clientX >= r.left && ev.clientX <= r.right && ev.clientY >= r.top && ev.clientY <= r.bottom) {
        this.last = this.local(ev);
        host.dropLayer(g.className, toWorld(host.view(), this.last), g.wire);
      } else host.render();
      return;
    }
    const p = this.local(ev);
    this.last = p;
    const w = toWorld(host.view(), p);
    if (g.kind === "banding") {
      host.select(boxesIn(host.layers(), rectFrom(g.from, w)));
    } else if (g.kind === "pressing" && g.on === "blank") {
      if (host.ui.state.selected.size) host.deselectAll();
    } else if (g.kind === "panning") {
      host.panned();
    } else if (g.kind === "dragging-box") {
      host.dropBox(g.name);
    } else if (g.kind === "dragging-wire") {
      const out = dropWire(g.port, w, host.ports(), host.layers(), host.edges());
      // the intent leaves before the redraw: the kernel answers while the page draws
      if (out && "intent" in out) host.perform(out.intent, out.at);
      host.render();
      if (out && !("intent" in out)) host.search(p, out.search); // empty space: the layers that accept this tensor
    } else if (g.kind === "dragging-wire-end") {
      const out = dropRewire(g.edge, g.from, w, host.ports(), host.layers());
      if (!out || !("intent" in out)) { this.clearDrawn(g); return; }
      // the wire goes to its new end at once (or away, unplugged), not back to its old slot
      // while the kernel answers; the answer's state draws it routed
      const src = host.portPoint(sourceKey(g.edge.src));
      const to = out.intent.kind === "rewire" && out.intent.new ? out.at : null;
      host.overlay.setAttribute("d", src && to ? edgePath(src, to, host.flow()) : "");
      host.perform(out.intent, out.at).then(() => {
        if (this.gesture.kind === "idle" || this.gesture.kind === "quick-add" || this.gesture.kind === "menu") host.overlay.setAttribute("d", "");
        host.render();
      });
    }
  }
}
