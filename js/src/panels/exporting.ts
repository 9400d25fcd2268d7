import { type Rect, bounds } from "../mirror/geometry";
import type { Client } from "../mirror/protocol";
import type { LayerState } from "../mirror/types";

// Export the drawing as an SVG or PNG file: a copy of the SVG framed around every box, each
// element carrying the style it is drawn with (the theme's colours, the families' bands, fonts)
// so the file looks as the canvas does anywhere; text stays text. PNG: rasterized at 2x.
function standalone(svgEl: SVGSVGElement, layers: LayerState[]): { text: string; width: number; height: number } {
  const b = withGhosts(svgEl, bounds(layers) ?? { x: 0, y: 0, w: 100, h: 100 });
  const pad = 20;
  const copy = svgEl.cloneNode(true) as SVGSVGElement;
  inlineStyles(svgEl, copy);
  copy.setAttribute("xmlns", "http://www.w3.org/2000/svg");
  copy.setAttribute("viewBox", `${b.x - pad} ${b.y - pad} ${b.w + 2 * pad} ${b.h + 2 * pad}`);
  copy.setAttribute("width", String(b.w + 2 * pad));
  copy.setAttribute("height", String(b.h + 2 * pad));
  copy.querySelector(".kc-world")?.removeAttribute("transform");
  copy.querySelectorAll("[tabindex]").forEach((e) => e.removeAttribute("tabindex"));
  return { text: new XMLSerializer().serializeToString(copy), width: b.w + 2 * pad, height: b.h + 2 * pad };
}

/** The frame `b` grown to hold a comparison's ghosts (scene/comparemarks.ts: beside the drawing). */
function withGhosts(svgEl: SVGSVGElement, b: Rect): Rect {
  const ghosts = svgEl.querySelector<SVGGElement>(".kc-cmp-ghosts");
  if (!ghosts?.firstChild || typeof ghosts.getBBox !== "function") return b;
  const g = ghosts.getBBox();
  const x = Math.min(b.x, g.x), y = Math.min(b.y, g.y);
  return { x, y, w: Math.max(b.x + b.w, g.x + g.width) - x, h: Math.max(b.y + b.h, g.y + g.height) - y };
}

/** What a drawn element's look depends on (CSS rules and variables in the page, not in a file). */
export const STYLED = ["fill", "fill-opacity", "stroke", "stroke-width", "stroke-opacity", "stroke-dasharray",
  "opacity", "font-family", "font-size", "font-weight", "font-style", "text-anchor", "visibility", "display"];

/** Each element of `copy` (a clone of `from`) given the computed style of its original. */
function inlineStyles(from: Element, copy: Element): void {
  const style = getComputedStyle(from);
  copy.setAttribute("style", STYLED.map((p) => `${p}:${style.getPropertyValue(p)}`).join(";"));
  for (let i = 0; i < from.children.length && i < copy.children.length; i++) inlineStyles(from.children[i], copy.children[i]);
}

function download(blob: Blob, filename: string): void {
  const a = document.createElement("a");
  a.href = URL.createObjectURL(blob);
  a.download = filename;
  a.click();
  setTimeout(() => URL.revokeObjectURL(a.href), 1000);
}

export function svgText(svgEl: SVGSVGElement, layers: LayerState[]): string {
  return standalone(svgEl, layers).text;
}

export function exportSvg(svgEl: SVGSVGElement, layers: LayerState[], name: string): void {
  download(new Blob([svgText(svgEl, layers)], { type: "image/svg+xml" }), `${safe(name)}.svg`);
}

export function exportPng(svgEl: SVGSVGElement, layers: LayerState[], name: string): void {
  const { text, width, height } = standalone(svgEl, layers);
  const img = new Image();
  img.onload = () => {
    const canvas = document.createElement("canvas");
    canvas.width = width * 2;
    canvas.height = height * 2;
    const ctx = canvas.getContext("2d")!;
    ctx.fillStyle = "#fff";
    ctx.fillRect(0, 0, canvas.width, canvas.height);
    ctx.scale(2, 2);
    ctx.drawImage(img, 0, 0);
    canvas.toBlob((blob) => blob && download(blob, `${safe(name)}.png`), "image/png");
  };
  img.src = "data:image/svg+xml;charset=utf-8," + encodeURIComponent(text);
}

/** Export HTML: the kernel writes the standalone read-only view (g.to_html's file); it is saved here. */
export async function exportHtml(client: Client, refused: (message: string) => void): Promise<void> {
  const reply = await client.send("export_html");
  const result = reply.result as { html?: unknown; name?: unknown } | undefined;
  if (!reply.ok || typeof result?.html !== "string") { refused(reply.error ?? "The HTML view could not be made."); return; }
  download(new Blob([result.html], { type: "text/html" }), `${safe(String(result.name ?? "model"))}.html`);
}

function safe(name: string): string {
  return name.replace(/[^A-Za-z0-9_.-]+/g, "_").slice(0, 60) || "model";
}
