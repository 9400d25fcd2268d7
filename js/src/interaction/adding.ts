// Adding layers where the user works: quick-add at a point of the drawing, for a wire's tensor
// (a wire let go in empty space, or the wire a layer is inserted into: only the layers that
// accept that tensor are offered, once the kernel has said which), and the kernel's hints about
// which slots take a wire being drawn. The canvas supplies what it reads and sends (AddingHost).
import { type Point, type Port, type View, sourceKey, toWorld } from "../mirror/geometry";
import { insertIntent } from "./gestures";
import { placeMenu } from "./menu";
import { shapeText } from "../mirror/mirror";
import type { Client, IntentFields } from "../mirror/protocol";
import { type Offer, QuickAdd } from "./quickadd";
import { edgeKey } from "../scene/scene";
import type { UiStore } from "./ui";
import type { EdgeState, GraphState, PaletteEntry } from "../mirror/types";

export interface AddingHost {
  readonly ui: UiStore;
  readonly client: Client;
  readonly stage: HTMLElement;
  state(): GraphState;
  palette(): PaletteEntry[];
  view(): View;
  viewRect(): number[];                 // where the kernel puts new boxes
  ports(): Port[];
  routes(): (Point[] | null)[];
  closeMenu(): void;
  /** Send an add or insert intent; the new box is selected (and kept in view). */
  add<K extends "add_layer" | "insert_layer">(kind: K, fields: IntentFields<K>, at: Point): void;
  closed(): void;                       // quick-add closed (picked or dismissed)
}

/** What quick-add offers: `classes` (the kernel's answer for a wire), else the whole catalog;
 * each with its group (layer or keras.ops function). */
export function offers(palette: Offer[], classes: string[] | null): Offer[] {
  if (!classes) return palette;
  const groups = new Map(palette.map((p) => [p.class_name, p.group]));
  return classes.map((class_name) => ({ class_name, group: groups.get(class_name) }));
}

export class Adding {
  readonly quick: QuickAdd;
  private wire: Port | null = null;     // the wire whose tensor quick-add is for
  private into: string | null = null;   // the wire it inserts into, as its note names it

  constructor(private host: AddingHost) {
    this.quick = new QuickAdd(() => { this.wire = null; host.ui.gesture({ kind: "close" }); host.closed(); });
  }

  /** Accepting slots and classes for a wire from `port` (asked once per drag, cached per
   * revision of the drawing: an answer asked for before an edit is never shown after it). */
  askHints(port: Port): void {
    const { ui, client } = this.host;
    const key = `${port.key}@${this.host.state().revision ?? 0}`;
    if (ui.state.hints?.key === key) return;
    ui.setHints({ key, accept: new Set(), refuse: new Set(), classes: null });
    client.send("accepts", { src: [port.layer, port.call, port.index] }).then((reply) => {
      if (!reply.ok || ui.state.hints?.key !== key) return;
      const r = reply.result as { classes: string[] | null; accept: string[]; refuse: string[] };
      ui.setHints({ key, accept: new Set(r.accept), refuse: new Set(r.refuse), classes: r.classes });
      if (this.quick.isOpen && this.wire) this.quick.offer(offers(this.host.palette(), r.classes), this.note(this.wire, r.classes));
    });
  }

  private note(port: Port, classes: string[] | null): string {
    const layer = this.host.state().layers.find((l) => l.name === port.layer);
    const shape = layer?.calls[port.call]?.output_shapes?.[port.index] ?? null;
    const note = classes === null ? `Layers for ${port.layer}'s output (checking which accept ${shapeText(shape)}…)`
      : `${classes.length} layers accept ${shapeText(shape)} from ${port.layer}`;
    return this.into ? `Insert into ${this.into}: ${note}` : note;
  }

  /** Output port `src` as drawn (a port of a box hidden in a folded run stands at `at`). */
  private outPort(src: [string, number, number], at: Point): Port {
    const key = sourceKey(src);
    return this.host.ports().find((p) => p.key === key)
      ?? { key, kind: "out", layer: src[0], call: src[1], index: src[2], label: "", at };
  }

  /** Quick-add at screen point `at`: a catalog search; the new layer takes `wire`'s tensor, or
   * goes into edge `onto`. */
  open(at: Point, wire: Port | null = null, onto: EdgeState | null = null): void {
    const host = this.host;
    host.closeMenu();
    const world = toWorld(host.view(), at);
    const from = wire ?? (onto ? this.outPort(onto.src, world) : null);
    this.wire = from;
    this.into = onto ? `${onto.src[0]} → ${onto.dst[0]}` : null;
    let names: Offer[] = host.palette();
    let note = onto ? `Insert into ${this.into}` : "Type to search the layers";
    if (from) {
      this.askHints(from);
      const classes = host.ui.state.hints?.classes ?? null;
      names = offers(host.palette(), classes);
      note = this.note(from, classes);
    }
    const r = host.stage.getBoundingClientRect();
    const spot = placeMenu(at, { w: 260, h: 300 }, { w: r.width, h: r.height });
    host.ui.gesture({ kind: "open-quick-add" });
    this.quick.open(spot, names, note, (className) => {
      if (onto) {
        const i = host.state().edges.findIndex((e) => edgeKey(e) === edgeKey(onto));
        const pts = host.routes()[i];
        const { kind, ...fields } = insertIntent(className, onto, pts ?? [world], world);
        host.add(kind, pts ? fields : { ...fields, x: world.x, y: world.y }, world);
      } else {
        const fields: IntentFields<"add_layer"> = { class_name: className, x: world.x - 90, y: world.y, view: host.viewRect() };
        if (wire) fields.src = [wire.layer, wire.call, wire.index];
        host.add("add_layer", fields, world);
      }
    });
  }

  close(): void {
    this.quick.close();
  }
}
