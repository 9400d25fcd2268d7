// The model behind the standalone HTML view (g.to_html, kerascanvas/io/standalone.py): no kernel, the
// state and the kernel's answers to what can be asked (a box's or a wire's explanation, the code)
// embedded in the file. View changes (fold, unfold, expand, move) are made here, the way the kernel
// makes them: a box that grows or shrinks moves the boxes below it. Edits are refused. Pure apart
// from the small event emitter, so vitest tests it.
import type { FoldInfo, GraphState, InnerView, LayerState, PaletteEntry, PortLayout } from "./types";

export interface RunView {
  info: FoldInfo;
  members: Record<string, [number, number]>; // each layer of the run: its offset from the first one's box, unfolded
  size: [number, number];                    // the first layer's own box, unfolded
}

export interface ViewerData {
  format: number;
  state: GraphState;
  explain: Record<string, unknown>;          // layer -> the "explain" intent's answer
  edges: Record<string, unknown>;            // edgeKey -> the "explain_edge" intent's answer (null: no tensor yet)
  code: { code: string | null; error: string | null };
  palette?: PaletteEntry[];                  // the inspector's forms (the palette itself is not shown)
  runs: Record<string, RunView>;             // run (its first layer) -> what folding it shows
  folded_size: [number, number];
  inner: Record<string, InnerView>;          // nested model -> its inside
  comparison?: unknown;                      // the changes marked (kerascanvas/io/compare_marks.py), {} when none
}

export const READ_ONLY = "This is a read-only view (exported with g.to_html): open the notebook to edit the drawing.";

export function edgeKey(src: unknown[], dst: unknown[]): string {
  return `${src[0]}:${src[1]}:${src[2]}>${dst[0]}:${dst[1]}:${dst[2]}`;
}

type Result = { ok: true; result: unknown; state?: GraphState } | { ok: false; error: string };

const sizeOf = (l: LayerState): [number, number] => [l.w ?? 180, l.h ?? 62];

/** Where the state carries a box's port layout (kerascanvas/geometry/boxes.py port_layout: ports spread
 * evenly along the top and bottom edges, a later call's slots on the sides at its row; in a drawing
 * that flows right, down the left and right edges), the same layout for a box of another size. */
function scaledPorts(layer: LayerState, w: number, h: number, right = false): { ports?: PortLayout } {
  const ports = layer.ports as PortLayout | undefined;
  if (!ports || !Array.isArray(ports.in) || !Array.isArray(ports.out)) return {};
  if (right) {
    const k = h / sizeOf(layer)[1];
    return { ports: { in: ports.in.map(([c, s, x, y]) => [c, s, x, y * k]), out: ports.out.map(([n, t, , y]) => [n, t, w, y * k]) } };
  }
  const k = w / sizeOf(layer)[0];
  return { ports: { in: ports.in.map(([c, s, x, y]) => [c, s, x * k, y]), out: ports.out.map(([n, t, x]) => [n, t, x * k, h]) } };
}

/** `layers` with box `name` given height `h` (and width `w`): boxes below its top move by the change
 * from `was` (its height, or what it stood for: an unfolded run) to `h`. `right` (a drawing that
 * flows right): boxes right of its left edge move by the change of its width, `was` a width. */
function resized(layers: LayerState[], name: string, w: number, h: number, keep: Set<string> = new Set(),
  was?: number, right = false): LayerState[] {
  const box = layers.find((l) => l.name === name);
  if (!box) return layers;
  const a = right ? 0 : 1; // the axis the drawing flows along
  const delta = [w, h][a] - (was ?? sizeOf(box)[a]);
  return layers.map((l) => {
    if (l.name === name) return { ...l, w, h, ...scaledPorts(l, w, h, right) };
    if (delta !== 0 && (right ? l.x > box.x : l.y > box.y) && !keep.has(l.name)) return right ? { ...l, x: l.x + delta } : { ...l, y: l.y + delta };
    return l;
  });
}

/** The state with run `head` folded into one box, or unfolded (its layers at their places). */
export function withFold(state: GraphState, data: ViewerData, head: string, folded: boolean): GraphState {
  const run = data.runs[head];
  const box = state.layers.find((l) => l.name === head);
  if (!run || !box || Boolean(box.fold) === folded) return state;
  const members = new Set(Object.keys(run.members));
  const right = state.direction === "right";
  const a = right ? 0 : 1; // the axis the drawing flows along
  const extent = (names: string[]) => Math.max(...names.map((n) => {
    const l = state.layers.find((x) => x.name === n);
    return run.members[n][a] + (n === head ? run.size[a] : l ? sizeOf(l)[a] : 0);
  }));
  const tall = extent([...members]); // the run unfolded, from its first box's top (or left edge)
  const [fw, fh] = data.folded_size;
  // grow or shrink as one box of the run's length, then put the run's layers in place
  let layers = right
    ? resized(state.layers, head, folded ? fw : tall, folded ? fh : run.size[1], members, folded ? tall : fw, true)
    : resized(state.layers, head, folded ? fw : run.size[0], folded ? fh : tall, members, folded ? tall : fh);
  layers = layers.map((l) => {
    if (!members.has(l.name)) return l;
    const [dx, dy] = run.members[l.name];
    const at = folded ? { x: box.x, y: box.y } : { x: box.x + dx, y: box.y + dy };
    if (l.name === head) {
      const [w, h] = folded ? [fw, fh] : run.size;
      return { ...l, ...scaledPorts(l, w, h, right), fold: folded ? run.info : null, w, h };
    }
    return { ...l, ...at };
  });
  return { ...state, layers };
}

/** A nested model's box shown with its inside, or as one box again. */
export function withExpanded(state: GraphState, data: ViewerData, name: string, open: boolean): GraphState {
  const box = state.layers.find((l) => l.name === name);
  const inside = data.inner[name];
  if (!box || !inside || box.expanded === open) return state;
  const plain = data.state.layers.find((l) => l.name === name);
  const [w, h] = open ? [inside.width, inside.height] : plain && !plain.expanded ? sizeOf(plain) : [180, 62];
  const layers = resized(state.layers, name, w, h, undefined, undefined, state.direction === "right").map((l) =>
    l.name === name ? { ...l, expanded: open, inner: open ? inside : null } : l);
  return { ...state, layers };
}

function runOf(state: GraphState, name: string): string | null {
  const layer = state.layers.find((l) => l.name === name);
  return layer?.run ?? null;
}

/** What the kernel would answer to `intent`, and the state after it where it changes the view. */
export function answer(data: ViewerData, state: GraphState, intent: Record<string, unknown>): Result {
  const name = typeof intent.name === "string" ? intent.name : "";
  switch (intent.kind) {
    case "state": return { ok: true, result: state };
    case "code": return { ok: true, result: data.code };
    case "explain":
      return name in data.explain ? { ok: true, result: data.explain[name] } : { ok: false, error: `There is no layer named ${name}.` };
    case "explain_edge": {
      const key = Array.isArray(intent.src) && Array.isArray(intent.dst) ? edgeKey(intent.src, intent.dst) : "";
      const found = data.edges[key];
      return found ? { ok: true, result: found } : { ok: false, error: "This wire carries no tensor yet (its source call is pending)." };
    }
    case "fold": {
      const head = runOf(state, name);
      if (!head) return { ok: false, error: `${name} is not part of a run of repeated blocks.` };
      return { ok: true, result: null, state: withFold(state, data, head, intent.folded === true) };
    }
    case "fold_all": {
      let next = state;
      for (const head of Object.keys(data.runs)) next = withFold(next, data, head, intent.folded === true);
      return { ok: true, result: null, state: next };
    }
    case "expand":
      if (!(name in data.inner)) return { ok: false, error: `${name} is not a nested model.` };
      return { ok: true, result: null, state: withExpanded(state, data, name, intent.open === true) };
    case "move": {
      const x = Number(intent.x), y = Number(intent.y);
      if (!Number.isFinite(x) || !Number.isFinite(y)) return { ok: false, error: "A move needs a finite x and y." };
      return { ok: true, result: null, state: { ...state, layers: state.layers.map((l) => (l.name === name ? { ...l, x, y } : l)) } };
    }
    default: return { ok: false, error: READ_ONLY };
  }
}

type Listener = (...args: unknown[]) => void;

/** The widget model of the standalone view: its traits, in memory, and `send` answered here. */
export class ReadOnlyModel {
  private values: Record<string, unknown>;
  private listeners = new Map<string, Set<Listener>>();

  constructor(private data: ViewerData, height = 640) {
    this.values = { state: data.state, snapshot: data.state, revision: data.state.revision ?? 0, palette: data.palette ?? [],
      height, path: "", training: {}, comparison: data.comparison ?? {}, train_choices: { optimizers: [], losses: [], metrics: [], strategies: [] } };
  }

  get(key: string): any { return this.values[key]; }

  set(key: string, value: unknown): void {
    this.values[key] = value;
    this.emit(`change:${key}`);
  }

  on(event: string, listener: Listener): void {
    if (!this.listeners.has(event)) this.listeners.set(event, new Set());
    this.listeners.get(event)!.add(listener);
  }

  off(event?: string | null, listener?: Listener | null): void {
    if (!event) { this.listeners.clear(); return; }
    if (listener) this.listeners.get(event)?.delete(listener); else this.listeners.delete(event);
  }

  send(content: any): void {
    const intent = (content && typeof content === "object" ? content : {}) as Record<string, unknown>;
    const reply = answer(this.data, this.values.state as GraphState, intent);
    queueMicrotask(() => {
      if (reply.ok && reply.state && reply.state !== this.values.state) {
        const revision = (this.values.revision as number) + 1;
        this.values.revision = revision;
        this.set("state", { ...reply.state, revision });
      }
      this.emit("msg:custom", reply.ok ? { id: intent.id, ok: true, result: reply.result } : { id: intent.id, error: reply.error });
    });
  }

  private emit(event: string, ...args: unknown[]): void {
    for (const listener of [...(this.listeners.get(event) ?? [])]) listener(...args);
  }
}
