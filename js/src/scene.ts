// The drawing as keyed SVG: one <g> per box (by layer name), per box's ports and per edge (by its
// source and slot), made once and changed in place, so an edit, an animation frame or a drag
// touches only what it changes and elements under the pointer or the focus stay the same nodes.
import { svg } from "./dom";
import { type Point, type Port, type Rect, boxHeight, boxWidth, edgePath, ports } from "./geometry";
import { type Route, placeLabels, route } from "./router";
import { boxShape } from "./boxes";
import { BoxIndex } from "./obstacles";
import { edgeTitle, shapeText } from "./mirror";
import type { EdgeState, LayerState } from "./types";

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
}

/** A port's name for people: the slot's argument name (query, value, key), its list position,
 * or the output's number, and the call when there is more than one. */
export function portName(layer: LayerState, port: { kind: "in" | "out"; call: number; index: number }): string {
  const call = layer.calls.length > 1 || port.call > 0 ? ` · call ${port.call}` : "";
  if (port.kind === "out") return (layer.n_outputs > 1 ? `output ${port.index}` : "output") + call;
  const s = layer.slots;
  if (s.kind === "args") return (s.names[port.index] ?? `argument ${port.index}`) + call;
  if (s.kind === "list") return `${s.names[0] ?? "inputs"}[${port.index}]` + call;
  return (s.names[0] ?? "inputs") + call;
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
      const k = `${e.dst[0]}:${e.dst[1]}`;
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
}

interface PortCache { layer: LayerState; filled: string; x: number; y: number; ports: Port[] }

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
  private routeCache = new Map<string, { a: Point; b: Point; lane: number; r: Route }>();
  private routedAround: Map<string, Rect> | null = null; // the boxes the cached routes avoid
  /** Every port of every box (drawn or culled), for hit tests; routes by edge index. */
  allPorts: Port[] = [];
  routes: (Point[] | null)[] = [];
  portLabels: Rect[] = [];
  /** How many elements the last update made, changed and removed (tests and benchmarks read it). */
  touched = { made: 0, changed: 0, removed: 0 };

  constructor(private boxLayer: SVGGElement, private portLayer: SVGGElement, private edgeLayer: SVGGElement) {}

  /** The drawn <g> of a box, if it is drawn. */
  boxElement(name: string): SVGGElement | null {
    return this.boxes.get(name)?.g ?? null;
  }

  private pos(input: SceneInput, l: LayerState): Point {
    return input.shown.get(l.name) ?? { x: l.x, y: l.y };
  }

  private portsOf(l: LayerState, at: Point, counts: Map<string, number>): Port[] {
    let filled = "";
    for (let k = 0; k < Math.max(1, l.calls.length); k++) filled += `${counts.get(`${l.name}:${k}`) ?? 0},`;
    const cached = this.portCache.get(l.name);
    if (cached && cached.layer === l && cached.filled === filled && cached.x === at.x && cached.y === at.y) return cached.ports;
    const found = ports({ ...l, x: at.x, y: at.y }, edgesInto(l, counts));
    this.portCache.set(l.name, { layer: l, filled, x: at.x, y: at.y, ports: found });
    return found;
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
      const visible = !seen || (at.x + boxWidth(l) >= seen.x && at.x <= seen.x + seen.w
        && at.y + boxHeight(l) >= seen.y && at.y <= seen.y + seen.h);
      if (!visible) continue;
      keep.add(l.name);
      const entry = this.drawBox(l, at, found, input.look, prev);
      prev = entry.g;
      for (const r of entry.labelRects) this.portLabels.push({ ...r, x: r.x + at.x, y: r.y + at.y });
    }
    for (const [name, entry] of this.boxes) {
      if (keep.has(name)) continue;
      entry.g.remove();
      entry.ports.remove();
      this.boxes.delete(name);
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

  private drawBox(l: LayerState, at: Point, found: Port[], look: Look, prev: SVGGElement | null): BoxEntry {
    const content = `${look.detail}|${contentKey(l)}`;
    const cls = ["kc-box"];
    if (look.selected.has(l.name)) cls.push("kc-selected");
    if (look.highlighted === l.name) cls.push("kc-highlight");
    let entry = this.boxes.get(l.name);
    if (!entry) {
      const g = boxShape({ ...l, x: at.x, y: at.y }, { selected: false, highlighted: false, detail: look.detail });
      const portsG = svg("g", { class: "kc-ports", transform: `translate(${at.x},${at.y})` });
      const labels = svg("g");
      portsG.append(labels);
      // in state order among the boxes drawn: the later box is on top, as boxAt finds it
      this.boxLayer.insertBefore(g, prev ? prev.nextSibling : this.boxLayer.firstChild);
      this.portLayer.append(portsG);
      entry = { g, content, cls: g.getAttribute("class") ?? "", at, ports: portsG, circles: new Map(), labels, labelsKey: "", labelRects: [] };
      this.boxes.set(l.name, entry);
      this.touched.made++;
    } else if (entry.content !== content) {
      morph(entry.g, boxShape({ ...l, x: at.x, y: at.y }, { selected: false, highlighted: false, detail: look.detail }));
      entry.content = content;
      entry.cls = entry.g.getAttribute("class") ?? "";
      entry.at = at;
      entry.ports.setAttribute("transform", `translate(${at.x},${at.y})`);
      this.touched.changed++;
    } else this.place(entry, at);
    // selection and highlight are classes on the same <g>: its content stays as it is
    const base = entry.cls.split(" ").filter((c) => c !== "kc-selected" && c !== "kc-highlight");
    const want = [...base, ...cls.slice(1)].join(" ");
    setAttr(entry.g, "class", want);
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
    const labelsKey = written ? found.map((p) => `${p.key}@${p.at.x - at.x},${p.at.y - at.y}`).join(";") + contentKey(l) : "";
    if (labelsKey === entry.labelsKey) return;
    entry.labelsKey = labelsKey;
    entry.labels.replaceChildren();
    entry.labelRects = [];
    if (!written) return;
    for (const port of found) {
      // written short where only the call tells ports apart ("call 1"); the tooltip says it all
      const plain = port.kind === "in" ? l.slots.kind === "single" : l.n_outputs === 1;
      if (plain && l.calls.length <= 1) continue;
      const x = port.at.x - at.x;
      const y = port.kind === "in" ? port.at.y - at.y - 9 : port.at.y - at.y + 17;
      const text = plain ? `call ${port.call}` : portName(l, port);
      entry.labels.append(svg("text", { x, y, "text-anchor": "middle", class: "kc-port-label" }, text));
      const w = text.length * 5; // edge labels keep clear of it
      entry.labelRects.push({ x: x - w / 2, y: y - 9, w, h: 11 });
    }
  }

  /** Edges routed around the boxes they do not join, labels where they collide with nothing.
   * With `moving`, only the edges joined to those boxes are routed and drawn again. */
  private drawEdges(input: SceneInput, moving: Set<string> | null): void {
    const { edges, look } = input;
    const at = new Map(this.allPorts.map((p) => [p.key, p.at]));
    const rects = new Map<string, Rect>();
    for (const l of input.layers) {
      const p = this.pos(input, l);
      rects.set(l.name, { x: p.x, y: p.y, w: boxWidth(l), h: boxHeight(l) });
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
    let boxIndex: BoxIndex | null = null; // made at the first edge to route
    if (!moving) this.routes = [];
    const keep = new Set<string>();
    const labelling: EdgeEntry[] = [];
    let prev: SVGGElement | null = null;
    for (const [index, e] of edges.entries()) {
      const key = edgeKey(e);
      const laneKey = e.src.join(":");
      const lane = lanes.get(laneKey) ?? lanes.size % 4;
      lanes.set(laneKey, lane);
      const joined = moving !== null && (moving.has(e.src[0]) || moving.has(e.dst[0]));
      if (moving && !joined) continue;
      if (!moving) this.routes.push(null);
      const a = at.get(`out:${e.src.join(":")}`);
      const b = at.get(`in:${e.dst.join(":")}`);
      if (!a || !b || !(inView(a) || inView(b))) {
        if (moving) this.routes[index] = null;
        continue;
      }
      keep.add(key);
      let r: Route;
      const cached = this.routeCache.get(key);
      if (cached && cached.lane === lane && cached.a.x === a.x && cached.a.y === a.y && cached.b.x === b.x && cached.b.y === b.y) r = cached.r;
      else if (routing) {
        boxIndex ??= new BoxIndex(rects); // every box in the edge's span, however far aside
        r = route(a, b, boxIndex.obstacles(a, b, e.src[0], e.dst[0]), lane, [rects.get(e.src[0]), rects.get(e.dst[0])].filter((q): q is Rect => !!q));
      } else r = { d: edgePath(a, b), points: [a, b] };
      if (input.shown.size === 0) this.routeCache.set(key, { a, b, lane, r });
      this.routes[index] = r.points;
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
        entry = { g, hit, line, title, label: null, d: r.d, index, points: r.points, labelRect: null };
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
    const fixed: Rect[] = [...rects.values(), ...this.portLabels];
    if (frame) {
      const moved = new Set(drawn);
      for (const entry of this.edges.values()) if (!moved.has(entry) && entry.labelRect) fixed.push(entry.labelRect);
    }
    const byKey = new Map(input.edges.map((e) => [edgeKey(e), e]));
    const texts = drawn.map((entry) => shapeText(byKey.get(entry.g.getAttribute("data-edge-key") ?? "")?.shape ?? null));
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
