// The drawing area: boxes, ports and edges in SVG, and every gesture turned into a kernel intent.
import { clear, el, svg } from "./dom";
import {
  type Point, type Port, type Rect, type View, boxAt, boxHeight, boxWidth, boxesIn, bounds, edgePath,
  fitView, fitsIn, portAt, ports, rectFrom, toScreen, toWorld, zoomAt,
} from "./geometry";
import { byName, edgeTitle, problemLines, shapeText, summary } from "./mirror";
import { type Explanation, INPUT_PRESETS, renderExplanation, renderInspector, renderNodes, renderPalette } from "./panels";
import { Client, type Model } from "./protocol";
import { boxShape } from "./boxes";
import { exportPng, exportSvg } from "./exporting";
import { type DepthStep, type ForwardStep, StepPlayer, depthStepText, forwardStepText } from "./teach";
import { TrainingPanel } from "./training";
import type { GraphState, LayerState, PaletteEntry } from "./types";

type Drag =
  | { kind: "pan"; from: Point; view: View; moved: boolean }
  | { kind: "select"; from: Point; rect: SVGRectElement }
  | { kind: "box"; name: string; from: Point; start: Point; moved: boolean }
  | { kind: "edge"; port: Port }
  | { kind: "new"; className: string; ghost: HTMLElement };

const ANIMATE_MS = 250;
const ANIMATE_LIMIT = 400; // layers: bigger graphs jump to the new layout
const BIG_GRAPH = 300; // layers: beyond this, draw only near the viewport and preview gestures
const PROBLEMS_SHOWN = 12; // lines in the problem list under the drawing
const TOAST_MS = 8000;
const DOUBLE_PRESS_MS = 400;

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
  private allPorts: Port[] = [];
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
    this.svgEl.append(this.world);
    this.minimap = svg("svg", { class: "kc-minimap", "aria-label": "Minimap" });
    this.status = el("div", { class: "kc-status", role: "status" });
    this.problemList = el("ul", { class: "kc-problems", "aria-label": "Problems" });
    this.toast = el("div", { class: "kc-toast", role: "alert" });
    this.menu = el("div", { class: "kc-menu", role: "menu" });
    this.stage = el("div", { class: "kc-stage" });
    this.stage.style.height = `${height}px`;
    this.stage.append(this.svgEl, this.minimap, this.toast, this.menu);
    this.playerHost = el("div", { class: "kc-player-host" });
    main.append(this.stage, this.status, this.problemList, this.playerHost);
    this.training = new TrainingPanel(model, this.client, (m) => this.showError(m));
    main.append(this.training.root);
    this.onTraining = () => this.training.update(model.get("training") ?? {});
    model.on("change:training", this.onTraining);
    this.root.append(side, main);
    host.append(this.root);
    this.fitted = this.state.layers.length === 0; // an empty canvas keeps screen = world: drops land where dropped
    renderPalette(paletteHost, this.palette, (c, ev) => this.pickFromPalette(c, ev));
    // Enter in a form field commits it (blur fires its change) and stays in the widget: in
    // JupyterLab the key would otherwise reach the notebook, which cancels the change.
    this.inspector.addEventListener("keydown", (ev) => {
      const t = ev.target as HTMLElement;
      if (ev.key === "Enter" && t.tagName === "INPUT") {
        ev.preventDefault();
        ev.stopPropagation();
        (t as HTMLInputElement).blur();
        this.root.focus({ preventScroll: true });
      }
    });
    this.listen();
    this.render();
    // The widget is often drawn before it is on the page (zero size): fit the drawing to the view
    // as soon as it has a size, not at the first edit (which would then jump the view).
    this.sized = new ResizeObserver(() => { if (!this.fitted) this.render(); });
    this.sized.observe(this.stage);
  }

  private sized: ResizeObserver;
  private lastPress: { name: string; at: number } | null = null;
  private training: TrainingPanel;
  private playerHost: HTMLElement;
  private onTraining: () => void;

  destroy(): void {
    this.sized.disconnect();
    this.model.off("change:training", this.onTraining);
    this.training.destroy();
    this.client.close();
    cancelAnimationFrame(this.frame);
  }

  setState(state: GraphState): void {
    const before = new Map(this.state.layers.map((l) => [l.name, { x: l.x, y: l.y }]));
    this.state = state;
    for (const name of [...this.selected]) if (!state.layers.some((l) => l.name === name)) this.selected.delete(name);
    this.animateFrom(before);
  }

  // ----- rendering ---------------------------------------------------------------------------

  private pos(layer: LayerState): Point {
    return this.shown.get(layer.name) ?? { x: layer.x, y: layer.y };
  }

  private placed(): LayerState[] {
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
    if (!target || target === document.activeElement) return;
    this.restoring = true; // not a move of the user's focus: the view stays where it is
    try { target.focus({ preventScroll: true }); } finally { this.restoring = false; }
  }

  private drawnBounds: Rect | null = null; // every box, as last drawn

  private draw(): void {
    const layers = this.placed();
    this.drawnBounds = bounds(layers);
    if (!this.fitted && layers.length) {
      const r = this.stage.getBoundingClientRect();
      if (r.width > 0) { this.view = fitView(layers, r.width, r.height); this.fitted = true; }
    }
    this.applyView();
    clear(this.boxLayer);
    clear(this.portLayer);
    clear(this.edgeLayer);
    // Big graphs: draw only what is near the viewport, and no text when zoomed far out.
    const big = layers.length > BIG_GRAPH;
    const detail = !big || this.view.k >= 0.5;
    const seen = big ? this.visibleRect() : null;
    const inView = (p: Point) => !seen || (p.x >= seen.x && p.x <= seen.x + seen.w && p.y >= seen.y && p.y <= seen.y + seen.h);
    this.allPorts = [];
    for (const layer of layers) {
      const visible = !seen || (layer.x + boxWidth(layer) >= seen.x && layer.x <= seen.x + seen.w
        && layer.y + boxHeight(layer) >= seen.y && layer.y <= seen.y + seen.h);
      if (visible) this.drawBox(layer, detail);
      for (const port of ports(layer, this.state.edges)) {
        this.allPorts.push(port);
        if (visible && detail) this.drawPort(port);
      }
    }
    const at = new Map(this.allPorts.map((p) => [p.key, p.at]));
    for (const [index, e] of this.state.edges.entries()) {
      const a = at.get(`out:${e.src.join(":")}`);
      const b = at.get(`in:${e.dst.join(":")}`);
      if (!a || !b || !(inView(a) || inView(b))) continue;
      const g = svg("g", { class: (e.built ? "kc-edge" : "kc-edge kc-pending") + (this.selectedEdge === index ? " kc-edge-selected" : ""),
        "data-edge": index, tabindex: 0, role: "button", "aria-label": `edge ${e.src.join(".")} to ${e.dst.join(".")}` });
      g.append(svg("path", { d: edgePath(a, b), class: "kc-edge-hit" }), svg("path", { d: edgePath(a, b) }),
        svg("title", {}, edgeTitle(e)));
      if (detail) g.append(svg("text", { x: (a.x + b.x) / 2 + 4, y: (a.y + b.y) / 2, class: "kc-edge-label" }, shapeText(e.shape)));
      this.edgeLayer.append(g);
    }
    this.status.textContent = summary(this.state);
    this.drawProblems();
    this.drawMinimap(layers);
    const current = this.state.layers.find((l) => this.selected.has(l.name)) ?? null;
    if (this.selectedEdge !== null && this.edgeExplanation && !this.selected.size) {
      renderExplanation(this.inspector, this.edgeExplanation);
    } else renderInspector(this.inspector, this.selected.size === 1 ? current : null,
      this.palette.find((p) => p.class_name === current?.class_name), this.inspectorError,
      (config) => current && this.act("configure", { name: current.name, config }),
      (name) => current && name !== current.name && this.act("rename", { name: current.name, new_name: name }));
    if (this.selected.size === 1 && current) this.explain(current.name);
  }

  /** The world rectangle on screen, with half a screen of margin on every side. */
  private visibleRect(): { x: number; y: number; w: number; h: number } {
    const r = this.stage.getBoundingClientRect();
    const tl = toWorld(this.view, { x: -r.width / 2, y: -r.height / 2 });
    return { x: tl.x, y: tl.y, w: (2 * r.width) / this.view.k, h: (2 * r.height) / this.view.k };
  }

  private drawBox(layer: LayerState, detail = true): void {
    this.boxLayer.append(boxShape(layer, { selected: this.selected.has(layer.name), highlighted: this.highlighted === layer.name, detail }));
  }

  private drawPort(port: Port): void {
    const armed = this.armed?.key === port.key;
    this.portLayer.append(svg("circle", { cx: port.at.x, cy: port.at.y, r: 6, tabindex: 0, role: "button",
      class: `kc-port kc-port-${port.kind}${armed ? " kc-armed" : ""}`, "aria-label": port.label, "data-port": port.key }));
  }

  /** The drawing's problems in words under it; a click on one goes to its box. */
  private drawProblems(): void {
    clear(this.problemList);
    const lines = problemLines(this.state);
    for (const line of lines.slice(0, PROBLEMS_SHOWN)) {
      const item = el("li", { class: "kc-problem-line" }, line.text);
      if (line.layer) {
        const name = line.layer;
        item.setAttribute("tabindex", "0");
        item.setAttribute("role", "button");
        const go = () => { this.selected = new Set([name]); this.render(); this.focusBox(name); };
        item.addEventListener("click", go);
        item.addEventListener("keydown", (ev) => { if (ev.key === "Enter") { ev.stopPropagation(); go(); } });
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
    const r = this.stage.getBoundingClientRect();
    const hide = this.state.layers.length < 2 || r.width === 0 || fitsIn(this.drawnBounds, this.view, r.width, r.height);
    this.minimap.style.display = hide ? "none" : "";
  }

  private drawMinimap(layers: LayerState[]): void {
    clear(this.minimap);
    this.miniView = null;
    const b = bounds(layers);
    this.minimapVisibility();
    if (!b || layers.length < 2) return;
    const pad = 20;
    this.minimap.setAttribute("viewBox", `${b.x - pad} ${b.y - pad} ${b.w + 2 * pad} ${b.h + 2 * pad}`);
    for (const l of layers) this.minimap.append(svg("rect", { x: l.x, y: l.y, width: boxWidth(l), height: boxHeight(l), class: "kc-mini-box" }));
    this.miniView = svg("rect", { class: "kc-mini-view" });
    this.minimap.append(this.miniView);
    this.moveMiniView();
  }

  /** Only the viewport's rectangle follows pan and zoom; the boxes are drawn with the state. */
  private moveMiniView(): void {
    if (!this.miniView) return;
    const r = this.stage.getBoundingClientRect();
    const tl = toWorld(this.view, { x: 0, y: 0 });
    for (const [k, v] of Object.entries({ x: tl.x, y: tl.y, width: r.width / this.view.k, height: r.height / this.view.k })) {
      this.miniView.setAttribute(k, String(v));
    }
  }

  private miniView: SVGRectElement | null = null;

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
    if (this.state.layers.length <= BIG_GRAPH) { this.applyView(); return; }
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
    const start = performance.now();
    const step = (now: number) => {
      const t = Math.min(1, (now - start) / ANIMATE_MS);
      const ease = t * (2 - t);
      for (const l of moving) {
        const b = before.get(l.name)!;
        this.shown.set(l.name, { x: b.x + (l.x - b.x) * ease, y: b.y + (l.y - b.y) * ease });
      }
      if (t >= 1) this.shown.clear();
      this.render();
      if (t < 1) this.frame = requestAnimationFrame(step);
    };
    this.frame = requestAnimationFrame(step);
  }

  // ----- intents -------------------------------------------------------------------------------

  /** Send an intent; a refusal is shown next to `at` (a world point), else at the pointer. */
  private async act(kind: string, fields: Record<string, unknown> = {}, at?: Point): Promise<boolean> {
    const reply = await this.client.send(kind, fields);
    if (!reply.ok) {
      this.showError(reply.error ?? "refused", at);
      if (kind === "configure" || kind === "rename") { this.inspectorError = reply.error ?? null; this.render(); }
      return false;
    }
    this.inspectorError = null;
    this.hideToast(); // an old refusal no longer applies
    return true;
  }

  private explained: { key: string; nodes: Explanation[]; layer?: Explanation } | null = null;

  /** Show the selected layer's nodes under the config form (asked of the kernel once per change). */
  private async explain(name: string): Promise<void> {
    const layer = this.state.layers.find((l) => l.name === name);
    const key = `${name}:${JSON.stringify(layer?.calls)}:${this.state.edges.length}`;
    if (this.explained?.key === key) { renderNodes(this.inspector, this.explained.nodes, this.explained.layer); return; }
    this.explained = { key, nodes: [] };
    const reply = await this.client.send("explain", { name });
    if (!reply.ok || this.explained?.key !== key) return;
    const result = reply.result as { nodes: Explanation[]; layer: Explanation };
    this.explained.nodes = result.nodes;
    this.explained.layer = result.layer;
    if (this.selected.has(name)) renderNodes(this.inspector, this.explained.nodes, this.explained.layer);
  }

  private highlighted: string | null = null;
  private selectedEdge: number | null = null;

  /** Show an edge's KerasTensor and _keras_history, and highlight the layer that made it. */
  private async inspectEdge(index: number): Promise<void> {
    const e = this.state.edges[index];
    if (!e) return;
    this.selected.clear();
    this.selectedEdge = index;
    this.edgeExplanation = null;
    this.highlighted = e.src[0];
    this.render();
    const reply = await this.client.send("explain_edge", { src: e.src, dst: e.dst });
    if (!reply.ok) { this.showError(reply.error ?? "refused"); return; }
    this.edgeExplanation = reply.result as Explanation;
    if (this.selectedEdge === index) renderExplanation(this.inspector, this.edgeExplanation);
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
    this.toast.textContent = message;
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
    const r = this.stage.getBoundingClientRect();
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
    if (preset) this.act("add_input", { shape: preset, x: at.x, y: at.y });
    else this.act("add_layer", { class_name: className, x: at.x, y: at.y });
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
    this.drag = { kind: "new", className, ghost };
    this.moveGhost(ev);
  }

  private moveGhost(ev: PointerEvent): void {
    if (this.drag?.kind !== "new") return;
    this.drag.ghost.style.left = `${ev.clientX + 8}px`;
    this.drag.ghost.style.top = `${ev.clientY + 8}px`;
  }

  private listen(): void {
    const svgEl = this.svgEl;
    svgEl.addEventListener("pointerdown", (ev) => this.onDown(ev));
    window.addEventListener("pointermove", this.onMove);
    window.addEventListener("pointerup", this.onUp);
    svgEl.addEventListener("wheel", (ev) => {
      ev.preventDefault();
      this.view = zoomAt(this.view, this.local(ev), Math.exp(-ev.deltaY * 0.0015));
      this.viewChanged();
    }, { passive: false });
    svgEl.addEventListener("contextmenu", (ev) => this.onMenu(ev));
    this.root.addEventListener("keydown", (ev) => this.onKey(ev));
    // After the event: JupyterLab's notebook handles this focusin too, and takes the focus to
    // its cell if the target has left the page by then (a redraw replaces it).
    this.svgEl.addEventListener("focusin", (ev) => {
      if (this.restoring) return;
      const target = ev.target as Element;
      requestAnimationFrame(() => this.reveal(target));
    });
    this.minimap.addEventListener("pointerdown", (ev) => {
      const box = this.minimap.viewBox.baseVal;
      const r = this.minimap.getBoundingClientRect();
      const w = { x: box.x + ((ev.clientX - r.left) / r.width) * box.width, y: box.y + ((ev.clientY - r.top) / r.height) * box.height };
      const s = this.stage.getBoundingClientRect();
      this.view = { ...this.view, x: s.width / 2 - w.x * this.view.k, y: s.height / 2 - w.y * this.view.k };
      this.render();
    });
    document.addEventListener("pointerdown", (ev) => { if (!this.menu.contains(ev.target as Node)) this.menu.classList.remove("kc-show"); });
  }

  private onDown(ev: PointerEvent): void {
    if (ev.button !== 0) return;
    const p = this.local(ev);
    this.lastPointer = p;
    const w = toWorld(this.view, p);
    const target = ev.target as Element;
    const portKey = target.getAttribute?.("data-port");
    const port = portKey ? this.allPorts.find((q) => q.key === portKey) ?? null : portAt(this.allPorts, w);
    if (port && port.kind === "out") {
      this.drag = { kind: "edge", port };
      ev.preventDefault();
      return;
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
      this.selectedEdge = null;
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
      if (drag.moved) { this.shown.set(drag.name, { x, y }); this.render(); }
    } else if (drag.kind === "edge") {
      this.overlay.setAttribute("d", edgePath(drag.port.at, w));
    } else if (drag.kind === "select") {
      const r = rectFrom(drag.from, w);
      for (const [k, v] of Object.entries({ x: r.x, y: r.y, width: r.w, height: r.h })) drag.rect.setAttribute(k, String(v));
    }
  };

  private readonly onUp = (ev: PointerEvent): void => {
    const drag = this.drag;
    this.drag = null;
    if (!drag) return;
    if (drag.kind === "new") {
      drag.ghost.remove();
      const r = this.stage.getBoundingClientRect();
      if (ev.clientX >= r.left && ev.clientX <= r.right && ev.clientY >= r.top && ev.clientY <= r.bottom) {
        this.lastPointer = this.local(ev);
        this.addLayer(drag.className, toWorld(this.view, this.lastPointer));
      }
      return;
    }
    const p = this.local(ev);
    this.lastPointer = p;
    if (drag.kind === "select") {
      drag.rect.remove();
      const r: Rect = rectFrom(drag.from, toWorld(this.view, p));
      for (const name of boxesIn(this.placed(), r)) this.selected.add(name);
      this.render();
    } else if (drag.kind === "pan") {
      if (!drag.moved && this.selected.size) { this.selected.clear(); this.render(); }
      this.drawMinimap(this.placed());
    } else if (drag.kind === "box" && drag.moved) {
      const at = this.shown.get(drag.name);
      if (at) this.act("move", { name: drag.name, x: Math.round(at.x), y: Math.round(at.y) }).then(() => { this.shown.delete(drag.name); this.render(); });
    } else if (drag.kind === "edge") {
      this.overlay.setAttribute("d", "");
      const target = portAt(this.allPorts.filter((q) => q.kind === "in"), toWorld(this.view, p), 14);
      if (target) this.connect(drag.port, target);
    }
  };

  private connect(src: Port, dst: Port): void {
    const layer = this.state.layers.find((l) => l.name === dst.layer);
    const slot = layer?.slots.kind === "list" ? null : dst.index;
    this.act("connect", { src: [src.layer, src.call, src.index], dst: [dst.layer, dst.call, slot] }, dst.at);
  }

  /** Keys the canvas handles stop here: JupyterLab's own shortcuts (Enter edits a cell, Z, C,
   * V and D act on cells) must not act on them too. */
  private onKey(ev: KeyboardEvent): void {
    if (this.handleKey(ev)) ev.stopPropagation();
  }

  private handleKey(ev: KeyboardEvent): boolean {
    const target = ev.target as HTMLElement;
    if (target.tagName === "INPUT" || target.tagName === "SELECT" || target.tagName === "BUTTON") return false;
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
    if (mod && key === "z") { ev.preventDefault(); this.act(ev.shiftKey ? "redo" : "undo"); return true; }
    if (mod && key === "y") { ev.preventDefault(); this.act("redo"); return true; }
    if (mod && key === "c" && this.selected.size) { this.clipboard = [...this.selected]; this.notice(`Copied ${this.clipboard.length} layer(s)`); return true; }
    if (mod && key === "v" && this.clipboard.length) { ev.preventDefault(); this.act("duplicate", { names: this.clipboard }); return true; }
    if (mod && key === "a") { ev.preventDefault(); this.selected = new Set(this.state.layers.map((l) => l.name)); this.render(); return true; }
    if ((ev.key === "Delete" || ev.key === "Backspace") && this.selected.size) { ev.preventDefault(); this.act("remove", { names: [...this.selected] }); return true; }
    if (ev.key === "F2" && this.selected.size === 1) { (this.inspector.querySelector('[aria-label="layer name"]') as HTMLInputElement | null)?.focus(); return true; }
    if (ev.key === "Escape") { this.armed = null; this.selected.clear(); this.hideToast(); this.render(); return true; }
    return false;
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
    const box = boxAt(this.placed(), toWorld(this.view, p));
    if (!box) return;
    ev.preventDefault();
    this.openMenu(box, p);
  }

  /** A box's context menu (right click, or the Menu key / Shift+F10 on a focused box). */
  private openMenu(box: LayerState, at: Point): void {
    this.selected = new Set([box.name]);
    this.render();
    clear(this.menu);
    const item = (label: string, run: () => void) => {
      const b = el("button", { role: "menuitem", class: "kc-menu-item" }, label);
      b.addEventListener("click", () => { this.menu.classList.remove("kc-show"); run(); });
      b.addEventListener("keydown", (ev) => {
        if (ev.key === "Escape") { ev.stopPropagation(); this.menu.classList.remove("kc-show"); this.focusBox(box.name); }
      });
      this.menu.append(b);
    };
    const anchor = { x: box.x + boxWidth(box), y: box.y };
    if (!box.is_input) item("Call again (shared weights)", () => this.act("add_call", { name: box.name }, anchor));
    if (box.calls.length > 1) item(`Remove call ${box.calls.length - 1}`, () => this.act("remove_call", { name: box.name, call: box.calls.length - 1 }, anchor));
    if (box.inner_layers !== null) item(box.expanded ? "Collapse" : "Expand (show its layers)", () => this.toggle(box.name));
    item("Rename", () => (this.inspector.querySelector('[aria-label="layer name"]') as HTMLInputElement | null)?.focus());
    item("Delete", () => this.act("remove", { names: [box.name] }, anchor));
    this.menu.style.left = `${at.x}px`;
    this.menu.style.top = `${at.y}px`;
    this.menu.classList.add("kc-show");
    (this.menu.firstChild as HTMLElement | null)?.focus();
  }

  private toolbar(): HTMLElement {
    const bar = el("div", { class: "kc-toolbar", role: "toolbar" });
    const button = (label: string, run: () => void) => {
      const b = el("button", { class: "kc-button", "aria-label": label }, label);
      b.addEventListener("click", run);
      bar.append(b);
    };
    button("Undo", () => this.act("undo"));
    button("Redo", () => this.act("redo"));
    button("Arrange", () => this.act("arrange"));
    button("Fit", () => { const r = this.stage.getBoundingClientRect(); this.view = fitView(this.placed(), r.width, r.height); this.render(); });
    if (this.model.get("path")) {
      button("Save", () => this.act("save").then((ok) => ok && this.notice(`Saved to ${this.model.get("path")}`)));
      button("Load", () => this.act("load"));
    }
    button("Depth steps", () => this.play("depth_steps"));
    button("Forward pass", () => this.play("forward_steps"));
    button("Export SVG", () => exportSvg(this.svgEl, this.placed(), this.state.name));
    button("Export PNG", () => exportPng(this.svgEl, this.placed(), this.state.name));
    return bar;
  }

  byName(): Map<string, LayerState> {
    return byName(this.state);
  }
}
