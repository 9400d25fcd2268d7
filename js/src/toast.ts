// A refusal from the kernel, shown next to the spot it concerns (a world point) and following it
// while the view moves; its place on the stage is pure (toastSpot).
import { clear, el } from "./dom";
import { type Point, type View, toScreen } from "./geometry";
import { usefulMessage } from "./words";

const TOAST_MS = 8000;

/** Where the message goes for screen point `p`: just below-right of it, kept on the stage
 * (a message is about 300 x 60 px). */
export function toastSpot(p: Point, stage: { width: number; height: number }): Point {
  return { x: Math.min(Math.max(0, p.x + 12), Math.max(0, stage.width - 300)), y: Math.min(Math.max(0, p.y + 12), Math.max(0, stage.height - 60)) };
}

export class Toast {
  readonly root: HTMLElement;
  private at: Point | null = null; // the world point it sits next to, while shown
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
    const spot = toastSpot(toScreen(view, this.at), stage);
    this.root.style.left = `${spot.x}px`;
    this.root.style.top = `${spot.y}px`;
  }

  destroy(): void {
    window.clearTimeout(this.timer);
  }
}
