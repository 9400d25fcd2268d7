// Folded runs of repeated blocks (kerascanvas/geometry/folds.py): a folded run is its first layer's box,
// drawn as a stack of cards labelled "×N"; the run's other layers are not drawn, the edges
// between them neither, and edges into or out of the run attach to that box. Pure mapping (state
// in, what is drawn out) plus the box's SVG, so the canvas and the scene only call in here.
import { svg } from "../base/dom";
import { boxHeight, boxWidth, fitText } from "./geometry";
import type { EdgeState, LayerState, Target, Triple } from "./types";

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

function line(x: number, y: number, cls: string, text: string, charWidth: number, width: number): SVGTextElement {
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
