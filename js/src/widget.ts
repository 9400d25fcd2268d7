// anywidget entry point: mounts the canvas and mirrors the kernel's `state` trait.
import { CanvasView } from "./canvas";
import type { Model } from "./protocol";
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

export default { render };
