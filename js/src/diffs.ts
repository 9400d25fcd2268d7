// Applying the kernel's numbered diffs to the mirrored state: a pure reducer, the TypeScript
// twin of kerascanvas/diffs.py `apply` (both replay js/test/fixtures/diffs.json in their tests).
import type { EdgeState, GraphState, Keyed, LayerEntry, LayerState, StateDiff, Target, ViewRow } from "./types";

/** A diff that does not follow the revision held: one was lost, the full state must be asked for. */
export class DiffGap extends Error {
  constructor(readonly have: number | undefined, readonly base: number) {
    super(`diff from revision ${base} does not follow revision ${have}: ask for the full state`);
  }
}

const VIEW_KEYS = ["x", "y", "w", "h", "pinned", "depth"] as const;

/** The state after `diff`; throws DiffGap when `diff.base` is not `state.revision`. */
export function applyDiff(state: GraphState, diff: StateDiff): GraphState {
  if (diff.base !== state.revision) throw new DiffGap(state.revision, diff.base);
  const depths = state.layers.map((l) => l.depth).filter((d): d is number => d !== null);
  const oldTop = depths.length ? Math.max(...depths) : 0;
  const top = diff.top !== undefined && diff.top !== null ? diff.top : oldTop;
  const entries = new Map<string, LayerEntry>();
  const rows = new Map<string, ViewRow>();
  for (const l of state.layers) {
    const entry: Record<string, unknown> = { ...l };
    for (const k of VIEW_KEYS) delete entry[k];
    entries.set(l.name, entry as LayerEntry);
    rows.set(l.name, [l.x, l.y, l.w ?? 0, l.h ?? 0, l.pinned, l.depth === null ? null : oldTop - l.depth]);
  }
  const layerEntries = applyKeyed(entries, diff.layers, (e) => e.name, (k) => k);
  for (const [name, row] of Object.entries(diff.view ?? {})) rows.set(name, row);
  const layers: LayerState[] = [];
  const old = new Map(state.layers.map((l) => [l.name, l]));
  const remade = new Set([...(diff.layers?.set ?? []), ...(diff.layers?.patch ?? [])].map((e) => e.name));
  const view = diff.view ?? {};
  for (const [name, entry] of layerEntries) {
    const kept = old.get(name);
    if (kept && top === oldTop && !remade.has(name) && !(name in view)) {
      layers.push(kept); // unchanged: the same object, so a view can tell what moved by identity
      continue;
    }
    const row = rows.get(name);
    if (!row) throw new Error(`the diff gives no position for the new box ${name}`);
    const [x, y, w, h, pinned, level] = row;
    layers.push({ ...entry, x, y, w, h, pinned, depth: level === null ? null : top - level });
  }
  const edgeMap = new Map<string, EdgeState>(state.edges.map((e) => [edgeKey(e.dst), e]));
  const edges = applyKeyed(edgeMap, diff.edges, (e) => edgeKey(e.dst), edgeKey);
  const next: GraphState = { ...state, layers, edges: [...edges.values()], revision: diff.revision };
  if (diff.name !== undefined) next.name = diff.name;
  if (diff.problems !== undefined) next.problems = diff.problems;
  if (diff.model !== undefined) next.model = diff.model;
  if (diff.can_undo !== undefined) next.can_undo = diff.can_undo;
  if (diff.can_redo !== undefined) next.can_redo = diff.can_redo;
  if (diff.history_dropped !== undefined) next.history_dropped = diff.history_dropped;
  return next;
}

/** An edge is keyed by its slot: one edge per (layer, call, slot). */
export function edgeKey(dst: Target): string {
  return JSON.stringify(dst);
}

/** Removed keys go, the survivors keep their order, new keys go in at their final index (in
 * increasing order), or the whole order is given; set entries are added, patches change the
 * fields they name. */
function applyKeyed<E, K>(entries: Map<string, E>, change: Keyed<E, K> | undefined, keyOf: (e: E) => string,
  key: (k: K) => string): Map<string, E> {
  if (!change) return entries;
  const removed = new Set((change.removed ?? []).map(key));
  let order = [...entries.keys()].filter((k) => !removed.has(k));
  if (change.order) order = change.order.map(key);
  for (const [i, k] of change.insert ?? []) order.splice(i, 0, key(k));
  const fresh = new Map((change.set ?? []).map((e) => [keyOf(e), e]));
  for (const p of change.patch ?? []) {
    const k = keyOf(p as E);
    const before = entries.get(k);
    if (before === undefined) throw new Error(`the diff patches ${k}, which is not held`);
    fresh.set(k, { ...before, ...p });
  }
  const out = new Map<string, E>();
  for (const k of order) {
    const e = fresh.get(k) ?? entries.get(k);
    if (e === undefined) throw new Error(`the diff names ${k} but gives no entry for it`);
    out.set(k, e);
  }
  return out;
}
