// The canvas's toolbar, in JupyterLab's own button style. Which buttons there are, in which
// groups, is pure (toolbarButtons, tested); the canvas says what each does.
import { el } from "../base/dom";

export type ToolAction =
  | "undo" | "redo" | "add-layer" | "find" | "arrange" | "fit" | "save" | "load"
  | "depth-steps" | "forward-pass" | "outputs" | "node-view" | "export-svg" | "export-png" | "export-html";

export interface ToolButton { label: string; title: string; action: ToolAction }

/** The buttons in groups (a gap between groups); Save and Load only for a canvas with a file. */
export function toolbarButtons(hasFile: boolean): ToolButton[][] {
  const groups: ToolButton[][] = [
    [{ label: "Undo", title: "Undo (Ctrl+Z)", action: "undo" },
      { label: "Redo", title: "Redo (Ctrl+Shift+Z)", action: "redo" }],
    [{ label: "Add layer", title: "Search the layers at the pointer (Tab or Shift+A)", action: "add-layer" },
      { label: "Find", title: "Find a layer by name (Ctrl+F)", action: "find" },
      { label: "Arrange", title: "Lay the drawing out again from its depth map", action: "arrange" },
      { label: "Fit", title: "Show the drawing (from its inputs when it is too big to read whole)", action: "fit" }],
  ];
  if (hasFile) {
    groups.push([{ label: "Save", title: "Save drawing and weights", action: "save" },
      { label: "Load", title: "Load the saved drawing", action: "load" }]);
  }
  groups.push(
    [{ label: "Keras's walk", title: "Step through how keras.Model walks from the outputs and finds each node's depth", action: "depth-steps" },
      { label: "Forward pass", title: "Run one sample through, node by node: the value on every edge", action: "forward-pass" },
      { label: "Outputs", title: "Mark, unmark and order the model's outputs (the walk starts from them)", action: "outputs" },
      { label: "Node view", title: "One box per call (per Keras Node); edges as KerasTensors", action: "node-view" }],
    [{ label: "Export SVG", title: "Save the drawing as SVG", action: "export-svg" },
      { label: "Export PNG", title: "Save the drawing as PNG", action: "export-png" },
      { label: "Export HTML", title: "Save a read-only interactive view as one HTML file (opens without Jupyter)", action: "export-html" }]);
  return groups;
}

export function toolbar(hasFile: boolean, run: Record<ToolAction, () => void>, signal: AbortSignal): HTMLElement {
  const bar = el("div", { class: "kc-toolbar", role: "toolbar" });
  toolbarButtons(hasFile).forEach((group, i) => {
    if (i) bar.append(el("span", { class: "kc-toolbar-gap" }));
    for (const { label, title, action } of group) {
      const b = el("button", { class: "kc-button jp-ToolbarButtonComponent", "aria-label": label, title, "data-action": action }, label);
      b.addEventListener("click", () => run[action](), { signal });
      bar.append(b);
    }
  });
  return bar;
}
