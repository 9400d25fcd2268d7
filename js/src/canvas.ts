// The drawing area: boxes, ports and edges in SVG, and every gesture turned into a kernel intent.
import { clear, el, svg } from "./dom";
import {
  type Point, type Port, type Rect, type View, boxAt, boxHeight, boxWidth, boxesIn, bounds, centreOn, edgePath,
  fitsIn, portAt, readableFit, rectFrom, toScreen, toWorld, zoomAt,
} from "./geometry";
import { edgeAt } from "./edges";
import { type Intent, connectIntent, dropRewire, dropWire, insertIntent, keyIntent } from "./gestures";
import { LABEL_SCALE, Scene, type SceneInput, edgeKey } from "./scene";
import { Inspector } from "./inspector";
import { QuickAdd, matchRank } from "./quickadd";
import { placeMenu } from "./menu";
import { miniGrab, miniView, miniWorld } from "./minimap";
import { CodePanel } from "./codepanel";
import { FAMILIES, family } from "./families";
import { usefulMessage } from "./words";
import { byName, problemLines, shapeText, summary } from "./mirror";
import { type Explanation, INPUT_PRESETS, renderPalette } from "./panels";
import { Client, type IntentKind, type Model } from "./protocol";
import { exportPng, exportSvg } from "./exporting";
import { type DepthStep, type ForwardStep, StepPlayer, depthStepText, forwardStepText } from "./teach";
import { TrainingPanel } from "./training";
import type { EdgeState, GraphState, LayerState, PaletteEntry } from "./types";

type Drag =
  | { kind: "pan"; from: Point; view: View; moved: boolean }
  | { kind: "select"; from: Point; rect: SVGRectElement }
  | { kind: "box"; name: string; from: Point; start: Point; moved: boolean }
  | { kind: "edge"; port: Port }
  | { kind: "rewire"; edge: EdgeState; from: Port }
  | { kind: "mini"; grab: Point | null }
  | { kind: "new"; className: string; ghost: HTMLElement; wire: number };

const ANIMATE_MS = 250;
const ANIMATE_LIMIT = 400; // layers: bigger graphs jump to the new layout
const BIG_GRAPH = 300; // layers: beyond this, draw only near the viewport and preview gestures
const PROBLEMS_SHOWN = 12; // lines in the problem list under the drawing
const TOAST_MS = 8000;
const DOUBLE_PRESS_MS = 400;
const FAILED = Symbol("failed");

export { portName } from "./scene";

export class CanvasView {
  readonly root: HTMLElement;
  private svgEl: SVGSVGElement;
  private world: SVGGElement;
  private edgeLayer: SVGGElement;
  private boxLayer: SVGGElement;
  private portLayer: SVGGElement;
  private overlay: SVGPathElement;
  private minimap: SVGSVGElement;
  private status: HTMLElement;
  private problemList: HTMLElement;
  private toastAt: Point | null = null; // the world point a refusal message sits next to
  private toastTimer = 0;
  private inspector: HTMLElement;
  private panel: Inspector;
  private scene: Scene;
  /** Every listener this view adds goes through it: destroy() removes them all at once. */
  private readonly abort = new AbortController();
  private readonly on = { signal: this.abort.signal };
  private toast: HTMLElement;
  private menu: HTMLElement;
  private client: Client;
  private state: GraphState;
  private palette: PaletteEntry[];
  private view: View = { x: 20, y: 20, k: 1 };
  private drawn: View = this.view; // the view the SVG was last drawn for
  private settle = 0;
  private stage: HTMLElement;
  private selected = new Set<string>();
  private clipboard: string[] = [];
  private armed: Port | null = null;
  private drag: Drag | null = null;
  private shown = new Map<string, Point>();
  private inspectorError: string | null = null;
  private fitted = false;
  private lastPointer: Point = { x: 40, y: 40 };
  private frame = 0;

  constructor(private model: Model, host: HTMLElement) {
    this.client = new Client(model);
    this.state = model.get("state");
    this.palette = model.get("palette") ?? [];
    this.root = el("div", { class: "kc-root", tabindex: "0" });
    const height = Number(model.get("height") ?? 520);
    const side = el("div", { class: "kc-side" });
    const paletteHost = el("div", { class: "kc-palette", "aria-label": "Layer palette" });
    this.inspector = el("div", { class: "kc-inspector", "aria-label": "Inspector" });
    side.append(paletteHost, this.inspector);
    const main = el("div", { class: "kc-main" });
    main.append(this.toolbar());
    this.svgEl = svg("svg", { class: "kc-svg", role: "application", "aria-label": "Model drawing" });
    this.world = svg("g", { class: "kc-world" });
    this.edgeLayer = svg("g");
    this.boxLayer = svg("g");
    this.portLayer = svg("g");
    this.overlay = svg("path", { class: "kc-temp-edge", d: "" });
    this.world.append(this.edgeLayer, this.boxLayer, this.portLayer, this.overlay);
    this.scene = new Scene(this.boxLayer, this.portLayer, this.edgeLayer);
    this.svgEl.append(this.world);
    this.minimap = svg("svg", { class: "kc-minimap", "aria-label": "Minimap" });
    this.status = el("div", { class: "kc-status", role: "status" });
    this.problemList = el("ul", { class: "kc-problems", "aria-label": "Problems" });
    this.toast = el("div", { class: "kc-toast", role: "alert" });
    this.menu = el("div", { class: "kc-menu", role: "menu" });
    // the canvas owns its context menu: JupyterLab's (Restart Kernel, Delete Cell...) stays off it
    this.stage = el("div", { class: "kc-stage", "data-jp-suppress-context-menu": "" });
    this.stage.style.height = `${height}px`;
    this.quick = new QuickAdd(() => { this.pendingWire = null; this.root.focus({ preventScroll: true }); });
    this.findBar = el("div", { class: "kc-find", role: "search" });
    this.findInput = el("input", { type: "search", class: "kc-field", placeholder: "Find a layer", "aria-label": "find layer" });
    this.findCount = el("span", { class: "kc-muted" });
    this.findBar.append(this.findInput, this.findCount);
    this.stage.append(this.svgEl, this.minimap, this.toast, this.menu, this.quick.root, this.findBar);
    this.legend = el("div", { class: "kc-legend", "aria-label": "Layer families" });
    this.playerHost = el("div", { class: "kc-player-host" });
    this.code = new CodePanel(this.client, () => this.state.name, (m) => this.notice(m));
    main.append(this.legend, this.stage, this.status, this.problemList, this.playerHost, this.code.root);
    this.training = new TrainingPanel(model, this.client, (m) => this.showError(m));
    main.append(this.training.root);
    this.onTraining = () => this.training.update(model.get("training") ?? {});
    model.on("change:training", this.onTraining);
    this.root.append(side, main);
    host.append(this.root);
    this.fitted = this.state.layers.length === 0; // an empty canvas keeps screen = world: drops land where dropped
    renderPalette(paletteHost, this.palette, (c, ev) => this.pickFromPalette(c, ev));
    this.panel = new Inspector(this.inspector, this.client, this.abort.signal, () => this.root.focus({ preventScroll: true }));
    this.listen();
    this.render();
    // The widget is often drawn before it is on the page (zero size): fit the drawing to the view
    // as soon as it has a size, not at the first edit (which would then jump the view).
    this.sized = new ResizeObserver(() => { this.size = null; if (!this.fitted) this.render(); });
    this.sized.observe(this.stage);
    // the training chart is drawn on a canvas: it follows a theme switch by being redrawn
    this.themed = new MutationObserver(() => this.training.retheme());
    this.themed.observe(document.body, { attributes: true, attributeFilter: ["data-jp-theme-name", "data-jp-theme-light"] });
    this.findInput.addEventListener("input", () => this.find(false), this.on);
    this.findInput.addEventListener("keydown", (ev) => {
      ev.stopPropagation();
      if (ev.key === "Enter") { ev.preventDefault(); this.find(true); }
      if (ev.key === "Escape") { ev.preventDefault(); this.closeFind(); }
    }, this.on);
  }

  private themed: MutationObserver;
  private quick: QuickAdd;
  private code: CodePanel;
  private legend: HTMLElement;
  private findBar: HTMLElement;
  private findInput: HTMLInputElement;
  private findCount: HTMLElement;
  private findAt = 0;
  /** Each edge's drawn polyline (world), by edge index, and every port: for hit tests. */
  private get routes(): (Point[] | null)[] { return this.scene.routes; }
  private get allPorts(): Port[] { return this.scene.allPorts; }
  private hints: { key: string; accept: Set<string>; refuse: Set<string>; classes: string[] | null } | null = null;
  private pendingWire: Port | null = null;
  private pointerInside = false; // the mouse is over the drawing: Tab opens quick-add there
  private selectedEdgeKey: string | null = null;

  private sized: ResizeObserver;
  private lastPress: { name: string; at: number } | null = null;
  private training: TrainingPanel;
  private playerHost: HTMLElement;
  private onTraining: () => void;

  destroy(): void {
    this.abort.abort();
    window.clearTimeout(this.settle);
    window.clearTimeout(this.toastTimer);
    if (this.drag?.kind === "new") this.drag.ghost.remove();
    this.drag = null;
    this.sized.disconnect();
    this.themed.disconnect();
    this.code.destroy();
    this.model.off("change:training", this.onTraining);
    this.training.destroy();
    this.client.close();
    cancelAnimationFrame(this.frame);
    if (this.idle && typeof cancelIdleCallback === "function") cancelIdleCallback(this.idle);
  }

  setState(state: GraphState): void {
    // when the kernel's change reached this view (benchmarks/bench_canvas.py splits the time
    // of an edit into kernel and drawing with it); one mark, replaced each time
    performance.clearMarks?.("kerascanvas:state");
    performance.mark?.("kerascanvas:state");
    // where each box is seen now (a dropped box is where it was dropped): moves glide from there
    const before = new Map(this.state.layers.map((l) => [l.name, this.pos(l)]));
    this.state = state;
    for (const name of [...this.selected]) if (!state.layers.some((l) => l.name === name)) this.selected.delete(name);
    if (this.selectedEdgeKey && !state.edges.some((e) => edgeKey(e) === this.selectedEdgeKey)) this.clearEdge();
    this.hints = null; // the kernel's answers about slots were for the drawing as it was
    this.code.changed();
    this.animateFrom(before);
  }

  // ----- rendering ---------------------------------------------------------------------------

  private pos(layer: LayerState): Point {
    return this.shown.get(layer.name) ?? { x: layer.x, y: layer.y };
  }

  /** The layers where they are seen (read-only: the state's own objects while nothing moves). */
  private placed(): LayerState[] {
    if (!this.shown.size) return this.state.layers;
    return this.state.layers.map((l) => ({ ...l, ...this.pos(l) }));
  }

  render(): void {
    const focused = this.focusedKey();
    this.draw();
    if (focused) this.refocus(focused);
  }

  /** The drawn element with keyboard focus, as an attribute selector that survives a redraw. */
  private focusedKey(): string | null {
    const active = document.activeElement;
    if (!active || !this.svgEl.contains(active)) return null;
    for (const attr of ["data-toggle", "data-name", "data-port", "data-edge"]) {
      const v = active.getAttribute(attr);
      if (v !== null) return `[${attr}="${CSS.escape(v)}"]`;
    }
    return null;
  }

  private restoring = false;

  private refocus(selector: string): void {
    const target = this.svgEl.querySelector(selector) as SVGElement | null;
    if (!target) { // the focused box or edge is gone (deleted): keys stay with the canvas
      if (!this.root.contains(document.activeElement)) this.root.focus({ preventScroll: true });
      return;
    }
    if (target === document.activeElement) return;
    this.restoring = true; // not a move of the user's focus: the view stays where it is
    try { target.focus({ preventScroll: true }); } finally { this.restoring = false; }
  }

  private drawnBounds: Rect | null = null; // every box, as last drawn
  private size: { width: number; height: number } | null = null;

  /** The stage's size, measured again only after the ResizeObserver saw it change: reading the
   * page's layout right after the scene changed the SVG forces a layout of it in the middle of
   * drawing (several ms after an edit that rewrites every box's text). */
  private stageSize(): { width: number; height: number } {
    if (!this.size) {
      const r = this.stage.getBoundingClientRect();
      if (r.width === 0) return r; // not on the page yet: measured again next time
      this.size = { width: r.width, height: r.height };
    }
    return this.size;
  }

  /** The world rectangle on screen (no margin): boxes elsewhere are redrawn after the frame. */
  private screenRect(): Rect {
    const r = this.stageSize();
    const tl = toWorld(this.view, { x: 0, y: 0 });
    return { x: tl.x, y: tl.y, w: r.width / this.view.k, h: r.height / this.view.k };
  }

  /** Off-screen boxes the last update left with an older state are redrawn when the page is idle. */
  private catchUpSoon(): void {
    if (this.idle || !this.scene.lagging) return;
    const later = typeof requestIdleCallback === "function" ? requestIdleCallback
      : (run: IdleRequestCallback) => window.setTimeout(() => run({ didTimeout: true, timeRemaining: () => 0 }), 16);
    this.idle = later((deadline) => {
      this.idle = 0;
      // at least a few ms a slice, also when the page never idles (timeRemaining() is 0 then)
      const end = performance.now() + Math.max(4, deadline.timeRemaining());
      if (this.scene.catchUp(() => end - performance.now())) this.catchUpSoon();
    }, { timeout: 100 });
  }

  private idle = 0;

  private draw(): void {
    const layers = this.placed();
    this.drawnBounds = bounds(layers);
    if (!this.fitted && layers.length) {
      const r = this.stageSize();
      if (r.width > 0) { this.view = readableFit(layers, r.width, r.height); this.fitted = true; }
    }
    this.applyView();
    this.scene.update(this.sceneInput());
    this.catchUpSoon();
    // the panels under the drawing change with the state, not with the selection or a gesture
    if (this.panelsFor !== this.state) {
      this.panelsFor = this.state;
      this.drawLegend();
      this.status.textContent = summary(this.state);
      this.drawProblems();
    }
    if (this.minimapFor !== this.state.layers || this.shown.size) {
      this.minimapFor = this.shown.size ? null : this.state.layers;
      this.drawMinimap(layers);
    } else this.minimapSoon();
    this.showInspector();
  }

  private panelsFor: GraphState | null = null;
  private minimapFor: LayerState[] | null = null;

  /** The inspector: the one selected layer's form, or the selected edge's tensor. */
  private showInspector(): void {
    const current = this.selected.size === 1 ? this.state.layers.find((l) => this.selected.has(l.name)) ?? null : null;
    const edge = this.selectedEdgeKey !== null && this.edgeExplanation && !this.selected.size
      ? { key: this.selectedEdgeKey, explanation: this.edgeExplanation } : null;
    this.panel.show({ layer: current, entry: this.palette.find((p) => p.class_name === current?.class_name),
      error: this.inspectorError, edge, edgeCount: this.state.edges.length,
      onChange: (config) => current && this.act("configure", { name: current.name, config }),
      onRename: (name) => current && name !== current.name && this.act("rename", { name: current.name, new_name: name }) });
  }

  /** What the scene draws: the state, the boxes on the move, the selection, the gesture. */
  private sceneInput(): SceneInput {
    const big = this.state.layers.length > BIG_GRAPH;
    const hints = this.drag?.kind === "edge" ? this.hints : null;
    return {
      layers: this.state.layers, edges: this.state.edges, shown: this.shown,
      seen: big ? this.visibleRect() : null, urgent: this.stageSize().width > 0 ? this.screenRect() : null,
      look: {
        selected: this.selected, highlighted: this.highlighted, armed: this.armed?.key ?? null,
        hint: (port) => !hints ? "" : hints.accept.has(port.key) ? " kc-port-ok" : hints.refuse.has(port.key) ? " kc-port-dim" : "",
        selectedEdge: this.selectedEdgeKey, dropWire: this.dropWire, k: this.view.k, detail: !big || this.view.k >= 0.5,
      },
    };
  }

  /** A frame of a drag or an animation: only `moving` boxes and their edges are drawn again. */
  private drawMoving(moving: Set<string>): void {
    this.scene.move(this.sceneInput(), moving);
  }

  /** The world rectangle on screen, with half a screen of margin on every side. */
  private visibleRect(): { x: number; y: number; w: number; h: number } {
    const r = this.stageSize();
    const tl = toWorld(this.view, { x: -r.width / 2, y: -r.height / 2 });
    return { x: tl.x, y: tl.y, w: (2 * r.width) / this.view.k, h: (2 * r.height) / this.view.k };
  }

  private dropWire = -1; // the wire a palette drag would insert into

  /** Families present in the drawing, with their colour: the legend under the toolbar. */
  private drawLegend(): void {
    // family() once per kind of layer, not once per layer (thousands on a big graph)
    const kinds = new Set<string>();
    const present = new Set<string>();
    for (const l of this.state.layers) {
      const kind = `${l.is_input}|${l.inner_layers !== null}|${l.group}`;
      if (kinds.has(kind)) continue;
      kinds.add(kind);
      const f = family(l);
      if (f) present.add(f.name);
    }
    const key = [...present].sort().join("|");
    if (key === this.legendKey) return;
    this.legendKey = key;
    clear(this.legend);
    for (const f of FAMILIES) {
      if (!present.has(f.name)) continue;
      const item = el("span", { class: "kc-legend-item" });
      const swatch = el("span", { class: "kc-swatch" });
      swatch.style.setProperty("--kc-hue", String(f.hue));
      item.append(swatch, document.createTextNode(f.name));
      this.legend.append(item);
    }
  }

  private legendKey: string | null = null;
  private problemsKey: string | null = null;

  /** The drawing's problems in words under it; a click on one goes to its box. */
  private drawProblems(): void {
    const lines = problemLines(this.state);
    const key = JSON.stringify(lines.slice(0, PROBLEMS_SHOWN + 1).map((l) => [l.text, l.layer])) + lines.length;
    if (key === this.problemsKey) return; // the same list: its items (and their focus) stay
    this.problemsKey = key;
    clear(this.problemList);
    for (const line of lines.slice(0, PROBLEMS_SHOWN)) {
      const item = el("li", { class: "kc-problem-line" }, line.text);
      if (line.layer) {
        const name = line.layer;
        item.setAttribute("tabindex", "0");
        item.setAttribute("role", "button");
        const go = () => { this.selected = new Set([name]); this.render(); this.focusBox(name); };
        item.addEventListener("click", go, this.on);
        item.addEventListener("keydown", (ev) => { if (ev.key === "Enter") { ev.stopPropagation(); go(); } }, this.on);
      }
      this.problemList.append(item);
    }
    if (lines.length > PROBLEMS_SHOWN) this.problemList.append(el("li", { class: "kc-muted" }, `and ${lines.length - PROBLEMS_SHOWN} more`));
  }

  private focusBox(name: string): void {
    const box = this.boxLayer.querySelector(`[data-name="${CSS.escape(name)}"]`) as SVGElement | null;
    if (box) box.focus(); else this.root.focus({ preventScroll: true });
  }

  /** The minimap is for graphs bigger than the view: hidden while everything is on screen. */
  private minimapVisibility(): void {
    const r = this.stageSize();
    const hide = this.state.layers.length < 2 || r.width === 0 || fitsIn(this.drawnBounds, this.view, r.width, r.height);
    this.minimap.style.display = hide ? "none" : "";
  }

  private drawMinimap(layers: LayerState[]): void {
    const b = bounds(layers);
    this.minimapVisibility();
    if (!b || layers.length < 2) { clear(this.minimap); this.miniView = null; this.miniBoxes = new Float64Array(0); return; }
    const pad = 20;
    // an edit that moved no box (a connect, a configure) leaves the minimap's elements alone
    const boxes = new Float64Array(4 * layers.length);
    layers.forEach((l, i) => { boxes[4 * i] = l.x; boxes[4 * i + 1] = l.y; boxes[4 * i + 2] = boxWidth(l); boxes[4 * i + 3] = boxHeight(l); });
    const same = this.miniBoxes.length === boxes.length && this.miniBoxes.every((v, i) => v === boxes[i]);
    if (!same || !this.miniView) {
      // every box as one path: one element, not one per box (thousands on a big graph)
      let d = "";
      for (const l of layers) d += `M${l.x},${l.y}h${boxWidth(l)}v${boxHeight(l)}h${-boxWidth(l)}z`;
      clear(this.minimap);
      this.minimap.setAttribute("viewBox", `${b.x - pad} ${b.y - pad} ${b.w + 2 * pad} ${b.h + 2 * pad}`);
      this.minimap.append(svg("path", { d, class: "kc-mini-box" }));
      this.miniView = svg("rect", { class: "kc-mini-view" });
      this.minimap.append(this.miniView);
      this.miniBoxes = boxes;
    }
    this.moveMiniView();
  }

  /** Only the viewport's rectangle follows pan and zoom; the boxes are drawn with the state. */
  private moveMiniView(): void {
    if (!this.miniView) return;
    const r = this.stageSize();
    const tl = toWorld(this.view, { x: 0, y: 0 });
    for (const [k, v] of Object.entries({ x: tl.x, y: tl.y, width: r.width / this.view.k, height: r.height / this.view.k })) {
      this.miniView.setAttribute(k, String(v));
    }
  }

  private miniView: SVGRectElement | null = null;
  private miniBoxes = new Float64Array(0); // x, y, w, h of every box the minimap shows

  private minimapSoon(): void {
    this.minimapVisibility();
    this.moveMiniView();
    this.placeToast();
  }

  private applyView(): void {
    this.world.setAttribute("transform", `translate(${this.view.x},${this.view.y}) scale(${this.view.k})`);
    this.placeToast();
    this.drawn = this.view;
    this.svgEl.style.transform = "";
  }

  /** Pan and zoom: big graphs move as one picture (a CSS transform of what is drawn) while the
   * gesture goes on, and are drawn again, sharp and culled, once it pauses. */
  private viewChanged(): void {
    this.minimapSoon();
    if (this.state.layers.length <= BIG_GRAPH) {
      // zooming past the scales where slot names are written draws them (or takes them away)
      const crossed = (t: number) => (this.view.k >= t) !== (this.drawn.k >= t);
      if (crossed(LABEL_SCALE) || crossed(0.8)) this.render(); else this.applyView();
      return;
    }
    const s = this.view.k / this.drawn.k;
    this.svgEl.style.transform = `translate(${this.view.x - this.drawn.x * s}px,${this.view.y - this.drawn.y * s}px) scale(${s})`;
    window.clearTimeout(this.settle);
    this.settle = window.setTimeout(() => this.render(), 150);
  }

  private animateFrom(before: Map<string, Point>): void {
    cancelAnimationFrame(this.frame);
    this.shown.clear();
    const moving = this.state.layers.filter((l) => {
      const b = before.get(l.name);
      return b && (b.x !== l.x || b.y !== l.y);
    });
    if (!moving.length || this.state.layers.length > ANIMATE_LIMIT || typeof requestAnimationFrame === "undefined") {
      this.render();
      return;
    }
    // the new state drawn once with the moving boxes where they were; then each frame moves
    // only them and their edges, and the last draws everything where the state says
    for (const l of moving) this.shown.set(l.name, before.get(l.name)!);
    this.render();
    const names = new Set(moving.map((l) => l.name));
    const start = performance.now();
    const step = (now: number) => {
      const t = Math.min(1, (now - start) / ANIMATE_MS);
      const ease = t * (2 - t);
      for (const l of moving) {
        const b = before.get(l.name)!;
        this.shown.set(l.name, { x: b.x + (l.x - b.x) * ease, y: b.y + (l.y - b.y) * ease });
      }
      if (t >= 1) { this.shown.clear(); this.render(); } else this.drawMoving(names);
      if (t < 1) this.frame = requestAnimationFrame(step);
    };
    this.frame = requestAnimationFrame(step);
  }

  // ----- intents -------------------------------------------------------------------------------

  /** Send an intent; a refusal is shown next to `at` (a world point), else at the pointer. */
  private async act(kind: IntentKind, fields: Record<string, unknown> = {}, at?: Point): Promise<boolean> {
    return (await this.actResult(kind, fields, at)) !== FAILED;
  }

  /** Send an intent; its result, or FAILED (the refusal is shown). */
  private async actResult(kind: IntentKind, fields: Record<string, unknown> = {}, at?: Point): Promise<unknown> {
    const reply = await this.client.send(kind, fields);
    if (!reply.ok) {
      this.showError(reply.error ?? "refused", at);
      if (kind === "configure" || kind === "rename") { this.inspectorError = usefulMessage(reply.error ?? "").short; this.render(); }
      return FAILED;
    }
    this.inspectorError = null;
    this.hideToast(); // an old refusal no longer applies
    return reply.result;
  }

  private highlighted: string | null = null;
  /** The selected edge: an object like a box (Delete removes it, it has a menu). */
  private selectedEdgeState(): EdgeState | null {
    return this.state.edges.find((e) => edgeKey(e) === this.selectedEdgeKey) ?? null;
  }

  /** No edge selected, and the producer it highlighted is plain again. */
  private clearEdge(): void {
    this.selectedEdgeKey = null;
    this.edgeExplanation = null;
    this.highlighted = null;
  }

  /** Select an edge: show its KerasTensor and _keras_history, and highlight the layer that made it. */
  private async inspectEdge(index: number): Promise<void> {
    const e = this.state.edges[index];
    if (!e) return;
    const key = edgeKey(e);
    this.selected.clear();
    this.selectedEdgeKey = key;
    this.edgeExplanation = null;
    this.highlighted = e.src[0];
    this.render();
    this.focusEdge(key);
    const reply = await this.client.send("explain_edge", { src: e.src, dst: e.dst });
    if (!reply.ok) { this.showError(reply.error ?? "refused"); return; }
    if (this.selectedEdgeKey !== key) return;
    this.edgeExplanation = reply.result as Explanation;
    if (!this.selected.size) this.showInspector();
  }

  private focusEdge(key: string): void {
    const g = this.edgeLayer.querySelector(`[data-edge-key="${CSS.escape(key)}"]`) as SVGElement | null;
    if (g) { this.restoring = true; try { g.focus({ preventScroll: true }); } finally { this.restoring = false; } }
  }

  private removeEdge(e: EdgeState): void {
    this.clearEdge();
    this.act("disconnect", { src: e.src, dst: e.dst }, this.portAt(`in:${e.dst.join(":")}`));
    this.root.focus({ preventScroll: true });
  }

  private portAt(key: string): Point | undefined {
    return this.allPorts.find((p) => p.key === key)?.at;
  }

  /** Accepting slots and classes for a wire from `port` (asked once per drag, cached per state). */
  private askHints(port: Port): void {
    const key = `${port.key}@${this.state.version}`;
    if (this.hints?.key === key) return;
    this.hints = { key, accept: new Set(), refuse: new Set(), classes: null };
    this.client.send("accepts", { src: [port.layer, port.call, port.index] }).then((reply) => {
      if (!reply.ok || this.hints?.key !== key) return;
      const r = reply.result as { classes: string[] | null; accept: string[]; refuse: string[] };
      this.hints = { key, accept: new Set(r.accept), refuse: new Set(r.refuse), classes: r.classes };
      if (this.drag?.kind === "edge") this.render();
      if (this.quick.isOpen && this.pendingWire) this.quick.offer(this.quickNames(r.classes), this.wireNote(this.pendingWire, r.classes));
    });
  }

  private quickNames(classes: string[] | null): string[] {
    return classes ?? this.palette.map((p) => p.class_name);
  }

  private wireNote(port: Port, classes: string[] | null): string {
    const layer = this.state.layers.find((l) => l.name === port.layer);
    const shape = layer?.calls[port.call]?.output_shapes?.[port.index] ?? null;
    if (classes === null) return `Layers for ${port.layer}'s output (checking which accept ${shapeText(shape)}…)`;
    return `${classes.length} layers accept ${shapeText(shape)} from ${port.layer}`;
  }

  /** Quick-add at a screen point: a catalog search; `wire` connects the new layer to it. */
  private openQuickAdd(at: Point, wire: Port | null = null, onto: EdgeState | null = null): void {
    this.menu.classList.remove("kc-show");
    const world = toWorld(this.view, at);
    this.pendingWire = wire;
    let names = this.palette.map((p) => p.class_name);
    let note = onto ? `Insert into ${onto.src[0]} → ${onto.dst[0]}` : "Type to search the layers";
    if (wire) {
      this.askHints(wire);
      names = this.quickNames(this.hints?.classes ?? null);
      note = this.wireNote(wire, this.hints?.classes ?? null);
    }
    const r = this.stage.getBoundingClientRect();
    const spot = placeMenu(at, { w: 260, h: 300 }, { w: r.width, h: r.height });
    this.quick.open(spot, names, note, (className) => {
      const view = this.viewRect();
      if (onto) {
        const i = this.state.edges.findIndex((e) => edgeKey(e) === edgeKey(onto));
        const pts = this.routes[i];
        const intent = insertIntent(className, onto, pts ?? [world], world);
        const { kind, ...fields } = pts ? intent : { ...intent, x: world.x, y: world.y };
        this.actResult(kind, fields, world).then((name) => this.selectNew(name));
      } else {
        const fields: Record<string, unknown> = { class_name: className, x: world.x - 90, y: world.y, view };
        if (wire) fields.src = [wire.layer, wire.call, wire.index];
        this.actResult("add_layer", fields, world).then((name) => this.selectNew(name));
      }
    });
  }

  /** The world rectangle on screen, [x, y, w, h]: where the kernel puts new boxes. */
  private viewRect(): number[] {
    const r = this.stage.getBoundingClientRect();
    const tl = toWorld(this.view, { x: 0, y: 0 });
    return [tl.x, tl.y, Math.max(1, r.width / this.view.k), Math.max(1, r.height / this.view.k)];
  }

  /** A box the user just made (drop, quick-add, paste) is selected. */
  private selectNew(result: unknown): void {
    const names = typeof result === "string" ? [result]
      : result && typeof result === "object" ? Object.values(result as Record<string, string>) : [];
    if (!names.length) return;
    this.clearEdge();
    this.selected = new Set(names);
    this.render();
    this.root.focus({ preventScroll: true });
  }

  /** Ctrl+F: find a layer by name; Enter jumps to it (selected, centred at a readable scale). */
  private openFind(): void {
    this.findBar.classList.add("kc-show");
    this.findInput.focus({ preventScroll: true });
    this.findInput.select();
    this.find(false);
  }

  private closeFind(): void {
    this.findBar.classList.remove("kc-show");
    this.root.focus({ preventScroll: true });
  }

  private find(jump: boolean): void {
    const q = this.findInput.value;
    const hits = this.state.layers
      .map((l) => ({ l, r: matchRank(l.name, q) ?? (matchRank(l.class_name, q) === null ? null : 5) }))
      .filter((h) => h.r !== null && q.trim() !== "")
      .sort((a, b) => (a.r as number) - (b.r as number));
    this.findCount.textContent = q.trim() ? `${hits.length} found` : "";
    if (!hits.length) return;
    if (!jump) this.findAt = 0;
    const hit = hits[this.findAt % hits.length].l;
    if (jump) this.findAt++;
    this.clearEdge();
    this.selected = new Set([hit.name]);
    const r = this.stage.getBoundingClientRect();
    const placed = this.placed().find((l) => l.name === hit.name) ?? hit;
    this.view = centreOn(placed, this.view, r.width, r.height);
    this.render();
  }

  private edgeExplanation: Explanation | null = null;

  /** Ask the kernel for a step sequence and play it under the drawing. */
  private async play(kind: "depth_steps" | "forward_steps"): Promise<void> {
    const reply = await this.client.send(kind);
    if (!reply.ok) { this.showError(reply.error ?? "refused"); return; }
    const steps = kind === "depth_steps"
      ? (reply.result as DepthStep[]).map((s) => ({ text: depthStepText(s), layer: s.node?.[0] }))
      : (reply.result as ForwardStep[]).map((s) => ({ text: forwardStepText(s), layer: s.node[0], picture: s.picture }));
    clear(this.playerHost);
    const title = kind === "depth_steps" ? "Depth (seed 000)" : "Forward pass";
    const player = new StepPlayer(title, steps, (layer) => { this.highlighted = layer; this.render(); },
      () => clear(this.playerHost));
    this.playerHost.append(player.root);
  }

  private notice(message: string): void {
    this.status.textContent = message;
    window.setTimeout(() => { this.status.textContent = summary(this.state); }, 2500);
  }

  /** A refusal, next to the spot it concerns: it follows that spot while the view moves. */
  private showError(message: string, at?: Point): void {
    // the first useful sentence; the whole message one press away
    const { short, more } = usefulMessage(message);
    clear(this.toast);
    const text = el("div", { class: "kc-toast-text" }, short);
    this.toast.append(text);
    if (more) {
      const details = el("button", { class: "kc-link", "aria-label": "Show details" }, "Details");
      details.addEventListener("click", () => {
        text.textContent = more;
        details.remove();
        window.clearTimeout(this.toastTimer);
      }, this.on);
      this.toast.append(details);
    }
    this.toastAt = at ?? toWorld(this.view, this.lastPointer);
    this.toast.classList.add("kc-show");
    this.placeToast();
    window.clearTimeout(this.toastTimer);
    this.toastTimer = window.setTimeout(() => this.hideToast(), TOAST_MS);
  }

  private hideToast(): void {
    this.toast.classList.remove("kc-show");
    this.toastAt = null;
  }

  private placeToast(): void {
    if (!this.toastAt || !this.toast) return;
    const p = toScreen(this.view, this.toastAt);
    const r = this.stageSize();
    this.toast.style.left = `${Math.min(Math.max(0, p.x + 12), Math.max(0, r.width - 300))}px`;
    this.toast.style.top = `${Math.min(Math.max(0, p.y + 12), Math.max(0, r.height - 60))}px`;
  }

  /** Fold a nested model's box out into its inner graph, or back into one box. */
  private toggle(name: string): void {
    const layer = this.state.layers.find((l) => l.name === name);
    if (layer) this.act("expand", { name, open: !layer.expanded }, { x: layer.x, y: layer.y });
  }

  private addLayer(className: string, at: Point): void {
    const preset = INPUT_PRESETS[className];
    const view = this.viewRect();
    const made = preset ? this.actResult("add_input", { shape: preset, x: at.x, y: at.y, view })
      : this.actResult("add_layer", { class_name: className, x: at.x, y: at.y, view });
    made.then((name) => this.selectNew(name)); // a new box is selected, as in every node editor
  }

  // ----- gestures ------------------------------------------------------------------------------

  private local(ev: { clientX: number; clientY: number }): Point {
    const r = this.stage.getBoundingClientRect(); // not the svg: it moves while a gesture previews
    return { x: ev.clientX - r.left, y: ev.clientY - r.top };
  }

  private pickFromPalette(className: string, ev: PointerEvent | KeyboardEvent): void {
    if (ev instanceof KeyboardEvent) {
      const r = this.stage.getBoundingClientRect();
      this.addLayer(className, toWorld(this.view, { x: r.width / 2, y: r.height / 3 }));
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
    const r = this.stage.getBoundingClientRect();
    const inside = ev.clientX >= r.left && ev.clientX <= r.right && ev.clientY >= r.top && ev.clientY <= r.bottom;
    const wire = inside ? edgeAt(this.routes, toWorld(this.view, this.local(ev)), 12 / this.view.k) : -1;
    if (wire !== this.drag.wire) {
      this.drag.wire = wire;
      this.dropWire = wire;
      this.drag.ghost.textContent = wire >= 0 ? `${this.drag.className} → insert into wire` : this.drag.className;
      this.render();
    }
  }

  private listen(): void {
    const svgEl = this.svgEl;
    svgEl.addEventListener("pointerdown", (ev) => this.onDown(ev), this.on);
    svgEl.addEventListener("pointermove", (ev) => { this.lastPointer = this.local(ev); this.pointerInside = true; }, this.on);
    this.stage.addEventListener("pointerleave", () => { this.pointerInside = false; }, this.on);
    window.addEventListener("pointermove", this.onMove, this.on);
    window.addEventListener("pointerup", this.onUp, this.on);
    svgEl.addEventListener("wheel", (ev) => {
      ev.preventDefault();
      this.view = zoomAt(this.view, this.local(ev), Math.exp(-ev.deltaY * 0.0015));
      this.viewChanged();
    }, { passive: false, ...this.on });
    // the canvas's menu, never JupyterLab's on top of it (it listens further up: stop here)
    this.stage.addEventListener("contextmenu", (ev) => {
      if (this.quick.root.contains(ev.target as Node) || this.findBar.contains(ev.target as Node)) { ev.stopPropagation(); return; }
      ev.preventDefault();
      ev.stopPropagation();
      if (this.svgEl.contains(ev.target as Node)) this.onMenu(ev);
    }, this.on);
    this.root.addEventListener("keydown", (ev) => this.onKey(ev), this.on);
    // After the event: JupyterLab's notebook handles this focusin too, and takes the focus to
    // its cell if the target has left the page by then (a redraw replaces it).
    this.svgEl.addEventListener("focusin", (ev) => {
      if (this.restoring) return;
      const target = ev.target as Element;
      requestAnimationFrame(() => this.reveal(target));
    }, this.on);
    // the minimap: press or drag anywhere on it and the view follows
    this.minimap.addEventListener("pointerdown", (ev) => {
      ev.preventDefault();
      ev.stopPropagation();
      this.drag = { kind: "mini", grab: null };
      this.root.focus({ preventScroll: true }); // keys (Ctrl+Z, Ctrl+F) go to the canvas after
      this.miniTo(ev);
    }, this.on);
    document.addEventListener("pointerdown", (ev) => { if (!this.menu.contains(ev.target as Node)) this.menu.classList.remove("kc-show"); }, this.on);
  }

  /** The view follows the pointer on the minimap: a press on the viewport drags it from where
   * it was taken; a press beside it centres the view there. */
  private miniTo(ev: PointerEvent): void {
    const box = this.minimap.viewBox.baseVal;
    const r = this.minimap.getBoundingClientRect();
    if (!box || !r.width || this.drag?.kind !== "mini") return;
    const w = miniWorld(box, r, { x: ev.clientX, y: ev.clientY });
    const st = this.stage.getBoundingClientRect();
    this.drag.grab ??= miniGrab(this.view, st, w);
    this.view = miniView(this.view, st, w, this.drag.grab);
    this.viewChanged();
  }

  private onDown(ev: PointerEvent): void {
    if (ev.button !== 0) return;
    this.quick.close();
    // keys go to the canvas after any press on it (Ctrl+Z after a wire drag is the canvas's undo,
    // not the notebook's); the gestures below preventDefault, which would keep the old focus
    this.root.focus({ preventScroll: true });
    const p = this.local(ev);
    this.lastPointer = p;
    const w = toWorld(this.view, p);
    const target = ev.target as Element;
    const portKey = target.getAttribute?.("data-port");
    const port = portKey ? this.allPorts.find((q) => q.key === portKey) ?? null : portAt(this.allPorts, w);
    if (port && port.kind === "out") {
      this.drag = { kind: "edge", port };
      this.askHints(port);
      ev.preventDefault();
      return;
    }
    if (port && port.kind === "in") {
      // a filled slot: its wire comes off with the pointer (drop on another slot, or in empty space to unplug)
      const e = this.state.edges.find((x) => `in:${x.dst.join(":")}` === port.key);
      if (e) {
        this.drag = { kind: "rewire", edge: e, from: port };
        ev.preventDefault();
        return;
      }
    }
    const toggle = target.closest?.("[data-toggle]");
    if (toggle) {
      this.toggle(toggle.getAttribute("data-toggle")!);
      ev.preventDefault();
      return;
    }
    const edge = target.closest?.("[data-edge]");
    if (edge) {
      this.inspectEdge(Number(edge.getAttribute("data-edge")));
      ev.preventDefault(); // the focus stays on the edge, for Delete
      return;
    }
    const box = boxAt(this.placed(), w);
    if (box) {
      // A second press soon after on a nested model's box folds it out (or back). Counted here,
      // not by "dblclick": the first press redraws the box, and the browser then sees two targets.
      const now = performance.now();
      const again = this.lastPress?.name === box.name && now - this.lastPress.at < DOUBLE_PRESS_MS;
      this.lastPress = again ? null : { name: box.name, at: now };
      if (again && box.inner_layers !== null) { this.toggle(box.name); return; }
      this.clearEdge();
      if (ev.shiftKey) {
        if (this.selected.has(box.name)) this.selected.delete(box.name); else this.selected.add(box.name);
      } else if (!this.selected.has(box.name)) {
        this.selected = new Set([box.name]);
      }
      this.inspectorError = null;
      this.drag = { kind: "box", name: box.name, from: w, start: { x: box.x, y: box.y }, moved: false };
      this.render();
      this.root.focus({ preventScroll: true });
      return;
    }
    if (this.selectedEdgeKey || this.highlighted) { this.clearEdge(); this.render(); }
    if (ev.shiftKey) {
      const rect = svg("rect", { class: "kc-band", x: w.x, y: w.y, width: 0, height: 0 });
      this.world.append(rect);
      this.drag = { kind: "select", from: w, rect };
      return;
    }
    this.drag = { kind: "pan", from: p, view: this.view, moved: false };
  }

  private readonly onMove = (ev: PointerEvent): void => {
    const drag = this.drag;
    if (!drag) return;
    if (drag.kind === "new") { this.moveGhost(ev); return; }
    if (drag.kind === "mini") { this.miniTo(ev); return; }
    const p = this.local(ev);
    const w = toWorld(this.view, p);
    if (drag.kind === "pan") {
      this.view = { ...drag.view, x: drag.view.x + p.x - drag.from.x, y: drag.view.y + p.y - drag.from.y };
      drag.moved = drag.moved || Math.abs(p.x - drag.from.x) + Math.abs(p.y - drag.from.y) > 3;
      this.viewChanged();
    } else if (drag.kind === "box") {
      const x = drag.start.x + w.x - drag.from.x;
      const y = drag.start.y + w.y - drag.from.y;
      drag.moved = drag.moved || Math.abs(w.x - drag.from.x) + Math.abs(w.y - drag.from.y) > 3;
      if (drag.moved) { this.shown.set(drag.name, { x, y }); this.drawMoving(new Set([drag.name])); }
    } else if (drag.kind === "edge") {
      if (!this.svgEl.classList.contains("kc-wiring")) { this.svgEl.classList.add("kc-wiring"); this.render(); }
      this.overlay.setAttribute("d", edgePath(drag.port.at, w));
    } else if (drag.kind === "rewire") {
      const src = this.portAt(`out:${drag.edge.src.join(":")}`);
      if (src) this.overlay.setAttribute("d", edgePath(src, w));
      const g = this.edgeLayer.querySelector(`[data-edge-key="${CSS.escape(edgeKey(drag.edge))}"]`);
      g?.classList.add("kc-edge-lifted");
    } else if (drag.kind === "select") {
      const r = rectFrom(drag.from, w);
      for (const [k, v] of Object.entries({ x: r.x, y: r.y, width: r.w, height: r.h })) drag.rect.setAttribute(k, String(v));
    }
  };

  private readonly onUp = (ev: PointerEvent): void => {
    const drag = this.drag;
    this.drag = null;
    if (!drag) return;
    if (drag.kind === "mini") { this.render(); return; }
    if (drag.kind === "new") {
      drag.ghost.remove();
      this.dropWire = -1;
      const r = this.stage.getBoundingClientRect();
      if (ev.clientX >= r.left && ev.clientX <= r.right && ev.clientY >= r.top && ev.clientY <= r.bottom) {
        this.lastPointer = this.local(ev);
        const at = toWorld(this.view, this.lastPointer);
        const e = drag.wire >= 0 ? this.state.edges[drag.wire] : undefined;
        const pts = drag.wire >= 0 ? this.routes[drag.wire] : null;
        if (e && pts && !INPUT_PRESETS[drag.className]) {
          const { kind, ...fields } = insertIntent(drag.className, e, pts, at);
          this.actResult(kind, fields, at).then((name) => this.selectNew(name));
        } else this.addLayer(drag.className, at);
      } else this.render();
      return;
    }
    const p = this.local(ev);
    this.lastPointer = p;
    const w = toWorld(this.view, p);
    if (drag.kind === "select") {
      drag.rect.remove();
      const r: Rect = rectFrom(drag.from, w);
      for (const name of boxesIn(this.placed(), r)) this.selected.add(name);
      this.render();
    } else if (drag.kind === "pan") {
      if (!drag.moved && this.selected.size) { this.selected.clear(); this.render(); }
      this.drawMinimap(this.placed());
    } else if (drag.kind === "box" && drag.moved) {
      const at = this.shown.get(drag.name);
      if (at) {
        const x = Math.round(at.x), y = Math.round(at.y);
        this.shown.set(drag.name, { x, y });
        this.render(); // routes and labels around the box where it was dropped
        // the box stays where it was dropped until the state says so (or the move was refused)
        this.act("move", { name: drag.name, x, y }).then((ok) => {
          const l = this.state.layers.find((q) => q.name === drag.name);
          if (this.shown.get(drag.name) !== undefined && (!ok || !l || (l.x === x && l.y === y))) { this.shown.delete(drag.name); this.render(); }
        });
      }
    } else if (drag.kind === "edge") {
      this.overlay.setAttribute("d", "");
      this.svgEl.classList.remove("kc-wiring");
      const out = dropWire(drag.port, w, this.allPorts, this.placed(), this.state.edges);
      this.render();
      if (out && "intent" in out) this.perform(out.intent, out.at);
      else if (out) this.openQuickAdd(p, out.search); // empty space: the layers that accept this tensor
    } else if (drag.kind === "rewire") {
      this.overlay.setAttribute("d", "");
      const out = dropRewire(drag.edge, drag.from, w, this.allPorts, this.state.layers);
      if (out && "intent" in out) this.perform(out.intent, out.at); else this.render();
    }
  };

  private connect(src: Port, dst: Port): void {
    this.perform(connectIntent(src, dst, this.state.layers), dst.at);
  }

  /** Send a gesture's intent; a refusal is shown next to `at`. */
  private perform(intent: Intent, at?: Point): Promise<boolean> {
    const { kind, ...fields } = intent;
    return this.act(kind, fields, at);
  }

  /** Keys the canvas handles stop here: JupyterLab's own shortcuts (Enter edits a cell, Z, C,
   * V and D act on cells) must not act on them too. */
  private onKey(ev: KeyboardEvent): void {
    if (this.handleKey(ev)) ev.stopPropagation();
  }

  private handleKey(ev: KeyboardEvent): boolean {
    const target = ev.target as HTMLElement;
    if (target.tagName === "INPUT" || target.tagName === "SELECT" || target.tagName === "BUTTON" || target.tagName === "TEXTAREA") return false;
    const mod = ev.ctrlKey || ev.metaKey;
    const key = ev.key.toLowerCase();
    const portKey = target.getAttribute?.("data-port");
    if (ev.key === "Enter" && portKey) {
      const port = this.allPorts.find((p) => p.key === portKey);
      if (port?.kind === "out") { this.armed = port; this.render(); this.focusPort(port.key); }
      else if (port && this.armed) { const src = this.armed; this.armed = null; this.render(); this.focusPort(port.key); this.connect(src, port); }
      ev.preventDefault();
      return true;
    }
    const toggleName = target.getAttribute?.("data-toggle");
    if (toggleName && (ev.key === "Enter" || ev.key === " ")) { ev.preventDefault(); this.toggle(toggleName); return true; }
    const edgeIndex = target.getAttribute?.("data-edge");
    if (ev.key === "Enter" && edgeIndex !== null && edgeIndex !== undefined) { this.inspectEdge(Number(edgeIndex)); return true; }
    if (edgeIndex !== null && edgeIndex !== undefined && (ev.key === "ContextMenu" || (ev.shiftKey && ev.key === "F10"))) {
      const e = this.state.edges[Number(edgeIndex)];
      const pts = this.routes[Number(edgeIndex)];
      if (e && pts) { ev.preventDefault(); this.openEdgeMenu(e, toScreen(this.view, pts[Math.floor(pts.length / 2)])); }
      return true;
    }
    const boxName = target.getAttribute?.("data-name");
    if (boxName && (ev.key === "ContextMenu" || (ev.shiftKey && ev.key === "F10"))) {
      const layer = this.placed().find((l) => l.name === boxName);
      if (layer) { ev.preventDefault(); this.openMenu(layer, toScreen(this.view, { x: layer.x + 20, y: layer.y + 20 })); }
      return true;
    }
    if (ev.key === "Enter" && boxName) {
      if (ev.shiftKey) this.selected.add(boxName); else this.selected = new Set([boxName]);
      this.render();
      this.focusBox(boxName);
      return true;
    }
    if (mod && key === "f") { ev.preventDefault(); this.openFind(); return true; }
    const edit = keyIntent({ key: ev.key, ctrl: mod, shift: ev.shiftKey }, [...this.selected], this.selectedEdgeState());
    if (edit) {
      ev.preventDefault();
      if (edit.kind === "disconnect") this.removeEdge(this.selectedEdgeState()!); // it also clears the selection
      else this.perform(edit);
      return true;
    }
    if (mod && key === "c" && this.selected.size) { this.clipboard = [...this.selected]; this.notice(`Copied ${this.clipboard.length} layer(s)`); return true; }
    if (mod && key === "v" && this.clipboard.length) { ev.preventDefault(); this.paste(); return true; }
    if (mod && key === "a") { ev.preventDefault(); this.selected = new Set(this.state.layers.map((l) => l.name)); this.render(); return true; }
    // Shift+A (Blender) always; Tab (Houdini, ComfyUI) while the pointer is over the drawing, so
    // that Tab still moves the keyboard focus from box to box for people without a mouse
    if (!mod && !ev.altKey && ((ev.key === "Tab" && !ev.shiftKey && this.pointerInside) || (ev.shiftKey && key === "a"))) {
      ev.preventDefault();
      this.openQuickAdd(this.lastPointer);
      return true;
    }
    if (ev.key === "F2" && this.selected.size === 1) { (this.inspector.querySelector('[aria-label="layer name"]') as HTMLInputElement | null)?.focus(); return true; }
    if (ev.key === "Escape") { this.armed = null; this.selected.clear(); this.clearEdge(); this.hideToast(); this.render(); return true; }
    return false;
  }

  /** Ctrl+V: copies of the copied boxes, together in free space in view, and selected. */
  private paste(): void {
    this.actResult("duplicate", { names: this.clipboard, view: this.viewRect() }).then((mapping) => this.selectNew(mapping));
  }


  /** Keyboard focus on a box or port off screen brings it into view (the view follows Tab). */
  private reveal(target: Element): void {
    const portKey = target.getAttribute("data-port");
    const name = target.getAttribute("data-name") ?? this.allPorts.find((p) => p.key === portKey)?.layer;
    const layer = name ? this.placed().find((l) => l.name === name) : undefined;
    if (!layer) return;
    const r = this.stage.getBoundingClientRect();
    const a = toScreen(this.view, { x: layer.x, y: layer.y });
    const b = toScreen(this.view, { x: layer.x + boxWidth(layer), y: layer.y + boxHeight(layer) });
    if (a.x >= 0 && a.y >= 0 && b.x <= r.width && b.y <= r.height && this.view.k >= 0.5) return;
    const k = Math.max(this.view.k, 1);
    this.view = { k, x: r.width / 2 - (layer.x + boxWidth(layer) / 2) * k, y: r.height / 2 - (layer.y + boxHeight(layer) / 2) * k };
    this.render(); // keeps the focus on the redrawn element
  }

  private focusPort(key: string): void {
    (this.portLayer.querySelector(`[data-port="${CSS.escape(key)}"]`) as SVGElement | null)?.focus();
  }

  private onMenu(ev: MouseEvent): void {
    const p = this.local(ev);
    const w = toWorld(this.view, p);
    const edgeEl = (ev.target as Element).closest?.("[data-edge]");
    if (edgeEl) {
      const e = this.state.edges[Number(edgeEl.getAttribute("data-edge"))];
      if (e) { this.openEdgeMenu(e, p); return; }
    }
    const box = boxAt(this.placed(), w);
    if (box) { this.openMenu(box, p); return; }
    this.openBlankMenu(p);
  }

  /** Fill the menu with entries and show it at `at`, kept inside the visible drawing. */
  private showMenu(at: Point, entries: [string, () => void][], back: () => void): void {
    clear(this.menu);
    for (const [label, run] of entries) {
      const b = el("button", { role: "menuitem", class: "kc-menu-item" }, label);
      b.addEventListener("click", () => { this.menu.classList.remove("kc-show"); run(); }, this.on);
      b.addEventListener("keydown", (ev) => {
        if (ev.key === "Escape") { ev.stopPropagation(); this.menu.classList.remove("kc-show"); back(); }
      }, this.on);
      this.menu.append(b);
    }
    this.menu.style.left = `${at.x}px`;
    this.menu.style.top = `${at.y}px`;
    this.menu.classList.add("kc-show");
    const r = this.stage.getBoundingClientRect();
    // visible part of the stage: the page may cut it (notebook scrolled)
    const area = { w: Math.min(r.width, window.innerWidth - r.left), h: Math.min(r.height, window.innerHeight - r.top) };
    const spot = placeMenu(at, { w: this.menu.offsetWidth, h: this.menu.offsetHeight }, area);
    this.menu.style.left = `${spot.x}px`;
    this.menu.style.top = `${spot.y}px`;
    (this.menu.firstChild as HTMLElement | null)?.focus({ preventScroll: true });
  }

  /** A box's context menu (right click, or the Menu key / Shift+F10 on a focused box). */
  private openMenu(box: LayerState, at: Point): void {
    this.clearEdge();
    this.selected = new Set([box.name]);
    this.render();
    const anchor = { x: box.x + boxWidth(box), y: box.y };
    const entries: [string, () => void][] = [];
    if (!box.is_input) entries.push(["Call again (shared weights)", () => this.act("add_call", { name: box.name }, anchor)]);
    if (box.calls.length > 1) entries.push([`Remove call ${box.calls.length - 1}`, () => this.act("remove_call", { name: box.name, call: box.calls.length - 1 }, anchor)]);
    if (box.inner_layers !== null) entries.push([box.expanded ? "Collapse" : "Expand (show its layers)", () => this.toggle(box.name)]);
    entries.push(["Rename", () => (this.inspector.querySelector('[aria-label="layer name"]') as HTMLInputElement | null)?.focus()]);
    entries.push(["Copy", () => { this.clipboard = [box.name]; this.notice("Copied 1 layer(s)"); }]);
    entries.push(["Delete", () => this.act("remove", { names: [box.name] }, anchor)]);
    const into = this.state.edges.filter((e) => e.dst[0] === box.name).length;
    if (into === 1 && box.calls.length === 1 && box.n_outputs === 1) {
      entries.push(["Delete, keep the chain joined (Shift+Del)", () => this.act("remove", { names: [box.name], bridge: true }, anchor)]);
    }
    this.showMenu(at, entries, () => this.focusBox(box.name));
  }

  /** An edge's context menu: delete it, insert a layer into it, show its tensor. */
  private openEdgeMenu(e: EdgeState, at: Point): void {
    const index = this.state.edges.indexOf(e);
    this.inspectEdge(index);
    this.showMenu(at, [
      ["Delete edge", () => this.removeEdge(e)],
      ["Insert layer here…", () => this.openQuickAdd(at, null, e)],
      ["Show tensor", () => this.inspectEdge(index)],
    ], () => this.focusEdge(edgeKey(e)));
  }

  /** Empty space: add a layer there, paste, fit. */
  private openBlankMenu(at: Point): void {
    const entries: [string, () => void][] = [["Add layer here… (Tab)", () => this.openQuickAdd(at)]];
    if (this.clipboard.length) entries.push(["Paste", () => this.paste()]);
    entries.push(["Fit (show the drawing)", () => this.fit()]);
    entries.push(["Find a layer… (Ctrl+F)", () => this.openFind()]);
    this.showMenu(at, entries, () => this.root.focus({ preventScroll: true }));
  }

  private fit(): void {
    const r = this.stage.getBoundingClientRect();
    this.view = readableFit(this.placed(), r.width, r.height);
    this.render();
  }

  private toolbar(): HTMLElement {
    const bar = el("div", { class: "kc-toolbar", role: "toolbar" });
    const button = (label: string, title: string, run: () => void) => {
      const b = el("button", { class: "kc-button jp-ToolbarButtonComponent", "aria-label": label, title }, label);
      b.addEventListener("click", run, this.on);
      bar.append(b);
    };
    const gap = () => bar.append(el("span", { class: "kc-toolbar-gap" }));
    button("Undo", "Undo (Ctrl+Z)", () => this.act("undo"));
    button("Redo", "Redo (Ctrl+Shift+Z)", () => this.act("redo"));
    gap();
    button("Add layer", "Search the layers at the pointer (Tab or Shift+A)", () => this.openQuickAdd(this.lastPointer));
    button("Find", "Find a layer by name (Ctrl+F)", () => this.openFind());
    button("Arrange", "Lay the drawing out again from its depth map", () => this.arrange());
    button("Fit", "Show the drawing (from its inputs when it is too big to read whole)", () => this.fit());
    if (this.model.get("path")) {
      gap();
      button("Save", "Save drawing and weights", () => this.act("save").then((ok) => ok && this.notice(`Saved to ${this.model.get("path")}`)));
      button("Load", "Load the saved drawing", () => this.act("load"));
    }
    gap();
    button("Depth steps", "Play the depth computation step by step", () => this.play("depth_steps"));
    button("Forward pass", "Run one sample through, node by node", () => this.play("forward_steps"));
    gap();
    button("Export SVG", "Save the drawing as SVG", () => { this.scene.catchUp(() => Infinity); exportSvg(this.svgEl, this.placed(), this.state.name); });
    button("Export PNG", "Save the drawing as PNG", () => { this.scene.catchUp(() => Infinity); exportPng(this.svgEl, this.placed(), this.state.name); });
    return bar;
  }

  /** Arrange: the boxes glide to the depth layout, then the view fits it. */
  private arrange(): void {
    this.act("arrange").then((ok) => { if (ok) window.setTimeout(() => this.fit(), ANIMATE_MS + 60); });
  }


  byName(): Map<string, LayerState> {
    return byName(this.state);
  }
}
