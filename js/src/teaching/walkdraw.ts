// The teaching views drawn inside the graph, on a layer of their own above the boxes: each box's
// calls coloured by where Keras's walk is with them, each node's depth once known, the value
// each edge carries during a forward pass (small pictures for images), the model's outputs
// numbered (and, while they are edited, a marker on every output port), a tensor shown.
import { clear, svg } from "../base/dom";
import { type EpochView, drawEpochActivations } from "../training/epochs";
import { type Point, type Port, type Rect, boxHeight, boxRows, boxWidth } from "../mirror/geometry";
import { type NodeStatus, type TensorValue, type Triple, type WalkView, nodeId, tensorId, valueText } from "./walk";
import { type PortLabel, markerRect, portLabels } from "../scene/portlabels";
import { placeGreedy, wireSpots } from "../scene/labelplace";
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

const VALUE_H = 14, PICTURE = 40; // a value label's height; room a picture takes on its left

/** A value label's size: its text (10 px monospace) and, for an image, the picture before it. */
function valueSize(text: string, v: TensorValue): { w: number; h: number } {
  return { w: text.length * 6.1 + 4 + (v.picture ? PICTURE : 0), h: v.picture ? 28 : VALUE_H };
}

/** A value label in the rectangle `r` placeGreedy chose (valueSize big). */
function valueLabel(g: SVGGElement, r: Rect & { at?: Point }, v: TensorValue, key: string, text: string): void {
  const group = svg("g", { class: "kc-value", "data-value": key });
  if (r.at) { // placed away from its wire: a thin line to the point it names
    const x = Math.max(r.x, Math.min(r.x + r.w, r.at.x)), y = Math.max(r.y, Math.min(r.y + r.h, r.at.y));
    if (Math.hypot(x - r.at.x, y - r.at.y) > 12) group.append(svg("line", { x1: r.at.x, y1: r.at.y, x2: x, y2: y, class: "kc-value-leader", stroke: "#8e24aa", "stroke-width": 0.8, "stroke-dasharray": "2 2" }));
  }
  const picture = v.picture && r.h > VALUE_H ? v.picture : null; // a spot without room for it: none
  const x = r.x + (picture ? PICTURE : 0) + 2, y = r.y + r.h / 2 + 4;
  group.append(svg("rect", { x: x - 2, y: y - 11, width: text.length * 6.1 + 4, height: VALUE_H, rx: 3, class: "kc-value-bg" }));
  label(group, { x, y }, text, "kc-value-text", `${key.replace(/:/g, ", ")}: mean ${v.mean} std ${v.std} min ${v.min} max ${v.max}`);
  if (picture) {
    group.append(svg("image", { href: pictureUrl(picture), x: r.x, y: r.y, width: 28, height: 28,
      preserveAspectRatio: "none", class: "kc-value-picture" }));
  }
  g.append(group);
}

const boxRect = (l: LayerState): Rect => ({ x: l.x, y: l.y, w: boxWidth(l), h: boxHeight(l) });

/** Everything on the teaching layer, drawn again from scratch (teaching graphs are small). */
export function drawTeaching(g: SVGGElement, look: TeachLook): Rect[] {
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
  const outputs = new Map(look.outputs.map((t, i) => [tensorId(t), i]));
  const names = new Map<string, PortLabel[]>(); // each box's port names, where the scene writes them (world)
  const portsBy = new Map<string, Port[]>();
  for (const q of look.ports) { const a = portsBy.get(q.layer); if (a) a.push(q); else portsBy.set(q.layer, [q]); }
  const namesOf = (l: LayerState) => names.get(l.name)
    ?? names.set(l.name, portLabels(l, portsBy.get(l.name) ?? [], { x: 0, y: 0 })).get(l.name)!;
  // what no marker or value may cover: the boxes, the edges' shape labels, the markers placed
  // before; no value either the port names
  const fixed: Rect[] = [...look.edgeLabels];
  const marks: Rect[] = []; // the output markers placed
  for (const l of look.layers) fixed.push(boxRect(l));
  if (look.values) for (const l of look.layers) for (const n of namesOf(l)) fixed.push(n.rect);
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
    const r = markerRect(p.at, Math.max(14, text.length * 6 + 6), l ? namesOf(l) : [], fixed); // clear of the port's name
    fixed.push(r);
    marks.push(r); // where no spot was free, a shape label under it gives way (returned)
    marker.append(svg("rect", { x: r.x, y: r.y, width: r.w, height: r.h, rx: 7 }),
      svg("text", { x: r.x + r.w / 2, y: r.y + 11, "text-anchor": "middle" }, text));
    if (look.editOutputs) {
      marker.addEventListener("pointerdown", (ev) => { ev.stopPropagation(); ev.preventDefault(); });
      marker.addEventListener("click", (ev) => { ev.stopPropagation(); look.onMarker(port); });
    }
    g.append(marker);
  }
  if (look.values) {
    // one label a tensor, beside one of the wires that carry it (or, for a tensor no edge
    // carries, beside its box), where it covers nothing drawn and no label placed before it
    const wanted: { key: string; v: TensorValue; text: string; spots: (Rect & { at?: Point })[] }[] = [];
    const byKey = new Map<string, (typeof wanted)[number]>();
    look.edges.forEach((e, i) => {
      const key = tensorId(e.src);
      const v = look.values?.get(key);
      const pts = look.routes[i];
      if (!v || !pts?.length) return;
      let w = byKey.get(key);
      if (!w) { w = { key, v, text: valueText(v), spots: [] }; byKey.set(key, w); wanted.push(w); }
      w.spots.push(...wireSpots(pts, valueSize(w.text, v).w, valueSize(w.text, v).h));
    });
    // where an image's picture finds no room, its value goes without it
    for (const w of wanted) if (w.v.picture) w.spots.push(...look.edges.flatMap((e, i) => (tensorId(e.src) === w.key && look.routes[i]
      ? wireSpots(look.routes[i]!, w.text.length * 6.1 + 4, VALUE_H) : [])));
    const rank = new Map<string, number>();
    for (const p of look.ports) { // tensors no edge carries (the model's outputs): beside their box
      const key = `${p.layer}:${p.call}:${p.index}`;
      const v = look.values.get(key);
      const l = byName.get(p.layer);
      if (p.kind !== "out" || !v || byKey.has(key) || !l) continue;
      const i = rank.get(p.layer) ?? 0;
      rank.set(p.layer, i + 1);
      const text = `out ${p.call}.${p.index}: ${valueText(v)}`;
      const { w, h } = valueSize(text, v);
      const spots: Rect[] = [];
      for (let k = 0; k < 8; k++) {
        const y = l.y + (h + 4) * (i + k);
        spots.push({ x: l.x + boxWidth(l) + 10, y, w, h }, { x: l.x - 10 - w, y, w, h });
      }
      for (let k = 0; k < 4; k++) spots.push({ x: p.at.x - w / 2, y: p.at.y + 24 + (h + 4) * k, w, h });
      if (v.picture) spots.push(...spots.map((r) => ({ ...r, w: text.length * 6.1 + 4, h: VALUE_H })));
      wanted.push({ key, v, text, spots });
    }
    (placeGreedy(wanted, fixed) as ((Rect & { at?: Point }) | null)[]).forEach((r, i) => {
      if (r) valueLabel(g, r, wanted[i].v, wanted[i].key, wanted[i].text);
    });
  }
  if (look.shownPort) {
    const p = look.ports.find((q) => q.key === look.shownPort);
    if (p) g.append(svg("circle", { cx: p.at.x, cy: p.at.y, r: 11, class: "kc-port-shown", "data-shown": p.key }));
  }
  return marks.filter((r) => look.edgeLabels.some((e) => overlapping(r, e)));
}

function overlapping(a: Rect, b: Rect): boolean {
  return a.x < b.x + b.w && b.x < a.x + a.w && a.y < b.y + b.h && b.y < a.y + a.h;
}
