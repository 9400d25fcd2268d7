// The node view: the graph Keras itself walks. One box per call (per Node, `layer node k`), rows
// by depth (the inputs' side on top), and each edge drawn as the KerasTensor it carries,
// labelled (layer, node_index, tensor_index). A pending call is no Node and is not drawn. A box
// selects its layer (and its row in the inspector), an edge shows its tensor; the layer view's
// selection and the tensor shown are drawn here too.
import { clear, el, svg } from "../base/dom";
import type { Rect, View } from "../mirror/geometry";
import { type Triple, tensorId } from "./walk";

export interface NodeEntry { layer: string; node_index: number; depth: number | null; class_name: string; outputs: (number | null)[][] }
export interface NodeGraph { nodes: NodeEntry[]; tensors: { src: Triple; dst: Triple }[]; outputs: Triple[]; keys: string[] }

export const NODE_W = 150, NODE_H = 42, GAP_X = 30, GAP_Y = 70;

export interface Placed { node: NodeEntry; x: number; y: number }

/** Rows by depth, deepest (inputs) on top; nodes outside the depth map (not reached from an
 * output) in a last row; inside a row, the order Keras's lists have (the order sent). */
export function layoutNodes(g: NodeGraph): { placed: Placed[]; width: number; height: number } {
  const depths = g.nodes.map((n) => n.depth).filter((d): d is number => d !== null);
  const top = depths.length ? Math.max(...depths) : 0;
  const rows = new Map<number, NodeEntry[]>();
  for (const n of g.nodes) {
    const row = n.depth === null ? top + 1 : top - n.depth;
    rows.set(row, [...(rows.get(row) ?? []), n]);
  }
  const placed: Placed[] = [];
  let width = 0, height = 0;
  for (const [row, nodes] of rows) {
    nodes.forEach((node, i) => {
      const x = 20 + i * (NODE_W + GAP_X), y = 20 + row * (NODE_H + GAP_Y);
      placed.push({ node, x, y });
      width = Math.max(width, x + NODE_W + 20);
      height = Math.max(height, y + NODE_H + 30);
    });
  }
  return { placed, width, height };
}

/** An edge's label: the KerasTensor's _keras_history. */
export function tensorLabel(t: Triple): string {
  return `(${t[0]}, ${t[1]}, ${t[2]})`;
}

/** Where an edge's label goes: the first of a few points along its curve where the label's
 * rectangle meets no box and no label placed before; null when none is free (the label is then
 * left to the edge's tooltip). `curve(t)` gives the point at t in 0..1. */
export function placeLabel(curve: (t: number) => { x: number; y: number }, width: number,
                           taken: Rect[]): Rect | null {
  for (const t of [0.5, 0.35, 0.65, 0.2, 0.8]) {
    const p = curve(t);
    const r = { x: p.x + 4, y: p.y - 9, w: width, h: 12 };
    if (!taken.some((o) => overlaps(o, r))) return r;
  }
  return null;
}

export function overlaps(a: Rect, b: Rect): boolean {
  return a.x < b.x + b.w && b.x < a.x + a.w && a.y < b.y + b.h && b.y < a.y + a.h;
}

const CHAR_W = 6.1; // a 10 px monospace character: labels are measured without the DOM

export interface DrawnTensor { src: Triple; dst: Triple; path: string; label: Rect | null }

/** Each tensor's curve between its nodes' ports and where its label goes: labels are placed in
 * order, each where it meets no box (nor the output names under it) and no label before it. */
export function tensorEdges(g: NodeGraph, placed: Placed[]): DrawnTensor[] {
  const at = new Map(placed.map((p) => [`${p.node.layer}:${p.node.node_index}`, p]));
  const slots = new Map<string, number>();
  for (const t of g.tensors) slots.set(`${t.dst[0]}:${t.dst[1]}`, Math.max(slots.get(`${t.dst[0]}:${t.dst[1]}`) ?? 0, t.dst[2] + 1));
  const taken: Rect[] = placed.map((p) => ({ x: p.x, y: p.y, w: NODE_W, h: NODE_H + 16 }));
  const drawn: DrawnTensor[] = [];
  for (const t of g.tensors) {
    const a = at.get(`${t.src[0]}:${t.src[1]}`), b = at.get(`${t.dst[0]}:${t.dst[1]}`);
    if (!a || !b) continue;
    const outs = Math.max(1, a.node.outputs.length), ins = slots.get(`${t.dst[0]}:${t.dst[1]}`) ?? 1;
    const x1 = a.x + (NODE_W * (t.src[2] + 1)) / (outs + 1), y1 = a.y + NODE_H;
    const x2 = b.x + (NODE_W * (t.dst[2] + 1)) / (ins + 1), y2 = b.y;
    const my = (y1 + y2) / 2;
    const curve = (u: number) => { // the cubic below at u
      const s0 = (1 - u) ** 3, s1 = 3 * (1 - u) ** 2 * u, s2 = 3 * (1 - u) * u * u, s3 = u ** 3;
      return { x: (s0 + s1) * x1 + (s2 + s3) * x2, y: s0 * y1 + (s1 + s2) * my + s3 * y2 };
    };
    const label = placeLabel(curve, tensorLabel(t.src).length * CHAR_W, taken);
    if (label) taken.push(label);
    drawn.push({ src: t.src, dst: t.dst, path: `M${x1},${y1} C${x1},${my} ${x2},${my} ${x2},${y2}`, label });
  }
  return drawn;
}

/** The scale the node view opens at: the whole graph where it fits at a readable scale (text of
 * 8 px or more), else its top-left corner at scale 1: never a whole big graph in 6 px text. */
export function openingView(width: number, height: number, stage: { width: number; height: number }): View {
  const fit = Math.min(stage.width / Math.max(width, 1), stage.height / Math.max(height, 1));
  if (fit >= 0.8) {
    const k = Math.min(fit, 1.25);
    return { k, x: (stage.width - width * k) / 2, y: (stage.height - height * k) / 2 };
  }
  const k = 0.8;
  return { k, x: width * k <= stage.width ? (stage.width - width * k) / 2 : 0, y: 0 };
}

/** The view zoomed by `factor` about the screen point (px, py), the scale kept in 0.1..4. */
export function zoomAt(v: View, factor: number, px: number, py: number): View {
  const k = Math.min(4, Math.max(0.1, v.k * factor));
  const f = k / v.k;
  return { k, x: px - (px - v.x) * f, y: py - (py - v.y) * f };
}

export interface NodeViewLook {
  selected: Set<string>;
  shownPort: string | null;                 // "out:layer:node:tensor": its edges drawn shown
  node: string | null;                      // "layer:node": the call the player's step is about
  status: Map<string, string>;              // "layer:node" -> where Keras's walk is with it
  depths: Map<string, { depth: number; reason: string }>;
}

export class NodeView {
  readonly root: SVGSVGElement;
  private world: SVGGElement;
  private graph: NodeGraph | null = null;
  /** The camera (screen = world * k + (x, y)); null until the graph is first drawn. */
  view: View | null = null;
  private placed: Placed[] = [];
  private drag: { x: number; y: number; from: View } | null = null;

  constructor(private pickNode: (layer: string, node: number) => void, private pickTensor: (src: Triple) => void) {
    this.root = svg("svg", { class: "kc-nodeview", role: "application", "aria-label": "Node view: one box per call" });
    this.world = svg("g", { class: "kc-nv-world" });
    // the wheel zooms about the pointer and a drag on empty space pans, as in the layer view
    this.root.addEventListener("wheel", (ev) => {
      if (!this.view) return;
      ev.preventDefault();
      ev.stopPropagation();
      const box = this.root.getBoundingClientRect();
      this.setView(zoomAt(this.view, Math.exp(-ev.deltaY * 0.0015), ev.clientX - box.left, ev.clientY - box.top));
    }, { passive: false });
    this.root.addEventListener("pointerdown", (ev) => {
      if (!this.view || ev.button !== 0 || (ev.target as Element).closest?.(".kc-nv-node, .kc-nv-edge")) return;
      this.drag = { x: ev.clientX, y: ev.clientY, from: this.view };
      this.root.setPointerCapture?.(ev.pointerId);
    });
    this.root.addEventListener("pointermove", (ev) => {
      if (!this.drag) return;
      const { from } = this.drag;
      this.setView({ k: from.k, x: from.x + ev.clientX - this.drag.x, y: from.y + ev.clientY - this.drag.y });
    });
    const end = () => { this.drag = null; };
    this.root.addEventListener("pointerup", end);
    this.root.addEventListener("pointercancel", end);
    this.root.addEventListener("keydown", (ev) => { if (ev.key === "Escape") end(); });
  }

  set(graph: NodeGraph): void { this.graph = graph; }

  private stage(): { width: number; height: number } {
    return { width: this.root.clientWidth || 800, height: this.root.clientHeight || 400 };
  }

  private setView(v: View): void {
    this.view = v;
    this.world.setAttribute("transform", `translate(${v.x},${v.y}) scale(${v.k})`);
  }

  /** Brings the first node of `layer` to the centre at a readable scale (Find in the node
   * view); false when the layer has no node drawn. */
  reveal(layer: string): boolean {
    const p = this.placed.find((q) => q.node.layer === layer);
    if (!p) return false;
    const stage = this.stage();
    const k = Math.max(this.view?.k ?? 1, 1);
    this.setView({ k, x: stage.width / 2 - (p.x + NODE_W / 2) * k, y: stage.height / 2 - (p.y + NODE_H / 2) * k });
    return true;
  }

  draw(look: NodeViewLook): void {
    clear(this.root);
    clear(this.world);
    this.root.append(this.world);
    const g = this.graph;
    if (!g) return;
    const { placed, width, height } = layoutNodes(g);
    this.placed = placed;
    if (!this.view) this.setView(openingView(width, height, this.stage()));
    else this.setView(this.view);
    const edges = svg("g"), boxes = svg("g");
    for (const t of tensorEdges(g, placed)) {
      const key = tensorId(t.src);
      const shown = look.shownPort === `out:${key}`;
      const e = svg("g", { class: `kc-nv-edge${shown ? " kc-nv-shown" : ""}`, "data-tensor": key, "data-dst": tensorId(t.dst),
        role: "button", tabindex: "0", "aria-label": `KerasTensor ${tensorLabel(t.src)} into ${t.dst[0]} node ${t.dst[1]} slot ${t.dst[2]}` });
      e.append(svg("path", { d: t.path }));
      const label = tensorLabel(t.src);
      if (t.label) e.append(svg("text", { x: t.label.x, y: t.label.y + 9, class: "kc-nv-label" }, label));
      e.append(svg("title", {}, `KerasTensor ${label}`)); // a label left out is read on hover
      e.addEventListener("click", () => this.pickTensor(t.src));
      e.addEventListener("keydown", (ev) => { if (ev.key === "Enter") { ev.stopPropagation(); this.pickTensor(t.src); } });
      edges.append(e);
    }
    const outputs = new Map(g.outputs.map((t, i) => [tensorId(t), i]));
    for (const p of placed) {
      const id = `${p.node.layer}:${p.node.node_index}`;
      const walked = look.status.get(id);
      const cls = `kc-nv-node${look.selected.has(p.node.layer) ? " kc-nv-selected" : ""}${look.node === id ? " kc-nv-current" : ""}`
        + (walked ? ` kc-nv-${walked}` : "");
      const box = svg("g", { class: cls, "data-node": id, role: "button", tabindex: "0",
        "aria-label": `${p.node.layer} node ${p.node.node_index}` });
      box.append(svg("rect", { x: p.x, y: p.y, width: NODE_W, height: NODE_H, rx: 6 }));
      box.append(svg("text", { x: p.x + 8, y: p.y + 16, class: "kc-name" }, `${p.node.layer} · node ${p.node.node_index}`));
      box.append(svg("text", { x: p.x + 8, y: p.y + 32, class: "kc-class" },
        `${p.node.class_name}${p.node.depth === null ? "" : ` · depth ${p.node.depth}`}`));
      p.node.outputs.forEach((_, t) => {
        const i = outputs.get(`${id}:${t}`);
        if (i !== undefined) box.append(svg("text", { x: p.x + (NODE_W * (t + 1)) / (p.node.outputs.length + 1), y: p.y + NODE_H + 14,
          class: "kc-nv-output", "text-anchor": "middle" }, g.keys[i] ? `out ${i}: ${g.keys[i]}` : `out ${i}`));
      });
      const found = look.depths.get(id);
      if (found) {
        const w = 58;
        const pill = svg("g", { class: "kc-walk-badge", "data-badge": id });
        pill.append(svg("rect", { x: p.x + NODE_W - w - 4, y: p.y + 22, width: w, height: 14, rx: 7 }),
          svg("text", { x: p.x + NODE_W - 9, y: p.y + 33, "text-anchor": "end" }, `depth ${found.depth}`), svg("title", {}, found.reason));
        box.append(pill);
      }
      box.addEventListener("click", () => this.pickNode(p.node.layer, p.node.node_index));
      box.addEventListener("keydown", (ev) => { if (ev.key === "Enter") { ev.stopPropagation(); this.pickNode(p.node.layer, p.node.node_index); } });
      boxes.append(box);
    }
    if (!placed.length) boxes.append(svg("text", { x: 20, y: 40, class: "kc-muted" }, "No Node yet: a call becomes a Node once its slots are all fed."));
    this.world.append(edges, boxes);
  }
}

export function nodeViewNote(): HTMLElement {
  return el("div", { class: "kc-nv-note kc-muted" }, "Node view: one box per call (a Keras Node); each edge is a KerasTensor (layer, node_index, tensor_index).");
}
