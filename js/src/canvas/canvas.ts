// The drawing area, as wiring: the scene (boxes, ports and edges in SVG) drawn from the state and
// the interaction store (ui.ts) in one place; the pointer's gestures (pointer.ts), the keys
// (keyboard.ts) and the context menus (contextmenus.ts) reach the kernel through the edits
// (edits.ts), and the panels around the drawing are placed here.
import { el, svg } from "../base/dom";
import { IdleWork } from "../base/idle";
import {
  type Flow, type Point, type Port, type Rect, type View, boxHeight, boxWidth, bounds, fitsIn, readableFit, toWorld,
} from "../mirror/geometry";
import { Pointer, type PointerHost } from "../interaction/pointer";
import { Scene, type SceneInput, edgeKey } from "../scene/scene";
import { Inspector } from "../panels/inspector";
import type { QuickAdd } from "../interaction/quickadd";
import { Adding, type AddingHost } from "../interaction/adding";
import { FindBar } from "../interaction/find";
import { drawnEdges, hiddenLayers, innerBox, innerLayers, innerPath, innerRunOf, openInner, shownLayers, splitPath } from "../mirror/folds";
import { markInner } from "../scene/inner";
import { showTop, workRect } from "../scene/camera";
import { ContextMenu } from "../interaction/menu";
import { CanvasMenus, type MenusHost } from "../interaction/contextmenus";
import { Keyboard, type KeyboardHost } from "../interaction/keyboard";
import { Edits, type EditsHost } from "../interaction/edits";
import { CodePanel } from "../panels/codepanel";
import { Legend, ProblemList } from "../panels/legend";
import { GLIDE_MS, Glide } from "../scene/glide";
import { toolbar } from "../panels/toolbar";
import { summary } from "../mirror/mirror";
import { INPUT_PRESETS, type InputPreset, inputPresets, renderPalette } from "../panels/panels";
import { Client, type Model } from "../mirror/protocol";
import { exportHtml, exportPng, exportSvg } from "../panels/exporting";
import { Teacher, sideColumn } from "../teaching/teacher";
import { TrainingPanel, type TrainingView } from "../training/training";
import { Toast } from "../panels/toast";
import { ComparePanel, compareMenu } from "../panels/compare";
import { type ComparisonView, drawGhosts, drawMarks, markEdges, readComparison } from "../scene/comparemarks";
import { MiniMap } from "../scene/minimap";
import { type UiState, UiStore } from "../interaction/ui";
import { PanZoom, StageView } from "./stageview";
import { FocusKeeper } from "../interaction/focus";
import type { EdgeState, GraphState, LayerState, PaletteEntry } from "../mirror/types";

const BIG_GRAPH = 300; // layers: beyond this, draw only near the viewport and preview gestures

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
  private notes: HTMLElement;
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
  private stage: HTMLElement;
  private flowButton: HTMLElement;
  private shown = new Map<string, Point>();
  private fitted = false;
  private readonly glide = new Glide({ shown: this.shown, render: () => this.render(),
    drawMoving: (names) => this.drawMoving(names) });

  constructor(private model: Model, host: HTMLElement) {
    this.client = new Client(model);
    this.edits = new Edits(this.editsHost());
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
    this.ghostLayer = svg("g", { class: "kc-cmp-ghosts" }); // removed layers, while comparing
    this.world.append(this.edgeLayer, this.ghostLayer, this.boxLayer, this.portLayer, this.overlay);
    this.scene = new Scene(this.boxLayer, this.portLayer, this.edgeLayer);
    this.panZoom = new PanZoom(this.svgEl, this.world, () => this.view, () => this.render());
    this.svgEl.append(this.world);
    this.minimap = new MiniMap();
    this.status = el("div", { class: "kc-status", role: "status" });
    this.notes = el("div", { class: "kc-notes" }); // what the import said: not a problem, not red
    this.problemList = new ProblemList((name) => { this.ui.selectBoxes([name]); this.focusBox(name); },
      this.abort.signal);
    this.toast = new Toast(this.abort.signal);
    this.menu = new ContextMenu(this.abort.signal, (open) => this.ui.gesture({ kind: open ? "open-menu" : "close" }));
    // the canvas owns its context menu: JupyterLab's (Restart Kernel, Delete Cell...) stays off it
    this.stage = el("div", { class: "kc-stage", "data-jp-suppress-context-menu": "" });
    this.stage.style.height = `${height}px`;
    this.stageView = new StageView(this.stage, this.ui);
    this.adding = new Adding(this.addingHost());
    this.quick = this.adding.quick;
    this.finder = new FindBar(() => [...this.state.layers, ...innerLayers(this.state.layers)], (name, next) => this.showHit(name, next),
      () => this.root.focus({ preventScroll: true }), this.abort.signal);
    this.start = startHere(() => void this.edits.act("example"));
    // the layout's flow, a control of the stage's own (as a graph editor's view controls): one
    // more toolbar button pushed the Export group into More at a common notebook width
    this.flowButton = el("button", { class: "kc-button kc-flow-toggle", "data-action": "direction", "aria-label": "Left to right",
      "aria-pressed": "false", title: "Left to right: lay the drawing out from left to right, inputs on the left (pressed: press again for top to bottom); saved with the drawing" }, "⇄");
    this.flowButton.addEventListener("click", () => this.turnFlow(), { signal: this.abort.signal });
    this.stage.append(this.svgEl, this.start, this.minimap.root, this.flowButton, this.toast.root, this.menu.root, this.quick.root, this.finder.root);
    this.legend = new Legend();
    this.comparePanel = new ComparePanel(() => void this.client.send("compare", { against: "none" })
      .then((r) => { if (!r.ok) this.showError(r.error ?? "The comparison did not end."); }), this.abort.signal);
    this.comparison = readComparison(model.get("comparison"));
    this.onComparison = () => { this.comparison = readComparison(this.model.get("comparison")); this.render(); };
    model.on("change:comparison", this.onComparison);
    const teachSide = sideColumn(); // the step player beside the drawing, not under it
    const stageRow = el("div", { class: "kc-stage-row" });
    stageRow.append(this.stage, teachSide);
    this.teacher = this.makeTeacher(teachSide);
    this.world.insertBefore(this.teacher.layer, this.overlay);
    this.code = new CodePanel(this.client, () => this.state.name, (m) => this.notice(m));
    main.append(this.legend.root, this.comparePanel.root, stageRow, this.status, this.notes, this.problemList.root, this.code.root);
    this.training = new TrainingPanel(model, this.client, (m) => this.showError(m));
    main.append(this.training.root);
    this.onTraining = () => {
      const view: TrainingView = model.get("training") ?? {};
      this.training.update(view);
      const presets = inputPresets(view.data_inputs);
      if (JSON.stringify(presets) !== JSON.stringify(this.presets)) { // set_data: its Inputs first
        this.presets = presets;
        this.drawPalette();
      }
    };
    model.on("change:training", this.onTraining);
    this.root.append(side, main);
    host.append(this.root);
    this.fitted = this.state.layers.length === 0; // an empty canvas keeps screen = world: drops land where dropped
    this.presets = inputPresets((model.get("training") as TrainingView | undefined)?.data_inputs);
    this.drawPalette = () => renderPalette(paletteHost, this.palette, (c, ev) => this.pointer.pickFromPalette(c, ev), this.presets);
    this.drawPalette();
    this.panel = new Inspector(this.inspector, this.client, this.abort.signal, () => this.root.focus({ preventScroll: true }),
      (root, layer) => this.teacher.internals.attach(root, layer, this.state.version));
    this.pointer = new Pointer(this.pointerHost(), this.abort.signal);
    this.focus = new FocusKeeper({ root: this.root, svg: this.svgEl, stage: this.stage, view: () => this.view,
      setView: (view) => this.ui.setView(view), layers: () => this.placed(),
      portLayer: (key) => this.allPorts.find((p) => p.key === key)?.layer }, this.abort.signal);
    const controls = this.controlsHost();
    this.menus = new CanvasMenus(controls);
    this.keyboard = new Keyboard({ ...controls, menus: this.menus }, this.root, this.abort.signal);
    this.ui.subscribe((s, before) => this.uiChanged(s, before));
    this.listen();
    this.render();
    // The widget is often drawn before it is on the page (zero size): fit the drawing to the view
    // as soon as it has a size, not at the first edit (which would then jump the view).
    this.sized = new ResizeObserver(() => { this.stageView.resized(); this.minimapFor = null; if (!this.fitted) this.render(); });
    this.sized.observe(this.stage);
    // the training chart is drawn on a canvas: it follows a theme switch by being redrawn
    this.themed = new MutationObserver(() => this.training.retheme());
    this.themed.observe(document.body, { attributes: true, attributeFilter: ["data-jp-theme-name", "data-jp-theme-light"] });
  }

  private themed: MutationObserver;
  private quick: QuickAdd;
  private code: CodePanel;
  private legend: Legend;
  private ghostLayer: SVGGElement;
  private comparePanel: ComparePanel;
  /** What the drawing is compared with and its changes (the kernel's `comparison`), or null. */
  private comparison: ComparisonView | null = null;
  private onComparison: () => void;
  private compareMarked: string[] = [];
  private compareShown = false;
  private teacherCovered: Rect[] = []; // where the teaching layer's marks hide shape labels
  private finder: FindBar;
  private pointer: Pointer;
  private focus!: FocusKeeper;
  /** Each edge's drawn polyline (world), by edge index, and every port: for hit tests. */
  private get routes(): (Point[] | null)[] { return this.scene.routes; }
  private get allPorts(): Port[] { return this.scene.allPorts; }
  private adding: Adding;
  /** The stage's size, the world it shows and where the camera goes. */
  private readonly stageView: StageView;
  private readonly panZoom: PanZoom;
  /** The edits any gesture, key or menu asks of the kernel; the keys; the context menus. */
  private readonly edits: Edits;
  private readonly keyboard: Keyboard;
  private readonly menus: CanvasMenus;

  private sized: ResizeObserver;
  private training: TrainingPanel;
  private start: HTMLElement;
  private presets: Record<string, InputPreset> = INPUT_PRESETS; // the palette's Inputs (the data's first)
  private drawPalette: () => void = () => undefined;
  private teacher: Teacher;
  private onTraining: () => void;

  destroy(): void {
    this.abort.abort();
    this.panZoom.stop();
    this.toast.destroy();
    this.pointer.destroy();
    this.sized.disconnect();
    this.themed.disconnect();
    this.code.destroy();
    this.model.off("change:training", this.onTraining);
    this.model.off("change:comparison", this.onComparison);
    this.training.destroy();
    this.teacher.destroy();
    this.client.close();
    this.glide.stop();
    this.idle.cancel();
  }

  setState(state: GraphState): void {
    // when the kernel's change reached this view (benchmarks/bench_canvas.py splits the time
    // of an edit into kernel and drawing with it); one mark, replaced each time
    performance.clearMarks?.("kerascanvas:state");
    performance.mark?.("kerascanvas:state");
    // where each box is seen now (a dropped box is where it was dropped): moves glide from there
    const before = new Map(this.state.layers.map((l) => [l.name, this.pos(l)]));
    this.kernelState = state;
    state = this.withInnerOpen(state); // runs unfolded inside nested models (mirror/folds.ts)
    this.state = state;
    const names = new Set(state.layers.map((l) => l.name));
    const keys = new Set(state.edges.map(edgeKey));
    this.ui.batch(() => {
      this.ui.keepExisting((n) => names.has(n) || this.innerExists(n), (k) => keys.has(k));
      this.ui.setHints(null); // the kernel's answers about slots were for the drawing as it was
    });
    this.code.changed();
    this.teacher.stateChanged(state);
    this.glide.start(state.layers, before);
    const added = state.layers.filter((l) => !before.has(l.name)).map((l) => l.name);
    if (added.length) this.reveal(added);
  }

  /** Boxes that came from elsewhere (a cell's g.add_layer, a Load, an undo) and are not wholly
   * on screen: the view glides to show them. One dropped here is where it was dropped: in view. */
  private reveal(names: string[]): void {
    const stage = this.stageSize();
    if (!this.fitted || !stage.width || this.ui.state.gesture.kind !== "idle") return; // (the first draw fits)
    if (!fitsIn(workRect(this.state.layers, names), this.view, stage.width, stage.height)) this.stageView.follow(this.state.layers, names);
  }

  /** The state as the kernel sent it (this.state: with the runs unfolded inside nested models). */
  private kernelState: GraphState | null = null;

  private withInnerOpen(state: GraphState): GraphState {
    const layers = openInner(state.layers, this.ui.state.innerOpen);
    return layers === state.layers ? state : { ...state, layers };
  }

  /** A run inside a nested model unfolded or folded again: the boxes glide to make room. */
  private innerOpenChanged(): void {
    const before = new Map(this.state.layers.map((l) => [l.name, this.pos(l)]));
    this.state = this.withInnerOpen(this.kernelState ?? this.state);
    this.glide.start(this.state.layers, before);
  }

  /** Whether `path` ("outer/inner") names a layer inside a nested model of the drawing. */
  private innerExists(path: string): boolean {
    const parts = splitPath(path);
    const outer = parts && this.state.layers.find((l) => l.name === parts[0]);
    return !!(outer && parts && innerBox(outer, parts[1]));
  }

  /** A double press on an inner box: a folded run unfolds; a layer of an unfolded run folds it again. */
  private toggleInner(path: string): void {
    const parts = splitPath(path);
    const outer = parts && (this.kernelState ?? this.state).layers.find((l) => l.name === parts[0]);
    if (!parts || !outer?.inner) return;
    const shown = this.state.layers.find((l) => l.name === parts[0]);
    const box = shown && innerBox(shown, parts[1]); // as drawn: an unfolded run's box has no fold
    if (box?.fold) { this.ui.openInnerRun(path, true); return; }
    const head = innerRunOf(outer.inner, parts[1]);
    if (head !== null && this.ui.state.innerOpen.has(innerPath(parts[0], head))) {
      this.ui.openInnerRun(innerPath(parts[0], head), false);
      this.ui.selectBoxes([innerPath(parts[0], head)]);
    }
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
    if (s.innerOpen !== before.innerOpen) this.innerOpenChanged();
    if (s.view !== before.view && !this.drawing) this.viewChanged();
    const wiring = (g: UiState) => g.gesture.kind === "dragging-wire";
    if (s.selected !== before.selected || s.edge !== before.edge || s.highlighted !== before.highlighted
      || s.armed !== before.armed || s.inspectorError !== before.inspectorError || s.refusals !== before.refusals
      || wiring(s) !== wiring(before) || (s.hints !== before.hints && wiring(s))) this.renderSoon();
    else if (s.explanation !== before.explanation) this.showInspector(); // the kernel explained the selected edge
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

  private stageSize(): { width: number; height: number } {
    return this.stageView.measure();
  }

  /** Off-screen boxes the last update left with an older state are redrawn when the page is idle. */
  private readonly idle = new IdleWork((timeLeft) => this.scene.catchUp(timeLeft));

  private draw(): void {
    const layers = this.placed();
    this.drawnBounds = bounds(layers);
    if (!this.fitted && layers.length) {
      const r = this.stageSize();
      if (r.width > 0) { this.view = readableFit(layers, r.width, r.height, 30, this.flow()); this.fitted = true; }
    }
    this.applyView();
    this.scene.update(this.sceneInput());
    markInner(this.boxLayer, this.ui.state.selected); // an inner layer selected (scene/inner.ts)
    this.teacher.decorate();
    this.drawComparison();
    this.training.showInsights((n) => this.scene.decor(n), this.ui.state.selected, this.state.layers.map((l) => l.name));
    if (this.scene.lagging && !this.abort.signal.aborted) this.idle.soon();
    // the panels under the drawing change with the state, not with the selection or a gesture
    if (this.panelsFor !== this.state) {
      this.panelsFor = this.state;
      this.legend.draw(this.state.layers);
      this.status.textContent = summary(this.state);
      this.notes.textContent = (this.state.notes ?? []).join(" ");
      // the flow button says which way the drawing flows
      this.flowButton.setAttribute("aria-pressed", String(this.flow() === "right"));
      this.start.hidden = this.state.layers.length > 0; // an empty canvas says how to begin
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
    const { selected, edge: edgeKeyed, explanation, inspectorError } = this.ui.state;
    this.comparePanel.show(this.comparison, selected.size === 1 ? [...selected][0] : null);
    const current = selected.size === 1 ? this.state.layers.find((l) => selected.has(l.name)) ?? null : null;
    const edge = edgeKeyed !== null && explanation && !selected.size ? { key: edgeKeyed, explanation } : null;
    this.panel.show({ layer: current, entry: this.palette.find((p) => p.class_name === current?.class_name),
      error: inspectorError, refusals: this.ui.state.refusals, edge, edgeCount: this.state.edges.length,
      // a layer inside a nested model ("outer/inner"): shown read-only by the inspector
      path: selected.size === 1 && !current ? [...selected].find((n) => splitPath(n) !== null) ?? null : null,
      onChange: (config) => current && this.edits.act("configure", { name: current.name, config }),
      onRename: (name) => current && name !== current.name && this.edits.act("rename", { name: current.name, new_name: name }),
      onCallSettings: (call, settings) => current && this.edits.act("configure_call", { name: current.name, call, settings }) });
  }

  /** What the scene draws: the state, the boxes on the move, the selection, the gesture. */
  private sceneInput(): SceneInput {
    const big = this.state.layers.length > BIG_GRAPH;
    const ui = this.ui.state;
    const hints = this.pointer.wiring ? ui.hints : null;
    return {
      layers: shownLayers(this.state.layers), edges: drawnEdges(this.state.edges, this.state.layers), shown: this.shown,
      seen: big ? this.stageView.shown(0.5) : null, urgent: this.stageSize().width > 0 ? this.stageView.shown() : null,
      look: {
        selected: ui.selected as Set<string>, highlighted: ui.highlighted ?? this.teacher.highlighted, armed: ui.armed?.key ?? null,
        hint: (port) => !hints ? "" : hints.accept.has(port.key) ? " kc-port-ok" : hints.refuse.has(port.key) ? " kc-port-dim" : "",
        selectedEdge: ui.edge, dropWire: this.pointer.dropWire, k: this.view.k, detail: !big || this.view.k >= 0.5,
      },
      flow: this.flow(),
    };
  }

  /** A frame of a drag or an animation: only `moving` boxes and their edges are drawn again. */
  private drawMoving(moving: Set<string>): void {
    this.scene.move(this.sceneInput(), moving);
    this.teacher.decorate();
    this.drawComparison();
  }

  /** The comparison's marks on the boxes, its ghosts and rewired edges (scene/comparemarks.ts);
   * the shape labels under a mark's pill give way to it. */
  private drawComparison(): void {
    const view = this.comparison;
    if (!view && !this.compareShown) return;
    this.compareShown = view !== null; // (once more after it ends: every mark is taken off)
    const at = new Map(this.placed().map((l) => [l.name, l]));
    const { marked, pills } = drawMarks((n) => this.scene.decor(n, "kc-cmp-decor"), view, this.compareMarked, (n) => at.get(n));
    this.compareMarked = marked;
    drawGhosts(this.ghostLayer, view?.ghosts ?? [], (n) => {
      const l = at.get(n);
      return l ? { x: l.x, y: l.y, w: boxWidth(l), h: boxHeight(l) } : undefined;
    }, this.flow());
    markEdges(this.edgeLayer, new Set(view?.rewired ?? []));
    if (view) this.scene.yieldLabels([...this.teacherCovered, ...pills]);
  }

  private focusBox(name: string): void {
    const box = this.boxLayer.querySelector(`[data-name="${CSS.escape(name)}"]`) as SVGElement | null;
    if (box) box.focus(); else this.root.focus({ preventScroll: true });
  }

  private drawMinimap(layers: LayerState[]): void {
    this.minimap.draw(layers.map((l) => ({ x: l.x, y: l.y, w: boxWidth(l), h: boxHeight(l) })), this.stageSize());
    this.minimapSoon();
  }

  /** The view moved: the minimap (hidden while everything is on screen) and the toast follow. */
  private minimapSoon(): void {
    this.minimap.track(this.view, this.stageSize(), this.drawnBounds, this.state.layers.length);
    this.placeToast();
  }

  private applyView(): void {
    this.panZoom.apply();
    this.placeToast();
  }

  /** Pan and zoom: the minimap, the toast and the picture follow (stageview.ts). */
  private viewChanged(): void {
    this.minimapSoon();
    this.panZoom.moved(this.state.layers.length > BIG_GRAPH);
  }

  // ----- what the keys, the menus and the edits reach (keyboard.ts, contextmenus.ts, edits.ts) ------

  /** The canvas as the edits see it (edits.ts). */
  private editsHost(): EditsHost {
    return {
      client: this.client, ui: this.ui,
      state: () => this.state, placed: () => this.placed(), routes: () => this.routes, ports: () => this.allPorts,
      viewRect: () => this.stageView.kernelRect(), follow: (names) => this.follow(names),
      inputPreset: (className) => this.presets[className],
      showError: (m, at) => this.showError(m, at), hideError: () => this.toast.hide(),
      focusCanvas: () => this.root.focus({ preventScroll: true }), focusEdge: (key) => this.focusEdge(key),
    };
  }

  /** The canvas as the keys and the context menus see it (keyboard.ts, contextmenus.ts). */
  private controlsHost(): MenusHost & Omit<KeyboardHost, "menus"> {
    return {
      ui: this.ui, edits: this.edits, menu: this.menu, stage: this.stage,
      state: () => this.state, placed: () => this.placed(), routes: () => this.routes, ports: () => this.allPorts,
      view: () => this.view, local: (ev) => this.pointer.local(ev), pointer: () => this.pointer,
      cancelGesture: () => this.pointer.cancel("escape"), closeMenu: () => this.menu.hide(), hideError: () => this.toast.hide(),
      glideTo: (view) => this.stageView.glideTo(view),
      showError: (m, at) => this.showError(m, at), toggleInner: (path) => this.toggleInner(path),
      quickAdd: (at: Point, into?: EdgeState) => this.adding.open(at, null, into), find: () => this.openFind(),
      rename: () => (this.inspector.querySelector('[aria-label="layer name"]') as HTMLInputElement | null)?.focus(),
      copied: (count) => this.notice(`Copied ${count} layer(s)`), fit: () => this.fit(),
      focusBox: (name) => this.focusBox(name), focusPort: (key) => this.focusPort(key), focusEdge: (key) => this.focusEdge(key),
      focusCanvas: () => this.root.focus({ preventScroll: true }),
    };
  }

  private focusEdge(key: string): void {
    const g = this.edgeLayer.querySelector(`[data-edge-key="${CSS.escape(key)}"]`) as SVGElement | null;
    if (g) this.focus.quietly(g);
  }

  private portAt(key: string): Point | undefined {
    return this.allPorts.find((p) => p.key === key)?.at;
  }

  /** The canvas as quick-add and the wire hints see it (adding.ts). */
  private addingHost(): AddingHost {
    return {
      ui: this.ui, client: this.client, stage: this.stage,
      state: () => this.state, palette: () => this.palette, view: () => this.view, viewRect: () => this.stageView.kernelRect(),
      ports: () => this.allPorts, routes: () => this.routes,
      closeMenu: () => this.menu.hide(),
      add: (kind, fields, at) => {
        (this.edits.actResult as (k: typeof kind, f: typeof fields, a: Point) => Promise<unknown>)(kind, fields, at)
          .then((name) => this.edits.selectNew(name));
      },
      closed: () => this.root.focus({ preventScroll: true }),
    };
  }

  /** Ctrl+F: find a layer by name; Enter jumps to the next (find.ts). */
  private openFind(): void {
    this.finder.open();
  }

  /** A hit of Find; inside a folded run, typing shows the run's box and Enter unfolds it and
   * goes to the layer. */
  private showHit(name: string, next: boolean): void {
    if (this.teacher.revealNode(name)) return; // the node view shown: its node found there
    if (splitPath(name)) { this.showInner(name); return; }
    const fold = hiddenLayers(this.state.layers).get(name);
    if (fold !== undefined && next) this.edits.act("fold", { name: fold, folded: false }).then((done) => done && this.showFound(name));
    else this.showFound(fold ?? name);
  }

  /** A found layer: selected, and centred at a readable scale where it goes (it may still glide). */
  private showFound(name: string): void {
    const hit = this.state.layers.find((l) => l.name === name);
    if (!hit) return;
    this.ui.selectBoxes([name]);
    this.stageView.centre(hit);
  }

  /** A found inner layer ("outer/inner"): its nested model expanded (and the run that holds it
   * unfolded) where needed, then selected and centred at a readable scale. */
  private showInner(path: string): void {
    const [outer, inner] = splitPath(path)!;
    const layer = this.state.layers.find((l) => l.name === outer);
    if (!layer?.inner) return;
    const go = () => {
      const now = this.state.layers.find((l) => l.name === outer);
      const run = now?.inner ? innerRunOf(now.inner, inner) : null;
      if (run !== null && innerBox(now!, inner)?.hidden) this.ui.openInnerRun(innerPath(outer, run), true);
      this.ui.selectBoxes([path]);
      const box = this.state.layers.find((l) => l.name === outer);
      const b = box && innerBox(box, inner);
      if (!box || !b) return;
      const r = this.stageSize();
      const k = Math.max(this.view.k, 0.8);
      this.stageView.glideTo({ k, x: r.width / 2 - (box.x + b.x + b.w / 2) * k, y: r.height / 2 - (box.y + b.y + b.h / 2) * k });
    };
    if (layer.expanded) go();
    else this.edits.act("expand", { name: outer, open: true }).then((done) => { if (done) go(); });
  }

  /** The view follows the work (edits.ts); a nested model just expanded shows the top of its
   * inside at a readable scale (camera.ts showTop), never all of a tall inside made tiny. */
  private follow(names: Iterable<string>): void {
    const list = [...names];
    const one = list.length === 1 ? this.state.layers.find((l) => l.name === list[0]) : undefined;
    const stage = this.stageSize();
    if (one?.expanded && one.inner && stage.width) {
      this.stageView.glideTo(showTop(this.view, { x: one.x, y: one.y, w: one.w, h: one.h }, stage));
    } else this.stageView.follow(this.state.layers, list);
  }

  /** The teaching views (teacher.ts): the player beside the drawing, outputs, node view. */
  private makeTeacher(side: HTMLElement): Teacher {
    return new Teacher({
      client: this.client, model: this.model, stage: this.stage, drawing: this.svgEl, side,
      state: () => this.state, placed: () => this.placed(),
      edges: () => drawnEdges(this.state.edges, this.state.layers), routes: () => this.routes, ports: () => this.allPorts,
      edgeLabels: () => this.scene.edgeLabels(), yieldLabels: (under) => { this.teacherCovered = under; this.scene.yieldLabels(under); }, selected: () => this.ui.state.selected as Set<string>, render: () => this.render(),
      select: (name) => this.ui.selectBoxes([name]),
      showError: (m) => this.showError(m), focusCanvas: () => this.root.focus({ preventScroll: true }),
      fit: () => this.fit(),
      selectedTensor: () => this.edits.selectedEdge()?.src ?? null,
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

  // ----- gestures (pointer.ts) ---------------------------------------------------------------

  /** The canvas as the pointer gestures see it (pointer.ts): what they read and may change. */
  private pointerHost(): PointerHost {
    return {
      stage: this.stage, svg: this.svgEl, world: this.world, overlay: this.overlay, minimap: this.minimap.root,
      ui: this.ui,
      view: () => this.view,
      flow: () => this.flow(),
      setView: (view) => { this.stageView.camera.stop(); this.ui.setView(view); },
      layers: () => this.placed(),
      edges: () => this.state.edges,
      ports: () => this.allPorts,
      routes: () => this.routes,
      portPoint: (key) => this.portAt(key),
      render: () => this.render(),
      focusCanvas: () => this.root.focus({ preventScroll: true }),
      closeQuickAdd: () => { this.quick.close(); this.menu.hide(); },
      wireFrom: (port) => this.adding.askHints(port),
      toggle: (name) => this.edits.toggle(name),
      pressInner: (path) => { this.ui.selectBoxes([path]); this.render(); },
      toggleInner: (path) => this.toggleInner(path),
      inspectEdge: (index) => { this.edits.inspectEdge(index); },
      pressBox: (selection) => this.ui.selectBoxes(selection),
      pressBlank: () => this.ui.clearEdge(),
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
      perform: (intent, at) => this.edits.perform(intent, at),
      search: (at, wire) => this.adding.open(at, wire),
      dropLayer: (className, at, wire) => this.edits.dropLayer(className, at, wire),
      addLayer: (className, at) => this.edits.addLayer(className, at),
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
    this.edits.act("move", { name, x, y }).then((ok) => {
      const l = this.state.layers.find((q) => q.name === name);
      if (this.shown.get(name) !== undefined && (!ok || !l || (l.x === x && l.y === y))) { this.shown.delete(name); this.render(); }
    });
  }

  private listen(): void {
    // the canvas's menu, never JupyterLab's on top of it (it listens further up: stop here)
    this.stage.addEventListener("contextmenu", (ev) => {
      if (this.quick.root.contains(ev.target as Node) || this.finder.root.contains(ev.target as Node)) { ev.stopPropagation(); return; }
      ev.preventDefault();
      ev.stopPropagation();
      if (this.svgEl.contains(ev.target as Node)) this.menus.openAt(ev);
    }, this.on);
    document.addEventListener("pointerdown", (ev) => { if (!this.menu.contains(ev.target as Node)) this.menu.hide(); }, this.on);
  }

  private focusPort(key: string): void {
    (this.portLayer.querySelector(`[data-port="${CSS.escape(key)}"]`) as SVGElement | null)?.focus();
  }

  private fit(): void {
    this.stageView.fit(this.placed(), this.flow());
  }

  private toolbar(): HTMLElement {
    const path = () => this.model.get("path");
    return toolbar(Boolean(path()), {
      undo: () => this.edits.act("undo"),
      redo: () => this.edits.act("redo"),
      "add-layer": () => this.adding.open(this.pointer.last),
      find: () => this.openFind(),
      arrange: () => this.arrange(),
      fit: () => this.fit(),
      save: () => this.edits.act("save").then((ok) => ok && this.notice(`Saved to ${path()}`)),
      "save-as": () => {
        const name = window.prompt("Save the drawing and its weights as (a file in the notebook's folder):", path() || `${this.state.name}.kc`);
        if (name) void this.edits.act("save", { name }).then((ok) => ok && this.notice(`Saved to ${path()}`));
      },
      load: () => {
        const name = path() ? null : window.prompt("Load a drawing saved in the notebook's folder (its file name):", `${this.state.name}.kc`);
        if (path() || name) void this.edits.act("load", name ? { name } : {}).then((ok) => ok && this.notice(`Loaded ${path()}`));
      },
      "depth-steps": () => this.teacher.play("depth_steps"),
      "forward-pass": () => this.teacher.play("forward_steps"),
      outputs: () => this.teacher.toggleOutputs(),
      "node-view": () => this.teacher.toggleNodeView(),
      "export-svg": () => { this.scene.catchUp(() => Infinity); exportSvg(this.svgEl, this.placed(), this.state.name); },
      "export-png": () => { this.scene.catchUp(() => Infinity); exportPng(this.svgEl, this.placed(), this.state.name); },
      "export-html": () => exportHtml(this.client, (m) => this.showError(m)),
      compare: () => void compareMenu(this.client, (entries) => this.openCompareMenu(entries), (m) => this.notice(m), (m) => this.showError(m)),
    }, this.abort.signal);
  }

  /** "Compare with…"'s choices, in the canvas's menu under the toolbar's Compare button. */
  private openCompareMenu(entries: [string, () => void][]): void {
    const stage = this.stage.getBoundingClientRect();
    const button = this.root.querySelector('[data-action="compare"]')?.getBoundingClientRect();
    const at = { x: button ? Math.max(0, button.left - stage.left) : 8, y: 4 };
    this.menu.show(at, entries, () => this.root.focus({ preventScroll: true }), { w: stage.width, h: stage.height });
  }

  /** How the drawing flows (the kernel's choice, saved with the drawing). */
  flow(): Flow {
    return this.state.direction === "right" ? "right" : "down";
  }

  /** Left to right / top to bottom: the kernel lays the drawing out again flowing the other way
   * (one undo step); the boxes glide there and the view fits it. */
  private turnFlow(): void {
    const direction = this.flow() === "right" ? "down" : "right";
    this.edits.act("set_direction", { direction }).then((ok) => { if (ok) window.setTimeout(() => this.fit(), GLIDE_MS + 60); });
  }

  /** Arrange: the boxes glide to the depth layout, then the view fits it. */
  private arrange(): void {
    this.edits.act("arrange").then((ok) => { if (ok) window.setTimeout(() => this.fit(), GLIDE_MS + 60); });
  }

}

/** What an empty canvas shows in the middle of its stage: how to begin, and a button that draws
 * a small model shaped like the data (the kernel's `example` intent). Never red. */
export function startHere(example: () => void): HTMLElement {
  const box = el("div", { class: "kc-start", role: "note", "aria-label": "Start here" });
  box.append(
    el("div", { class: "kc-start-title" }, "An empty canvas"),
    el("div", {}, "Drag an Input from the palette on the left, then layers below it. Drag from the bottom of a box to the top of the next to wire them. Every box is a real Keras layer."),
  );
  const button = el("button", { class: "kc-button jp-mod-styled jp-mod-accept kc-start-example", type: "button" }, "Start from an example");
  button.addEventListener("click", example);
  box.append(button);
  return box;
}

