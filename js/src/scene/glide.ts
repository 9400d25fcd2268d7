// Boxes glide to where a new state puts them: the new state is drawn once with the moving boxes
// where they were seen, then each frame moves only them (and their edges), and the last frame
// draws everything where the state says. Where the boxes are on a frame is pure (glidePoints).
import type { Point } from "../mirror/geometry";
import type { LayerState } from "../mirror/types";

export const GLIDE_MS = 250;
export const GLIDE_LIMIT = 400; // layers: bigger graphs jump to the new layout

/** Where each moving box is at `t` (0..1, eased) of its way from `before` to its layer's place. */
export function glidePoints(moving: LayerState[], before: Map<string, Point>, t: number): Map<string, Point> {
  const ease = t * (2 - t);
  const out = new Map<string, Point>();
  for (const l of moving) {
    const b = before.get(l.name)!;
    out.set(l.name, { x: b.x + (l.x - b.x) * ease, y: b.y + (l.y - b.y) * ease });
  }
  return out;
}

/** What a glide needs from the canvas: the boxes shown away from their state's place, a full
 * draw, and a draw of only some moving boxes. */
export interface GlideHost {
  shown: Map<string, Point>;
  render(): void;
  drawMoving(names: Set<string>): void;
}

export class Glide {
  private frame = 0;

  constructor(private host: GlideHost) {}

  /** From the boxes as they were seen (`before`) to `layers`, the new state's. */
  start(layers: LayerState[], before: Map<string, Point>): void {
    this.stop();
    const { host } = this;
    host.shown.clear();
    const moving = layers.filter((l) => {
      const b = before.get(l.name);
      return b && (b.x !== l.x || b.y !== l.y);
    });
    if (!moving.length || layers.length > GLIDE_LIMIT || typeof requestAnimationFrame === "undefined") {
      host.render();
      return;
    }
    for (const l of moving) host.shown.set(l.name, before.get(l.name)!);
    host.render();
    const names = new Set(moving.map((l) => l.name));
    const begun = performance.now();
    const step = (now: number) => {
      const t = Math.min(1, (now - begun) / GLIDE_MS);
      for (const [name, at] of glidePoints(moving, before, t)) host.shown.set(name, at);
      if (t >= 1) { host.shown.clear(); host.render(); } else host.drawMoving(names);
      if (t < 1) this.frame = requestAnimationFrame(step);
    };
    this.frame = requestAnimationFrame(step);
  }

  stop(): void {
    if (typeof cancelAnimationFrame !== "undefined") cancelAnimationFrame(this.frame);
  }
}
