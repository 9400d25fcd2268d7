// The inspector's "Keras internals" tab: the selected layer's nodes as Keras holds them (read off
// the live objects by the kernel, kerascanvas/teaching/internals.py): per node its input and output
// tensors with _keras_history and its parent_nodes; each _outbound_nodes entry with the node of
// this layer that produced the tensor it reads (click: that node's row); the Keras 2 names beside
// the Keras 3 ones. "show tensor" highlights the port on the drawing and the node's row here.
import { clear, el } from "../base/dom";
import type { Client } from "../mirror/protocol";
import type { Triple } from "./walk";

interface TensorInfo { name: string; shape: (number | null)[]; keras_history: Triple }
interface NodeInfo { node_index: number; depth: number | null; inputs: TensorInfo[]; outputs: TensorInfo[]; parent_nodes: [string, number][] }
interface OutboundInfo { entry: number; consumer: [string, number]; input: number; producer: Triple }
export interface Internals { layer: string; class_name: string; nodes: NodeInfo[]; outbound: OutboundInfo[]; renamed: [string, string, string][] }

export interface InternalsHost {
  showTensor: (port: Triple) => void;      // the port on the drawing (out:layer:node:tensor)
  selectLayer: (name: string, node?: number) => void;
}

const shape = (s: (number | null)[]) => `(${s.map((d) => (d === null ? "None" : String(d))).join(", ")}${s.length === 1 ? "," : ""})`;
const history = (t: Triple) => `(${t[0]}, ${t[1]}, ${t[2]})`;

/** The tab bar and the tab's body, kept inside the inspector's root across its redraws. */
export class InternalsTab {
  readonly bar = el("div", { class: "kc-tabs", role: "tablist" });
  readonly body = el("div", { class: "kc-internals", role: "tabpanel", "aria-label": "Keras internals" });
  private on = false;
  private key: string | null = null;
  private data: Internals | null = null;
  private row: string | null = null;  // "node k" row highlighted
  private configTab = el("button", { class: "kc-tab", role: "tab", "aria-label": "Layer tab" }, "Layer");
  private internalsTab = el("button", { class: "kc-tab", role: "tab", "aria-label": "Keras internals tab" }, "Keras internals");

  constructor(private client: Client, private host: InternalsHost) {
    this.configTab.addEventListener("click", () => this.choose(false));
    this.internalsTab.addEventListener("click", () => this.choose(true));
    this.bar.append(this.configTab, this.internalsTab);
  }

  get active(): boolean { return this.on; }

  /** After the inspector drew `root` for `layer` (null: nothing selected); `version` changes
   * with the drawing's structure, so the tab asks the kernel again. */
  attach(root: HTMLElement, layer: string | null, version: number): void {
    if (!layer) { this.bar.remove(); this.body.remove(); root.parentElement?.classList.remove("kc-side-wide"); return; }
    if (root.firstChild !== this.bar) root.prepend(this.bar);
    if (this.body.parentElement !== root) root.append(this.body);
    root.classList.toggle("kc-internals-on", this.on);
    root.parentElement?.classList.toggle("kc-side-wide", this.on);
    this.configTab.setAttribute("aria-selected", String(!this.on));
    this.internalsTab.setAttribute("aria-selected", String(this.on));
    if (layer !== this.layer && this.rowLayer !== layer) this.row = null;
    this.layer = layer;
    this.version = version;
    const key = `${layer}@${version}`;
    if (this.on && key !== this.key) { this.key = key; this.data = null; this.render(); this.fetch(layer, key); }
  }

  /** Open the tab on `layer`, its node `node`'s row highlighted (from the node view). */
  showNode(layer: string, node: number | null): void {
    this.row = node === null ? null : `node ${node}`;
    this.rowLayer = layer; // the inspector may show that layer only after this (the store redraws soon)
    if (layer === this.layer) { this.choose(true); this.render(); } else this.on = true;
  }

  private rowLayer: string | null = null;

  private layer: string | null = null;
  private version = -1;

  private choose(on: boolean): void {
    this.on = on;
    if (on && this.layer !== null && this.key !== `${this.layer}@${this.version}`) {
      this.key = `${this.layer}@${this.version}`;
      this.data = null;
      this.fetch(this.layer, this.key);
    }
    const root = this.bar.parentElement;
    if (root) {
      root.classList.toggle("kc-internals-on", on);
      root.parentElement?.classList.toggle("kc-side-wide", on);
    }
    this.configTab.setAttribute("aria-selected", String(!on));
    this.internalsTab.setAttribute("aria-selected", String(on));
    if (on) this.render();
  }

  private async fetch(layer: string, key: string): Promise<void> {
    const reply = await this.client.send("internals", { name: layer });
    if (this.key !== key) return;
    if (!reply.ok) { clear(this.body); this.body.append(el("div", { class: "kc-error" }, reply.error ?? "refused")); return; }
    this.data = reply.result as Internals;
    this.render();
  }

  private render(): void {
    clear(this.body);
    const d = this.data;
    if (!d) { this.body.append(el("div", { class: "kc-muted" }, "Reading Keras's objects…")); return; }
    this.body.append(el("div", { class: "kc-title" }, `${d.layer} · ${d.class_name}: layer._inbound_nodes (one Node per call)`));
    if (!d.nodes.length) this.body.append(el("div", { class: "kc-muted" }, "No Node yet: no call of this layer is complete."));
    for (const n of d.nodes) {
      const row = el("div", { class: `kc-node${this.row === `node ${n.node_index}` ? " kc-row-shown" : ""}`, "data-row": `node ${n.node_index}`,
        tabindex: "0", "aria-label": `${d.layer} node ${n.node_index}` });
      row.append(el("div", { class: "kc-node-title" }, `node ${n.node_index}${n.depth === null ? "" : ` · depth ${n.depth}`}`
        + ` · operation = ${d.layer} (Keras 2: outbound_layer)`));
      const tensors = (label: string, list: TensorInfo[]) => {
        row.append(el("div", { class: "kc-node-row kc-muted" }, label));
        if (!list.length) row.append(el("div", { class: "kc-node-row" }, "[] (an Input node)"));
        list.forEach((t, i) => {
          const line = el("div", { class: "kc-node-row kc-tensor" });
          line.append(el("span", {}, `[${i}] ${t.name} ${shape(t.shape)} _keras_history = ${history(t.keras_history)}`));
          const show = el("button", { class: "kc-link", "aria-label": `show tensor ${history(t.keras_history)}` }, "show tensor");
          show.addEventListener("click", () => { this.row = `node ${n.node_index}`; this.render(); this.host.showTensor(t.keras_history); });
          line.append(show);
          row.append(line);
        });
      };
      tensors("input_tensors (Keras 2: inbound_layers[i], node_indices[i], tensor_indices[i] = the _keras_history)", n.inputs);
      tensors("output_tensors", n.outputs);
      const parents = n.parent_nodes.map((p) => `${p[0]} node ${p[1]}`).join(", ") || "none";
      row.append(el("div", { class: "kc-node-row" }, `parent_nodes: ${parents}`));
      this.body.append(row);
    }
    this.body.append(el("div", { class: "kc-title" }, "layer._outbound_nodes: one entry per input tensor that reads this layer"));
    if (!d.outbound.length) this.body.append(el("div", { class: "kc-muted" }, "none: nothing reads this layer's tensors"));
    for (const o of d.outbound) {
      const line = el("div", { class: "kc-node-row kc-outbound" });
      line.append(el("span", {}, `[${o.entry}] `));
      const consumer = el("button", { class: "kc-link", "aria-label": `go to ${o.consumer[0]} node ${o.consumer[1]}` }, `${o.consumer[0]} node ${o.consumer[1]}`);
      consumer.addEventListener("click", () => this.host.selectLayer(o.consumer[0], o.consumer[1]));
      const producer = el("button", { class: "kc-link", "aria-label": `producer ${d.layer} node ${o.producer[1]}` }, `${o.producer[0]} node ${o.producer[1]}`);
      producer.addEventListener("click", () => { this.row = `node ${o.producer[1]}`; this.render(); this.host.showTensor(o.producer); });
      line.append(consumer, el("span", {}, ` input ${o.input} reads tensor ${o.producer[2]} of `), producer);
      this.body.append(line);
    }
    const table = el("table", { class: "kc-renamed" });
    const head = el("tr");
    head.append(el("th", {}, "Keras 2 (the seeds)"), el("th", {}, "Keras 3"), el("th", {}, "what it is"));
    table.append(head);
    for (const [k2, k3, what] of d.renamed) {
      const tr = el("tr");
      tr.append(el("td", {}, k2), el("td", {}, k3), el("td", {}, what));
      table.append(tr);
    }
    this.body.append(el("div", { class: "kc-title" }, "Names then and now"), table);
    // the row into the inspector's view, scrolling the inspector only (never the notebook)
    const shown = this.body.querySelector(".kc-row-shown"), box = this.body.parentElement;
    if (shown && box) box.scrollTop += shown.getBoundingClientRect().top - box.getBoundingClientRect().top - 30;
  }
}
