// anywidget entry point: mounts the canvas and mirrors the kernel's `state` trait.
import { CanvasView } from "./canvas";
import type { Model } from "./protocol";
import { CSS } from "./style";
import { followTheme } from "./theme";
import uplotCss from "uplot/dist/uPlot.min.css";

/** The widget's CSS, once per document or shadow root: marimo renders widgets inside a shadow
 * root, where a style in the page's head does not reach. */
function ensureStyle(el: HTMLElement): void {
  const root = el.getRootNode();
  const host = root instanceof ShadowRoot ? root : document.head;
  if (host.querySelector("#kerascanvas-style")) return;
  const style = document.createElement("style");
  style.id = "kerascanvas-style";
  style.textContent = uplotCss + CSS;
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

export default { render };
