// The canvas's toolbar, in JupyterLab's own button style, in named groups (edit, view, file,
// teach, export). In a narrow notebook the groups that do not fit go, last first, into a "More"
// menu instead of wrapping onto a second line; each button is one element wherever it is, with
// its accessible name. Which buttons, which groups and how many fit are pure (tested); the
// canvas says what each does.
import { el } from "../base/dom";

export type ToolAction =
  | "undo" | "redo" | "add-layer" | "find" | "arrange" | "fit" | "save" | "save-as" | "load"
  | "depth-steps" | "forward-pass" | "outputs" | "node-view" | "export-svg" | "export-png" | "export-html" | "compare";

export interface ToolButton { label: string; title: string; action: ToolAction }
export interface ToolGroup { name: string; buttons: ToolButton[] }

const COMPARE: ToolButton = { label: "Compare…", title: "Compare with the drawing as imported, as last saved, or a snapshot: the changes marked on the drawing", action: "compare" };

/** The buttons in named groups. Every canvas saves and loads: one with a file saves to it and
 * loads it again; one without asks for a file name (Save as..., Load...). */
export function toolbarButtons(hasFile: boolean): ToolGroup[] {
  const groups: ToolGroup[] = [
    { name: "Edit", buttons: [{ label: "Undo", title: "Undo (Ctrl+Z)", action: "undo" },
      { label: "Redo", title: "Redo (Ctrl+Shift+Z)", action: "redo" },
      { label: "Add layer", title: "Search the layers at the pointer (Tab or Shift+A)", action: "add-layer" }] },
    { name: "View", buttons: [{ label: "Find", title: "Find a layer by name (Ctrl+F)", action: "find" },
      { label: "Arrange", title: "Lay the drawing out again from its depth map", action: "arrange" },
      { label: "Fit", title: "Show the drawing (from its inputs when it is too big to read whole)", action: "fit" }] },
  ];
  groups.push(
    { name: "Teach", buttons: [{ label: "Keras's walk", title: "Step through how keras.Model walks from the outputs and finds each node's depth", action: "depth-steps" },
      { label: "Forward pass", title: "Run one sample through, node by node: the value on every edge", action: "forward-pass" },
      { label: "Outputs", title: "Mark, unmark and order the model's outputs (the walk starts from them)", action: "outputs" },
      { label: "Node view", title: "One box per call (per Keras Node); edges as KerasTensors", action: "node-view" }] },
    { name: "Export", buttons: [{ label: "Export SVG", title: "Save the drawing as SVG", action: "export-svg" },
      { label: "Export PNG", title: "Save the drawing as PNG", action: "export-png" },
      { label: "Export HTML", title: "Save a read-only interactive view as one HTML file (opens without Jupyter)", action: "export-html" }] });
  // last: where the canvas is narrow it goes into More first (a canvas keeps its drawing by itself)
  groups.push({ name: "File", buttons: hasFile
    ? [{ label: "Save", title: "Save drawing and weights to its file", action: "save" },
      { label: "Save as…", title: "Save drawing and weights to another file in the notebook's folder", action: "save-as" },
      { label: "Load", title: "Load the saved drawing again", action: "load" }, COMPARE]
    : [{ label: "Save as…", title: "Save drawing and weights to a file in the notebook's folder", action: "save-as" },
      { label: "Load…", title: "Load a drawing saved in the notebook's folder", action: "load" }, COMPARE] });
  return groups;
}

/** How many groups, from the first, stay on the bar: all when all fit in `room` px; else as many
 * as fit beside the "More" button (`more` px), at least one. */
export function groupsThatFit(widths: number[], room: number, more: number): number {
  const total = widths.reduce((a, b) => a + b, 0);
  if (total <= room) return widths.length;
  let used = more, n = 0;
  while (n < widths.length && used + widths[n] <= room) used += widths[n++];
  return Math.max(1, n);
}

export function toolbar(hasFile: boolean, run: Record<ToolAction, () => void>, signal: AbortSignal): HTMLElement {
  const bar = el("div", { class: "kc-toolbar", role: "toolbar", "aria-label": "Canvas tools" });
  const menu = el("div", { class: "kc-toolbar-menu", role: "menu", "aria-label": "Tools that do not fit", hidden: "" });
  const more = el("button", { class: "kc-button jp-ToolbarButtonComponent kc-toolbar-more", "aria-label": "More tools",
    title: "The tools that do not fit here", "aria-haspopup": "menu", "aria-expanded": "false", hidden: "" }, "More ▾");
  const close = () => { menu.hidden = true; more.setAttribute("aria-expanded", "false"); };
  const groups = toolbarButtons(hasFile).map(({ name, buttons }) => {
    const group = el("span", { class: "kc-toolbar-group", role: "group", "aria-label": name });
    for (const { label, title, action } of buttons) {
      const b = el("button", { class: "kc-button jp-ToolbarButtonComponent", "aria-label": label, title, "data-action": action }, label);
      b.addEventListener("click", () => { close(); run[action](); }, { signal });
      group.append(b);
    }
    return group;
  });
  bar.append(...groups, more, menu);
  more.addEventListener("click", () => {
    menu.hidden = !menu.hidden;
    more.setAttribute("aria-expanded", String(!menu.hidden));
    if (!menu.hidden) (menu.querySelector("button") as HTMLButtonElement | null)?.focus();
  }, { signal });
  menu.addEventListener("keydown", (ev) => { if (ev.key === "Escape") { ev.stopPropagation(); close(); more.focus(); } }, { signal });
  document.addEventListener("pointerdown", (ev) => { if (!bar.contains(ev.target as Node)) close(); }, { signal });
  // the groups that fit stay on the bar; the others go into the menu, last first
  const arrange = () => {
    more.hidden = false; // measured as it is drawn (a guess of 70 px pushed a group that fits into it)
    const moreWidth = more.getBoundingClientRect().width + 4;
    more.hidden = true;
    bar.insertBefore(groupsFragment(groups), more);
    const widths = groups.map((g) => g.getBoundingClientRect().width + 4); // + margin and gap
    const room = bar.clientWidth - 8;
    if (room <= 0) return; // not laid out (hidden): arranged when it is
    const kept = groupsThatFit(widths, room, moreWidth > 4 ? moreWidth : 70);
    if (kept < groups.length) {
      more.hidden = false;
      menu.append(...groups.slice(kept));
    } else close();
  };
  if (typeof ResizeObserver !== "undefined") {
    const watch = new ResizeObserver(() => arrange());
    watch.observe(bar);
    signal.addEventListener("abort", () => watch.disconnect());
  }
  return bar;
}

function groupsFragment(groups: HTMLElement[]): DocumentFragment {
  const f = document.createDocumentFragment();
  f.append(...groups);
  return f;
}
