// The canvas's interaction state in one store, changed only by the named actions below (as
// xyflow's store is by addSelectedNodes, updateConnection...): the selection (boxes or one
// edge), the highlighted producer, the armed port, the drag-time hints, the clipboard, the
// camera, the gesture (machine.ts) and the refusal shown in the inspector. Whoever subscribes is
// told once per batch of changes: the canvas draws from there, in one place.
import type { Port, View } from "../mirror/geometry";
import { type Gesture, type GestureEvent, IDLE, nextGesture } from "./machine";
import type { Explanation } from "../panels/panels";
import type { EdgeState } from "../mirror/types";

/** The kernel's answer about a wire from one port: which slots take it, which catalog classes. */
export interface Hints { key: string; accept: Set<string>; refuse: Set<string>; classes: string[] | null }

export interface UiState {
  selected: ReadonlySet<string>;    // selected boxes
  edge: string | null;              // the selected edge's key (scene.edgeKey), boxes then unselected
  explanation: Explanation | null;  // the kernel's account of the selected edge's tensor (once it answered)
  highlighted: string | null;       // a layer drawn highlighted (the selected edge's producer, a step)
  armed: Port | null;               // an output port armed from the keyboard (Enter), waiting for a slot
  hints: Hints | null;
  clipboard: readonly string[];
  view: View;
  gesture: Gesture;
  inspectorError: string | null;    // the kernel's refusal of the last configure / rename
  refusals: number;                 // counts them: each one shows the kernel's values in the inspector again
  innerOpen: ReadonlySet<string>;   // the runs unfolded inside nested models ("outer/head"; mirror/folds.ts openInner)
}

type Listener = (state: UiState, before: UiState) => void;

export class UiStore {
  private current: UiState;
  private listeners: Listener[] = [];
  private depth = 0;
  private before: UiState | null = null;

  constructor(view: View = { x: 20, y: 20, k: 1 }) {
    this.current = { selected: new Set(), edge: null, explanation: null, highlighted: null, armed: null, hints: null, clipboard: [],
      view, gesture: IDLE, inspectorError: null, refusals: 0, innerOpen: new Set() };
  }

  get state(): UiState { return this.current; }

  /** `listener` runs after each change (once per batch), with the state before it. */
  subscribe(listener: Listener): () => void {
    this.listeners.push(listener);
    return () => { this.listeners = this.listeners.filter((l) => l !== listener); };
  }

  /** Several actions, one notification. */
  batch(run: () => void): void {
    this.depth++;
    try { run(); } finally {
      this.depth--;
      if (this.depth === 0) this.notify();
    }
  }

  private set(patch: Partial<UiState>): void {
    const changed = (Object.keys(patch) as (keyof UiState)[]).some((k) => patch[k] !== this.current[k]);
    if (!changed) return;
    // an explanation is of one edge: another edge, or none, drops it
    if (patch.edge !== undefined && patch.edge !== this.current.edge && !("explanation" in patch)) patch = { ...patch, explanation: null };
    this.before ??= this.current;
    this.current = { ...this.current, ...patch };
    if (this.depth === 0) this.notify();
  }

  private notify(): void {
    const before = this.before;
    this.before = null;
    if (!before) return;
    for (const l of this.listeners) l(this.current, before);
  }

  // ----- selection --------------------------------------------------------------------------

  /** Only these boxes selected (no edge); an old refusal in the inspector no longer applies. */
  selectBoxes(names: Iterable<string>): void {
    this.set({ selected: new Set(names), edge: null, highlighted: null, inspectorError: null });
  }

  /** These boxes added to the selection. */
  addSelectedBoxes(names: Iterable<string>): void {
    const next = new Set(this.current.selected);
    for (const n of names) next.add(n);
    this.set({ selected: next });
  }

  /** Boxes that no longer exist (an edit removed them) leave the selection. */
  keepExisting(exists: (name: string) => boolean, edgeExists: (key: string) => boolean): void {
    const kept = [...this.current.selected].filter(exists);
    const patch: Partial<UiState> = {};
    if (kept.length !== this.current.selected.size) patch.selected = new Set(kept);
    if (this.current.edge !== null && !edgeExists(this.current.edge)) Object.assign(patch, { edge: null, highlighted: null });
    this.set(patch);
  }

  /** One edge selected: the boxes unselected, its producer highlighted, its tensor not yet explained. */
  selectEdge(edge: EdgeState, key: string): void {
    this.set({ selected: new Set(), edge: key, explanation: null, highlighted: edge.src[0] });
  }

  /** The kernel explained edge `key`'s tensor: kept only while that edge is still the selected one. */
  explainEdge(key: string, explanation: Explanation): void {
    if (this.current.edge === key) this.set({ explanation });
  }

  clearEdge(): void {
    this.set({ edge: null, highlighted: null });
  }

  /** Nothing selected, nothing armed. */
  clearSelection(): void {
    this.set({ selected: new Set(), edge: null, highlighted: null, armed: null });
  }

  highlight(name: string | null): void {
    this.set({ highlighted: name });
  }

  /** A run inside a nested model ("outer/head") unfolded (open) or folded again: a view choice
   * of the browser's alone, the inside being read-only. */
  openInnerRun(path: string, open: boolean): void {
    if (this.current.innerOpen.has(path) === open) return;
    const next = new Set(this.current.innerOpen);
    if (open) next.add(path); else next.delete(path);
    this.set({ innerOpen: next });
  }

  // ----- wires -----------------------------------------------------------------------------

  /** An output port armed from the keyboard (null: disarmed). */
  arm(port: Port | null): void {
    this.set({ armed: port });
  }

  /** The kernel's hints for a wire (null: none, e.g. the drawing changed since). */
  setHints(hints: Hints | null): void {
    this.set({ hints });
  }

  // ----- clipboard, camera, inspector ------------------------------------------------------

  copy(names: Iterable<string>): void {
    this.set({ clipboard: [...names] });
  }

  setView(view: View): void {
    this.set({ view });
  }

  /** A configure or rename refused (`message`), or a later edit accepted (null). */
  refuse(message: string | null): void {
    this.set(message === null ? { inspectorError: null } : { inspectorError: message, refusals: this.current.refusals + 1 });
  }

  // ----- gestures -----------------------------------------------------------------------------

  /** The gesture machine takes one step (machine.ts). */
  gesture(ev: GestureEvent): Gesture {
    this.set({ gesture: nextGesture(this.current.gesture, ev) });
    return this.current.gesture;
  }

  /** Esc: the canvas's own modes end first (a gesture, a menu, quick-add, an armed port, a
   * selection), one step each press; false when there was nothing left (the host's turn). */
  escape(): boolean {
    const s = this.current;
    if (s.gesture.kind !== "idle") { this.gesture({ kind: "escape" }); return true; }
    if (s.armed || s.selected.size || s.edge !== null || s.highlighted !== null) { this.clearSelection(); return true; }
    return false;
  }
}
