// anywidget entry point: a state store per model (diffs -> `state`), a canvas per view.
import { CanvasView } from "./canvas/canvas";
import { FALLBACK_CSS } from "./canvas/fallback";
import type { Model } from "./mirror/protocol";
import { StateStore, type StoreModel } from "./mirror/store";
import { CSS } from "./canvas/style";
import { TEACH_CSS } from "./teaching/teachstyle";
import { followTheme } from "./canvas/theme";
import uplotCss from "uplot/dist/uPlot.min.css";

/** The widget's CSS, once per document or shadow root: marimo renders widgets inside a shadow
 * root, where a style in the page's head does not reach. */
function ensureStyle(el: HTMLElement): void {
  const root = el.getRootNode();
  const host = root instanceof ShadowRoot ? root : document.head;
  if (host.querySelector("#kerascanvas-style")) return;
  const style = document.createElement("style");
  style.id = "kerascanvas-style";
  style.textContent = uplotCss + CSS + TEACH_CSS + FALLBACK_CSS;
  host.append(style);
}

function render({ model, el }: { model: Model; el: HTMLElement }): () => void {
  ensureStyle(el);
  const stopTheme = followTheme(el);
  const view = new CanvasView(model, el);
  const onState = () => view.setState(model.get("state"));
  model.on("change:state", onState);
  return () => {
    model.off("change:state", onState);
    view.destroy();
    stopTheme();
  };
}

/** Once per model: the store that keeps `state` current from the kernel's diffs. */
function initialize({ model }: { model: StoreModel }): () => void {
  const store = new StateStore(model);
  return () => store.destroy();
}

export default { initialize, render };
