// The drawing area: boxes, ports and edges in SVG, and every gesture turned into a kernel intent.
import { clear, el, svg } from "./dom";
import {
  type Point, type Port, type Rect, type View, boxAt, boxHeight, boxWidth, bounds, centreOn, fitsIn, readableFit,
  slotKey, toScreen, toWorld,
} from "./geometry";
import { type Intent, connectIntent, insertIntent } from "./gestures";
import { hostKey, keyCommand } from "./keys";
import { Pointer, type PointerHost } from "./pointer";
import { LABEL_SCALE, Scene, type SceneInput, edgeKey } from "./scene";
import { Inspector } from "./inspector";
import type { QuickAdd } from "./quickadd";
import { Adding, type AddingHost } from "./adding";
import { FindBar } from "./find";
import { drawnEdges, hiddenLayers, shownLayers } from "./folds";
import { type MenuAction, type MenuEntry, ContextMenu, blankMenu, boxMenu, edgeMenu, visibleArea } from "./menu";
import { CodePanel } from "./codepanel";
import { Legend, ProblemList } from "./legend";
import { GLIDE_MS, Glide } from "./glide";
import { toolbar } from "./toolbar";
import { usefulMessage } from "./words";
import { byName, summary } from "./mirror";
import { type Explanation, INPUT_PRESETS, renderPalette } from "./panels";
import { Client, type FieldsArg, type IntentArgs, type IntentFields, type IntentKind, type Model } from "./protocol";
import { exportHtml, exportPng, exportSvg } from "./exporting";
import { Teacher, sideColumn } from "./teacher";
import { TrainingPanel } from "./training";
import { Toast } from "./toast";
import { MiniMap } from "./minimap";
import { type UiState, UiStore } from "./ui";
import { CameraGlide, keepInView, workRect } from "./camera";
import { FocusKeeper } from "./focus";
import { neighbours } from "./edges";
import type { EdgeState, GraphState, LayerState, PaletteEntry } from "./types";

const BIG_GRAPH = 300; // layers: beyond this, draw only near the viewport and preview gestures
const FAILED = Symbol("failed");
/** `act`'s arguments after the kind: the intent's fields, then where to show a refusal. */
type ActArgs<K extends IntentKind> = IntentArgs<K, Point>;

export { portName } from "./scene";

export class CanvasView {
  readonly root: HTMLElement;
  private svgEl: SVGSVGElement;
  private world: SVGGElement;
  private edgeLayer: SVGGElement;
  private boxLayer: SVGGElement;
  private portLayer: SVGGElement;
  private overlay: SVGPathElement;
  private minimap: MiniMap;
  private status: HTMLElement;
  private problemList: ProblemList;
  private inspector: HTMLElement;
  private panel: Inspector;
  private scene: Scene;
  /** Every listener this view adds goes through it: destroy() removes them all at once. */
  private readonly abort = new AbortController();
  private readonly on = { signal: this.abort.signal };
  private toast: Toast;
  private menu: ContextMenu;
  private client: Client;
  private state: GraphState;
  private palette: PaletteEntry[];
  /** The interaction state (ui.ts): selection, armed port, hints, clipboard, camera, gesture. */
  private readonly ui = new UiStore({ x: 20, y: 20, k: 1 });
  private get view(): View { return this.ui.state.view; }
  private set view(view: View) { this.ui.setView(view); }
  private drawn: View = this.view; // the view the SVG was last drawn for
  private readonly camera = new CameraGlide(() => this.view, (view) => this.ui.setView(view));
  private settle = 0;
  private stage: HTMLElement;
  private shown = new Map<string, Point>();
  private fitted = false;
  private readonly glide = new Glide({ shown: this.shown, render: () => this.render(),
    drawMoving: (names) => this.drawMoving(names) });

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
    this.minimap = new MiniMap();
    this.status = el("div", { class: "kc-status", role: "status" });
    this.problemList = new ProblemList((name) => { this.ui.selectBoxes([name]); this.focusBox(name); },
      this.abort.signal);
    this.toast = new Toast(this.abort.signal);
    this.menu = new ContextMenu(this.abort.signal, (open) => this.ui.gesture({ kind: open ? "open-menu" : "close" }));
    // the canvas owns its context menu: JupyterLab's (Restart Kernel, Delete Cell...) stays off it
    this.stage = el("div", { class: "kc-stage", "data-jp-suppress-context-menu": "" });
    this.stage.style.height = `${height}px`;
    this.adding = new Adding(this.addingHost());
    this.quick = this.adding.quick;
    this.finder = new FindBar(() => this.state.layers, (name, next) => this.showHit(name, next),
      () => this.root.focus({ preventScroll: true }), this.abort.signal);
    this.stage.append(this.svgEl, this.minimap.root, this.toast.root, this.menu.root, this.quick.root, this.finder.root);
    this.legend = new Legend();
    const teachSide = sideColumn(); // the step player beside the drawing, not under it
    const stageRow = el("div", { class: "kc-stage-row" });
    stageRow.append(this.stage, teachSide);
    this.teacher = this.makeTeacher(teachSide);
    this.world.insertBefore(this.teacher.layer, this.overlay);
    this.code = new CodePanel(this.client, () => this.state.name, (m) => this.notice(m));
    main.append(this.legend.root, stageRow, this.status, this.problemList.root, this.code.root);
    this.training = new TrainingPanel(model, this.client, (m) => this.showError(m));
    main.append(this.training.root);
    this.onTraining = () => this.training.update(model.get("training") ?? {});
    model.on("change:training", this.onTraining);
    this.root.append(side, main);
    host.append(this.root);
    this.fitted = this.state.layers.length === 0; // an empty canvas keeps screen = world: drops land where dropped
    renderPalette(paletteHost, this.palette, (c, ev) => this.pointer.pickFromPalette(c, ev));
    this.panel = new Inspector(this.inspector, this.client, this.abort.signal, () => this.root.focus({ preventScroll: true }),
      (root, layer) => this.teacher.internals.attach(root, layer, this.state.version));
    this.pointer = new Pointer(this.pointerHost(), this.abort.signal);
    this.focus = new FocusKeeper({ root: this.root, svg: this.svgEl, stage: this.stage, view: () => this.view,
      setView: (view) => this.ui.setView(view), layers: () => this.placed(),
      portLayer: (key) => this.allPorts.find((p) => p.key === key)?.layer }, this.abort.signal);
    this.ui.subscribe((s, before) => this.uiChanged(s, before));
    this.listen();
    this.render();
    // The widget is often drawn before it is on the page (zero size): fit the drawing to the view
    // as soon as it has a size, not at the first edit (which would then jump the view).
    this.sized = new ResizeObserver(() => { this.size = null; this.minimapFor = null; if (!this.fitted) this.render(); });
    this.sized.observe(this.stage);
    // the training chart is drawn on a canvas: it follows a theme switch by being redrawn
    this.themed = new MutationObserver(() => this.training.retheme());
    this.themed.observe(document.body, { attributes: true, attributeFilter: ["data-jp-theme-name", "data-jp-theme-light"] });
  }

  private themed: MutationObserver;
  private quick: QuickAdd;
  private code: CodePanel;
  private legend: Legend;
  private finder: FindBar;
  private pointer: Pointer;
  private focus!: FocusKeeper;
  /** Each edge's drawn polyline (world), by edge index, and every port: for hit tests. */
  private get routes(): (Point[] | null)[] { return this.scene.routes; }
  private get allPorts(): Port[] { return this.scene.allPorts; }
  private adding: Adding;

  private sized: ResizeObserver;
  private training: TrainingPanel;
  private teacher: Teacher;
  private onTraining: () => void;

  destroy(): void {
    this.abort.abort();
    window.clearTimeout(this.settle);
    this.toast.destroy();
    this.pointer.destroy();
    this.sized.disconnect();
    this.themed.disconnect();
    this.code.destroy();
    this.model.off("change:training", this.onTraining);
    this.training.destroy();
    this.teacher.destroy();
    this.client.close();
    this.glide.stop();
    this.idle?.();
  }

  setState(state: GraphState): void {
    // when the kernel's change reached this view (benchmarks/bench_canvas.py splits the time
    // of an edit into kernel and drawing with it); one mark, replaced each time
    performance.clearMarks?.("kerascanvas:state");
    performance.mark?.("kerascanvas:state");
    // where each box is seen now (a dropped box is where it was dropped): moves glide from there
    const before = new Map(this.state.layers.map((l) => [l.name, this.pos(l)]));
    this.state = state;
    const names = new Set(state.layers.map((l) => l.name));
    const keys = new Set(state.edges.map(edgeKey));
    this.ui.batch(() => {
      this.ui.keepExisting((n) => names.has(n), (k) => keys.has(k));
      this.ui.setHints(null); // the kernel's answers about slots were for the drawing as it was
    });
    this.code.changed();
    this.teacher.stateChanged(state);
    this.glide.start(state.layers, before);
  }

  // ----- rendering ---------------------------------------------------------------------------

  private pos(layer: LayerState): Point {
    return this.shown.get(layer.name) ?? { x: layer.x, y: layer.y };
  }

  /** The layers where they are seen (read-only: the state's own objects while nothing moves). */
  private placed(): LayerState[] {
    const layers = shownLayers(this.state.layers); // folded runs: one box
    if (!this.shown.size) return layers;
    return layers.map((l) => ({ ...l, ...this.pos(l) }));
  }

  /** The store changed: the camera moves the picture; the rest is drawn once, after the batch
   * of changes a handler makes (the one place drawing is scheduled from the store). */
  private uiChanged(s: UiState, before: UiState): void {
    if (s.view !== before.view && !this.drawing) this.viewChanged();
    const wiring = (g: UiState) => g.gesture.kind === "dragging-wire";
    if (s.selected !== before.selected || s.edge !== before.edge || s.highlighted !== before.highlighted
      || s.armed !== before.armed || s.inspectorError !== before.inspectorError || s.refusals !== before.refusals
      || wiring(s) !== wiring(before) || (s.hints !== before.hints && wiring(s))) this.renderSoon();
  }

  private soon = false;

  private renderSoon(): void {
    if (this.soon) return;
    this.soon = true;
    queueMicrotask(() => { this.soon = false; if (!this.abort.signal.aborted) this.render(); });
  }

  private drawing = false;

  render(): void {
    const focused = this.focus.focusedKey();
    this.drawing = true;
    try { this.draw(); } finally { this.drawing = false; }
    if (focused) this.focus.refocus(focused);
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
    if (this.idle || !this.scene.lagging || this.abort.signal.aborted) return;
    const slice = (timeRemaining: number) => {
      this.idle = null;
      // 4-8 ms a slice: some progress when the page never idles (timeRemaining() is 0 then), and
      // a key or a pointer move that comes in waits no longer than that
      const end = performance.now() + Math.min(8, Math.max(4, timeRemaining));
      if (this.scene.catchUp(() => end - performance.now())) this.catchUpSoon();
    };
    if (typeof requestIdleCallback === "function") {
      const id = requestIdleCallback((deadline) => slice(deadline.timeRemaining()), { timeout: 100 });
      this.idle = () => cancelIdleCallback(id);
    } else { // no idle callbacks (older Safari): a slice a frame
      const id = window.setTimeout(() => slice(0), 16);
      this.idle = () => window.clearTimeout(id);
    }
  }

  private idle: (() => void) | null = null; // cancels the idle redraw asked for

  private draw(): void {
    const layers = this.placed();
    this.drawnBounds = bounds(layers);
    if (!this.fitted && layers.length) {
      const r = this.stageSize();
      if (r.width > 0) { this.view = readableFit(layers, r.width, r.height); this.fitted = true; }
    }
    this.applyView();
    this.scene.update(this.sceneInput());
    this.teacher.decorate();
    this.training.showInsights((n) => this.scene.decor(n), this.ui.state.selected, this.state.layers.map((l) => l.name));
    this.catchUpSoon();
    // the panels under the drawing change with the state, not with the selection or a gesture
    if (this.panelsFor !== this.state) {
      this.panelsFor = this.state;
      this.legend.draw(this.state.layers);
      this.status.textContent = summary(this.state);
      this.problemList.draw(this.state);
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
    const { selected, edge: edgeKeyed, inspectorError } = this.ui.state;
    const current = selected.size === 1 ? this.state.layers.find((l) => selected.has(l.name)) ?? null : null;
    const edge = edgeKeyed !== null && this.edgeExplanation && !selected.size
      ? { key: edgeKeyed, explanation: this.edgeExplanation } : null;
    this.panel.show({ layer: current, entry: this.palette.find((p) => p.class_name === current?.class_name),
      error: inspectorError, refusals: this.ui.state.refusals, edge, edgeCount: this.state.edges.length,
      onChange: (config) => current && this.act("configure", { name: current.name, config }),
      onRename: (name) => current && name !== current.name && this.act("rename", { name: current.name, new_name: name }),
      onCallSettings: (call, settings) => current && this.act("configure_call", { name: current.name, call, settings }) });
  }

  /** What the scene draws: the state, the boxes on the move, the selection, the gesture. */
  private sceneInput(): SceneInput {
    const big = this.state.layers.length > BIG_GRAPH;
    const ui = this.ui.state;
    const hints = this.pointer.wiring ? ui.hints : null;
    return {
      layers: shownLayers(this.state.layers), edges: drawnEdges(this.state.edges, this.state.layers), shown: this.shown,
      seen: big ? this.visibleRect() : null, urgent: this.stageSize().width > 0 ? this.screenRect() : null,
      look: {
        selected: ui.selected as Set<string>, highlighted: ui.highlighted ?? this.teacher.highlighted, armed: ui.armed?.key ?? null,
        hint: (port) => !hints ? "" : hints.accept.has(port.key) ? " kc-port-ok" : hints.refuse.has(port.key) ? " kc-port-dim" : "",
        selectedEdge: ui.edge, dropWire: this.pointer.dropWire, k: this.view.k, detail: !big || this.view.k >= 0.5,
      },
    };
  }

  /** A frame of a drag or an animation: only `moving` boxes and their edges are drawn again. */
  private drawMoving(moving: Set<string>): void {
    this.scene.move(this.sceneInput(), moving);
    this.teacher.decorate();
  }

  /** The world rectangle on screen, with half a screen of margin on every side. */
  private visibleRect(): { x: number; y: number; w: number; h: number } {
    const r = this.stageSize();
    const tl = toWorld(this.view, { x: -r.width / 2, y: -r.height / 2 });
    return { x: tl.x, y: tl.y, w: (2 * r.width) / this.view.k, h: (2 * r.height) / this.view.k };
  }


  private focusBox(name: string): void {
    const box = this.boxLayer.querySelector(`[data-name="${CSS.escape(name)}"]`) as SVGElement | null;
    if (box) box.focus(); else this.root.focus({ preventScroll: true });
  }

  /** The minimap is for graphs bigger than the view: hidden while everything is on screen. */
  private minimapVisibility(): void {
    const r = this.stageSize();
    this.minimap.show(!(this.state.layers.length < 2 || r.width === 0 || fitsIn(this.drawnBounds, this.view, r.width, r.height)));
  }

  private drawMinimap(layers: LayerState[]): void {
    this.minimapVisibility();
    this.minimap.draw(layers.map((l) => ({ x: l.x, y: l.y, w: boxWidth(l), h: boxHeight(l) })), this.stageSize());
    this.moveMiniView();
  }

  /** Only the viewport's rectangle follows pan and zoom; the boxes are drawn with the state. */
  private moveMiniView(): void {
    this.minimap.follow(this.view, this.stageSize());
  }

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

  // ----- intents -------------------------------------------------------------------------------

  /** Send an intent (its fields as the description names them: checked when this compiles); a
   * refusal is shown next to `at` (a world point), else at the pointer. */
  private async act<K extends IntentKind>(kind: K, ...[fields, at]: ActArgs<K>): Promise<boolean> {
    return (await this.actResult(kind, ...([fields, at] as ActArgs<K>))) !== FAILED;
  }

  /** Send an intent; its result, or FAILED (the refusal is shown). */
  private async actResult<K extends IntentKind>(kind: K, ...[fields, at]: ActArgs<K>): Promise<unknown> {
    const reply = await this.client.send(kind, ...([fields] as FieldsArg<K>));
    if (!reply.ok) {
      this.showError(reply.error ?? "refused", at);
      if (kind === "configure" || kind === "rename" || kind === "configure_call") this.refused(usefulMessage(reply.error ?? "").short);
      return FAILED;
    }
    this.ui.refuse(null);
    this.hideToast(); // an old refusal no longer applies
    return reply.result;
  }

  /** The selected edge: an object like a box (Delete removes it, it has a menu). */
  private selectedEdgeState(): EdgeState | null {
    return this.state.edges.find((e) => edgeKey(e) === this.ui.state.edge) ?? null;
  }

  /** No edge selected, and the producer it highlighted is plain again. */
  private clearEdge(): void {
    this.edgeExplanation = null;
    this.ui.clearEdge();
  }

  /** Select an edge: show its KerasTensor and _keras_history, and highlight the layer that made it. */
  private async inspectEdge(index: number): Promise<void> {
    const e = this.state.edges[index];
    if (!e) return;
    const key = edgeKey(e);
    this.edgeExplanation = null;
    this.ui.selectEdge(e, key);
    this.focusEdge(key);
    const reply = await this.client.send("explain_edge", { src: e.src, dst: e.dst });
    if (!reply.ok) { this.showError(reply.error ?? "refused"); return; }
    if (this.ui.state.edge !== key) return;
    this.edgeExplanation = reply.result as Explanation;
    if (!this.ui.state.selected.size) this.showInspector();
  }

  private focusEdge(key: string): void {
    const g = this.edgeLayer.querySelector(`[data-edge-key="${CSS.escape(key)}"]`) as SVGElement | null;
    if (g) this.focus.quietly(g);
  }

  private removeEdge(e: EdgeState): void {
    this.clearEdge();
    this.act("disconnect", { src: e.src, dst: e.dst }, this.portAt(slotKey(e.dst)));
    this.root.focus({ preventScroll: true });
  }

  private portAt(key: string): Point | undefined {
    return this.allPorts.find((p) => p.key === key)?.at;
  }

  /** The canvas as quick-add and the wire hints see it (adding.ts). */
  private addingHost(): AddingHost {
    return {
      ui: this.ui, client: this.client, stage: this.stage,
      state: () => this.state, palette: () => this.palette, view: () => this.view, viewRect: () => this.viewRect(),
      ports: () => this.allPorts, routes: () => this.routes,
      closeMenu: () => this.menu.hide(),
      add: (kind, fields, at) => {
        (this.actResult as (k: typeof kind, f: typeof fields, a: Point) => Promise<unknown>)(kind, fields, at)
          .then((name) => this.selectNew(name));
      },
      closed: () => this.root.focus({ preventScroll: true }),
    };
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
    this.ui.selectBoxes(names);
    this.root.focus({ preventScroll: true });
    this.follow(names);
  }

  /** Ctrl+F: find a layer by name; Enter jumps to the next (find.ts). */
  private openFind(): void {
    this.finder.open();
  }

  /** A hit of Find; inside a folded run, typing shows the run's box and Enter unfolds it and
   * goes to the layer. */
  private showHit(name: string, next: boolean): void {
    const fold = hiddenLayers(this.state.layers).get(name);
    if (fold !== undefined && next) this.act("fold", { name: fold, folded: false }).then((done) => done && this.showFound(name));
    else this.showFound(fold ?? name);
  }

  /** A found layer: selected, and centred at a readable scale where it goes (it may still glide). */
  private showFound(name: string): void {
    const hit = this.state.layers.find((l) => l.name === name);
    if (!hit) return;
    this.ui.selectBoxes([name]);
    const r = this.stage.getBoundingClientRect();
    this.glideTo(centreOn(hit, this.view, r.width, r.height));
  }

  private edgeExplanation: Explanation | null = null;

  /** The teaching views (teacher.ts): the player beside the drawing, outputs, node view. */
  private makeTeacher(side: HTMLElement): Teacher {
    return new Teacher({
      client: this.client, model: this.model, stage: this.stage, drawing: this.svgEl, side,
      state: () => this.state, placed: () => this.placed(),
      edges: () => drawnEdges(this.state.edges, this.state.layers), routes: () => this.routes, ports: () => this.allPorts,
      selected: () => this.ui.state.selected as Set<string>, render: () => this.render(),
      select: (name) => { this.edgeExplanation = null; this.ui.selectBoxes([name]); },
      showError: (m) => this.showError(m), focusCanvas: () => this.root.focus({ preventScroll: true }),
      fit: () => { this.size = null; this.fit(); },
      selectedTensor: () => this.selectedEdgeState()?.src ?? null,
    });
  }

  private notice(message: string): void {
    this.status.textContent = message;
    window.setTimeout(() => { this.status.textContent = summary(this.state); }, 2500);
  }

  /** A refusal, next to the spot it concerns (else at the pointer): it follows that spot while
   * the view moves. */
  private showError(message: string, at?: Point): void {
    this.toast.show(message, at ?? toWorld(this.view, this.pointer.last), this.view, this.stageSize());
  }

  private hideToast(): void {
    this.toast.hide();
  }

  private placeToast(): void {
    this.toast.place(this.view, this.stageSize());
  }

  /** Fold a nested model's box out into its inner graph, or back into one box. */
  private toggle(name: string): void {
    const layer = this.state.layers.find((l) => l.name === name);
    if (layer?.fold) this.actOn("fold", { name, folded: false }, { x: layer.x, y: layer.y }, [name]); // a folded run opens
    else if (layer) this.actOn("expand", { name, open: !layer.expanded }, { x: layer.x, y: layer.y }, [name]);
  }

  private addLayer(className: string, at: Point): void {
    const preset = INPUT_PRESETS[className];
    const view = this.viewRect();
    const made = preset ? this.actResult("add_input", { shape: preset, x: at.x, y: at.y, view })
      : this.actResult("add_layer", { class_name: className, x: at.x, y: at.y, view });
    made.then((name) => this.selectNew(name)); // a new box is selected, as in every node editor
  }

  // ----- gestures (pointer.ts) ---------------------------------------------------------------

  /** The canvas as the pointer gestures see it (pointer.ts): what they read and may change. */
  private pointerHost(): PointerHost {
    return {
      stage: this.stage, svg: this.svgEl, world: this.world, overlay: this.overlay, minimap: this.minimap.root,
      ui: this.ui,
      view: () => this.view,
      setView: (view) => { this.camera.stop(); this.ui.setView(view); },
      layers: () => this.placed(),
      edges: () => this.state.edges,
      ports: () => this.allPorts,
      routes: () => this.routes,
      portPoint: (key) => this.portAt(key),
      render: () => this.render(),
      focusCanvas: () => this.root.focus({ preventScroll: true }),
      closeQuickAdd: () => { this.quick.close(); this.menu.hide(); },
      wireFrom: (port) => this.adding.askHints(port),
      toggle: (name) => this.toggle(name),
      inspectEdge: (index) => { this.inspectEdge(index); },
      pressBox: (selection) => { this.edgeExplanation = null; this.ui.selectBoxes(selection); },
      pressBlank: () => this.clearEdge(),
      select: (names) => this.ui.addSelectedBoxes(names),
      deselectAll: () => this.ui.clearSelection(),
      panned: () => this.drawMinimap(this.placed()),
      moveBox: (name, at) => { this.shown.set(name, at); this.drawMoving(new Set([name])); },
      cancelBox: (name) => { this.shown.delete(name); this.render(); },
      dropBox: (name) => this.dropBox(name),
      liftEdge: (edge) => {
        const g = this.edgeLayer.querySelector(`[data-edge-key="${CSS.escape(edgeKey(edge))}"]`);
        g?.classList.add("kc-edge-lifted");
      },
      perform: (intent, at) => this.perform(intent, at),
      search: (at, wire) => this.adding.open(at, wire),
      dropLayer: (className, at, wire) => this.dropLayer(className, at, wire),
      addLayer: (className, at) => this.addLayer(className, at),
    };
  }

  /** A dragged box let go: it stays where it was dropped until the state says so (or the move
   * was refused). */
  private dropBox(name: string): void {
    const at = this.shown.get(name);
    if (!at) return;
    const x = Math.round(at.x), y = Math.round(at.y);
    this.shown.set(name, { x, y });
    this.render(); // routes and labels around the box where it was dropped
    this.act("move", { name, x, y }).then((ok) => {
      const l = this.state.layers.find((q) => q.name === name);
      if (this.shown.get(name) !== undefined && (!ok || !l || (l.x === x && l.y === y))) { this.shown.delete(name); this.render(); }
    });
  }

  /** A palette entry dropped at world point `at`: into wire `wire` (an edge index, -1: none),
   * or as a new box there. */
  private dropLayer(className: string, at: Point, wire: number): void {
    const e = wire >= 0 ? this.state.edges[wire] : undefined;
    const pts = wire >= 0 ? this.routes[wire] : null;
    if (e && pts && !INPUT_PRESETS[className]) {
      const { kind, ...fields } = insertIntent(className, e, pts, at);
      this.actResult(kind, fields, at).then((name) => this.selectNew(name));
    } else this.addLayer(className, at);
  }

  private listen(): void {
    // the canvas's menu, never JupyterLab's on top of it (it listens further up: stop here)
    this.stage.addEventListener("contextmenu", (ev) => {
      if (this.quick.root.contains(ev.target as Node) || this.finder.root.contains(ev.target as Node)) { ev.stopPropagation(); return; }
      ev.preventDefault();
      ev.stopPropagation();
      if (this.svgEl.contains(ev.target as Node)) this.onMenu(ev);
    }, this.on);
    this.root.addEventListener("keydown", (ev) => this.onKey(ev), this.on);
    document.addEventListener("pointerdown", (ev) => { if (!this.menu.contains(ev.target as Node)) this.menu.hide(); }, this.on);
  }

  private connect(src: Port, dst: Port): void {
    this.perform(connectIntent(src, dst, this.state.layers), dst.at);
  }

  /** Send a gesture's intent; a refusal is shown next to `at`. */
  private perform(intent: Intent, at?: Point): Promise<boolean> {
    const { kind, ...fields } = intent;
    return this.act(kind, fields, at);
  }

  /** Keys the canvas handles stop here (stopPropagation + preventDefault): JupyterLab's own
   * shortcuts (its keybindings listen on the document; Enter edits a cell, A, B, Z, C, V and D act
   * on cells) must not act on them too. Esc ends the canvas's own modes first; only when it has
   * none left does Esc go on to the host. */
  private onKey(ev: KeyboardEvent): void {
    const target = ev.target as HTMLElement;
    const field = ["INPUT", "SELECT", "BUTTON", "TEXTAREA"].includes(target.tagName);
    const k = { key: ev.key, ctrl: ev.ctrlKey || ev.metaKey, shift: ev.shiftKey, alt: ev.altKey };
    if (this.handleKey(ev, field)) { ev.stopPropagation(); ev.preventDefault(); }
    else if (hostKey(k, field)) ev.stopPropagation();
  }

  private handleKey(ev: KeyboardEvent, field: boolean): boolean {
    const target = ev.target as HTMLElement;
    const attr = (name: string) => target.getAttribute?.(name) ?? null;
    const edge = attr("data-edge");
    if (ev.key === "Escape" && !field) return this.escape();
    const command = keyCommand({ key: ev.key, ctrl: ev.ctrlKey || ev.metaKey, shift: ev.shiftKey, alt: ev.altKey }, {
      port: attr("data-port"), toggle: attr("data-toggle"), edge: edge === null ? null : Number(edge), box: attr("data-name"),
      field,
    }, { selected: [...this.ui.state.selected], edge: this.selectedEdgeState(), clipboard: this.ui.state.clipboard.length, pointerInside: this.pointer.inside });
    if (!command) return false;
    switch (command.kind) {
      case "port": {
        const port = this.allPorts.find((p) => p.key === command.port);
        const armed = this.ui.state.armed;
        if (port?.kind === "out") { this.ui.arm(port); this.focusPort(port.key); }
        else if (port && armed) { this.ui.arm(null); this.focusPort(port.key); this.connect(armed, port); }
        ev.preventDefault();
        break;
      }
      case "toggle": ev.preventDefault(); this.toggle(command.name); break;
      case "inspect-edge": this.inspectEdge(command.index); break;
      case "edge-menu": {
        const e = this.state.edges[command.index];
        const pts = this.routes[command.index];
        if (e && pts) { ev.preventDefault(); this.openEdgeMenu(e, toScreen(this.view, pts[Math.floor(pts.length / 2)])); }
        break;
      }
      case "box-menu": {
        const layer = this.placed().find((l) => l.name === command.name);
        if (layer) { ev.preventDefault(); this.openMenu(layer, toScreen(this.view, { x: layer.x + 20, y: layer.y + 20 })); }
        break;
      }
      case "select-box":
        if (command.add) this.ui.addSelectedBoxes([command.name]); else this.ui.selectBoxes([command.name]);
        this.focusBox(command.name);
        break;
      case "find": ev.preventDefault(); this.openFind(); break;
      case "edit":
        ev.preventDefault();
        if (command.intent.kind === "disconnect") this.removeEdge(this.selectedEdgeState()!); // it also clears the selection
        else if (command.intent.kind === "remove") {
          const gone = command.intent.names;
          const keep = gone.flatMap((n) => neighbours(this.state.edges, n)).filter((n) => !gone.includes(n));
          this.perform(command.intent).then((ok) => { if (ok) this.follow(keep); });
        } else this.perform(command.intent);
        break;
      case "copy": this.ui.copy(this.ui.state.selected); this.notice(`Copied ${this.ui.state.clipboard.length} layer(s)`); break;
      case "paste": ev.preventDefault(); this.paste(); break;
      case "select-all": this.ui.selectBoxes(this.state.layers.map((l) => l.name)); break;
      case "quick-add": ev.preventDefault(); this.adding.open(this.pointer.last); break;
      case "rename": (this.inspector.querySelector('[aria-label="layer name"]') as HTMLInputElement | null)?.focus(); break;
      case "nudge": this.nudge(command.dx, command.dy); break;
      case "pan": this.glideTo({ ...this.view, x: this.view.x + command.dx, y: this.view.y + command.dy }); break;
      case "escape": return this.escape();
    }
    return true;
  }

  /** A configure or rename refused: the inspector shows the refusal and, in every field, the
   * kernel's value again (not what was typed), however often the same refusal comes. */
  private refused(message: string): void {
    this.ui.refuse(message);
  }

  /** The camera glides to `view`. */
  private glideTo(view: View): void {
    this.camera.to(view);
  }

  /** The view follows the work: the boxes `names` (or the folded run's box that holds one) are
   * brought into view, gliding, where the state now puts them. */
  private follow(names: Iterable<string>): void {
    const r = workRect(this.state.layers, names);
    const stage = this.stageSize();
    if (!r || !stage.width) return;
    this.glideTo(keepInView(this.view, r, stage));
  }

  /** Send an intent about box `name` and keep, once done, `keep` (the box itself by default) in view. */
  private actOn<K extends IntentKind>(kind: K, fields: IntentFields<K>, at: Point | undefined, keep: string[]): void {
    (this.act as (k: K, f: IntentFields<K>, a?: Point) => Promise<boolean>)(kind, fields, at)
      .then((ok) => { if (ok) this.follow(keep); });
  }

  /** Esc: a gesture under way is cancelled (a wire being drawn goes, a dragged box goes back),
   * else a menu closes, else the armed port and the selection go, else a refusal shown; false
   * when none of these was there (the host's Esc then). */
  private escape(): boolean {
    if (this.pointer.cancel("escape")) return true;
    if (this.ui.state.gesture.kind === "menu") { this.menu.hide(); return true; }
    if (this.ui.escape()) { this.edgeExplanation = null; this.hideToast(); return true; }
    return this.toast.hide();
  }

  /** Arrows: the selected boxes move together, each one move the kernel keeps. */
  private nudge(dx: number, dy: number): void {
    for (const l of this.placed()) {
      if (this.ui.state.selected.has(l.name)) this.act("move", { name: l.name, x: Math.round(l.x + dx), y: Math.round(l.y + dy) });
    }
  }

  /** Ctrl+V: copies of the copied boxes, together in free space in view, and selected. */
  private paste(): void {
    this.actResult("duplicate", { names: [...this.ui.state.clipboard], view: this.viewRect() }).then((mapping) => this.selectNew(mapping));
  }


  private focusPort(key: string): void {
    (this.portLayer.querySelector(`[data-port="${CSS.escape(key)}"]`) as SVGElement | null)?.focus();
  }

  private onMenu(ev: MouseEvent): void {
    const p = this.pointer.local(ev);
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

  /** Shows a menu's entries (menu.ts), each run by the canvas, kept inside the visible stage. */
  private showMenu(at: Point, entries: MenuEntry[], run: Partial<Record<MenuAction, () => void>>, back: () => void): void {
    const area = visibleArea(this.stage.getBoundingClientRect(), { width: window.innerWidth, height: window.innerHeight });
    this.menu.show(at, entries.map((e) => [e.label, () => run[e.action]?.()]), back, area);
  }

  /** A box's context menu (right click, or the Menu key / Shift+F10 on a focused box). */
  private openMenu(box: LayerState, at: Point): void {
    this.ui.selectBoxes([box.name]);
    const anchor = { x: box.x + boxWidth(box), y: box.y };
    const name = box.name;
    this.showMenu(at, boxMenu(box, this.state.edges), {
      "call-again": () => this.act("add_call", { name }, anchor),
      "remove-call": () => this.act("remove_call", { name, call: box.calls.length - 1 }, anchor),
      toggle: () => this.toggle(name),
      fold: () => this.actOn("fold", { name, folded: true }, anchor, [name]),
      unfold: () => this.actOn("fold", { name, folded: false }, anchor, [name]),
      rename: () => (this.inspector.querySelector('[aria-label="layer name"]') as HTMLInputElement | null)?.focus(),
      copy: () => { this.ui.copy([name]); this.notice("Copied 1 layer(s)"); },
      delete: () => this.actOn("remove", { names: [name] }, anchor, neighbours(this.state.edges, name)),
      "delete-bridged": () => this.actOn("remove", { names: [name], bridge: true }, anchor, neighbours(this.state.edges, name)),
    }, () => this.focusBox(name));
  }

  /** An edge's context menu: delete it, insert a layer into it, show its tensor. */
  private openEdgeMenu(e: EdgeState, at: Point): void {
    const index = this.state.edges.indexOf(e);
    this.inspectEdge(index);
    this.showMenu(at, edgeMenu(), {
      "delete-edge": () => this.removeEdge(e),
      "insert-into-edge": () => this.adding.open(at, null, e),
      "show-tensor": () => this.inspectEdge(index),
    }, () => this.focusEdge(edgeKey(e)));
  }

  /** Empty space: add a layer there, paste, fit, find. */
  private openBlankMenu(at: Point): void {
    this.showMenu(at, blankMenu(this.ui.state.clipboard.length > 0, this.state.layers), {
      "add-here": () => this.adding.open(at),
      paste: () => this.paste(),
      fit: () => this.fit(),
      find: () => this.openFind(),
      "fold-all": () => this.act("fold_all", { folded: true }),
      "unfold-all": () => this.act("fold_all", { folded: false }),
    }, () => this.root.focus({ preventScroll: true }));
  }

  private fit(): void {
    const r = this.stage.getBoundingClientRect();
    this.view = readableFit(this.placed(), r.width, r.height);
  }

  private toolbar(): HTMLElement {
    const path = () => this.model.get("path");
    return toolbar(Boolean(path()), {
      undo: () => this.act("undo"),
      redo: () => this.act("redo"),
      "add-layer": () => this.adding.open(this.pointer.last),
      find: () => this.openFind(),
      arrange: () => this.arrange(),
      fit: () => this.fit(),
      save: () => this.act("save").then((ok) => ok && this.notice(`Saved to ${path()}`)),
      load: () => this.act("load"),
      "depth-steps": () => this.teacher.play("depth_steps"),
      "forward-pass": () => this.teacher.play("forward_steps"),
      outputs: () => this.teacher.toggleOutputs(),
      "node-view": () => this.teacher.toggleNodeView(),
      "export-svg": () => { this.scene.catchUp(() => Infinity); exportSvg(this.svgEl, this.placed(), this.state.name); },
      "export-png": () => { this.scene.catchUp(() => Infinity); exportPng(this.svgEl, this.placed(), this.state.name); },
      "export-html": () => exportHtml(this.client, (m) => this.showError(m)),
    }, this.abort.signal);
  }

  /** Arrange: the boxes glide to the depth layout, then the view fits it. */
  private arrange(): void {
    this.act("arrange").then((ok) => { if (ok) window.setTimeout(() => this.fit(), GLIDE_MS + 60); });
  }


  byName(): Map<string, LayerState> {
    return byName(this.state);
  }
}
