// The boxes an edge must route around: a grid of the boxes by rows of the drawing, so each
// edge looks only at the boxes in its span along the flow. Pure: rectangles in, rectangles out.
import { type Flow, type Point, type Rect, turn, turnRect } from "../mirror/geometry";

/** The boxes by band of CELL world units along the flow (of height; of width in a drawing that
 * flows right): a box is listed in every band it spans. */
export class BoxIndex {
  static CELL = 120;
  private bands = new Map<number, [string, Rect, Rect][]>(); // name, rect as the flow sees it, rect
  private turned: boolean;

  constructor(rects: Map<string, Rect>, flow: Flow = "down") {
    this.turned = flow === "right";
    for (const [name, r] of rects) {
      const q = this.turned ? turnRect(r) : r;
      const lo = Math.floor(q.y / BoxIndex.CELL), hi = Math.floor((q.y + q.h) / BoxIndex.CELL);
      for (let b = lo; b <= hi; b++) {
        let band = this.bands.get(b);
        if (!band) this.bands.set(b, band = []);
        band.push([name, q, r]);
      }
    }
  }

  /** The boxes but `src` and `dst` that an edge from `a` to `b` may run into: every box in its
   * span along the flow, however far to the side (a detour beside a row of boxes goes past all
   * of them). The bands make it cost the boxes of those rows, not of the whole drawing. */
  obstacles(a: Point, b: Point, src: string, dst: string): Rect[] {
    if (this.turned) { a = turn(a); b = turn(b); }
    const y0 = Math.min(a.y, b.y), y1 = Math.max(a.y, b.y);
    const out: Rect[] = [];
    const seen = new Set<string>();
    for (let band = Math.floor(y0 / BoxIndex.CELL); band <= Math.floor(y1 / BoxIndex.CELL); band++) {
      for (const [name, q, r] of this.bands.get(band) ?? []) {
        if (name === src || name === dst || seen.has(name)) continue;
        seen.add(name);
        if (q.y + q.h < y0 || q.y > y1) continue;
        out.push(r);
      }
    }
    return out;
  }
}
