// The mirrored state of one widget model: the kernel's snapshot, kept current by its numbered
// diffs. One store per model (anywidget `initialize`), however many views show it: each view
// reads `model.get("state")` and listens to "change:state", which the store sets locally (the
// kernel has no "state" trait, so nothing is ever sent back).
import { DiffGap, applyDiff } from "./diffs";
import type { Model } from "./protocol";
import { noteNewBox } from "./geometry";
import { emptyState } from "./shape";
import type { GraphState, StateDiff } from "./types";

/** The model as the store uses it: it also sets "state", locally. */
export type StoreModel = Model & { set(name: string, value: unknown): void; save_changes?(): void };


export class StateStore {
  state: GraphState;
  private asking: string | null = null; // the id of the full-state request under way
  private asked = 0;
  private readonly onMessage = (msg: any) => this.receive(msg);
  private readonly onSnapshot = () => this.adopt(this.model.get("snapshot"));
  private readonly onRevision = () => this.checkRevision();

  constructor(private model: StoreModel) {
    // a model without a snapshot (an older kernel, a stand-in) starts empty and asks
    this.state = model.get("snapshot") ?? model.get("state") ?? emptyState();
    model.set("state", this.state);
    model.on("msg:custom", this.onMessage);
    model.on("change:snapshot", this.onSnapshot);
    model.on("change:revision", this.onRevision);
    this.checkRevision(); // a model made again from a stale snapshot (a reloaded page)
  }

  destroy(): void {
    this.model.off("msg:custom", this.onMessage);
    this.model.off("change:snapshot", this.onSnapshot);
    this.model.off("change:revision", this.onRevision);
  }

  /** A diff or the answer to our request; other messages (replies to views' intents) pass by. */
  receive(msg: any): void {
    if (!msg || typeof msg !== "object") return;
    if (msg.diff && typeof msg.diff === "object") {
      // when the kernel's diff reached the page (benchmarks/bench_canvas.py times its way here)
      performance.clearMarks?.("kerascanvas:diff");
      performance.mark?.("kerascanvas:diff");
      this.applyOrAsk(msg.diff as StateDiff);
      if (msg.edit === true && typeof msg.diff.revision === "number") {
        // an edit made on the canvas: said to the host as a synced trait set from the front end,
        // which is what re-runs the cells that read canvas.graph in marimo (the kernel ignores it)
        this.model.set("edits", msg.diff.revision);
        this.model.save_changes?.();
      }
    } else if (this.asking !== null && msg.id === this.asking) {
      this.asking = null;
      if (msg.ok && msg.result) this.adopt(msg.result as GraphState);
    }
  }

  private applyOrAsk(diff: StateDiff): void {
    if (typeof diff.revision === "number" && diff.revision <= (this.state.revision ?? 0)) return; // already held
    try {
      this.set(applyDiff(this.state, diff));
    } catch (e) {
      if (!(e instanceof DiffGap)) console.error("kerascanvas: a diff could not be applied", e);
      this.ask();
    }
  }

  /** A full state replaces ours unless it is older. */
  adopt(full: GraphState | null | undefined): void {
    if (!full || !Array.isArray(full.layers)) return;
    if ((full.revision ?? 0) < (this.state.revision ?? 0)) return;
    this.set(full);
  }

  private checkRevision(): void {
    const kernel = this.model.get("revision");
    if (typeof kernel === "number" && kernel > (this.state.revision ?? 0)) this.ask();
  }

  private ask(): void {
    if (this.asking !== null) return; // one request at a time; its answer is newer than any gap
    this.asking = `kc-state-${++this.asked}`;
    this.model.send({ kind: "state", id: this.asking, have: this.state.revision ?? null });
  }

  private set(state: GraphState): void {
    noteNewBox(state);
    this.state = state;
    this.model.set("state", state);
  }
}
