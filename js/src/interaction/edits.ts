// The edits the canvas asks of the kernel, whoever asks (a key, a menu entry, a gesture, the
// toolbar): each sends one intent, shows a refusal next to the spot it concerns, and follows up
// once done (a new box selected, the affected boxes kept in view). The canvas supplies what
// they read and show (EditsHost); the interaction state changes through the store's actions.
import { type Point, type Port, slotKey } from "../mirror/geometry";
import { type Intent, connectIntent, insertIntent } from "./gestures";
import { neighbours } from "../scene/edges";
import type { Explanation, InputPreset } from "../panels/panels";
import type { Client, FieldsArg, IntentArgs, IntentFields, IntentKind } from "../mirror/protocol";
import { edgeKey } from "../scene/scene";
import type { UiStore } from "./ui";
import { usefulMessage } from "../base/words";
import type { EdgeState, GraphState, LayerState } from "../mirror/types";

const FAILED = Symbol("failed");
/** `act`'s arguments after the kind: the intent's fields, then where to show a refusal. */
type ActArgs<K extends IntentKind> = IntentArgs<K, Point>;

export interface EditsHost {
  readonly client: Client;
  readonly ui: UiStore;
  state(): GraphState;
  placed(): LayerState[];               // the boxes where they are seen
  routes(): (Point[] | null)[];         // each edge's drawn polyline, by edge index
  ports(): Port[];
  viewRect(): number[];                 // the world rectangle on screen: where the kernel puts new boxes
  inputPreset(className: string): InputPreset | undefined; // a palette Input's shape (the data's among them)
  follow(names: Iterable<string>): void; // the view glides to keep these boxes in view
  showError(message: string, at?: Point): void;
  hideError(): void;
  focusCanvas(): void;
  focusEdge(key: string): void;
}

export class Edits {
  constructor(private host: EditsHost) {}

  /** Send an intent (its fields as the description names them: checked when this compiles); a
   * refusal is shown next to `at` (a world point), else at the pointer. */
  async act<K extends IntentKind>(kind: K, ...[fields, at]: ActArgs<K>): Promise<boolean> {
    return (await this.actResult(kind, ...([fields, at] as ActArgs<K>))) !== FAILED;
  }

  /** Send an intent; its result, or FAILED (the refusal is shown). */
  async actResult<K extends IntentKind>(kind: K, ...[fields, at]: ActArgs<K>): Promise<unknown> {
    const { client, ui } = this.host;
    const reply = await client.send(kind, ...([fields] as FieldsArg<K>));
    if (!reply.ok) {
      this.host.showError(reply.error ?? "refused", at);
      // the inspector shows the refusal and, in every field, the kernel's value again
      if (kind === "configure" || kind === "rename" || kind === "configure_call") ui.refuse(usefulMessage(reply.error ?? "").short);
      return FAILED;
    }
    ui.refuse(null);
    this.host.hideError(); // an old refusal no longer applies
    return reply.result;
  }

  /** Send an intent about some boxes and keep, once done, `keep` in view. */
  actOn<K extends IntentKind>(kind: K, fields: IntentFields<K>, at: Point | undefined, keep: string[]): void {
    (this.act as (k: K, f: IntentFields<K>, a?: Point) => Promise<boolean>)(kind, fields, at)
      .then((ok) => { if (ok) this.host.follow(keep); });
  }

  /** Send a gesture's intent; a refusal is shown next to `at`. */
  perform(intent: Intent, at?: Point): Promise<boolean> {
    const { kind, ...fields } = intent;
    return (this.act as (k: IntentKind, f: unknown, a?: Point) => Promise<boolean>)(kind, fields, at);
  }

  connect(src: Port, dst: Port): void {
    this.perform(connectIntent(src, dst, this.host.state().layers), dst.at);
  }

  /** Delete boxes; the boxes they were wired to stay in view. */
  remove(names: string[], bridge = false, at?: Point): void {
    const keep = names.flatMap((n) => neighbours(this.host.state().edges, n)).filter((n) => !names.includes(n));
    this.actOn("remove", bridge ? { names, bridge } : { names }, at, keep);
  }

  /** Fold a nested model's box out into its inner graph, or back into one box; a folded run opens. */
  toggle(name: string): void {
    const layer = this.host.state().layers.find((l) => l.name === name);
    if (layer?.fold) this.actOn("fold", { name, folded: false }, { x: layer.x, y: layer.y }, [name]);
    else if (layer) this.actOn("expand", { name, open: !layer.expanded }, { x: layer.x, y: layer.y }, [name]);
  }

  /** A new box of `className` at world point `at` (an Input preset makes an Input). */
  addLayer(className: string, at: Point): void {
    const preset = this.host.inputPreset(className);
    const view = this.host.viewRect();
    const made = preset ? this.actResult("add_input", { ...preset, x: at.x, y: at.y, view })
      : this.actResult("add_layer", { class_name: className, x: at.x, y: at.y, view });
    made.then((name) => this.selectNew(name)); // a new box is selected, as in every node editor
  }

  /** A palette entry dropped at world point `at`: into wire `wire` (an edge index, -1: none),
   * or as a new box there. */
  dropLayer(className: string, at: Point, wire: number): void {
    const e = wire >= 0 ? this.host.state().edges[wire] : undefined;
    const pts = wire >= 0 ? this.host.routes()[wire] : null;
    if (e && pts && !this.host.inputPreset(className)) {
      const { kind, ...fields } = insertIntent(className, e, pts, at);
      this.actResult(kind, fields, at).then((name) => this.selectNew(name));
    } else this.addLayer(className, at);
  }

  /** Ctrl+V: copies of the copied boxes, together in free space in view, and selected. */
  paste(): void {
    this.actResult("duplicate", { names: [...this.host.ui.state.clipboard], view: this.host.viewRect() })
      .then((mapping) => this.selectNew(mapping));
  }

  /** Arrows: the selected boxes move together, each one move the kernel keeps. */
  nudge(dx: number, dy: number): void {
    for (const l of this.host.placed()) {
      if (this.host.ui.state.selected.has(l.name)) this.act("move", { name: l.name, x: Math.round(l.x + dx), y: Math.round(l.y + dy) });
    }
  }

  /** A box the user just made (drop, quick-add, paste) is selected and kept in view. */
  selectNew(result: unknown): void {
    const names = typeof result === "string" ? [result]
      : result && typeof result === "object" ? Object.values(result as Record<string, string>) : [];
    if (!names.length) return;
    this.host.ui.selectBoxes(names);
    this.host.focusCanvas();
    this.host.follow(names);
  }

  // ----- edges as objects -----------------------------------------------------------------------

  /** The selected edge: an object like a box (Delete removes it, it has a menu). */
  selectedEdge(): EdgeState | null {
    const key = this.host.ui.state.edge;
    return key === null ? null : this.host.state().edges.find((e) => edgeKey(e) === key) ?? null;
  }

  removeEdge(e: EdgeState): void {
    this.host.ui.clearEdge();
    this.act("disconnect", { src: e.src, dst: e.dst }, this.host.ports().find((p) => p.key === slotKey(e.dst))?.at);
    this.host.focusCanvas();
  }

  /** Select an edge: the inspector shows its KerasTensor and _keras_history (once the kernel
   * explained it), and the layer that made it is highlighted. */
  async inspectEdge(index: number): Promise<void> {
    const { ui, client } = this.host;
    const e = this.host.state().edges[index];
    if (!e) return;
    const key = edgeKey(e);
    ui.selectEdge(e, key);
    this.host.focusEdge(key);
    const reply = await client.send("explain_edge", { src: e.src, dst: e.dst });
    if (!reply.ok) { this.host.showError(reply.error ?? "refused"); return; }
    ui.explainEdge(key, reply.result as Explanation);
  }
}
