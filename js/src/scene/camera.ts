// The view follows the work: after a fold, an unfold, a delete, a paste, an insert or a find the
// boxes it concerns are kept in view, the camera gliding there (not jumping). Where it goes is
// pure (keepInView, cameraAt); CameraGlide runs the frames.
import { type Rect, type View, bounds } from "../mirror/geometry";
import { hiddenLayers, shownLayers } from "../mirror/folds";
import type { LayerState } from "../mirror/types";

/** Where the boxes `names` are drawn in `layers` (a layer hidden in a folded run: the run's
 * box), as one rectangle; null when none is drawn. */
export function workRect(layers: LayerState[], names: Iterable<string>): Rect | null {
  const hidden = hiddenLayers(layers);
  const wanted = new Set([...names].map((n) => hidden.get(n) ?? n));
  return bounds(shownLayers(layers).filter((l) => wanted.has(l.name)));
}

export const CAMERA_MS = 300;

/** The view nearest `view` (same scale where it fits) that shows `r` with `margin` screen px
 * around it on a stage of `stage`'s size: unchanged when `r` is already in view; a rectangle too
 * big for the view at this scale is fitted (zoomed out) and centred. */
export function keepInView(view: View, r: Rect, stage: { width: number; height: number }, margin = 40): View {
  const room = { w: Math.max(1, stage.width - 2 * margin), h: Math.max(1, stage.height - 2 * margin) };
  let k = view.k;
  if (r.w * k > room.w || r.h * k > room.h) k = Math.min(room.w / Math.max(r.w, 1), room.h / Math.max(r.h, 1));
  if (k !== view.k) { // centred at the new scale
    return { k, x: stage.width / 2 - (r.x + r.w / 2) * k, y: stage.height / 2 - (r.y + r.h / 2) * k };
  }
  // the least pan that brings each side inside the margin
  const shift = (lo: number, hi: number, size: number) => {
    if (lo < margin) return margin - lo;
    if (hi > size - margin) return size - margin - hi;
    return 0;
  };
  const dx = shift(r.x * k + view.x, (r.x + r.w) * k + view.x, stage.width);
  const dy = shift(r.y * k + view.y, (r.y + r.h) * k + view.y, stage.height);
  return dx === 0 && dy === 0 ? view : { k, x: view.x + dx, y: view.y + dy };
}

/** The scale a nested model's inside is shown at when it opens: readable text (11 px names), as
 * Find shows a layer; a view zoomed in further keeps its scale. */
export const OPEN_SCALE = 0.8;

/** The view that shows the top of `r` (an expanded nested model's box: its header, its inputs
 * and first boxes) at a readable scale: never zoomed out to show all of a tall inside. The whole
 * of `r` when it fits at that scale (the least pan, as keepInView); else its top `margin` px
 * below the stage's top, centred across when it fits across, its left side in view when not. */
export function showTop(view: View, r: Rect, stage: { width: number; height: number }, margin = 40): View {
  const k = Math.max(view.k, OPEN_SCALE);
  const at = { ...view, k };
  if (k !== view.k) { // keep the point of r nearest the stage's centre where it was seen
    at.x = stage.width / 2 - (r.x + r.w / 2) * k;
    at.y = margin - r.y * k;
  }
  if (r.h * k <= stage.height - 2 * margin && r.w * k <= stage.width - 2 * margin) return keepInView(at, r, stage, margin);
  const x = r.w * k <= stage.width - 2 * margin ? stage.width / 2 - (r.x + r.w / 2) * k : margin - r.x * k;
  return { k, x, y: margin - r.y * k };
}

/** The view at `t` (0..1, eased) of the way from `a` to `b`. Scale is interpolated in log space
 * so a zoom feels even. */
export function cameraAt(a: View, b: View, t: number): View {
  const e = t * (2 - t);
  if (e >= 1) return b;
  if (e <= 0) return a;
  const k = a.k * Math.pow(b.k / a.k, e);
  // the world point at the stage's origin moves evenly; x, y follow from it at scale k
  const wa = { x: -a.x / a.k, y: -a.y / a.k }, wb = { x: -b.x / b.k, y: -b.y / b.k };
  return { k, x: -(wa.x + (wb.x - wa.x) * e) * k, y: -(wa.y + (wb.y - wa.y) * e) * k };
}

/** Runs one camera glide at a time; a pan or zoom by the user (`stop`) ends it where it is. */
export class CameraGlide {
  private frame = 0;

  constructor(private get: () => View, private set: (view: View) => void) {}

  to(target: View): void {
    this.stop();
    const from = this.get();
    if (from.x === target.x && from.y === target.y && from.k === target.k) return;
    if (typeof requestAnimationFrame === "undefined") { this.set(target); return; }
    const begun = performance.now();
    const step = (now: number) => {
      const t = Math.min(1, (now - begun) / CAMERA_MS);
      this.set(cameraAt(from, target, t));
      if (t < 1) this.frame = requestAnimationFrame(step); else this.frame = 0;
    };
    this.frame = requestAnimationFrame(step);
  }

  get moving(): boolean { return this.frame !== 0; }

  stop(): void {
    if (this.frame && typeof cancelAnimationFrame !== "undefined") cancelAnimationFrame(this.frame);
    this.frame = 0;
  }
}
