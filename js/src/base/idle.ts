// Work done in slices while the page is idle (the off-screen boxes an update left with an older
// state, redrawn after the frame): a key or a pointer move that comes in waits no longer than
// one slice.

/** `step(timeLeft)` does some of the work within the time `timeLeft()` says is left, and says
 * whether any is left after it. */
export class IdleWork {
  private cancelSoon: (() => void) | null = null;

  constructor(private step: (timeLeft: () => number) => boolean) {}

  /** A slice when the page is next idle (and more after it, while work is left); one asked for
   * already is enough. */
  soon(): void {
    if (this.cancelSoon) return;
    const slice = (timeRemaining: number) => {
      this.cancelSoon = null;
      // 4-8 ms a slice: some progress when the page never idles (timeRemaining() is 0 then)
      const end = performance.now() + Math.min(8, Math.max(4, timeRemaining));
      if (this.step(() => end - performance.now())) this.soon();
    };
    if (typeof requestIdleCallback === "function") {
      const id = requestIdleCallback((deadline) => slice(deadline.timeRemaining()), { timeout: 100 });
      this.cancelSoon = () => cancelIdleCallback(id);
    } else { // no idle callbacks (older Safari): a slice a frame
      const id = window.setTimeout(() => slice(0), 16);
      this.cancelSoon = () => window.clearTimeout(id);
    }
  }

  cancel(): void {
    this.cancelSoon?.();
    this.cancelSoon = null;
  }
}
