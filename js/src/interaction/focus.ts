// Keyboard focus in the drawing: it survives a redraw (the focused box, port, fold button or
// edge is found again by its attribute), and the view follows it when the user moves it (Tab to
// a box off screen brings the box into view; a focus the canvas restores moves nothing).
import { type View, boxHeight, boxWidth, toScreen } from "../mirror/geometry";
import type { LayerState } from "../mirror/types";

/** Where the view goes so that `layer` is seen (the view itself when it already is, readable). */
export function revealView(view: View, layer: LayerState, stage: { width: number; height: number }): View {
  const a = toScreen(view, { x: layer.x, y: layer.y });
  const b = toScreen(view, { x: layer.x + boxWidth(layer), y: layer.y + boxHeight(layer) });
  if (a.x >= 0 && a.y >= 0 && b.x <= stage.width && b.y <= stage.height && view.k >= 0.5) return view;
  const k = Math.max(view.k, 1);
  return { k, x: stage.width / 2 - (layer.x + boxWidth(layer) / 2) * k, y: stage.height / 2 - (layer.y + boxHeight(layer) / 2) * k };
}

export interface FocusHost {
  readonly root: HTMLElement;           // keeps the keys when the focused element is gone
  readonly svg: SVGSVGElement;
  readonly stage: HTMLElement;
  view(): View;
  setView(view: View): void;
  layers(): LayerState[];               // where the boxes are seen
  portLayer(key: string): string | undefined;  // the layer a port belongs to
}

export class FocusKeeper {
  private restoring = false;

  constructor(private host: FocusHost, signal: AbortSignal) {
    // After the event: JupyterLab's notebook handles this focusin too, and takes the focus to
    // its cell if the target has left the page by then (a redraw replaces it).
    host.svg.addEventListener("focusin", (ev) => {
      if (this.restoring) return;
      const target = ev.target as Element;
      requestAnimationFrame(() => this.reveal(target));
    }, { signal });
  }

  /** The drawn element with keyboard focus, as an attribute selector that survives a redraw. */
  focusedKey(): string | null {
    const active = document.activeElement;
    if (!active || !this.host.svg.contains(active)) return null;
    for (const attr of ["data-toggle", "data-name", "data-port", "data-edge"]) {
      const v = active.getAttribute(attr);
      if (v !== null) return `[${attr}="${CSS.escape(v)}"]`;
    }
    return null;
  }

  /** The focus back on what `selector` names after a redraw; on the canvas if it is gone. */
  refocus(selector: string): void {
    const target = this.host.svg.querySelector(selector) as SVGElement | null;
    if (!target) { // the focused box or edge is gone (deleted): keys stay with the canvas
      if (!this.host.root.contains(document.activeElement)) this.host.root.focus({ preventScroll: true });
      return;
    }
    if (target !== document.activeElement) this.quietly(target);
  }

  /** Focus `target` without moving the view (not a move of the user's focus). */
  quietly(target: SVGElement): void {
    this.restoring = true;
    try { target.focus({ preventScroll: true }); } finally { this.restoring = false; }
  }

  /** Keyboard focus on a box or port off screen brings it into view (the view follows Tab). */
  private reveal(target: Element): void {
    const portKey = target.getAttribute("data-port");
    const name = target.getAttribute("data-name") ?? (portKey ? this.host.portLayer(portKey) : undefined);
    const layer = name ? this.host.layers().find((l) => l.name === name) : undefined;
    if (!layer) return;
    const r = this.host.stage.getBoundingClientRect();
    const view = this.host.view();
    const next = revealView(view, layer, r);
    if (next !== view) this.host.setView(next);
  }
}

