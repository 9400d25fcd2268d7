// How a box's weights lie over the devices after a distributed run (issue 46): the kernel's
// training status carries {layer: {weight: "sharded on model (dim 1 of 2)" | "replicated"}}
// (kerascanvas/training/placement.py weight_layouts), read from the live variables; each such
// box says it in one line under its right half (its strip of insights is under its left half),
// every weight's layout in the line's tooltip. Pure but for drawing into the box's decor group.
import { svg } from "../base/dom";

export type WeightLayouts = Record<string, Record<string, string>>;

/** The line a box shows, and its tooltip: the mesh axes its weights are split on, or that they
 * are replicated on every device. */
export function layoutLine(weights: Record<string, string>): { text: string; title: string } {
  const axes = new Set<string>();
  for (const said of Object.values(weights)) { // "sharded on batch (dim 0 of 2), sharded on model+x (dim 1 of 2)"
    for (const m of said.matchAll(/sharded on ([^\s(]+)/g)) for (const axis of m[1].split("+")) axes.add(axis);
  }
  const text = axes.size ? `split on ${[...axes].join(", ")}` : "replicated";
  const title = Object.entries(weights).map(([w, said]) => `${w}: ${said}`).join("\n");
  return { text, title };
}

/** Draws (or takes away) the layout line of each box in `names` into its decor group. */
export function drawLayouts(decor: (name: string) => { g: SVGGElement; width: number; height: number } | null,
  layouts: WeightLayouts, names: Iterable<string>): void {
  for (const name of names) {
    const d = decor(name);
    if (!d) continue;
    const weights = layouts[name];
    const key = weights ? `${JSON.stringify(weights)}@${d.width}x${d.height}` : "";
    let line = d.g.querySelector(":scope > g.kc-layout") as SVGGElement | null;
    if ((line?.getAttribute("data-key") ?? "") === key) continue;
    line?.remove();
    if (!weights) continue;
    const { text, title } = layoutLine(weights);
    line = svg("g", { class: "kc-layout", "data-key": key, role: "img", "aria-label": `weights ${text}` });
    line.append(svg("text", { x: d.width - 2, y: d.height + 12, "text-anchor": "end" }, text), svg("title", {}, title));
    d.g.append(line);
  }
}
