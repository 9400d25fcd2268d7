// The drawing as keyed SVG: one <g> per box (by layer name), per box's ports and per edge (by its
// source and slot), made once and changed in place, so an edit, an animation frame or a drag
// touches only what it changes and elements under the pointer or the focus stay the same nodes.
import { svg } from "../base/dom";
import { type Flow, type Point, type Port, type Rect, boxHeight, boxWidth, edgePath, ports, slotKey, sourceKey } from "../mirror/geometry";
import { ALONE, type Fan, type Route, placeLabels, roundedPoints, routeFlowing } from "./router";
import { fanOut } from "./edges";
import { boxShape } from "./boxes";
import { BoxIndex } from "./obstacles";
import { edgeTitle, shapeText } from "../mirror/mirror";
import type { EdgeState, LayerState } from "../mirror/types";
import { portLabels, portName } from "./portlabels";

export const ROUTE_LIMIT = 600; // edges: beyond this, plain curves (routing costs a little per edge)
export const LABEL_SCALE = 1.2; // zoomed in at least this far: slot and port names are written by the ports

/** What the drawing looks like beyond the state: selection, highlights, the gesture under way. */
export interface Look {
  selected: Set<string>;
  highlighted: string | null;
  armed: string | null;            // the output port chosen with the keyboard
  hint: (port: Port) => string;    // the class a slot gets while a wire is dragged ("" if none)
  selectedEdge: string | null;
  dropWire: number;                // the edge index a palette drag would insert into
  k: number;                       // the zoom: decides which port names are written
  detail: boolean;                 // texts and ports drawn (not zoomed far out on a big graph)
}

export interface SceneInput {
  layers: LayerState[];
  edges: EdgeState[];
  shown: Map<string, Point>;       // positions while an animation or a drag moves boxes
  look: Look;
  seen: Rect | null;               // the world area drawn (big graphs); null: every box
  /** The world area on screen: a drawn box elsewhere whose content changed is redrawn later,
   * by catchUp() (an edit at the end of a chain changes every box's depth text, and the user
   * waits only for the boxes in view); null or absent: every change at once. */
  urgent?: Rect | null;
  flow?: Flow;                      // how the drawing flows (the state's direction): "down" if absent
}

export function edgeKey(e: EdgeState): string {
  return `${e.src.join(":")}>${e.dst.join(":")}`;
}

const contentKeys = new WeakMap<LayerState, string>();

/** Everything a box's content depends on but its position: equal keys, nothing to redraw. */
export function contentKey(layer: LayerState): string {
  let key = contentKeys.get(layer);
  if (key === undefined) {
    const { x: _x, y: _y, pinned: _p, ...rest } = layer;
    key = JSON.stringify(rest);
    contentKeys.set(layer, key);
  }
  return key;
}

const filledCache = new WeakMap<EdgeState[], Map<string, number>>();

/** How many edges come into each call ("layer:call"), once per edge list. */
function filledCounts(edges: EdgeState[]): Map<string, number> {
  let counts = filledCache.get(edges);
  if (!counts) {
    counts = new Map();
    for (const e of edges) {
      const k = keysOf(e).call;
      counts.set(k, (counts.get(k) ?? 0) + 1);
    }
    filledCache.set(edges, counts);
  }
  return counts;
}

/** The edges that come into one layer: ports() only counts them per call. */
function edgesInto(layer: LayerState, counts: Map<string, number>): EdgeState[] {
  const out: EdgeState[] = [];
  for (let k = 0; k < Math.max(1, layer.calls.length); k++) {
    const n = counts.get(`${layer.name}:${k}`) ?? 0;
    for (let i = 0; i < n; i++) out.push({ src: ["", 0, 0], dst: [layer.name, k, i], shape: null, dtype: null, built: true });
  }
  return out;
}

interface BoxEntry {
  g: SVGGElement;
  layer: LayerState;               // the state drawn (the same object: nothing changed)
  detail: boolean;
  wanted: { layer: LayerState; detail: boolean } | null; // to draw once catchUp() reaches it (off screen)
  content: string;                 // contentKey + detail, as drawn
  cls: string;
  at: Point;
  ports: SVGGElement;              // this box's ports and their names, translated with the box
  circles: Map<string, { c: SVGCircleElement; cls: string; at: string }>;
  labels: SVGGElement;
  labelsKey: string;
  labelRects: Rect[];              // port names, relative to the box (edge labels keep clear)
}

interface EdgeEntry {
  g: SVGGElement;
  hit: SVGPathElement;
  line: SVGPathElement;
  title: SVGTitleElement;
  label: SVGTextElement | null;
  d: string;
  index: number;
  points: Point[];
  labelRect: Rect | null;
  edge: EdgeState;                 // the state drawn (its shape is the label's text)
}

/** A box's ports and rectangle, kept while what ports() reads is the same: a diff makes every
 * layer a new object when depths change, and most boxes' ports stay where they were. */
interface PortCache {
  slots: LayerState["slots"]; isInput: boolean; calls: number; outputs: number; filled: string;
  x: number; y: number; w: number; h: number; ports: Port[]; rect: Rect;
}

/** An edge's keys, once per edge object (edges stay the same objects across diffs). */
interface EdgeKeys { key: string; lane: string; out: string; in: string; call: string }
const edgeKeys = new WeakMap<EdgeState, EdgeKeys>();
function keysOf(e: EdgeState): EdgeKeys {
  let k = edgeKeys.get(e);
  if (!k) {
    const lane = e.src.join(":"), dst = e.dst.join(":");
    k = { key: `${lane}>${dst}`, lane, out: sourceKey(e.src), in: slotKey(e.dst), call: `${e.dst[0]}:${e.dst[1]}` };
    edgeKeys.set(e, k);
  }
  return k;
}

/** Sets an attribute only when its value changes (a write is a style recalculation). */
function setAttr(node: Element, name: string, value: string): void {
  if (node.getAttribute(name) !== value) node.setAttribute(name, value);
}

/** Makes `old` look like `fresh` (attributes, style and children) while staying the same node:
 * children of the same shape are patched (a box whose depth changed gets one new text), others
 * replaced. */
function morph(old: Element, fresh: Element): void {
  for (const a of [...old.attributes]) if (!fresh.hasAttribute(a.name)) old.removeAttribute(a.name);
  for (const a of [...fresh.attributes]) setAttr(old, a.name, a.value);
  const was = old.childNodes, now = fresh.childNodes;
  let same = was.length === now.length;
  for (let i = 0; same && i < was.length; i++) same = was[i].nodeName === now[i].nodeName;
  if (!same) { old.replaceChildren(...now); return; }
  for (let i = 0; i < was.length; i++) {
    const a = was[i], b = now[i];
    if (a.nodeType === Node.TEXT_NODE) { if (a.nodeValue !== b.nodeValue) a.nodeValue = b.nodeValue; }
    else if (a.nodeType === Node.ELEMENT_NODE) morph(a as Element, b as Element);
  }
}

function overlaps(at: Point, l: LayerState, r: Rect): boolean {
  return at.x + boxWidth(l) >= r.x && at.x <= r.x + r.w && at.y + boxHeight(l) >= r.y && at.y <= r.y + r.h;
}

function sameRects(a: Map<string, Rect>, b: Map<string, Rect>): boolean {
  if (a.size !== b.size) return false;
  for (const [name, r] of b) {
    const q = a.get(name);
    if (!q || q.x !== r.x || q.y !== r.y || q.w !== r.w || q.h !== r.h) return false;
  }
  return true;
}

export class Scene {
  private boxes = new Map<string, BoxEntry>();
  private edges = new Map<string, EdgeEntry>();
  private portCache = new Map<string, PortCache>();
  private routeCache = new Map<string, { a: Point; b: Point; lane: number; out: number; in: number; fan: Fan; r: Route }>();
  private routedAround: Map<string, Rect> | null = null; // the boxes the cached routes avoid
  private behind = new Set<string>(); // boxes drawn with an older state (off screen), for catchUp
  /** Every port of every box (drawn or culled), for hit tests; routes by edge index. */
  allPorts: Port[] = [];
  routes: (Point[] | null)[] = [];
  portLabels: Rect[] = [];
  /** How many elements the last update made, changed and removed (tests and benchmarks read it). */
  touched = { made: 0, changed: 0, removed: 0 };

  constructor(private boxLayer: SVGGElement, private portLayer: SVGGElement, private edgeLayer: SVGGElement) {}

  private pos(input: SceneInput, l: LayerState): Point {
    return input.shown.get(l.name) ?? { x: l.x, y: l.y };
  }

  private portsOf(l: LayerState, at: Point, counts: Map<string, number>): Port[] {
    let filled = "";
    for (let k = 0; k < Math.max(1, l.calls.length); k++) filled += `${counts.get(`${l.name}:${k}`) ?? 0},`;
    const c = this.portCache.get(l.name);
    const w = boxWidth(l), h = boxHeight(l);
    if (c && c.slots === l.slots && c.isInput === l.is_input && c.calls === l.calls.length && c.outputs === l.n_outputs
      && c.filled === filled && c.x === at.x && c.y === at.y && c.w === w && c.h === h) return c.ports;
    const found = ports({ ...l, x: at.x, y: at.y }, edgesInto(l, counts));
    this.portCache.set(l.name, { slots: l.slots, isInput: l.is_input, calls: l.calls.length, outputs: l.n_outputs, filled,
      x: at.x, y: at.y, w, h, ports: found, rect: { x: at.x, y: at.y, w, h } });
    return found;
  }

  /** Where a port is now (its box's cached ports, as portsOf last made them). */
  private portPoint(layer: string, key: string): Point | undefined {
    const found = this.portCache.get(layer)?.ports;
    if (found) for (const p of found) if (p.key === key) return p.at;
    return undefined;
  }

  /** Everything: boxes in view made or changed, boxes gone or out of view removed, edges routed. */
  update(input: SceneInput): void {
    this.touched = { made: 0, changed: 0, removed: 0 };
    const counts = filledCounts(input.edges);
    const seen = input.seen;
    const keep = new Set<string>();
    this.allPorts = [];
    this.portLabels = [];
    let prev: SVGGElement | null = null;
    for (const l of input.layers) {
      const at = this.pos(input, l);
      const found = this.portsOf(l, at, counts);
      for (const p of found) this.allPorts.push(p);
      if (seen && !overlaps(at, l, seen)) continue;
      keep.add(l.name);
      const entry = this.drawBox(l, at, found, input.look, prev, input.urgent ?? null);
      prev = entry.g;
      for (const r of entry.labelRects) this.portLabels.push({ ...r, x: r.x + at.x, y: r.y + at.y });
    }
    for (const [name, entry] of this.boxes) {
      if (keep.has(name)) continue;
      entry.g.remove();
      entry.ports.remove();
      this.boxes.delete(name);
      this.behind.delete(name);
      this.touched.removed++;
    }
    if (this.portCache.size > input.layers.length) {
      const names = new Set(input.layers.map((l) => l.name));
      for (const name of [...this.portCache.keys()]) if (!names.has(name)) this.portCache.delete(name);
    }
    this.drawEdges(input, null);
  }

  /** One frame of a drag or an animation: only the boxes in `moving` and the edges joined to them. */
  move(input: SceneInput, moving: Set<string>): void {
    this.touched = { made: 0, changed: 0, removed: 0 };
    const counts = filledCounts(input.edges);
    const moved = new Map<string, Port[]>();
    for (const l of input.layers) {
      if (!moving.has(l.name)) continue;
      const at = this.pos(input, l);
      moved.set(l.name, this.portsOf(l, at, counts));
      const entry = this.boxes.get(l.name);
      if (entry) this.place(entry, at);
    }
    // the moved boxes' ports replace theirs in the hit-test list
    this.allPorts = this.allPorts.filter((p) => !moved.has(p.layer));
    for (const found of moved.values()) this.allPorts.push(...found);
    this.drawEdges(input, moving);
  }

  private place(entry: BoxEntry, at: Point): void {
    if (entry.at.x === at.x && entry.at.y === at.y) return;
    entry.at = at;
    const t = `translate(${at.x},${at.y})`;
    entry.g.setAttribute("transform", t);
    entry.ports.setAttribute("transform", t);
    this.touched.changed++;
  }

  /** A group kept with a drawn box, moved with it and untouched by its redraws (training
   * insights draw their strip there; `cls` names another such group, as the comparison's marks
   * have), and the box's size; null when the box is not drawn. */
  decor(name: string, cls = "kc-decor"): { g: SVGGElement; width: number; height: number } | null {
    const entry = this.boxes.get(name);
    if (!entry) return null;
    let g = entry.ports.querySelector(`:scope > g.${cls}`) as SVGGElement | null;
    if (!g) { g = svg("g", { class: cls }); entry.ports.append(g); }
    return { g, width: boxWidth(entry.layer), height: boxHeight(entry.layer) };
  }

  /** Where the drawn edges' shape labels are (world): the teaching layer's marks keep clear. */
  edgeLabels(): Rect[] {
    const out: Rect[] = [];
    for (const entry of this.edges.values()) if (entry.labelRect) out.push(entry.labelRect);
    return out;
  }

  /** The shape labels under `under` (world rectangles of marks drawn over the drawing, the
   * teaching layer's output markers where nothing else was free) are hidden, the others shown:
   * the edge's tooltip still says its shape. */
  yieldLabels(under: Rect[]): void {
    for (const entry of this.edges.values()) {
      if (!entry.label) continue;
      const r = entry.labelRect;
      const hidden = !!r && under.some((u) => u.x < r.x + r.w && r.x < u.x + u.w && u.y < r.y + r.h && r.y < u.y + u.h);
      if (hidden !== entry.label.hasAttribute("visibility")) {
        if (hidden) entry.label.setAttribute("visibility", "hidden"); else entry.label.removeAttribute("visibility");
      }
    }
  }

  /** How many drawn boxes still show an older state (catchUp() redraws them). */
  get lagging(): number {
    return this.behind.size;
  }

  /** Redraws the boxes update() left behind, while `timeLeft()` (ms) is positive; true when
   * some are still behind. */
  catchUp(timeLeft: () => number): boolean {
    for (const name of this.behind) {
      if (timeLeft() <= 0) return true;
      this.behind.delete(name);
      const entry = this.boxes.get(name);
      if (!entry?.wanted) continue;
      const g = entry.g.classList;
      this.redraw(entry, entry.wanted.layer, entry.at, entry.wanted.detail);
      this.setLook(entry, g.contains("kc-selected"), g.contains("kc-highlight"));
    }
    return false;
  }

  /** A box's content drawn again for `l`, when what it shows changed (not for a move alone). */
  private redraw(entry: BoxEntry, l: LayerState, at: Point, detail: boolean): void {
    this.behind.delete(l.name);
    entry.layer = l;
    entry.detail = detail;
    entry.wanted = null;
    const content = `${detail}|${contentKey(l)}`;
    if (entry.content === content) { this.place(entry, at); return; }
    morph(entry.g, boxShape({ ...l, x: at.x, y: at.y }, { selected: false, highlighted: false, detail }));
    entry.content = content;
    entry.cls = entry.g.getAttribute("class") ?? "";
    entry.at = at;
    entry.ports.setAttribute("transform", `translate(${at.x},${at.y})`);
    this.touched.changed++;
  }

  /** Selection and highlight are classes on the same <g>: its content stays as it is. */
  private setLook(entry: BoxEntry, selected: boolean, highlighted: boolean): void {
    let want = entry.cls.split(" ").filter((c) => c !== "kc-selected" && c !== "kc-highlight").join(" ");
    if (selected) want += " kc-selected";
    if (highlighted) want += " kc-highlight";
    setAttr(entry.g, "class", want);
  }

  private drawBox(l: LayerState, at: Point, found: Port[], look: Look, prev: SVGGElement | null, urgent: Rect | null): BoxEntry {
    let entry = this.boxes.get(l.name);
    if (!entry) {
      const content = `${look.detail}|${contentKey(l)}`;
      const g = boxShape({ ...l, x: at.x, y: at.y }, { selected: false, highlighted: false, detail: look.detail });
      const portsG = svg("g", { class: "kc-ports", transform: `translate(${at.x},${at.y})` });
      const labels = svg("g");
      portsG.append(labels);
      // in state order among the boxes drawn: the later box is on top, as boxAt finds it
      this.boxLayer.insertBefore(g, prev ? prev.nextSibling : this.boxLayer.firstChild);
      this.portLayer.append(portsG);
      entry = { g, layer: l, detail: look.detail, wanted: null, content, cls: g.getAttribute("class") ?? "", at, ports: portsG,
        circles: new Map(), labels, labelsKey: "", labelRects: [] };
      this.boxes.set(l.name, entry);
      this.touched.made++;
    } else if (entry.layer !== l || entry.detail !== look.detail) {
      if (urgent && !overlaps(at, l, urgent)) {
        entry.wanted = { layer: l, detail: look.detail }; // off screen: catchUp() draws it, unless a later update does first
        this.behind.add(l.name);
        this.place(entry, at);
      } else this.redraw(entry, l, at, look.detail);
    } else this.place(entry, at);
    this.setLook(entry, look.selected.has(l.name), look.highlighted === l.name);
    this.drawPorts(entry, l, at, look.detail ? found : [], look);
    return entry;
  }

  /** The ports of one box, in box coordinates: circles keyed by port, names as one group. */
  private drawPorts(entry: BoxEntry, l: LayerState, at: Point, found: Port[], look: Look): void {
    const keep = new Set<string>();
    for (const port of found) {
      keep.add(port.key);
      const cls = `kc-port kc-port-${port.kind}${look.armed === port.key ? " kc-armed" : ""}${port.kind === "in" ? look.hint(port) : ""}`;
      const rel = `${port.at.x - at.x},${port.at.y - at.y}`;
      let c = entry.circles.get(port.key);
      if (!c) {
        const circle = svg("circle", { r: 6, tabindex: 0, role: "button", "aria-label": port.label, "data-port": port.key });
        circle.append(svg("title"));
        entry.ports.append(circle);
        c = { c: circle, cls: "", at: "" };
        entry.circles.set(port.key, c);
      }
      if (c.cls !== cls) { c.c.setAttribute("class", cls); c.cls = cls; }
      if (c.at !== rel) {
        c.c.setAttribute("cx", String(port.at.x - at.x));
        c.c.setAttribute("cy", String(port.at.y - at.y));
        c.at = rel;
      }
      const title = `${l.name}: ${portName(l, port)}`;
      const t = c.c.firstChild as SVGTitleElement;
      if (t.textContent !== title) t.textContent = title;
    }
    for (const [key, c] of entry.circles) if (!keep.has(key)) { c.c.remove(); entry.circles.delete(key); }
    // zoomed in, or where the name says something (several slots, a second call), it is written
    const telling = l.slots.kind === "args" || l.slots.kind === "list" || l.calls.length > 1 || l.n_outputs > 1;
    const written = telling && look.k >= (l.slots.kind === "args" ? 0.8 : LABEL_SCALE);
    // the names depend on the ports, the slots and the counts of calls and outputs (portName)
    const labelsKey = written ? found.map((p) => `${p.key}@${p.at.x - at.x},${p.at.y - at.y}`).join(";")
      + JSON.stringify(l.slots) + `|${l.calls.length}|${l.n_outputs}` : "";
    if (labelsKey === entry.labelsKey) return;
    entry.labelsKey = labelsKey;
    entry.labels.replaceChildren();
    entry.labelRects = [];
    if (!written) return;
    for (const t of portLabels(l, found, at)) {
      const text = svg("text", { x: t.x, y: t.y, "text-anchor": t.anchor, class: "kc-port-label" }, t.text);
      if (t.full) { // cut to fit: the whole name on hover
        text.append(svg("title", {}, t.full));
        text.style.pointerEvents = "auto";
      }
      entry.labels.append(text);
      entry.labelRects.push(t.rect); // edge labels keep clear of it
    }
  }

  /** Edges routed around the boxes they do not join, labels where they collide with nothing.
   * With `moving`, only the edges joined to those boxes are routed and drawn again. */
  private drawEdges(input: SceneInput, moving: Set<string> | null): void {
    const { edges, look } = input;
    const flow = input.flow ?? "down";
    const rects = new Map<string, Rect>();
    for (const l of input.layers) {
      const c = this.portCache.get(l.name); // every layer's ports were just made or kept (portsOf)
      if (c) rects.set(l.name, c.rect);
      else { const p = this.pos(input, l); rects.set(l.name, { x: p.x, y: p.y, w: boxWidth(l), h: boxHeight(l) }); }
    }
    const routing = edges.length <= ROUTE_LIMIT;
    // routes stay valid while no box has moved or changed size: a selection, a hint, a new
    // edge or a config change reroutes nothing that was routed
    const still = input.shown.size === 0 && this.routedAround !== null && sameRects(this.routedAround, rects);
    if (!still) this.routeCache.clear();
    this.routedAround = input.shown.size === 0 ? rects : null;
    const seen = input.seen;
    const inView = (p: Point) => !seen || (p.x >= seen.x && p.x <= seen.x + seen.w && p.y >= seen.y && p.y <= seen.y + seen.h);
    const lanes = new Map<string, number>();
    const fanned = new Map<string, number>(); // wires counted so far out of each port ("l:n:t"), into each box
    let boxIndex: BoxIndex | null = null; // made at the first edge to route
    // the wires of a port several share leave it in a fan, ordered by where they go
    const fans = routing ? fanOut(edges.map((e) => keysOf(e).out), edges.map((e) => this.portPoint(e.dst[0], keysOf(e).in) ?? null)) : null;
    if (!moving) this.routes = [];
    const keep = new Set<string>();
    const labelling: EdgeEntry[] = [];
    let prev: SVGGElement | null = null;
    for (let index = 0; index < edges.length; index++) {
      const e = edges[index];
      const keys = keysOf(e);
      const key = keys.key;
      const laneKey = keys.lane;
      let base = lanes.get(laneKey);
      if (base === undefined) { base = lanes.size; lanes.set(laneKey, base); }
      // each wire out of one port has a lane of its own: detours of a port's wires run side by side
      const out = fanned.get(laneKey) ?? 0, into = fanned.get(e.dst[0]) ?? 0;
      fanned.set(laneKey, out + 1);
      fanned.set(e.dst[0], into + 1);
      const lane = (base + out) % 4;
      const stagger = { out, in: into };
      const joined = moving !== null && (moving.has(e.src[0]) || moving.has(e.dst[0]));
      if (moving && !joined) continue;
      if (!moving) this.routes.push(null);
      const a = this.portPoint(e.src[0], keys.out);
      const b = this.portPoint(e.dst[0], keys.in);
      if (!a || !b || !(inView(a) || inView(b))) {
        if (moving) this.routes[index] = null;
        continue;
      }
      keep.add(key);
      let r: Route;
      const cached = this.routeCache.get(key);
      const fan = fans?.[index] ?? ALONE;
      if (cached && cached.lane === lane && cached.out === out && cached.in === into && cached.fan.index === fan.index
        && cached.fan.count === fan.count && cached.a.x === a.x && cached.a.y === a.y && cached.b.x === b.x && cached.b.y === b.y) r = cached.r;
      else if (routing) {
        boxIndex ??= new BoxIndex(rects, flow); // every box in the edge's span, however far aside
        r = routeFlowing(flow, a, b, boxIndex.obstacles(a, b, e.src[0], e.dst[0]), lane, [rects.get(e.src[0]), rects.get(e.dst[0])].filter((q): q is Rect => !!q), stagger, rects.get(e.dst[0]) ?? null, fan);
      } else r = { d: edgePath(a, b, flow), points: [a, b] };
      if (input.shown.size === 0) this.routeCache.set(key, { a, b, lane, out, in: into, fan, r });
      // hit tests follow the wire as drawn: a detour's corners are rounded (a curve's points are already)
      this.routes[index] = r.points.length <= 7 ? roundedPoints(r.points) : r.points;
      const cls = ["kc-edge"];
      if (!e.built) cls.push("kc-pending");
      if (look.selectedEdge === key) cls.push("kc-edge-selected");
      if (look.dropWire === index) cls.push("kc-edge-drop");
      let entry = this.edges.get(key);
      if (!entry) {
        const hit = svg("path", { d: r.d, class: "kc-edge-hit" });
        const line = svg("path", { d: r.d, class: "kc-edge-line" });
        const title = svg("title", {}, edgeTitle(e));
        const g = svg("g", { class: cls.join(" "), "data-edge": index, "data-edge-key": key, tabindex: 0, role: "button",
          "aria-label": `edge ${e.src.join(".")} to ${e.dst.join(".")}` });
        g.append(hit, line, title);
        this.edgeLayer.insertBefore(g, prev ? prev.nextSibling : moving ? null : this.edgeLayer.firstChild);
        entry = { g, hit, line, title, label: null, d: r.d, index, points: r.points, labelRect: null, edge: e };
        this.edges.set(key, entry);
        this.touched.made++;
      } else {
        // a lifted wire (being re-wired) keeps its class until the next full update
        const lifted = moving && entry.g.classList.contains("kc-edge-lifted") ? " kc-edge-lifted" : "";
        setAttr(entry.g, "class", cls.join(" ") + lifted);
        if (entry.d !== r.d) {
          entry.hit.setAttribute("d", r.d);
          entry.line.setAttribute("d", r.d);
          entry.d = r.d;
          this.touched.changed++;
        }
        if (entry.index !== index) { entry.g.setAttribute("data-edge", String(index)); entry.index = index; }
        const title = edgeTitle(e);
        if (entry.title.textContent !== title) entry.title.textContent = title;
      }
      entry.points = r.points;
      entry.edge = e;
      prev = entry.g;
      labelling.push(entry);
      void e;
    }
    if (!moving) {
      for (const [key, entry] of this.edges) {
        if (keep.has(key)) continue;
        entry.g.remove();
        this.edges.delete(key);
        this.touched.removed++;
      }
    }
    this.placeEdgeLabels(input, labelling, rects, moving !== null);
  }

  /** Shape labels: every drawn edge's on a full update; on a frame, only the moved edges', around
   * the labels that stay. */
  private placeEdgeLabels(input: SceneInput, drawn: EdgeEntry[], rects: Map<string, Rect>, frame: boolean): void {
    if (!input.look.detail) {
      for (const entry of drawn) { entry.label?.remove(); entry.label = null; entry.labelRect = null; }
      return;
    }
    const texts = drawn.map((entry) => shapeText(entry.edge.shape));
    // a label sits beside its edge, at most its width (and a few px) off it: what lies farther
    // from every drawn edge cannot collide with one (on a big graph, most boxes are far away)
    let reach: Rect | null = null;
    drawn.forEach((entry, i) => {
      const m = texts[i].length * 5.6 + 24;
      for (const p of entry.points) {
        if (!reach) reach = { x: p.x - m, y: p.y - m, w: 2 * m, h: 2 * m };
        const x0 = Math.min(reach.x, p.x - m), y0 = Math.min(reach.y, p.y - m);
        const x1 = Math.max(reach.x + reach.w, p.x + m), y1 = Math.max(reach.y + reach.h, p.y + m);
        reach = { x: x0, y: y0, w: x1 - x0, h: y1 - y0 };
      }
    });
    const near = (r: Rect) => reach !== null && r.x <= reach.x + reach.w && reach.x <= r.x + r.w && r.y <= reach.y + reach.h && reach.y <= r.y + r.h;
    const fixed: Rect[] = [];
    for (const r of rects.values()) if (near(r)) fixed.push(r);
    for (const r of this.portLabels) if (near(r)) fixed.push(r);
    if (frame) {
      const moved = new Set(drawn);
      for (const entry of this.edges.values()) if (!moved.has(entry) && entry.labelRect && near(entry.labelRect)) fixed.push(entry.labelRect);
    }
    const spots = placeLabels(drawn.map((d) => d.points), texts.map((t) => t.length * 5.6), fixed);
    spots.forEach((spot, i) => {
      const entry = drawn[i];
      entry.labelRect = spot ? spot.rect : null;
      if (!spot) { entry.label?.remove(); entry.label = null; return; }
      if (!entry.label) {
        entry.label = svg("text", { class: "kc-edge-label" });
        entry.g.append(entry.label);
      }
      setAttr(entry.label, "x", String(spot.x));
      setAttr(entry.label, "y", String(spot.y));
      if (entry.label.textContent !== texts[i]) entry.label.textContent = texts[i];
    });
  }
}
