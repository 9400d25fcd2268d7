// The gestures on the canvas as an explicit state machine, pure: which gesture is under way
// (idle, pressing, dragging a box, a wire or a wire's end, panning, a rubber band, the minimap,
// a palette entry being placed, a menu or quick-add open) and what each event makes of it.
// Esc and focus loss (blur, pointercancel, lost pointer capture, the page hidden) return to idle
// from every state, and a release after that finds idle: no half gesture leaks. What a state
// leaves behind on screen (an overlay path, a ghost, a lifted wire) is undone by pointer.ts,
// from the state it was in (`leaving`).
import type { Point, Port, View } from "../mirror/geometry";
import type { EdgeState } from "../mirror/types";

export type Gesture =
  | { kind: "idle" }
  | { kind: "pressing"; on: "box"; name: string; from: Point; start: Point }   // a box pressed, not yet moved
  | { kind: "pressing"; on: "blank"; from: Point; view: View }               // empty space pressed, not yet moved
  | { kind: "dragging-box"; name: string; from: Point; start: Point }
  | { kind: "dragging-wire"; port: Port }                                     // a new wire out of an output port
  | { kind: "dragging-wire-end"; edge: EdgeState; from: Port }                // a wire's input end off its slot
  | { kind: "panning"; from: Point; view: View }
  | { kind: "banding"; from: Point }                                          // Shift + drag: rubber band
  | { kind: "minimap"; grab: Point | null }
  | { kind: "placing"; className: string; wire: number }                       // a palette entry dragged in
  | { kind: "menu" }
  | { kind: "quick-add" };

export type GestureKind = Gesture["kind"];

export type GestureEvent =
  | { kind: "press-box"; name: string; at: Point; start: Point }
  | { kind: "press-blank"; at: Point; view: View }
  | { kind: "press-port"; port: Port }
  | { kind: "press-slot"; edge: EdgeState; port: Port }
  | { kind: "press-band"; at: Point }
  | { kind: "press-minimap" }
  | { kind: "pick-palette"; className: string }
  | { kind: "moved"; far: boolean }              // the pointer moved (far: past the click distance)
  | { kind: "over-wire"; wire: number }          // a palette ghost over a wire (-1: none)
  | { kind: "grab-minimap"; grab: Point }
  | { kind: "release" }
  | { kind: "open-menu" }
  | { kind: "open-quick-add" }
  | { kind: "close" }                            // a menu or quick-add closed (picked or dismissed)
  | { kind: "escape" }
  | { kind: "blur" };                            // focus lost, pointer cancelled, page hidden

export const IDLE: Gesture = { kind: "idle" };

/** The gesture after `ev`. Esc and blur end every gesture; a press starts one only from idle (a
 * press while a menu or quick-add is open closes it first: the canvas sends "close"); a release
 * ends the pointer gestures; menus and quick-add end with "close". */
export function nextGesture(g: Gesture, ev: GestureEvent): Gesture {
  if (ev.kind === "escape" || ev.kind === "blur") return IDLE;
  switch (ev.kind) {
    case "close": return g.kind === "menu" || g.kind === "quick-add" ? IDLE : g;
    case "open-menu": return { kind: "menu" };
    case "open-quick-add": return { kind: "quick-add" };
    case "release": return g.kind === "menu" || g.kind === "quick-add" ? g : IDLE;
    default: break;
  }
  if (g.kind === "idle") {
    switch (ev.kind) {
      case "press-box": return { kind: "pressing", on: "box", name: ev.name, from: ev.at, start: ev.start };
      case "press-blank": return { kind: "pressing", on: "blank", from: ev.at, view: ev.view };
      case "press-port": return { kind: "dragging-wire", port: ev.port };
      case "press-slot": return { kind: "dragging-wire-end", edge: ev.edge, from: ev.port };
      case "press-band": return { kind: "banding", from: ev.at };
      case "press-minimap": return { kind: "minimap", grab: null };
      case "pick-palette": return { kind: "placing", className: ev.className, wire: -1 };
      default: return g;
    }
  }
  if (g.kind === "pressing" && ev.kind === "moved" && ev.far) {
    return g.on === "box" ? { kind: "dragging-box", name: g.name, from: g.from, start: g.start }
      : { kind: "panning", from: g.from, view: g.view };
  }
  if (g.kind === "placing" && ev.kind === "over-wire") return { ...g, wire: ev.wire };
  if (g.kind === "minimap" && ev.kind === "grab-minimap" && g.grab === null) return { ...g, grab: ev.grab };
  return g;
}

/** Whether a gesture of the pointer is under way (a button is held). */
export function pointerBusy(g: Gesture): boolean {
  return g.kind !== "idle" && g.kind !== "menu" && g.kind !== "quick-add";
}

/** Whether Esc has something of the canvas's own to end: a gesture, a menu or quick-add. Esc
 * pressed while this is false may clear the selection, and after that goes to the host. */
export function escapable(g: Gesture): boolean {
  return g.kind !== "idle";
}
