// A layer's box as SVG: pure (state in, elements out), so the canvas only decides where and when.
import { svg } from "../base/dom";
import { boxHeight, boxRows, boxWidth, fitText } from "../mirror/geometry";
import { callText, paramsText } from "../mirror/mirror";
import type { LayerState } from "../mirror/types";
import { activationText, family } from "./families";
import { drawFolded } from "../mirror/folds";
import { drawInside } from "./inner";
import { fitParts } from "./labelplace";

/** One line of a box: user text as an SVG text node, squeezed or cut to the box's width. */
function boxText(x: number, y: number, cls: string, text: string, charWidth: number, width: number, whole?: string | null): SVGTextElement {
  const fit = fitText(text, charWidth, width);
  const node = svg("text", { x, y, class: cls }, fit.text);
  if (fit.squeeze) { node.setAttribute("textLength", String(width)); node.setAttribute("lengthAdjust", "spacingAndGlyphs"); }
  if (fit.cut || whole) node.append(svg("title", {}, whole ?? text));
  return node;
}

export interface BoxLook { selected: boolean; highlighted: boolean; detail: boolean }

/** What a box says of its trainable flag: "frozen", "partly frozen (N of M params trainable)", or
 * null for a box whose weights all train. */
export function frozenText(layer: LayerState): string | null {
  if (layer.trainable === "no") return "frozen";
  if (layer.trainable !== "partly") return null;
  if (layer.trainable_params === null || layer.params === null) return "partly frozen";
  return `partly frozen (${paramsText(layer.trainable_params)} of ${paramsText(layer.params)} params trainable)`;
}

/** What a box says of LoRA on its layer (or on layers inside it): "LoRA r=4", or null. */
export function loraText(layer: LayerState): string | null {
  return layer.lora_rank === null || layer.lora_rank === undefined ? null : `LoRA r=${layer.lora_rank}`;
}

/** What a box says of its layer's quantization: the mode of a quantized dtype policy ("int8" of
 * "int8_from_float32", "int4" of "int4/128_from_float32"), or null. */
export function quantizedText(layer: LayerState): string | null {
  const policy = layer.dtype_policy;
  if (!policy || !policy.includes("_from_")) return null;
  return policy.split("_from_")[0].split("/")[0];
}

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
  if (layer.trainable === "no") classes.push("kc-frozen");
  if (layer.trainable === "partly") classes.push("kc-partly-frozen");
  const frozen = frozenText(layer);
  const lora = loraText(layer);
  const quantized = quantizedText(layer);
  const said = [layer.name, frozen, lora, quantized].filter((t) => t).join(", ");
  const g = svg("g", { class: classes.join(" "), transform: `translate(${layer.x},${layer.y})`,
    tabindex: 0, role: "button", "aria-label": said, "data-name": layer.name });
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
  // the subtitle: what fits of class · activation · inner layers · params · depth, the least
  // telling left out first (depth, then params, ...), the whole on hover
  const sub = fitParts([
    { text: layer.class_name, drop: 0 },
    { text: activationText(layer.config) ?? "", drop: 2 },
    { text: nested ? `${layer.inner_layers} layers` : "", drop: 1 },
    { text: layer.params === null ? "" : `${paramsText(layer.params)} params`, drop: 3 },
    { text: layer.trainable === "partly" ? frozen ?? "" : "", drop: 2 },
    { text: lora ?? "", drop: 1 },
    { text: quantized ?? "", drop: 1 },
    { text: layer.depth === null ? "" : `depth ${layer.depth}`, drop: 4 },
  ], 5.6, w - 16);
  g.append(boxText(8, 34, "kc-class", sub.text, 5.6, w - 16, sub.full));
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
  if (frozen) {
    // "frozen" (or "partly frozen") in the box's bottom right corner
    g.append(svg("text", { x: w - 6, y: h - 4, "text-anchor": "end", class: "kc-frozen-mark" },
      layer.trainable === "no" ? "❄ frozen" : "❄ partly frozen"));
  }
  if (layer.problems.length) {
    // a visible mark on the box; the messages on hover and in the problem list below
    const badge = svg("g", { class: "kc-badge", transform: `translate(${w - 12},12)` });
    badge.append(svg("circle", { r: 7 }), svg("text", { y: 4, "text-anchor": "middle" }, "!"));
    g.append(badge, svg("title", {}, layer.problems.join("\n")));
  }
  return g;
}
