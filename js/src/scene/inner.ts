// The inside of an expanded nested model, drawn in its box: read-only inner boxes and edges, a
// folded run of repeated blocks as a stack of cards labelled "×N" (kerascanvas/io/inner.py folds
// them; the browser unfolds them, mirror/folds.ts openInner). Each inner box carries its path
// ("outer/inner") in data-inner-path, for the pointer, the menus, Find and the selection mark.
import { svg } from "../base/dom";
import { shapeText } from "../mirror/mirror";
import { innerPath, line } from "../mirror/folds";
import type { InnerBox, InnerView } from "../mirror/types";

/** An expanded nested model's own graph, into its box's <g>: edges, then boxes (layers a folded
 * run hides are not drawn; the run's first layer is drawn as the run). */
export function drawInside(g: SVGGElement, inner: InnerView, outer: string): void {
  const at = new Map(inner.layers.map((b) => [b.name, b]));
  for (const [src, dst] of inner.edges) {
    const a = at.get(src), b = at.get(dst);
    if (!a || !b || a.hidden || b.hidden) continue;
    const p = { x: a.x + a.w / 2, y: a.y + a.h }, q = { x: b.x + b.w / 2, y: b.y }, dy = (q.y - p.y) / 2;
    g.append(svg("path", { class: "kc-inner-edge", d: `M${p.x},${p.y} C${p.x},${p.y + dy} ${q.x},${q.y - dy} ${q.x},${q.y}` }));
  }
  for (const b of inner.layers) if (!b.hidden) g.append(innerBoxShape(b, outer));
}

/** One inner box (or a folded inner run's stack of cards). */
export function innerBoxShape(b: InnerBox, outer: string): SVGGElement {
  const path = innerPath(outer, b.name);
  const attrs: Record<string, string | number> = {
    class: `kc-inner${b.output ? " kc-inner-output" : ""}${b.fold ? " kc-inner-folded" : ""}`,
    transform: `translate(${b.x},${b.y})`, "data-inner": b.name, "data-inner-path": path,
    role: "button", "aria-label": `${b.name} (${b.class_name}) in ${outer}`,
  };
  const box = svg("g", attrs);
  if (b.fold) {
    const s = b.fold.stack, w = b.w - s, h = b.h - s;
    box.setAttribute("aria-label", `${b.name}: ${b.fold.copies} blocks of ${b.fold.layers} layers in ${outer} (folded)`);
    box.append(svg("rect", { x: s, y: s, width: w, height: h, rx: 4 }), svg("rect", { x: s / 2, y: s / 2, width: w, height: h, rx: 4 }),
      svg("rect", { width: w, height: h, rx: 4 }),
      line(6, 14, "kc-inner-name", b.name, 6.2, w - 40),
      svg("text", { x: w - 6, y: 15, "text-anchor": "end", class: "kc-fold-count" }, `×${b.fold.copies}`),
      line(6, 29, "kc-class", `${b.fold.copies} blocks of ${b.fold.layers}: ${b.fold.classes}`, 5.6, w - 12),
      svg("title", {}, `${b.name}: ${b.fold.copies} blocks of ${b.fold.layers} layers, to ${b.fold.last} (${b.fold.classes}). Double-click to unfold.`));
    return box;
  }
  box.append(svg("rect", { width: b.w, height: b.h, rx: 4 }),
    line(6, 14, "kc-inner-name", b.name, 6.2, b.w - 12),
    line(6, 28, "kc-class", b.class_name + (b.nested ? " (model)" : "") + (b.shape ? ` → ${shapeText(b.shape)}` : ""), 5.6, b.w - 12));
  return box;
}

/** The selected inner boxes (paths) marked in the drawn boxes under `root`; marks left from an
 * older selection go. */
export function markInner(root: Element, selected: ReadonlySet<string>): void {
  for (const el of Array.from(root.querySelectorAll(".kc-inner-selected"))) {
    if (selected.has(el.getAttribute("data-inner-path") ?? "")) continue;
    el.classList.remove("kc-inner-selected");
    el.removeAttribute("aria-selected");
    for (const r of Array.from(el.querySelectorAll("rect"))) r.removeAttribute("style");
  }
  for (const path of selected) {
    if (!path.includes("/")) continue;
    const el = root.querySelector(`[data-inner-path="${cssEscape(path)}"]`);
    if (!el) continue;
    el.classList.add("kc-inner-selected");
    el.setAttribute("aria-selected", "true");
    // the selection's colour, as a selected box's (its own CSS lives with the canvas's)
    for (const r of Array.from(el.querySelectorAll("rect"))) {
      r.setAttribute("style", "stroke: var(--jp-brand-color1, #1976d2); stroke-width: 2.5px");
    }
  }
}

function cssEscape(s: string): string {
  return typeof CSS !== "undefined" && CSS.escape ? CSS.escape(s) : s.replace(/["\\]/g, "\\$&");
}
