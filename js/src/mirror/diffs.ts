// Applying the kernel's numbered diffs to the mirrored state: a pure reducer, the TypeScript
// twin of kerascanvas/mirror/diffs.py `apply` (both replay js/test/fixtures/diffs.json in their tests).
import { DRAWING_FIELDS, boxLayer, viewRow } from "./shape";
import type { EdgeState, GraphState, Keyed, LayerEntry, LayerState, StateDiff, Target } from "./types";

/** A diff that does not follow the revision held: one was lost, the full state must be asked for. */
export class DiffGap extends Error {
  constructor(readonly have: number | undefined, readonly base: number) {
    super(`diff from revision ${base} does not follow revision ${have}: ask for the full state`);
  }
}

/** The state after `diff`; throws DiffGap when `diff.base` is not `state.revision`. */
export function applyDiff(state: GraphState, diff: StateDiff): GraphState {
  if (diff.base !== state.revision) throw new DiffGap(state.revision, diff.base);
  let oldTop = 0, anyDepth = false;
  for (const l of state.layers) if (l.depth !== null) { oldTop = anyDepth ? Math.max(oldTop, l.depth) : l.depth; anyDepth = true; }
  const top = diff.top !== undefined && diff.top !== null ? diff.top : oldTop;
  // the layers as held, keyed; its view fields (x, y, w, h, pinned, depth) are left in: every layer that
  // is made again below gets them from its view row
  const old = new Map(state.layers.map((l) => [l.name, l]));
  const layerEntries = diff.layers ? applyKeyed(old as Map<string, LayerEntry>, diff.layers, (e) => e.name, (k) => k) : old;
  const layers: LayerState[] = [];
  const remade = new Set([...(diff.layers?.set ?? []), ...(diff.layers?.patch ?? [])].map((e) => e.name));
  const view = diff.view ?? {};
  for (const [name, entry] of layerEntries) {
    const kept = old.get(name);
    // own rows only: a layer may be named "constructor" or "toString"
    const row = Object.prototype.hasOwnProperty.call(view, name) ? view[name] : undefined;
    if (kept && top === oldTop && !remade.has(name) && row === undefined) {
      layers.push(kept); // unchanged: the same object, so a view can tell what moved by identity
      continue;
    }
    if (row === undefined && !kept) throw new Error(`the diff gives no position for the new box ${name}`);
    // a set entry has no view fields; a patched or kept one has the old ones, replaced here
    layers.push(boxLayer(entry, row ?? viewRow(kept!, oldTop), top));
  }
  const edgeMap = new Map<string, EdgeState>(state.edges.map((e) => [edgeKey(e.dst), e]));
  const edges = applyKeyed(edgeMap, diff.edges, (e) => edgeKey(e.dst), edgeKey);
  const next: GraphState = { ...state, layers, edges: [...edges.values()], revision: diff.revision };
  for (const f of DRAWING_FIELDS) if (diff[f] !== undefined) (next as unknown as Record<string, unknown>)[f] = diff[f];
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
