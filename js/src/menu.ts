// The canvas's own context menu: kept inside the visible area. placeMenu is pure.
import type { Point } from "./geometry";

/** Top-left corner for a menu of `size` opened at `at`, inside `area` (width, height): it opens
 * leftwards/upwards when it would cross the right/bottom edge, and never starts outside. */
export function placeMenu(at: Point, size: { w: number; h: number }, area: { w: number; h: number }): Point {
  let x = at.x, y = at.y;
  if (x + size.w > area.w) x = at.x - size.w;
  if (y + size.h > area.h) y = at.y - size.h;
  x = Math.max(0, Math.min(x, area.w - size.w));
  y = Math.max(0, Math.min(y, area.h - size.h));
  return { x, y };
}
