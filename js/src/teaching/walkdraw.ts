// The teaching views drawn inside the graph, on a layer of their own above the boxes: each box's
// calls coloured by where Keras's walk is with them, each node's depth once known, the value
// each edge carries during a forward pass (small pictures for images), the model's outputs
// numbered (and, while they are edited, a marker on every output port), a tensor shown.
import { clear, svg } from "../base/dom";
import { type EpochView, drawEpochActivations } from "../training/epochs";
import { type Point, type Port, type Rect, boxHeight, boxRows, boxWidth } from "../mirror/geometry";
import { type NodeStatus, type TensorValue, type Triple, type WalkView, nodeId, tensorId, valueText } from "./walk";
import { type PortLabel, markerRect, portLabels } from "../scene/portlabels";
import type { EdgeState, LayerState } from "../mirror/types";

export interface TeachLook {
  layers: LayerState[];            // where the boxes are seen
  ports: Port[];
  edges: EdgeState[];              // the drawn edges, in the order of `routes`
  routes: (Point[] | null)[];
  edgeLabels: Rect[];              // the edges' shape labels (world): output markers keep clear
  walk: WalkView | null;
  values: Map<string, TensorValue> | null;
  activations?: EpochView | null; // each box's output recorded at a chosen epoch (forward pass)
  outputs: Triple[];               // the model's outputs, in order
  keys: string[];                  // their dict keys, if any
  editOutputs: boolean;            // markers on every output port of a complete call
  shownPort: string | null;        // "out:layer:node:tensor": a tensor the inspector shows
  onMarker: (port: Triple) => void;
}

const STATUS_WORDS: Record<NodeStatus, string> = { progress: "in progress", finished: "finished", cycle: "cycle!" };

/** The box's words for its calls: "node 0 finished · depth 2". */
export function nodeBadge(layer: string, calls: number, walk: WalkView): { node: number; text: string; status: NodeStatus | null }[] {
  const out: { node: number; text: string; status: NodeStatus | null }[] = [];
  for (let k = 0; k < Math.max(1, calls); k++) {
    const id = nodeId([layer, k]);
    const status = walk.status.get(id) ?? null;
    const depth = walk.depths.get(id);
    if (!status && !depth) continue;
    const words = [depth ? `depth ${depth.depth}` : status ? STATUS_WORDS[status] : ""];
    out.push({ node: k, text: words.join(""), status: depth ? null : status });
  }
  return out;
}

/** The strongest status of a box's calls: a cycle, else any call in progress, else finished. */
export function boxStatus(layer: string, calls: number, walk: WalkView): NodeStatus | null {
  let found: NodeStatus | null = null;
  for (let k = 0; k < Math.max(1, calls); k++) {
    const s = walk.status.get(nodeId([layer, k]));
    if (s === "cycle") return "cycle";
    if (s === "progress") found = "progress";
    else if (s === "finished" && !found) found = "finished";
  }
  return found;
}

const pictures = new WeakMap<number[][], string>();

function pictureUrl(values: number[][]): string {
  let url = pictures.get(values);
  if (url === undefined) {
    const h = values.length, w = values[0]?.length ?? 0;
    const c = document.createElement("canvas");
    c.width = Math.max(1, w); c.height = Math.max(1, h);
    const ctx = c.getContext("2d");
    if (ctx) values.forEach((row, y) => row.forEach((v, x) => {
      const g = Math.round(255 * v);
      ctx.fillStyle = `rgb(${g},${g},${g})`;
      ctx.fillRect(x, y, 1, 1);
    }));
    url = c.toDataURL();
    pictures.set(values, url);
  }
  return url;
}

function label(g: SVGGElement, at: Point, text: string, cls: string, title?: string): void {
  const t = svg("text", { x: at.x, y: at.y, class: cls }, text);
  if (title) t.append(svg("title", {}, title));
  g.append(t);
}

function valueLabel(g: SVGGElement, at: Point, v: TensorValue, key: string, prefix = ""): void {
  const group = svg("g", { class: "kc-value", "data-value": key });
  const text = prefix + valueText(v);
  group.append(svg("rect", { x: at.x - 2, y: at.y - 11, width: text.length * 6.1 + 4, height: 14, rx: 3, class: "kc-value-bg" }));
  label(group, at, text, "kc-value-text", `${key.replace(/:/g, ", ")}: mean ${v.mean} std ${v.std} min ${v.min} max ${v.max}`);
  if (v.picture) {
    group.append(svg("image", { href: pictureUrl(v.picture), x: at.x - 40, y: at.y - 16, width: 28, height: 28,
      preserveAspectRatio: "none", class: "kc-value-picture" }));
  }
  g.append(group);
}

/** Everything on the teaching layer, drawn again from scratch (teaching graphs are small). */
export function drawTeaching(g: SVGGElement, look: TeachLook): void {
  clear(g);
  const byName = new Map(look.layers.map((l) => [l.name, l]));
  if (look.walk) {
    for (const l of look.layers) {
      const status = boxStatus(l.name, l.calls.length, look.walk);
      const badges = nodeBadge(l.name, l.calls.length, look.walk);
      if (status) g.append(svg("rect", { x: l.x - 4, y: l.y - 4, width: boxWidth(l) + 8, height: boxHeight(l) + 8, rx: 8,
        class: `kc-walk kc-walk-${status}`, "data-walk": l.name }));
      for (const b of badges) { // on the call's own row of the box, right-aligned
        const rows = boxRows(); // the kernel's box layout: a header, then one row per call
        const w = b.text.length * 6 + 10, y = l.y + rows.header + rows.call_row * b.node;
        const pill = svg("g", { class: `kc-walk-badge${b.status ? ` kc-walk-badge-${b.status}` : ""}`, "data-badge": `${l.name}:${b.node}` });
        pill.append(svg("rect", { x: l.x + boxWidth(l) - w - 4, y: y - 2, width: w, height: 14, rx: 7 }),
          svg("text", { x: l.x + boxWidth(l) - 9, y: y + 9, "text-anchor": "end" }, b.text));
        const reason = look.walk.depths.get(nodeId([l.name, b.node]))?.reason;
        if (reason) pill.append(svg("title", {}, reason));
        g.append(pill);
      }
    }
    const current = look.walk.current;
    const at = current ? byName.get(current[0]) : undefined;
    if (at) g.append(svg("rect", { x: at.x - 7, y: at.y - 7, width: boxWidth(at) + 14, height: boxHeight(at) + 14, rx: 10,
      class: "kc-walk-current" }));
  }
  if (look.activations) drawEpochActivations(g, look.layers, look.activations);
  if (look.values) {
    const consumed = new Set<string>();
    look.edges.forEach((e, i) => {
      const key = tensorId(e.src);
      consumed.add(key);
      const v = look.values?.get(key);
      const pts = look.routes[i];
      if (!v || !pts?.length) return;
      const mid = pts[Math.floor(pts.length / 2)];
      // edges into the slots of one call meet there: each label a line lower, by its slot
      valueLabel(g, { x: mid.x + 6, y: mid.y + 15 * e.dst[2] }, v, key);
    });
    const rank = new Map<string, number>();
    for (const p of look.ports) { // tensors no edge carries (the model's outputs): listed beside their box
      const key = `${p.layer}:${p.call}:${p.index}`;
      const v = look.values.get(key);
      const l = byName.get(p.layer);
      if (p.kind !== "out" || !v || consumed.has(key) || !l) continue;
      const i = rank.get(p.layer) ?? 0;
      rank.set(p.layer, i + 1);
      valueLabel(g, { x: l.x + boxWidth(l) + 10, y: l.y + 12 + 18 * i }, v, key, `out ${p.call}.${p.index}: `);
    }
  }
  const outputs = new Map(look.outputs.map((t, i) => [tensorId(t), i]));
  const names = new Map<string, PortLabel[]>(); // each box's port names, where the scene writes them (world)
  const namesOf = (l: LayerState) => names.get(l.name)
    ?? names.set(l.name, portLabels(l, look.ports.filter((q) => q.layer === l.name), { x: 0, y: 0 })).get(l.name)!;
  for (const p of look.ports) {
    if (p.kind !== "out") continue;
    const i = outputs.get(`${p.layer}:${p.call}:${p.index}`);
    const built = byName.get(p.layer)?.calls[p.call]?.built ?? false;
    if (i === undefined && !(look.editOutputs && built)) continue;
    const port: Triple = [p.layer, p.call, p.index];
    const text = i === undefined ? "+" : look.keys[i] ? `${i}: ${look.keys[i]}` : `${i}`;
    const marker = svg("g", { class: `kc-out-marker${i === undefined ? "" : " kc-out-marked"}`, "data-output": tensorId(port),
      role: look.editOutputs ? "button" : "img",
      "aria-label": i === undefined ? `mark ${p.layer} node ${p.call} tensor ${p.index} as an output`
        : `output ${i}: ${p.layer} node ${p.call} tensor ${p.index}${look.editOutputs ? " (click to unmark)" : ""}` });
    const l = byName.get(p.layer);
    const r = markerRect(p.at, Math.max(14, text.length * 6 + 6), l ? namesOf(l) : [], look.edgeLabels); // clear of the port's name
    marker.append(svg("rect", { x: r.x, y: r.y, width: r.w, height: r.h, rx: 7 }),
      svg("text", { x: r.x + r.w / 2, y: r.y + 11, "text-anchor": "middle" }, text));
    if (look.editOutputs) {
      marker.addEventListener("pointerdown", (ev) => { ev.stopPropagation(); ev.preventDefault(); });
      marker.addEventListener("click", (ev) => { ev.stopPropagation(); look.onMarker(port); });
    }
    g.append(marker);
  }
  if (look.shownPort) {
    const p = look.ports.find((q) => q.key === look.shownPort);
    if (p) g.append(svg("circle", { cx: p.at.x, cy: p.at.y, r: 11, class: "kc-port-shown", "data-shown": p.key }));
  }
}
