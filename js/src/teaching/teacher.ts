// The canvas's teaching views, in one place, so the canvas hooks them in with a few lines: the
// step player beside the drawing (Keras's walk, the forward pass), what it shows drawn on the
// graph, the outputs made explicit, the node view, and the inspector's Keras-internals tab.
import { clear, el, svg } from "../base/dom";
import { EpochPicker } from "../training/epochs";
import type { Point, Port, Rect } from "../mirror/geometry";
import { InternalsTab } from "./internals";
import { NodeView, type NodeGraph, nodeViewNote } from "./nodeview";
import { type Outputs, OutputsPanel, outputsIntent, toggleOutput } from "./outputs";
import type { Client, Model } from "../mirror/protocol";
import { type Played, type StepShown, StepPlayer } from "./teach";
import { drawTeaching } from "./walkdraw";
import { type DepthStep, type ForwardStep, type Triple, tensorId } from "./walk";
import type { EdgeState, GraphState, LayerState } from "../mirror/types";

/** What the teaching views read of the canvas and ask of it. */
export interface TeacherHost {
  client: Client;
  model: Model;                    // the widget's traits (the epoch the forward pass shows)
  stage: HTMLElement;              // the node view is drawn in it, over the drawing
  drawing: SVGSVGElement;          // the layer view's SVG (hidden while the node view is on)
  side: HTMLElement;               // beside the stage: the player and the outputs panel
  state: () => GraphState;
  placed: () => LayerState[];
  edges: () => EdgeState[];        // the drawn edges, in the order of routes()
  routes: () => (Point[] | null)[];
  edgeLabels: () => Rect[];        // where the edges' shape labels are written (world)
  yieldLabels: (under: Rect[]) => void; // hide the shape labels under these marks (none: show all)
  ports: () => Port[];
  selected: () => Set<string>;
  render: () => void;
  select: (name: string) => void;  // select a layer (the inspector shows it)
  showError: (message: string) => void;
  focusCanvas: () => void;
  fit: () => void;                 // the drawing fitted to the stage (narrower beside the player)
  selectedTensor: () => Triple | null; // the tensor of the edge selected in the layer view
}

export class Teacher {
  readonly layer: SVGGElement = svg("g", { class: "kc-teach" });
  readonly internals: InternalsTab;
  private player: StepPlayer | null = null;
  private epochs: EpochPicker | null = null; // the forward pass's epoch of recorded activations
  private shown: StepShown | null = null;
  private outputsPanel: OutputsPanel;
  private editingOutputs = false;
  private outputs: Outputs & { explicit: boolean } | null = null; // as the kernel last said
  private nodeView: NodeView;
  private nodeViewOn = false;
  private note = nodeViewNote();
  private shownPort: string | null = null;
  private version = -1;

  constructor(private host: TeacherHost) {
    this.outputsPanel = new OutputsPanel((o) => this.setOutputs(o), () => this.toggleOutputs(false), () => this.play("depth_steps"));
    this.nodeView = new NodeView((layer, node) => this.pickNode(layer, node), (src) => this.showTensor(src));
    this.internals = new InternalsTab(host.client, {
      showTensor: (port) => this.showTensor(port),
      selectLayer: (name, node) => { this.host.select(name); if (node !== undefined) this.internals.showNode(name, node); },
    });
    this.note.style.display = "none";
    host.stage.append(this.nodeView.root, this.note);
    this.nodeView.root.style.display = "none";
  }

  // ----- the player -------------------------------------------------------------------------

  async play(kind: "depth_steps" | "forward_steps"): Promise<void> {
    const reply = await this.host.client.send(kind);
    if (!reply.ok) { this.host.showError(reply.error ?? "refused"); return; }
    const played: Played = kind === "depth_steps" ? { kind: "walk", steps: reply.result as DepthStep[] }
      : { kind: "forward", steps: reply.result as ForwardStep[] };
    this.closePlayer();
    if (kind === "forward_steps") this.epochs = new EpochPicker(this.host.model, () => this.host.render());
    this.player = new StepPlayer(played, (shown) => { this.shown = shown; this.host.render(); }, () => this.closePlayer(),
      this.epochs?.root);
    this.version = this.host.state().version;
    this.showSide();
    this.player.root.focus({ preventScroll: true });
  }

  private closePlayer(): void {
    if (!this.player) return;
    const had = this.player.root.contains(document.activeElement);
    this.player.pause();
    this.player.root.remove();
    this.player = null;
    this.epochs?.destroy();
    this.epochs = null;
    this.shown = null;
    this.showSide();
    this.host.render();
    if (had) this.host.focusCanvas();
  }

  /** The player's step highlights this layer's box (the canvas's own highlight). */
  get highlighted(): string | null { return this.shown?.layer ?? null; }

  // ----- outputs ----------------------------------------------------------------------------

  toggleOutputs(on = !this.editingOutputs): void {
    this.editingOutputs = on;
    if (on) {
      if (this.outputs) this.outputsPanel.show(this.outputs, this.outputs.explicit);
      else this.outputsPanel.asking();
      this.refresh();
    }
    this.showSide();
    this.host.render();
  }

  private async setOutputs(o: Outputs): Promise<void> {
    const reply = await this.host.client.send("set_outputs", outputsIntent(o));
    if (!reply.ok) this.host.showError(reply.error ?? "refused");
  }

  /** A + or a number on an output port clicked: marked or unmarked. Outputs Keras found by
   * itself become the explicit list the first time one is marked. */
  private marker(port: Triple): void {
    const now = this.outputs ?? { ports: [], keys: [], explicit: false };
    this.setOutputs(toggleOutput(now, port));
  }

  // ----- node view --------------------------------------------------------------------------

  toggleNodeView(on = !this.nodeViewOn): void {
    this.nodeViewOn = on;
    this.nodeView.root.style.display = on ? "" : "none";
    this.note.style.display = on ? "" : "none";
    this.host.drawing.style.visibility = on ? "hidden" : "";
    this.host.stage.parentElement?.parentElement?.querySelector('.kc-toolbar [aria-label="Node view"]')
      ?.setAttribute("aria-pressed", String(on));
    if (on) this.refresh(); else this.host.render();
  }

  /** Find while the node view is shown: the layer's first node brought to the centre and
   * selected; false when the node view is not shown or the layer has no node. */
  revealNode(layer: string): boolean {
    if (!this.nodeViewOn || !this.nodeView.reveal(layer)) return false;
    this.host.select(layer);
    this.drawNodeView();
    return true;
  }

  private pickNode(layer: string, node: number): void {
    this.host.select(layer);
    this.internals.showNode(layer, node);
    this.drawNodeView();
  }

  private showTensor(port: Triple): void {
    this.shownPort = `out:${tensorId(port)}`;
    this.host.render();
  }

  // ----- following the state ----------------------------------------------------------------

  /** The kernel's new state: a structural change ends a walk played on the old one and asks
   * again for the nodes and outputs the views show. */
  stateChanged(state: GraphState): void {
    if (this.player && state.version !== this.version) this.closePlayer();
    if (this.nodeViewOn || this.editingOutputs || this.outputs) this.refresh();
  }

  private refreshing = 0;

  private async refresh(): Promise<void> {
    const ticket = ++this.refreshing;
    const reply = await this.host.client.send("node_graph");
    if (ticket !== this.refreshing || !reply.ok) return;
    const g = reply.result as NodeGraph & { explicit: boolean };
    this.outputs = { ports: g.outputs, keys: g.keys, explicit: g.explicit };
    this.nodeView.set(g);
    if (this.editingOutputs) this.outputsPanel.show(this.outputs, g.explicit);
    if (this.nodeViewOn) this.drawNodeView();
    this.host.render();
  }

  private drawNodeView(): void {
    if (!this.nodeViewOn) return;
    const walk = this.shown?.walk, id = walk?.current;
    const edge = this.host.selectedTensor(); // an edge selected in the layer view: its tensor here
    this.nodeView.draw({ selected: this.host.selected(), shownPort: edge ? `out:${tensorId(edge)}` : this.shownPort,
      node: id ? `${id[0]}:${id[1]}` : null, status: walk?.status ?? new Map(), depths: walk?.depths ?? new Map() });
  }

  private showSide(): void {
    const was = this.host.side.style.display !== "none";
    clear(this.host.side);
    if (this.player) this.host.side.append(this.player.root);
    if (this.editingOutputs) this.host.side.append(this.outputsPanel.root);
    this.host.side.style.display = this.player || this.editingOutputs ? "" : "none";
    this.host.side.style.maxHeight = this.host.stage.style.height; // beside the drawing, never taller
    if (was !== (this.host.side.style.display !== "none")) requestAnimationFrame(() => this.host.fit());
  }

  /** Drawn after every render of the drawing. */
  decorate(): void {
    const state = this.host.state();
    const outputs = this.outputs ?? { ports: state.model?.outputs ?? [], keys: [] };
    const covered = drawTeaching(this.layer, {
      layers: this.host.placed(), ports: this.host.ports(), edges: this.host.edges(), routes: this.host.routes(),
      edgeLabels: this.host.edgeLabels(), walk: this.shown?.walk ?? null, values: this.shown?.values ?? null,
      activations: this.epochs?.shown ?? null,
      outputs: outputs.ports, keys: outputs.keys, editOutputs: this.editingOutputs,
      shownPort: this.shownPort, onMarker: (port) => this.marker(port),
    });
    this.host.yieldLabels(covered); // a shape label under an output marker gives way to it
    this.drawNodeView();
  }

  destroy(): void {
    this.player?.pause();
  }
}

export function sideColumn(): HTMLElement {
  const side = el("div", { class: "kc-teach-side", "aria-label": "Teaching" });
  side.style.display = "none";
  return side;
}
