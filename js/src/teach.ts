// Teaching views on the canvas: step through seed 000's depth computation and the forward pass.
import { clear, el } from "./dom";
import { shapeText } from "./mirror";

export interface DepthStep { kind: string; node?: [string, number]; depth?: number; map?: Record<string, unknown[]> }
export interface ForwardStep { node: [string, number]; depth: number; outputs: { shape: number[]; mean: number; std: number; min: number; max: number }[]; picture: number[][] | null }

export function depthStepText(step: DepthStep): string {
  const node = step.node ? `${step.node[0]} node ${step.node[1]}` : "";
  switch (step.kind) {
    case "enter": return `enter ${node}: in progress, visit its inputs`;
    case "finish": return `finish ${node}: all its inputs done`;
    case "cycle": return `cycle: ${node} is reached again while in progress`;
    case "depth": return `depth of ${node} = ${step.depth}`;
    default: return `${step.kind}: ${JSON.stringify(step.map)}`;
  }
}

export function forwardStepText(step: ForwardStep): string {
  const o = step.outputs[0];
  return `depth ${step.depth}: ${step.node[0]} node ${step.node[1]} → ${shapeText(o.shape)} `
    + `mean ${o.mean.toFixed(3)} std ${o.std.toFixed(3)} min ${o.min.toFixed(3)} max ${o.max.toFixed(3)}`;
}

/** A player: Prev / Next over steps, each shown as text (and a small picture), with a callback
 * that highlights the step's layer on the canvas. */
export class StepPlayer {
  readonly root: HTMLElement;
  private index = 0;
  private text: HTMLElement;
  private picture: HTMLCanvasElement;

  constructor(private title: string, private steps: { text: string; layer?: string; picture?: number[][] | null }[],
              private highlight: (layer: string | null) => void, onClose: () => void) {
    this.root = el("div", { class: "kc-player", role: "region", "aria-label": title });
    const head = el("div", { class: "kc-toolbar" });
    const button = (label: string, run: () => void) => {
      const b = el("button", { class: "kc-button", "aria-label": label }, label);
      b.addEventListener("click", run);
      head.append(b);
    };
    head.append(el("b", {}, title));
    button("Previous step", () => this.show(this.index - 1));
    button("Next step", () => this.show(this.index + 1));
    button("Close", () => { this.highlight(null); onClose(); });
    this.text = el("div", { class: "kc-step", role: "status" });
    this.picture = el("canvas", { class: "kc-picture", width: "64", height: "64" });
    this.root.append(head, this.text, this.picture);
    this.show(0);
  }

  show(i: number): void {
    if (!this.steps.length) { this.text.textContent = "No steps."; return; }
    this.index = Math.max(0, Math.min(this.steps.length - 1, i));
    const step = this.steps[this.index];
    this.text.textContent = `${this.index + 1}/${this.steps.length} · ${step.text}`;
    this.highlight(step.layer ?? null);
    const pic = step.picture;
    this.picture.style.display = pic ? "" : "none";
    if (pic) drawPicture(this.picture, pic);
  }
}

function drawPicture(canvas: HTMLCanvasElement, values: number[][]): void {
  const ctx = canvas.getContext("2d");
  if (!ctx) return;
  const h = values.length, w = values[0]?.length ?? 0;
  ctx.clearRect(0, 0, canvas.width, canvas.height);
  const sx = canvas.width / Math.max(w, 1), sy = canvas.height / Math.max(h, 1);
  values.forEach((row, y) => row.forEach((v, x) => {
    const g = Math.round(255 * v);
    ctx.fillStyle = `rgb(${g},${g},${g})`;
    ctx.fillRect(x * sx, y * sy, sx + 0.5, sy + 0.5);
  }));
}

export function clearPlayer(host: HTMLElement): void {
  clear(host);
}
