// The side panel for what is selected: the selected layer's config form and its Keras nodes, a
// layer inside a nested model (by its path "outer/inner", read-only), or a selected edge's tensor.
// The form's fields are the kernel's (the `inspect` intent: every key of the live layer's
// get_config()), asked once per layer and config. The form is made again only when the selection,
// that layer's name, class or config, or the refusal shown with it changes: a redraw of the
// drawing leaves it (and what is being typed into it) alone.
import { renderCallSettings, settingsKey } from "./callsettings";
import type { Client } from "../mirror/protocol";
import {
  type Explanation, type Inspected, configFields, onError, renderExplanation, renderFields, renderInnerInspector,
  renderInspector, renderNodes,
} from "./panels";
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
  path?: string | null;                      // a layer inside a nested model ("outer/inner"), shown read-only (layer null)
}

/** What `showPath` shows besides the inner layer: nothing else is selected. */
const NOTHING: Shown = { layer: null, entry: undefined, error: null, edge: null, edgeCount: 0,
  onChange: () => undefined, onRename: () => undefined };

export class Inspector {
  readonly root: HTMLElement;
  private formKey: string | null = null;
  private nodesKey: string | null = null;    // the nodes drawn under the form
  private explained: { key: string; nodes: Explanation[]; layer?: Explanation } | null = null;
  private current: Shown | null = null;
  private inspected: { key: string; fields: Inspected | null; error?: string } | null = null; // the kernel's fields, by layer and config
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
    const path = !layer && !(edge && !layer) && s.path ? s.path : null;
    const key = edge && !layer ? `edge ${edge.key}` : layer
      ? JSON.stringify([layer.name, layer.class_name, layer.config, s.error, s.refusals ?? 0, s.entry !== undefined, settingsKey(layer.calls)])
      : path ? `path ${path}` : "none";
    if (key !== this.formKey || (edge && !layer)) {
      if (edge && !layer) {
        if (key !== this.formKey || this.edgeShown !== edge.explanation) renderExplanation(this.root, edge.explanation);
        this.edgeShown = edge.explanation;
      } else if (path) {
        const fieldsKey = `path ${path}`;
        const known = this.inspected?.key === fieldsKey ? this.inspected : null;
        renderInnerInspector(this.root, path, known?.fields ?? null, known?.error, this.fieldChange(path, () => undefined));
        if (!known) void this.inspect(fieldsKey, path, null);
        this.builds++;
      } else {
        const fieldsKey = layer ? JSON.stringify([layer.name, layer.class_name, layer.config]) : "";
        const known = layer && this.inspected?.key === fieldsKey ? this.inspected : null;
        renderInspector(this.root, layer, s.entry, s.error, layer ? this.fieldChange(layer.name, s.onChange) : s.onChange,
          s.onRename, known?.fields ?? null);
        if (layer && !layer.is_input && s.onCallSettings) {
          renderCallSettings(this.root, layer.calls, s.onCallSettings, (message) => onError(this.root, message));
        }
        if (layer && !known) void this.inspect(fieldsKey, layer.name, s);
        this.builds++;
      }
      this.formKey = key;
      this.nodesKey = null;
    }
    if (layer) this.explain(layer, s.edgeCount);
    this.after?.(this.root, layer?.name ?? null);
  }

  /** Show a layer inside a nested model by its path "outer/inner/..." (any depth): its fields
   * as the kernel reads them off the live inner layer, read-only with the reason. */
  showPath(path: string): void {
    this.show({ ...NOTHING, edgeCount: this.current?.edgeCount ?? 0, path });
  }

  /** Ask the kernel for the fields of a layer (or a path), then fill the form still showing it. */
  private async inspect(key: string, name: string, s: Shown | null): Promise<void> {
    this.inspected = { key, fields: null };
    const reply = await this.client.send("inspect", { name });
    if (this.inspected?.key !== key) return; // another layer or config was asked for since
    const layer = s?.layer ?? null;
    if (reply.ok) this.inspected.fields = reply.result as Inspected;
    else if (layer) this.inspected.fields = configFields(layer, `not read from the kernel: ${reply.error ?? "no answer"}`);
    else this.inspected.error = reply.error ?? "no answer";
    const now = this.current;
    if (!now) return;
    if (layer && now.layer?.name === layer.name && JSON.stringify([now.layer.name, now.layer.class_name, now.layer.config]) === key) {
      renderFields(this.root, this.inspected.fields as Inspected, this.fieldChange(layer.name, now.onChange));
    } else if (!layer && !now.layer && now.path === name) {
      renderInnerInspector(this.root, name, this.inspected.fields, this.inspected.error, this.fieldChange(name, () => undefined));
      this.after?.(this.root, null);
    }
  }

  private edgeShown: Explanation | null = null;

  /** The form's changes for the layer at `path`: its "trainable" checkbox sends `set_trainable`
   * (a box, or a layer inside a nested model by its path: a flag on the live layers, one undo
   * step); every other field goes to `other` (configure). */
  private fieldChange(path: string, other: (config: Record<string, unknown>) => void): (config: Record<string, unknown>) => void {
    return (config) => {
      const keys = Object.keys(config);
      if (keys.length !== 1 || keys[0] !== "trainable" || typeof config.trainable !== "boolean") {
        other(config);
        return;
      }
      void this.client.send("set_trainable", { name: path, trainable: config.trainable }).then((reply) => {
        if (!reply.ok) onError(this.root, reply.error ?? "no answer");
        else if (path.includes("/") && this.inspected?.key === `path ${path}`) this.inspected = null; // asked again when shown again
      });
    };
  }

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
