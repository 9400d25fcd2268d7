// The node view: the graph Keras itself walks. One box per call (per Node, `layer node k`), rows
// by depth (the inputs' side on top), and each edge drawn as the KerasTensor it carries,
// labelled (layer, node_index, tensor_index). A pending call is no Node and is not drawn. A box
// selects its layer (and its row in the inspector), an edge shows its tensor; the layer view's
// selection and the tensor shown are drawn here too.
import { clear, el, svg } from "../base/dom";
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

export interface NodeViewLook {
  selected: Set<string>;
  shownPort: string | null;                 // "out:layer:node:tensor": its edges drawn shown
  node: string | null;                      // "layer:node": the call the player's step is about
  status: Map<string, string>;              // "layer:node" -> where Keras's walk is with it
  depths: Map<string, { depth: number; reason: string }>;
}

export class NodeView {
  readonly root: SVGSVGElement;
  private graph: NodeGraph | null = null;

  constructor(private pickNode: (layer: string, node: number) => void, private pickTensor: (src: Triple) => void) {
    this.root = svg("svg", { class: "kc-nodeview", role: "application", "aria-label": "Node view: one box per call" });
  }

  set(graph: NodeGraph): void { this.graph = graph; }

  draw(look: NodeViewLook): void {
    clear(this.root);
    const g = this.graph;
    if (!g) return;
    const { placed, width, height } = layoutNodes(g);
    // a small graph is not blown up: at least the room of a 480 x 260 drawing
    this.root.setAttribute("viewBox", `0 0 ${Math.max(width, 480)} ${Math.max(height, 260)}`);
    const at = new Map(placed.map((p) => [`${p.node.layer}:${p.node.node_index}`, p]));
    const edges = svg("g"), boxes = svg("g");
    const slots = new Map<string, number>();
    for (const t of g.tensors) slots.set(`${t.dst[0]}:${t.dst[1]}`, Math.max(slots.get(`${t.dst[0]}:${t.dst[1]}`) ?? 0, t.dst[2] + 1));
    for (const t of g.tensors) {
      const a = at.get(`${t.src[0]}:${t.src[1]}`), b = at.get(`${t.dst[0]}:${t.dst[1]}`);
      if (!a || !b) continue;
      const outs = Math.max(1, a.node.outputs.length), ins = slots.get(`${t.dst[0]}:${t.dst[1]}`) ?? 1;
      const x1 = a.x + (NODE_W * (t.src[2] + 1)) / (outs + 1), y1 = a.y + NODE_H;
      const x2 = b.x + (NODE_W * (t.dst[2] + 1)) / (ins + 1), y2 = b.y;
      const key = tensorId(t.src);
      const shown = look.shownPort === `out:${key}`;
      const e = svg("g", { class: `kc-nv-edge${shown ? " kc-nv-shown" : ""}`, "data-tensor": key, "data-dst": tensorId(t.dst),
        role: "button", tabindex: "0", "aria-label": `KerasTensor ${tensorLabel(t.src)} into ${t.dst[0]} node ${t.dst[1]} slot ${t.dst[2]}` });
      const my = (y1 + y2) / 2;
      e.append(svg("path", { d: `M${x1},${y1} C${x1},${my} ${x2},${my} ${x2},${y2}` }));
      e.append(svg("text", { x: (x1 + x2) / 2 + 4, y: my, class: "kc-nv-label" }, tensorLabel(t.src)));
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
    this.root.append(edges, boxes);
  }
}

export function nodeViewNote(): HTMLElement {
  return el("div", { class: "kc-nv-note kc-muted" }, "Node view: one box per call (a Keras Node); each edge is a KerasTensor (layer, node_index, tensor_index).");
}
