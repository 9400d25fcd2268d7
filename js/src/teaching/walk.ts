// Keras's walk and the forward pass as the player replays them: what every step has done so far.
// Pure (no DOM): the kernel sends the steps (kerascanvas/teaching/teaching.py: walk_payload, ForwardStep
// .payload), this says which calls are in progress or finished, what the walk's stack holds,
// which depths are known and why, and which tensor values are known at step i.

export type NodeKey = [string, number];
export type Triple = [string, number, number];

export type DepthStep =
  | { kind: "start"; output: number; port: Triple; key: string | null }
  | { kind: "enter" | "finish" | "cycle"; node: NodeKey }
  | { kind: "depth"; node: NodeKey; depth: number; reason: string; consumers: [NodeKey, number][]; layer_so_far: number | null }
  | { kind: "nodes_by_depth" | "layers_by_depth"; map: Record<string, unknown[]> };

export interface TensorValue { tensor_index: number; shape: (number | null)[]; mean: number; std: number; min: number; max: number; picture: number[][] | null }
export interface ForwardStep { node: NodeKey; depth: number; outputs: TensorValue[]; is_input?: boolean; inputs?: Triple[]; fed?: string }

export type NodeStatus = "progress" | "finished" | "cycle";

export interface WalkView {
  status: Map<string, NodeStatus>;           // "layer:node_index" -> where the walk is with it
  stack: NodeKey[];                          // the calls in progress, oldest first
  depths: Map<string, { depth: number; reason: string }>;
  current: NodeKey | null;                   // the call this step is about
  output: { index: number; port: Triple; key: string | null } | null; // the output the walk started from last
}

export const nodeId = (n: NodeKey): string => `${n[0]}:${n[1]}`;
export const tensorId = (t: Triple): string => `${t[0]}:${t[1]}:${t[2]}`;

/** The walk after steps 0..index (index -1: before the first). */
export function walkAt(steps: DepthStep[], index: number): WalkView {
  const view: WalkView = { status: new Map(), stack: [], depths: new Map(), current: null, output: null };
  for (let i = 0; i <= Math.min(index, steps.length - 1); i++) {
    const s = steps[i];
    view.current = null;
    switch (s.kind) {
      case "start": view.output = { index: s.output, port: s.port, key: s.key }; break;
      case "enter": view.status.set(nodeId(s.node), "progress"); view.stack.push(s.node); view.current = s.node; break;
      case "finish": {
        view.status.set(nodeId(s.node), "finished");
        const at = view.stack.findIndex((n) => nodeId(n) === nodeId(s.node));
        if (at >= 0) view.stack.splice(at, 1);
        view.current = s.node;
        break;
      }
      case "cycle": view.status.set(nodeId(s.node), "cycle"); view.current = s.node; break;
      case "depth": view.depths.set(nodeId(s.node), { depth: s.depth, reason: s.reason }); view.current = s.node; break;
      default: break;
    }
  }
  return view;
}

const nodeText = (n: NodeKey) => `${n[0]} node ${n[1]}`;

/** One step in plain words. */
export function walkStepText(step: DepthStep): string {
  switch (step.kind) {
    case "start": return `Start from output ${step.output}${step.key ? ` "${step.key}"` : ""}: `
      + `${step.port[0]} node ${step.port[1]}, tensor ${step.port[2]}`;
    case "enter": return `Enter ${nodeText(step.node)}: in progress, now visit the calls that made its inputs`;
    case "finish": return `Finish ${nodeText(step.node)}: all its inputs are done`;
    case "cycle": return `Cycle: ${nodeText(step.node)} is reached again while still in progress`;
    case "depth": return `${nodeText(step.node)}: ${step.reason}`;
    case "nodes_by_depth": return `Done: _nodes_by_depth = ${JSON.stringify(step.map)}`;
    case "layers_by_depth": return `Done: _operations_by_depth (Keras 2: layers_by_depth) = ${JSON.stringify(step.map)}`;
  }
}

/** The layer a step is about, if any (its box is highlighted). */
export function stepLayer(step: DepthStep | ForwardStep): string | null {
  if ("outputs" in step) return step.node[0];
  if (step.kind === "start") return step.port[0];
  return "node" in step ? step.node[0] : null;
}

/** A tensor's value in a few characters: "(2, 4) mean 0.123". */
export function valueText(v: TensorValue): string {
  const shape = `(${v.shape.map((d) => (d === null ? "None" : String(d))).join(", ")}${v.shape.length === 1 ? "," : ""})`;
  return `${shape} mean ${v.mean.toFixed(3)}`;
}

/** Every output of a forward step, one line each (every tensor_index). */
export function forwardStepText(step: ForwardStep): string {
  const outs = step.outputs.map((o) => `${step.outputs.length > 1 ? `[${o.tensor_index}] ` : ""}${valueText(o)} `
    + `std ${o.std.toFixed(3)} min ${o.min.toFixed(3)} max ${o.max.toFixed(3)}`);
  const what = step.is_input ? `${step.node[0]} (an Input): ${step.fed ?? "the sample fed in"}` : nodeText(step.node);
  return `depth ${step.depth}: ${what} → ${outs.join(" · ")}`;
}

/** The tensor values known after forward steps 0..index, by "layer:node:tensor". */
export function forwardAt(steps: ForwardStep[], index: number): Map<string, TensorValue> {
  const known = new Map<string, TensorValue>();
  for (let i = 0; i <= Math.min(index, steps.length - 1); i++) {
    const s = steps[i];
    for (const o of s.outputs) known.set(tensorId([s.node[0], s.node[1], o.tensor_index]), o);
  }
  return known;
}
