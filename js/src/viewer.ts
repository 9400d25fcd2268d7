// Entry of the standalone HTML view (g.to_html): the canvas's own front end over a read-only model
// fed by the JSON the file embeds (kerascanvas/io/standalone.py). Built as a classic script
// (kerascanvas/static/viewer.js) so the file opens from disk: nothing is imported or fetched.
import type { Model } from "./mirror/protocol";
import { ReadOnlyModel, type ViewerData } from "./mirror/readonly";
import widget from "./widget";

/** What only a kernel can do is not offered: editing, training, files, exporting HTML again. */
const EDITS = ["undo", "redo", "add-layer", "arrange", "save", "save-as", "load", "depth-steps", "forward-pass", "outputs", "node-view",
  "export-html", "compare"];
const READ_ONLY_CSS = `
.kc-toolbar button:is(${EDITS.map((a) => `[data-action="${a}"]`).join(", ")}) { display: none; }
.kc-training, .kc-palette, .kc-flow-toggle, .kc-compare-end { display: none; }
`;

function start(): void {
  const holder = document.getElementById("kc-data");
  const host = document.getElementById("kc-app");
  if (!holder || !host) return;
  const data = JSON.parse(holder.textContent ?? "{}") as ViewerData;
  const style = document.createElement("style");
  style.textContent = READ_ONLY_CSS;
  document.head.append(style);
  const model = new ReadOnlyModel(data, Math.max(360, window.innerHeight - 140));
  widget.render({ model: model as unknown as Model, el: host });
  // the inspector's forms show a box's config; here they are for reading
  const lock = () => host.querySelectorAll<HTMLInputElement | HTMLSelectElement | HTMLTextAreaElement>(
    ".kc-inspector input, .kc-inspector select, .kc-inspector textarea").forEach((field) => {
    if (field instanceof HTMLSelectElement) field.disabled = true; else field.readOnly = true;
  });
  new MutationObserver(lock).observe(host, { childList: true, subtree: true });
}

start();
