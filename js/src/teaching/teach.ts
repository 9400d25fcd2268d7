// The step player beside the drawing: Keras's walk (how keras.Model finds each node's depth) or a
// forward pass, one step at a time. ← / → step, Home / End jump, Space plays and pauses, Esc
// closes. What a step has done so far is drawn on the graph (walkdraw.ts); the player lists the
// walk's stack and the depths found, with their reasons, in words.
import { clear, el } from "../base/dom";
import {
  type DepthStep, type ForwardStep, type NodeKey, type TensorValue, type WalkView, forwardAt, forwardStepText, valueText,
  walkAt, walkStepText,
} from "./walk";

export const PLAY_MS = 900;

export type Played =
  | { kind: "walk"; steps: DepthStep[] }
  | { kind: "forward"; steps: ForwardStep[] };

/** What the drawing shows at step `index` of what is played. */
export interface StepShown { walk: WalkView | null; values: Map<string, TensorValue> | null; layer: string | null }

export function shownAt(played: Played, index: number): StepShown {
  if (played.kind === "walk") {
    const walk = walkAt(played.steps, index);
    const step = played.steps[index];
    const layer = walk.current?.[0] ?? (step?.kind === "start" ? step.port[0] : null);
    return { walk, values: null, layer };
  }
  return { walk: null, values: forwardAt(played.steps, index), layer: played.steps[index]?.node[0] ?? null };
}

/** The player's title in plain words. */
export function playerTitle(played: Played): string {
  return played.kind === "walk" ? "How keras.Model finds each node's depth" : "Forward pass: one sample, node by node";
}

/** The key's command for the player, or null. */
export function playerKey(key: string): "next" | "previous" | "first" | "last" | "play" | "close" | null {
  switch (key) {
    case "ArrowRight": case "ArrowDown": case "n": return "next";
    case "ArrowLeft": case "ArrowUp": case "p": return "previous";
    case "Home": return "first";
    case "End": return "last";
    case " ": case "k": return "play";
    case "Escape": return "close";
    default: return null;
  }
}

const nodeText = (n: NodeKey) => `${n[0]} node ${n[1]}`;

export class StepPlayer {
  readonly root: HTMLElement;
  index = 0;
  private timer = 0;
  private text: HTMLElement;
  private counter: HTMLElement;
  private details: HTMLElement;
  private playButton: HTMLButtonElement;

  constructor(private played: Played, private onShow: (shown: StepShown) => void, private onClose: () => void,
    extra?: HTMLElement) {
    const title = playerTitle(played);
    this.root = el("div", { class: "kc-player", role: "region", "aria-label": title, tabindex: "0" });
    const head = el("div", { class: "kc-teach-head" });
    head.append(el("b", { class: "kc-player-title" }, title));
    const close = el("button", { class: "kc-button", "aria-label": "Close player", title: "Close (Esc)" }, "✕");
    close.addEventListener("click", () => this.close());
    head.append(close);
    const controls = el("div", { class: "kc-teach-controls" });
    const button = (text: string, label: string, hint: string, run: () => void) => {
      const b = el("button", { class: "kc-button", "aria-label": label, title: hint }, text);
      b.addEventListener("click", () => { run(); this.root.focus({ preventScroll: true }); });
      controls.append(b);
      return b;
    };
    button("|◀", "First step", "First step (Home)", () => this.show(0));
    button("◀", "Previous step", "Previous step (←)", () => this.show(this.index - 1));
    this.playButton = button("▶ Play", "Play", "Play / pause (Space)", () => this.toggle());
    button("▶", "Next step", "Next step (→)", () => this.show(this.index + 1));
    button("▶|", "Last step", "Last step (End)", () => this.show(this.steps - 1));
    this.counter = el("div", { class: "kc-muted kc-step-count" });
    this.text = el("div", { class: "kc-step", role: "status", "aria-live": "polite" });
    this.details = el("div", { class: "kc-step-details" });
    this.root.append(head, el("div", { class: "kc-muted" }, played.kind === "walk"
      ? "Depth-first from each output back to the inputs: a call is in progress while its inputs are visited, finished after. Then depths, in reverse finishing order."
      : "Nodes run in decreasing depth; each edge shows the value of the tensor it carries."),
    controls, ...(extra ? [extra] : []), this.counter, this.text, this.details,
    el("div", { class: "kc-muted" }, "Keys: ← → step · Space play/pause · Home/End · Esc close"));
    this.root.addEventListener("keydown", (ev) => {
      const tag = (ev.target as HTMLElement).tagName;
      if (tag === "BUTTON" && (ev.key === " " || ev.key === "Enter")) return;
      if (tag === "INPUT" && ev.key !== "Escape") return; // (the epoch slider's own keys)
      const command = playerKey(ev.key);
      if (!command) return;
      ev.preventDefault();
      ev.stopPropagation(); // the notebook's own shortcuts stay off
      if (command === "next") this.show(this.index + 1);
      else if (command === "previous") this.show(this.index - 1);
      else if (command === "first") this.show(0);
      else if (command === "last") this.show(this.steps - 1);
      else if (command === "play") this.toggle();
      else this.close();
    });
    this.show(0);
  }

  get steps(): number { return this.played.steps.length; }
  get playing(): boolean { return this.timer !== 0; }

  show(i: number): void {
    if (!this.steps) { this.text.textContent = "No steps: the drawing has no complete call yet."; return; }
    this.index = Math.max(0, Math.min(this.steps - 1, i));
    this.counter.textContent = `Step ${this.index + 1} of ${this.steps}`;
    const shown = shownAt(this.played, this.index);
    this.text.textContent = this.played.kind === "walk" ? walkStepText(this.played.steps[this.index])
      : forwardStepText(this.played.steps[this.index]);
    this.showDetails(shown);
    this.onShow(shown);
    if (this.index >= this.steps - 1) this.pause();
  }

  private showDetails(shown: StepShown): void {
    clear(this.details);
    if (this.played.kind === "forward") { // every tensor of the node just run, tensor_index by tensor_index
      const step = this.played.steps[this.index];
      const list = el("div", { class: "kc-walk-depths", "aria-label": "Tensors of this node" });
      if (step.inputs?.length) {
        const known = forwardAt(this.played.steps, this.index - 1);
        list.append(el("div", { class: "kc-title" }, `${nodeText(step.node)} was called on its input tensors`));
        step.inputs.forEach((t, slot) => {
          const v = known.get(`${t[0]}:${t[1]}:${t[2]}`);
          list.append(el("div", { class: "kc-forward-input", "data-tensor": `${t[0]}:${t[1]}:${t[2]}` },
            `slot ${slot} ← (${t[0]}, ${t[1]}, ${t[2]}): ${v ? valueText(v) : "?"}`));
        });
      }
      list.append(el("div", { class: "kc-title" }, `${nodeText(step.node)}: its output tensors`));
      for (const o of step.outputs) {
        list.append(el("div", { class: "kc-forward-value", "data-tensor": `${step.node[0]}:${step.node[1]}:${o.tensor_index}` },
          `(${step.node[0]}, ${step.node[1]}, ${o.tensor_index}): ${valueText(o)} std ${o.std.toFixed(3)} min ${o.min.toFixed(3)} max ${o.max.toFixed(3)}`));
        if (o.picture) {
          const c = el("canvas", { class: "kc-picture", width: "64", height: "64" });
          drawPicture(c, o.picture);
          list.append(c);
        }
      }
      this.details.append(list);
      return;
    }
    if (!shown.walk) return;
    const stack = el("div", { class: "kc-walk-stack", "aria-label": "The walk's stack" });
    stack.append(el("div", { class: "kc-title" }, "Stack (calls in progress, newest last)"));
    if (!shown.walk.stack.length) stack.append(el("div", { class: "kc-muted" }, "empty"));
    for (const n of shown.walk.stack) stack.append(el("div", { class: "kc-walk-stack-item" }, nodeText(n)));
    this.details.append(stack);
    if (shown.walk.depths.size) {
      const depths = el("div", { class: "kc-walk-depths", "aria-label": "Depths found" });
      depths.append(el("div", { class: "kc-title" }, "Depths (_nodes_by_depth), with the reason"));
      for (const [id, d] of shown.walk.depths) {
        const [layer, k] = [id.slice(0, id.lastIndexOf(":")), id.slice(id.lastIndexOf(":") + 1)];
        depths.append(el("div", { class: "kc-walk-depth", "data-node": id }, `${layer} node ${k}: ${d.reason}`));
      }
      this.details.append(depths);
    }
  }

  toggle(): void {
    if (this.playing) { this.pause(); return; }
    if (this.index >= this.steps - 1) this.show(0);
    this.playButton.textContent = "⏸ Pause";
    this.playButton.setAttribute("aria-label", "Pause");
    this.timer = window.setInterval(() => this.show(this.index + 1), PLAY_MS);
  }

  pause(): void {
    if (this.timer) window.clearInterval(this.timer);
    this.timer = 0;
    this.playButton.textContent = "▶ Play";
    this.playButton.setAttribute("aria-label", "Play");
  }

  close(): void {
    this.pause();
    this.onClose();
  }
}

function drawPicture(canvas: HTMLCanvasElement, values: number[][]): void {
  const ctx = canvas.getContext("2d");
  if (!ctx) return;
  const h = values.length, w = values[0]?.length ?? 0;
  const sx = canvas.width / Math.max(w, 1), sy = canvas.height / Math.max(h, 1);
  values.forEach((row, y) => row.forEach((v, x) => {
    const g = Math.round(255 * v);
    ctx.fillStyle = `rgb(${g},${g},${g})`;
    ctx.fillRect(x * sx, y * sy, sx + 0.5, sy + 0.5);
  }));
}
