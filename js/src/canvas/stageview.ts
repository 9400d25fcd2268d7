// The stage as a window on the drawing: its size on the page, which world rectangle it shows,
// where the camera goes (follow the work, centre a found layer, fit the drawing), gliding
// through the store's view, and how the drawn picture follows the view (PanZoom).
import { CameraGlide, keepInView, workRect } from "../scene/camera";
import { type Flow, type Rect, type View, centreOn, readableFit, toWorld } from "../mirror/geometry";
import { LABEL_SCALE } from "../scene/scene";
import type { UiStore } from "../interaction/ui";
import type { LayerState } from "../mirror/types";

export class StageView {
  private size: { width: number; height: number } | null = null;
  readonly camera: CameraGlide;

  constructor(private stage: HTMLElement, private ui: UiStore) {
    this.camera = new CameraGlide(() => this.view, (view) => ui.setView(view));
  }

  private get view(): View { return this.ui.state.view; }

  /** The stage's size, measured again only after resized(): reading the page's layout right
   * after the scene changed the SVG forces a layout of it in the middle of drawing (several ms
   * after an edit that rewrites every box's text). Width 0: not on the page yet. */
  measure(): { width: number; height: number } {
    if (!this.size) {
      const r = this.stage.getBoundingClientRect();
      if (r.width === 0) return { width: 0, height: 0 }; // measured again next time
      this.size = { width: r.width, height: r.height };
    }
    return this.size;
  }

  /** The stage changed size (a narrower notebook, a side panel opened): measured again, and
   * what was at its centre stays at its centre. */
  resized(): void {
    const before = this.size;
    this.size = null;
    if (!before) return;
    const now = this.measure();
    if (!now.width || (now.width === before.width && now.height === before.height)) return;
    const v = this.view;
    this.ui.setView({ ...v, x: v.x + (now.width - before.width) / 2, y: v.y + (now.height - before.height) / 2 });
  }

  /** The world rectangle on screen, with `margin` screens of margin on every side. */
  shown(margin = 0): Rect {
    const r = this.measure();
    const tl = toWorld(this.view, { x: -r.width * margin, y: -r.height * margin });
    const grow = 1 + 2 * margin;
    return { x: tl.x, y: tl.y, w: (grow * r.width) / this.view.k, h: (grow * r.height) / this.view.k };
  }

  /** The world rectangle on screen, [x, y, w, h]: where the kernel puts new boxes. */
  kernelRect(): number[] {
    const r = this.shown();
    return [r.x, r.y, Math.max(1, r.w), Math.max(1, r.h)];
  }

  /** The camera glides to `view`. */
  glideTo(view: View): void {
    this.camera.to(view);
  }

  /** The view follows the work: the boxes `names` of `layers` (or the folded run's box that holds
   * one) are brought into view, gliding, where the state now puts them. */
  follow(layers: LayerState[], names: Iterable<string>): void {
    const r = workRect(layers, names);
    const stage = this.measure();
    if (r && stage.width) this.glideTo(keepInView(this.view, r, stage));
  }

  /** `layer` centred at a readable scale. */
  centre(layer: LayerState): void {
    const r = this.measure();
    this.glideTo(centreOn(layer, this.view, r.width, r.height));
  }

  /** The whole drawing (`layers` where they are seen) fitted, measured afresh. */
  fit(layers: LayerState[], flow: Flow = "down"): void {
    this.resized();
    const r = this.measure();
    this.ui.setView(readableFit(layers, r.width, r.height, 30, flow));
  }
}

/** How the drawn picture follows pan and zoom: a small drawing takes the new transform at once
 * (drawn again when a zoom crosses the scales where names are written); a big one moves as one
 * picture (a CSS transform of what is drawn) while the gesture goes on, and is drawn again,
 * sharp and culled, once it pauses. */
export class PanZoom {
  private drawn: View; // the view the SVG was last drawn for
  private settle = 0;

  constructor(private svgEl: SVGSVGElement, private world: SVGGElement, private view: () => View,
              private redraw: () => void) {
    this.drawn = view();
  }

  /** The SVG drawn for the view as it is now. */
  apply(): void {
    const v = this.view();
    this.world.setAttribute("transform", `translate(${v.x},${v.y}) scale(${v.k})`);
    this.drawn = v;
    this.svgEl.style.transform = "";
  }

  /** The view moved between two drawings (`big`: a drawing drawn near the viewport only). */
  moved(big: boolean): void {
    const v = this.view();
    if (!big) {
      // zooming past the scales where slot names are written draws them (or takes them away)
      const crossed = (t: number) => (v.k >= t) !== (this.drawn.k >= t);
      if (crossed(LABEL_SCALE) || crossed(0.8)) this.redraw(); else this.apply();
      return;
    }
    const s = v.k / this.drawn.k;
    this.svgEl.style.transform = `translate(${v.x - this.drawn.x * s}px,${v.y - this.drawn.y * s}px) scale(${s})`;
    window.clearTimeout(this.settle);
    this.settle = window.setTimeout(() => this.redraw(), 150);
  }

  stop(): void {
    window.clearTimeout(this.settle);
  }
}
