// anywidget entry point: a state store per model (diffs -> `state`), a canvas per view.
import { CanvasView } from "./canvas";
import type { Model } from "./protocol";
import { StateStore, type StoreModel } from "./store";
import { CSS } from "./style";
import uplotCss from "uplot/dist/uPlot.min.css";

function ensureStyle(): void {
  if (document.getElementById("kerascanvas-style")) return;
  const style = document.createElement("style");
  style.id = "kerascanvas-style";
  style.textContent = uplotCss + CSS;
  document.head.append(style);
}

function render({ model, el }: { model: Model; el: HTMLElement }): () => void {
  ensureStyle();
  const view = new CanvasView(model, el);
  const onState = () => view.setState(model.get("state"));
  model.on("change:state", onState);
  return () => {
    model.off("change:state", onState);
    view.destroy();
  };
}

/** Once per model: the store that keeps `state` current from the kernel's diffs. */
function initialize({ model }: { model: StoreModel }): () => void {
  const store = new StateStore(model);
  return () => store.destroy();
}

export default { initialize, render };
