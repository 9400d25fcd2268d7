// A refusal from the kernel, shown next to the spot it concerns (a world point) and following it
// while the view moves; its place on the stage is pure (toastSpot).
import { clear, el } from "../base/dom";
import { type Point, type View, toScreen } from "../mirror/geometry";
import { usefulMessage } from "../base/words";

const TOAST_MS = 8000;

/** Where the message goes for screen point `p`: just below-right of it, kept whole on the stage
 * (`size`, the message's own size: about 300 x 60 px, taller once its Details are shown). */
export function toastSpot(p: Point, stage: { width: number; height: number }, size = { w: 300, h: 60 }): Point {
  return { x: Math.min(Math.max(0, p.x + 12), Math.max(0, stage.width - size.w)), y: Math.min(Math.max(0, p.y + 12), Math.max(0, stage.height - size.h)) };
}

export class Toast {
  readonly root: HTMLElement;
  private at: Point | null = null; // the world point it sits next to, while shown
  private placed: { view: View; stage: { width: number; height: number } } | null = null;
  private timer = 0;

  constructor(private signal: AbortSignal) {
    this.root = el("div", { class: "kc-toast", role: "alert" });
  }

  /** The message's first useful sentence, the whole message one press away (Details). */
  show(message: string, at: Point, view: View, stage: { width: number; height: number }): void {
    const { short, more } = usefulMessage(message);
    clear(this.root);
    const text = el("div", { class: "kc-toast-text" }, short);
    this.root.append(text);
    if (more) {
      const details = el("button", { class: "kc-link", "aria-label": "Show details" }, "Details");
      details.addEventListener("click", () => {
        text.textContent = more;
        details.remove();
        window.clearTimeout(this.timer); // being read: it stays
        if (this.placed) this.place(this.placed.view, this.placed.stage); // taller now: kept whole on the stage
      }, { signal: this.signal });
      this.root.append(details);
    }
    this.at = at;
    this.root.classList.add("kc-show");
    this.place(view, stage);
    window.clearTimeout(this.timer);
    this.timer = window.setTimeout(() => this.hide(), TOAST_MS);
  }

  /** Whether it was shown. */
  hide(): boolean {
    const shown = this.root.classList.contains("kc-show");
    this.root.classList.remove("kc-show");
    this.at = null;
    return shown;
  }

  /** Follows its world point as the view pans and zooms. */
  place(view: View, stage: { width: number; height: number }): void {
    if (!this.at) return;
    this.placed = { view, stage };
    // never taller than the stage: a long message scrolls inside it (css), never cut off
    this.root.style.maxHeight = `${Math.max(40, stage.height - 8)}px`;
    const size = { w: this.root.offsetWidth || 300, h: this.root.offsetHeight || 60 };
    const spot = toastSpot(toScreen(view, this.at), stage, size);
    this.root.style.left = `${spot.x}px`;
    this.root.style.top = `${spot.y}px`;
  }

  destroy(): void {
    window.clearTimeout(this.timer);
  }
}
