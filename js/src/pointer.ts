// Pointer gestures on the drawing: pan, zoom, rubber band, box drags, wires drawn out of ports
// and off slots, palette drops, the minimap. What a press means and how the selection follows
// it are pure (tested); Pointer turns events into calls on its host, the canvas, through the
// PointerHost methods below, and the intents themselves come from gestures.ts.
import { el, svg } from "./dom";
import { type Point, type Port, type Rect, type View, boxAt, boxesIn, edgePath, portAt, rectFrom, slotKey, sourceKey, toWorld, zoomAt } from "./geometry";
import { edgeAt } from "./edges";
import { type Intent, dropRewire, dropWire } from "./gestures";
import { miniGrab, miniView, miniWorld } from "./minimap";
import type { EdgeState, LayerState } from "./types";

export type Drag =
  | { kind: "pan"; from: Point; view: View; moved: boolean }
  | { kind: "select"; from: Point; rect: SVGRectElement }
  | { kind: "box"; name: string; from: Point; start: Point; moved: boolean }
  | { kind: "edge"; port: Port }
  | { kind: "rewire"; edge: EdgeState; from: Port }
  | { kind: "mini"; grab: Point | null }
  | { kind: "new"; className: string; ghost: HTMLElement; wire: number };

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

/** What Pointer needs from the canvas. */
export interface PointerHost {
  readonly stage: HTMLElement;          // event coordinates are relative to it
  readonly svg: SVGSVGElement;
  readonly world: SVGGElement;          // the rubber band is drawn in it
  readonly overlay: SVGPathElement;     // the wire being drawn
  readonly minimap: SVGSVGElement;
  view(): View;
  setView(view: View): void;            // and draw what it shows
  layers(): LayerState[];               // where the boxes are seen
  edges(): EdgeState[];
  ports(): Port[];
  routes(): (Point[] | null)[];         // each edge's drawn polyline, by index
  portPoint(key: string): Point | undefined;
  selection(): Set<string>;
  render(): void;
  focusCanvas(): void;
  closeQuickAdd(): void;
  wireFrom(port: Port): void;           // a wire leaves this port: ask which slots take it
  toggle(name: string): void;
  inspectEdge(index: number): void;
  pressBox(selection: Set<string>): void;  // selected (the edge selection and old refusals cleared)
  pressBlank(): void;                   // the selected edge, if any, is no longer
  select(names: string[]): void;        // added to the selection
  deselectAll(): void;
  panned(): void;
  moveBox(name: string, at: Point): void;  // one frame of a box drag
  dropBox(name: string): void;          // the drag ended: the move is sent
  liftEdge(edge: EdgeState): void;      // its wire is being re-plugged
  perform(intent: Intent, at?: Point): void;
  search(at: Point, wire: Port): void;  // a wire let go in empty space: quick-add for its tensor
  dropLayer(className: string, at: Point, wire: number): void;  // a palette entry dropped (onto wire `wire`, or -1)
  addLayer(className: string, at: Point): void;
}

export class Pointer {
  /** The gesture under way. */
  private drag: Drag | null = null;
  private lastPress: { name: string; at: number } | null = null;
  /** Where the pointer last was on the stage, and whether it is over the drawing (Tab opens
   * quick-add there). */
  last: Point = { x: 40, y: 40 };
  inside = false;
  /** The edge a palette drag would insert into (-1: none). */
  dropWire = -1;

  constructor(private host: PointerHost, signal: AbortSignal) {
    const on = { signal };
    const { svg: svgEl, stage } = host;
    svgEl.addEventListener("pointerdown", (ev) => this.down(ev), on);
    svgEl.addEventListener("pointermove", (ev) => { this.last = this.local(ev); this.inside = true; }, on);
    stage.addEventListener("pointerleave", () => { this.inside = false; }, on);
    window.addEventListener("pointermove", (ev) => this.move(ev), on);
    window.addEventListener("pointerup", (ev) => this.up(ev), on);
    svgEl.addEventListener("wheel", (ev) => {
      ev.preventDefault();
      host.setView(zoomAt(host.view(), this.local(ev), Math.exp(-ev.deltaY * 0.0015)));
    }, { passive: false, ...on });
    // the minimap: press or drag anywhere on it and the view follows
    host.minimap.addEventListener("pointerdown", (ev) => {
      ev.preventDefault();
      ev.stopPropagation();
      this.drag = { kind: "mini", grab: null };
      host.focusCanvas(); // keys (Ctrl+Z, Ctrl+F) go to the canvas after
      this.miniTo(ev);
    }, on);
  }

  /** A wire is being drawn out of a port (the slots that take it are lit). */
  get wiring(): boolean {
    return this.drag?.kind === "edge";
  }

  destroy(): void {
    if (this.drag?.kind === "new") this.drag.ghost.remove();
    this.drag = null;
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
    const ghost = el("div", { class: "kc-ghost" }, className);
    document.body.append(ghost);
    this.drag = { kind: "new", className, ghost, wire: -1 };
    this.moveGhost(ev);
  }

  private moveGhost(ev: PointerEvent): void {
    if (this.drag?.kind !== "new") return;
    this.drag.ghost.style.left = `${ev.clientX + 8}px`;
    this.drag.ghost.style.top = `${ev.clientY + 8}px`;
    // over a wire: it lights up, and the drop inserts the layer into it
    const r = this.host.stage.getBoundingClientRect();
    const inside = ev.clientX >= r.left && ev.clientX <= r.right && ev.clientY >= r.top && ev.clientY <= r.bottom;
    const view = this.host.view();
    const wire = inside ? edgeAt(this.host.routes(), toWorld(view, this.local(ev)), 12 / view.k) : -1;
    if (wire !== this.drag.wire) {
      this.drag.wire = wire;
      this.dropWire = wire;
      this.drag.ghost.textContent = wire >= 0 ? `${this.drag.className} → insert into wire` : this.drag.className;
      this.host.render();
    }
  }

  /** The view follows the pointer on the minimap: a press on the viewport drags it from where
   * it was taken; a press beside it centres the view there. */
  private miniTo(ev: PointerEvent): void {
    const box = this.host.minimap.viewBox.baseVal;
    const r = this.host.minimap.getBoundingClientRect();
    if (!box || !r.width || this.drag?.kind !== "mini") return;
    const w = miniWorld(box, r, { x: ev.clientX, y: ev.clientY });
    const st = this.host.stage.getBoundingClientRect();
    this.drag.grab ??= miniGrab(this.host.view(), st, w);
    this.host.setView(miniView(this.host.view(), st, w, this.drag.grab));
  }

  private down(ev: PointerEvent): void {
    if (ev.button !== 0) return;
    const host = this.host;
    host.closeQuickAdd();
    // keys go to the canvas after any press on it (Ctrl+Z after a wire drag is the canvas's undo,
    // not the notebook's); the gestures below preventDefault, which would keep the old focus
    host.focusCanvas();
    const p = this.local(ev);
    this.last = p;
    const w = toWorld(host.view(), p);
    const target = ev.target as Element;
    const portKey = target.getAttribute?.("data-port");
    const ports = host.ports();
    const port = portKey ? ports.find((q) => q.key === portKey) ?? null : portAt(ports, w);
    const toggle = target.closest?.("[data-toggle]")?.getAttribute("data-toggle") ?? null;
    const edge = target.closest?.("[data-edge]")?.getAttribute("data-edge");
    const box = boxAt(host.layers(), w);
    const press = classifyPress({ port, toggle, edge: edge === null || edge === undefined ? null : Number(edge), box },
      host.edges(), ev.shiftKey);
    switch (press.kind) {
      case "wire":
        this.drag = { kind: "edge", port: press.port };
        host.wireFrom(press.port);
        ev.preventDefault();
        return;
      case "rewire":
        // a filled slot: its wire comes off with the pointer (drop on another slot, or in empty space to unplug)
        this.drag = { kind: "rewire", edge: press.edge, from: press.port };
        ev.preventDefault();
        return;
      case "toggle":
        host.toggle(press.name);
        ev.preventDefault();
        return;
      case "edge":
        host.inspectEdge(press.index);
        ev.preventDefault(); // the focus stays on the edge, for Delete
        return;
      case "box": {
        const b = press.box;
        // A second press soon after on a nested model's box folds it out (or back). Counted here,
        // not by "dblclick": the first press redraws the box, and the browser then sees two targets.
        const now = performance.now();
        const again = doublePress(this.lastPress, b.name, now);
        this.lastPress = again ? null : { name: b.name, at: now };
        if (again && (b.inner_layers !== null || b.fold)) { host.toggle(b.name); return; }
        this.drag = { kind: "box", name: b.name, from: w, start: { x: b.x, y: b.y }, moved: false };
        host.pressBox(pressSelection(host.selection(), b.name, ev.shiftKey));
        host.focusCanvas();
        return;
      }
      case "band": {
        host.pressBlank();
        const rect = svg("rect", { class: "kc-band", x: w.x, y: w.y, width: 0, height: 0 });
        host.world.append(rect);
        this.drag = { kind: "select", from: w, rect };
        return;
      }
      case "pan":
        host.pressBlank();
        this.drag = { kind: "pan", from: p, view: host.view(), moved: false };
    }
  }

  private move(ev: PointerEvent): void {
    const drag = this.drag;
    if (!drag) return;
    if (drag.kind === "new") { this.moveGhost(ev); return; }
    if (drag.kind === "mini") { this.miniTo(ev); return; }
    const host = this.host;
    const p = this.local(ev);
    const w = toWorld(host.view(), p);
    if (drag.kind === "pan") {
      drag.moved = drag.moved || dragged(drag.from, p);
      host.setView({ ...drag.view, x: drag.view.x + p.x - drag.from.x, y: drag.view.y + p.y - drag.from.y });
    } else if (drag.kind === "box") {
      drag.moved = drag.moved || dragged(drag.from, w);
      if (drag.moved) host.moveBox(drag.name, { x: drag.start.x + w.x - drag.from.x, y: drag.start.y + w.y - drag.from.y });
    } else if (drag.kind === "edge") {
      if (!host.svg.classList.contains("kc-wiring")) { host.svg.classList.add("kc-wiring"); host.render(); }
      host.overlay.setAttribute("d", edgePath(drag.port.at, w));
    } else if (drag.kind === "rewire") {
      const src = host.portPoint(sourceKey(drag.edge.src));
      if (src) host.overlay.setAttribute("d", edgePath(src, w));
      host.liftEdge(drag.edge);
    } else if (drag.kind === "select") {
      const r = rectFrom(drag.from, w);
      for (const [k, v] of Object.entries({ x: r.x, y: r.y, width: r.w, height: r.h })) drag.rect.setAttribute(k, String(v));
    }
  }

  private up(ev: PointerEvent): void {
    const drag = this.drag;
    this.drag = null;
    if (!drag) return;
    const host = this.host;
    if (drag.kind === "mini") { host.render(); return; }
    if (drag.kind === "new") {
      drag.ghost.remove();
      this.dropWire = -1;
      const r = host.stage.getBoundingClientRect();
      if (ev.clientX >= r.left && ev.clientX <= r.right && ev.clientY >= r.top && ev.clientY <= r.bottom) {
        this.last = this.local(ev);
        host.dropLayer(drag.className, toWorld(host.view(), this.last), drag.wire);
      } else host.render();
      return;
    }
    const p = this.local(ev);
    this.last = p;
    const w = toWorld(host.view(), p);
    if (drag.kind === "select") {
      drag.rect.remove();
      const r: Rect = rectFrom(drag.from, w);
      host.select(boxesIn(host.layers(), r));
    } else if (drag.kind === "pan") {
      if (!drag.moved && host.selection().size) host.deselectAll();
      host.panned();
    } else if (drag.kind === "box" && drag.moved) {
      host.dropBox(drag.name);
    } else if (drag.kind === "edge") {
      host.overlay.setAttribute("d", "");
      host.svg.classList.remove("kc-wiring");
      const out = dropWire(drag.port, w, host.ports(), host.layers(), host.edges());
      // the intent leaves before the redraw: the kernel answers while the page draws
      if (out && "intent" in out) host.perform(out.intent, out.at);
      host.render();
      if (out && !("intent" in out)) host.search(p, out.search); // empty space: the layers that accept this tensor
    } else if (drag.kind === "rewire") {
      host.overlay.setAttribute("d", "");
      const out = dropRewire(drag.edge, drag.from, w, host.ports(), host.layers());
      if (out && "intent" in out) host.perform(out.intent, out.at); else host.render();
    }
  }
}
