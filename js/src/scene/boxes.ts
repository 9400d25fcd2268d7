// A layer's box as SVG: pure (state in, elements out), so the canvas only decides where and when.
import { svg } from "../base/dom";
import { boxHeight, boxRows, boxWidth, fitText } from "../mirror/geometry";
import { callText, paramsText, shapeText } from "../mirror/mirror";
import type { InnerView, LayerState } from "../mirror/types";
import { activationText, family } from "./families";
import { drawFolded } from "../mirror/folds";

/** One line of a box: user text as an SVG text node, squeezed or cut to the box's width. */
function boxText(x: number, y: number, cls: string, text: string, charWidth: number, width: number): SVGTextElement {
  const fit = fitText(text, charWidth, width);
  const node = svg("text", { x, y, class: cls }, fit.text);
  if (fit.squeeze) { node.setAttribute("textLength", String(width)); node.setAttribute("lengthAdjust", "spacingAndGlyphs"); }
  if (fit.cut) node.append(svg("title", {}, text));
  return node;
}

export interface BoxLook { selected: boolean; highlighted: boolean; detail: boolean }

/** A layer's box: its name, class, calls (or, expanded, its inner graph), the fold button of a
 * nested model and the problem badge. Every user string goes in as a text node. */
export function boxShape(layer: LayerState, look: BoxLook): SVGGElement {
  const h = boxHeight(layer);
  const w = boxWidth(layer);
  const classes = ["kc-box"];
  if (look.selected) classes.push("kc-selected");
  if (look.highlighted) classes.push("kc-highlight");
  if (layer.problems.length) classes.push("kc-problem");
  if (layer.calls.some((c) => !c.built)) classes.push("kc-pending");
  if (layer.expanded) classes.push("kc-expanded");
  const g = svg("g", { class: classes.join(" "), transform: `translate(${layer.x},${layer.y})`,
    tabindex: 0, role: "button", "aria-label": layer.name, "data-name": layer.name });
  const fam = family(layer);
  if (fam) g.style.setProperty("--kc-hue", String(fam.hue));
  if (layer.fold) { g.classList.add("kc-folded"); drawFolded(g, layer, look.detail); return g; } // a folded run: folds.ts
  g.append(svg("rect", { width: w, height: h, rx: 6 }));
  // the family's colour: a band along the top of the box (legend under the toolbar)
  if (fam) g.append(svg("path", { class: "kc-family", d: `M0.6,6 a6,6 0 0 1 6,-5.4 h${w - 13.2} a6,6 0 0 1 6,5.4 z` }));
  if (!look.detail) return g;
  const nested = layer.inner_layers !== null;
  const room = w - 16 - (layer.problems.length ? 16 : 0) - (nested ? 20 : 0);
  g.append(boxText(8, 19, "kc-name", layer.name, 7.2, room));
  const params = (layer.params === null ? "" : ` · ${paramsText(layer.params)} params`)
    + (layer.depth === null ? "" : ` · depth ${layer.depth}`);
  const holds = nested ? ` · ${layer.inner_layers} layers` : "";
  const act = activationText(layer.config);
  g.append(boxText(8, 34, "kc-class", `${layer.class_name}${act ? ` · ${act}` : ""}${holds}${params}`, 5.6, w - 16));
  if (layer.expanded && layer.inner) drawInside(g, layer.inner, layer.name);
  else layer.calls.forEach((call, k) => {
    const rows = boxRows(); // the kernel's: a header, then one row per call
    g.append(boxText(8, rows.header + 12 + k * rows.call_row, call.built ? "kc-call" : "kc-call kc-call-pending", callText(layer, k), 5.6, w - 16));
  });
  if (nested) {
    // a nested model folds out into its own graph (and back): a button in the header
    const open = layer.expanded;
    const toggle = svg("g", { class: "kc-toggle", transform: `translate(${w - 20 - (layer.problems.length ? 18 : 0)},4)`,
      tabindex: 0, role: "button", "aria-expanded": String(open), "data-toggle": layer.name,
      "aria-label": `${open ? "collapse" : "expand"} ${layer.name}` });
    toggle.append(svg("rect", { width: 16, height: 16, rx: 3 }), svg("text", { x: 8, y: 12, "text-anchor": "middle" }, open ? "−" : "+"));
    g.append(toggle);
  }
  if (layer.problems.length) {
    // a visible mark on the box; the messages on hover and in the problem list below
    const badge = svg("g", { class: "kc-badge", transform: `translate(${w - 12},12)` });
    badge.append(svg("circle", { r: 7 }), svg("text", { y: 4, "text-anchor": "middle" }, "!"));
    g.append(badge, svg("title", {}, layer.problems.join("\n")));
  }
  return g;
}

/** An expanded nested model's own graph, inside its box: read-only boxes and edges. */
function drawInside(g: SVGGElement, inner: InnerView, outer: string): void {
  const at = new Map(inner.layers.map((b) => [b.name, b]));
  for (const [src, dst] of inner.edges) {
    const a = at.get(src), b = at.get(dst);
    if (!a || !b) continue;
    const p = { x: a.x + a.w / 2, y: a.y + a.h }, q = { x: b.x + b.w / 2, y: b.y }, dy = (q.y - p.y) / 2;
    g.append(svg("path", { class: "kc-inner-edge", d: `M${p.x},${p.y} C${p.x},${p.y + dy} ${q.x},${q.y - dy} ${q.x},${q.y}` }));
  }
  for (const b of inner.layers) {
    const box = svg("g", { class: `kc-inner${b.output ? " kc-inner-output" : ""}`, transform: `translate(${b.x},${b.y})`,
      "aria-label": `${b.name} (${b.class_name}) in ${outer}`, "data-inner": b.name });
    box.append(svg("rect", { width: b.w, height: b.h, rx: 4 }),
      boxText(6, 14, "kc-inner-name", b.name, 6.2, b.w - 12),
      boxText(6, 28, "kc-class", b.class_name + (b.nested ? " (model)" : "") + (b.shape ? ` → ${shapeText(b.shape)}` : ""), 5.6, b.w - 12));
    g.append(box);
  }
}
