// The side panel for what is selected: the selected layer's config form and its Keras nodes, or a
// selected edge's tensor. The form is made again only when the selection, that layer's name,
// class or config, or the refusal shown with it changes: a redraw of the drawing leaves it (and
// what is being typed into it) alone.
import { renderCallSettings, settingsKey } from "./callsettings";
import type { Client } from "../mirror/protocol";
import { type Explanation, onError, renderExplanation, renderInspector, renderNodes } from "./panels";
import type { LayerState, PaletteEntry } from "../mirror/types";

export interface Shown {
  layer: LayerState | null;                  // the one selected layer, or null
  entry: PaletteEntry | undefined;           // its catalog entry (the form's schema)
  error: string | null;                      // the kernel's refusal of the last configure/rename
  refusals?: number;                         // counts refusals: each makes the form again, from the kernel's values
  edge: { key: string; explanation: Explanation } | null; // a selected edge, once explained
  edgeCount: number;                         // the nodes shown change with the edges
  onChange: (config: Record<string, unknown>) => void;
  onRename: (name: string) => void;
  onCallSettings?: (call: number, settings: Record<string, unknown>) => void; // configure_call
}

export class Inspector {
  readonly root: HTMLElement;
  private formKey: string | null = null;
  private nodesKey: string | null = null;    // the nodes drawn under the form
  private explained: { key: string; nodes: Explanation[]; layer?: Explanation } | null = null;
  private current: Shown | null = null;
  /** How many times the form was made (tests read it). */
  builds = 0;

  constructor(root: HTMLElement, private client: Client, signal: AbortSignal, onDone: () => void,
              private after?: (root: HTMLElement, layer: string | null) => void) { // tabs of other modules (internals.ts)
    this.root = root;
    // Enter in a form field commits it (blur fires its change) and stays in the widget: in
    // JupyterLab the key would otherwise reach the notebook, which cancels the change.
    root.addEventListener("keydown", (ev) => {
      const t = ev.target as HTMLElement;
      if (ev.key === "Enter" && t.tagName === "INPUT") {
        ev.preventDefault();
        ev.stopPropagation();
        (t as HTMLInputElement).blur();
        onDone();
      }
    }, { signal });
  }

  show(s: Shown): void {
    this.current = s;
    const { layer, edge } = s;
    const key = edge && !layer ? `edge ${edge.key}` : layer
      ? JSON.stringify([layer.name, layer.class_name, layer.config, s.error, s.refusals ?? 0, s.entry !== undefined, settingsKey(layer.calls)]) : "none";
    if (key !== this.formKey || (edge && !layer)) {
      if (edge && !layer) {
        if (key !== this.formKey || this.edgeShown !== edge.explanation) renderExplanation(this.root, edge.explanation);
        this.edgeShown = edge.explanation;
      } else {
        renderInspector(this.root, layer, s.entry, s.error, s.onChange, s.onRename);
        if (layer && !layer.is_input && s.onCallSettings) {
          renderCallSettings(this.root, layer.calls, s.onCallSettings, (message) => onError(this.root, message));
        }
        this.builds++;
      }
      this.formKey = key;
      this.nodesKey = null;
    }
    if (layer) this.explain(layer, s.edgeCount);
    this.after?.(this.root, layer?.name ?? null);
  }

  private edgeShown: Explanation | null = null;

  /** The layer's nodes under the form (asked of the kernel once per change of its calls). */
  private async explain(layer: LayerState, edgeCount: number): Promise<void> {
    const key = `${layer.name}:${JSON.stringify(layer.calls)}:${edgeCount}`;
    if (this.explained?.key === key) {
      if (this.nodesKey !== key && this.explained.nodes.length + (this.explained.layer ? 1 : 0)) {
        renderNodes(this.root, this.explained.nodes, this.explained.layer);
        this.nodesKey = key;
      }
      return;
    }
    this.explained = { key, nodes: [] };
    const reply = await this.client.send("explain", { name: layer.name });
    if (!reply.ok || this.explained?.key !== key) return;
    const result = reply.result as { nodes: Explanation[]; layer: Explanation };
    this.explained.nodes = result.nodes;
    this.explained.layer = result.layer;
    if (this.current?.layer?.name === layer.name) {
      renderNodes(this.root, result.nodes, result.layer);
      this.nodesKey = key;
    }
  }
}
