// Folded runs of repeated blocks (kerascanvas/geometry/folds.py): a folded run is its first layer's box,
// drawn as a stack of cards labelled "×N"; the run's other layers are not drawn, the edges
// between them neither, and edges into or out of the run attach to that box. Pure mapping (state
// in, what is drawn out) plus the box's SVG, so the canvas and the scene only call in here.
import { svg } from "../base/dom";
import { boxHeight, boxWidth, fitText } from "./geometry";
import type { EdgeState, InnerBox, InnerView, LayerState, Link, Target, Triple } from "./types";

/** An edge as drawn: one drawn to or from a folded run's box says which edge it stands for. */
export interface DrawnEdge extends EdgeState { real?: { src: Triple; dst: Target } }

const hiddenCache = new WeakMap<LayerState[], Map<string, string>>();
const shownCache = new WeakMap<LayerState[], LayerState[]>();
const edgesCache = new WeakMap<EdgeState[], { layers: LayerState[]; drawn: DrawnEdge[] }>();

/** The layers folded runs hide, each with the first layer of its run (whose box stands for it). */
export function hiddenLayers(layers: LayerState[]): Map<string, string> {
  let hidden = hiddenCache.get(layers);
  if (hidden) return hidden;
  hidden = new Map();
  const folded = new Set<string>();
  for (const l of layers) if (l.fold) folded.add(l.name);
  if (folded.size) {
    for (const l of layers) if (l.run && l.run !== l.name && folded.has(l.run)) hidden.set(l.name, l.run);
  }
  hiddenCache.set(layers, hidden);
  return hidden;
}

/** The layers drawn as boxes: all but those folded runs hide (the same array when none). */
export function shownLayers(layers: LayerState[]): LayerState[] {
  let shown = shownCache.get(layers);
  if (shown) return shown;
  const hidden = hiddenLayers(layers);
  shown = hidden.size ? layers.filter((l) => !hidden.has(l.name)) : layers;
  shownCache.set(layers, shown);
  return shown;
}

function key(e: EdgeState): string {
  return `${e.src.join(":")}>${e.dst.join(":")}`; // as scene.ts's edgeKey
}

/**
 * The edges as drawn: the state's own, in order (an edge's index stays its index in the state;
 * those that touch a hidden layer find no port and are not drawn), then one wire per distinct
 * source and slot into or out of a folded run, from or to its box's first port. Wires inside a
 * run are left out.
 */
export function drawnEdges(edges: EdgeState[], layers: LayerState[]): DrawnEdge[] {
  const hidden = hiddenLayers(layers);
  if (!hidden.size) return edges;
  const cached = edgesCache.get(edges);
  if (cached && cached.layers === layers) return cached.drawn;
  const seen = new Set(edges.map(key));
  const drawn: DrawnEdge[] = [...edges];
  for (const e of edges) {
    const from = hidden.get(e.src[0]), to = hidden.get(e.dst[0]);
    if (from === undefined && to === undefined) continue;
    const src: Triple = from === undefined ? e.src : [from, 0, 0];
    const dst: Target = to === undefined ? e.dst : [to, 0, 0];
    if (src[0] === dst[0]) continue; // inside the run
    const wire = { ...e, src, dst, real: { src: e.src, dst: e.dst } };
    const k = key(wire);
    if (seen.has(k)) continue;
    seen.add(k);
    drawn.push(wire);
  }
  edgesCache.set(edges, { layers, drawn });
  return drawn;
}

/** The folded run a layer is part of, named by its first layer (itself, if it is the box). */
export function foldOf(layers: LayerState[], name: string): string | null {
  const hidden = hiddenLayers(layers);
  const head = hidden.get(name);
  if (head !== undefined) return head;
  return layers.find((l) => l.name === name)?.fold ? name : null;
}

/** The texts of a folded run's box: a title spanning the run, the count, the block's classes. */
export function foldTexts(layer: LayerState): { title: string; count: string; copies: string; classes: string } | null {
  const f = layer.fold;
  if (!f) return null;
  return {
    title: layer.name,
    count: `×${f.copies}`,
    copies: `${f.copies} blocks of ${f.layers} layers, to ${f.last}`,
    classes: f.classes,
  };
}

/** Context-menu entries for a box: unfold a folded run, or fold the run the box is part of. */
export function foldMenu(layer: LayerState): { label: string; folded: boolean } | null {
  if (layer.fold) return { label: `Unfold (show its ${layer.fold.members} layers)`, folded: false };
  if (layer.run) return { label: "Fold repeated blocks into one box", folded: true };
  return null;
}

/** The drawing's menu: fold every run of repeated blocks, or unfold every folded one. */
export function foldAllMenu(layers: LayerState[]): { label: string; folded: boolean }[] {
  const heads = new Set<string>();
  let folded = 0;
  for (const l of layers) {
    if (l.run) heads.add(l.run);
    if (l.fold) folded++;
  }
  const out: { label: string; folded: boolean }[] = [];
  if (heads.size > folded) out.push({ label: `Fold repeated blocks (${heads.size - folded} run${heads.size - folded > 1 ? "s" : ""})`, folded: true });
  if (folded) out.push({ label: "Unfold all repeated blocks", folded: false });
  return out;
}

/** One line of text fitted to `width` (squeezed a little, or cut with the whole on hover). */
export function line(x: number, y: number, cls: string, text: string, charWidth: number, width: number): SVGTextElement {
  const fit = fitText(text, charWidth, width);
  const node = svg("text", { x, y, class: cls }, fit.text);
  if (fit.squeeze) { node.setAttribute("textLength", String(width)); node.setAttribute("lengthAdjust", "spacingAndGlyphs"); }
  if (fit.cut) node.append(svg("title", {}, text));
  return node;
}

/** A folded run's box, into `g` (the box's <g>, class kc-box kc-folded): two cards behind the
 * front one, the title, the "×N" count, and a button that unfolds it. Its size, cards included,
 * and how far the cards show are the kernel's (kerascanvas/geometry/folds.py). */
export function drawFolded(g: SVGGElement, layer: LayerState, detail: boolean): void {
  const STACK = layer.fold?.stack ?? 0;
  const w = boxWidth(layer) - STACK, h = boxHeight(layer) - STACK;
  // back to front: the cards behind show below and to the right of the front card
  g.append(svg("rect", { class: "kc-card", x: STACK, y: STACK, width: w, height: h, rx: 6 }),
    svg("rect", { class: "kc-card", x: STACK / 2, y: STACK / 2, width: w, height: h, rx: 6 }),
    svg("rect", { width: w, height: h, rx: 6 }));
  const t = foldTexts(layer);
  if (!t || !detail) return;
  g.append(svg("path", { class: "kc-family", d: `M0.6,6 a6,6 0 0 1 6,-5.4 h${w - 13.2} a6,6 0 0 1 6,5.4 z` }));
  const countW = 12 + t.count.length * 8;
  g.append(line(8, 19, "kc-name", t.title, 7.2, w - 16 - countW - 22));
  g.append(svg("text", { x: w - 30, y: 20, "text-anchor": "end", class: "kc-fold-count" }, t.count));
  g.append(line(8, 35, "kc-class", t.copies, 5.6, w - 16));
  g.append(line(8, 52, "kc-call", t.classes, 5.6, w - 16));
  const open = svg("g", { class: "kc-toggle", transform: `translate(${w - 22},6)`, tabindex: 0, role: "button",
    "aria-expanded": "false", "data-toggle": layer.name, "aria-label": `unfold ${layer.name}` });
  open.append(svg("rect", { width: 16, height: 16, rx: 3 }), svg("text", { x: 8, y: 12, "text-anchor": "middle" }, "+"));
  g.append(open, svg("title", {}, `${t.title}: ${t.copies} (${t.classes}). Double-click or press + to unfold.`));
}

// ----- inside a nested model (kerascanvas/io/inner.py) ---------------------------------------
// An inner layer is named by a path, "outer/inner" (Keras names cannot hold "/"). Its runs of
// repeated blocks come folded; unfolding one is the browser's own choice (the inside is
// read-only), kept as the set of open runs' paths, and applied to the state here (openInner):
// the run's layers go where the kernel said relative to its box, the boxes below it inside, and
// the boxes below the nested model's box outside, move down by what it needs.

export const INNER_SEP = "/";

export function innerPath(outer: string, inner: string): string {
  return `${outer}${INNER_SEP}${inner}`;
}

/** [outer, inner] of an inner layer's path; null for a plain layer name. */
export function splitPath(path: string): [string, string] | null {
  const i = path.indexOf(INNER_SEP);
  return i < 0 ? null : [path.slice(0, i), path.slice(i + 1)];
}

/** Every layer inside the nested models of `layers` (expanded or not), as Find lists them:
 * `name` the path, `label` the inner name, `class_name` its class. */
export function innerLayers(layers: LayerState[]): { name: string; label: string; class_name: string }[] {
  const out: { name: string; label: string; class_name: string }[] = [];
  for (const l of layers) {
    if (!l.inner) continue;
    for (const b of l.inner.layers) out.push({ name: innerPath(l.name, b.name), label: b.name, class_name: b.class_name });
  }
  return out;
}

/** The inner box `inner` of `layer` as shown (null: not there); `hidden`: the folded run's box that holds it. */
export function innerBox(layer: LayerState, inner: string): InnerBox | null {
  return layer.inner?.layers.find((b) => b.name === inner) ?? null;
}

/** The inner run (its first layer) that `inner` is part of, or null. */
export function innerRunOf(view: InnerView, inner: string): string | null {
  for (const r of view.runs ?? []) if (r.members.includes(inner)) return r.head;
  return null;
}

/** `view` with the runs whose first layer is in `open` unfolded: their layers placed, the boxes
 * below each moved down by what it grows, the edges drawn again; and how much it grew. */
export function unfoldInner(view: InnerView, open: ReadonlySet<string>): { view: InnerView; grow: number } {
  const runs = (view.runs ?? []).filter((r) => open.has(r.head));
  if (!runs.length) return { view, grow: 0 };
  const at = new Map(view.layers.map((b) => [b.name, b]));
  const opened = runs.map((r) => ({ r, head: at.get(r.head)! })).filter((o) => o.head).sort((a, b) => a.head.y - b.head.y);
  const shiftAt = (y: number) => opened.reduce((s, o) => s + (y > o.head.y ? o.r.grow : 0), 0);
  const plain = view.layers.find((b) => !b.fold) ?? { w: 150, h: 36 };
  const place = new Map<string, InnerBox>();
  for (const b of view.layers) place.set(b.name, { ...b, y: b.y + shiftAt(b.y) });
  for (const { r, head } of opened) {
    const hy = head.y + shiftAt(head.y);
    r.members.forEach((m, i) => {
      const b = at.get(m);
      if (!b) return;
      const [dx, dy] = r.offsets[i] ?? [0, 0];
      place.set(m, { ...b, x: head.x + dx, y: hy + dy, w: plain.w, h: plain.h, hidden: null, fold: null });
    });
  }
  const layers = view.layers.map((b) => place.get(b.name)!);
  const hidden = new Map<string, string>();
  for (const b of layers) if (b.hidden) hidden.set(b.name, b.hidden);
  const seen = new Set<string>();
  const edges: Link[] = [];
  for (const [s, d] of view.links ?? view.edges) {
    const a = hidden.get(s) ?? s, b = hidden.get(d) ?? d;
    if (a === b || seen.has(`${a}>${b}`)) continue;
    seen.add(`${a}>${b}`);
    edges.push([a, b]);
  }
  const grow = opened.reduce((s, o) => s + o.r.grow, 0);
  const width = Math.max(view.width, ...layers.map((b) => b.x + b.w + 12));
  return { view: { ...view, layers, edges, width, height: view.height + grow }, grow };
}

/** The layers with the open inner runs (paths, "outer/head") unfolded: a nested model's box
 * grows by what its inside grew, its output ports move down with its bottom, and the boxes below
 * it move down as far. The same array when no open run is shown. */
export function openInner(layers: LayerState[], open: ReadonlySet<string>): LayerState[] {
  if (!open.size) return layers;
  let out: LayerState[] | null = null;
  for (const l of layers) {
    if (!l.expanded || !l.inner?.runs?.length) continue;
    const mine = new Set(l.inner.runs.map((r) => r.head).filter((h) => open.has(innerPath(l.name, h))));
    if (!mine.size) continue;
    const { view, grow } = unfoldInner(l.inner, mine);
    const current: LayerState[] = out ?? layers;
    const box = current.find((q) => q.name === l.name)!;
    const bottom = box.y + box.h;
    out = current.map((q) => {
      if (q.name === l.name) {
        const outs = q.ports.out.map(([n, t, x, y]) => [n, t, x, y >= q.h - 1 ? y + grow : y] as typeof q.ports.out[number]);
        return { ...q, inner: view, h: q.h + grow, w: Math.max(q.w, view.width), ports: { ...q.ports, out: outs } };
      }
      return q.y >= bottom - 1 ? { ...q, y: q.y + grow } : q;
    });
  }
  return out ?? layers;
}
