// The export-code panel: the kernel's g.to_code() source, live while open; copy and download.
import { el } from "../base/dom";
import type { Client } from "../mirror/protocol";

export function fileName(model: string): string {
  const base = model.replace(/[^A-Za-z0-9_-]+/g, "_").replace(/^_+|_+$/g, "") || "model";
  return `${base}.py`;
}

export class CodePanel {
  readonly root: HTMLDetailsElement;
  private pre: HTMLElement;
  private note: HTMLElement;
  private code = "";
  private timer = 0;
  private asked = 0;

  constructor(private client: Client, private modelName: () => string, private notice: (m: string) => void) {
    this.root = el("details", { class: "kc-code" });
    const summary = el("summary", {}, "Code");
    const bar = el("div", { class: "kc-code-bar" });
    const copy = el("button", { class: "kc-button", "aria-label": "Copy code", title: "Copy the Python source" }, "Copy");
    const save = el("button", { class: "kc-button", "aria-label": "Download .py", title: "Download the Python source" }, "Download .py");
    this.note = el("span", { class: "kc-muted" });
    bar.append(copy, save, this.note);
    this.pre = el("pre", { class: "kc-code-text", "aria-label": "exported code" });
    this.root.append(summary, bar, this.pre);
    this.root.addEventListener("toggle", () => { if (this.root.open) this.refresh(); });
    copy.addEventListener("click", () => this.copy());
    save.addEventListener("click", () => this.download());
  }

  /** The drawing changed: ask for the source again (soon, once) while the panel is open. */
  changed(): void {
    if (!this.root.open) return;
    window.clearTimeout(this.timer);
    this.timer = window.setTimeout(() => this.refresh(), 250);
  }

  async refresh(): Promise<void> {
    const ask = ++this.asked;
    const reply = await this.client.send("code");
    if (ask !== this.asked) return;
    const result = reply.result as { code: string | null; error: string | null } | undefined;
    if (!reply.ok || !result) { this.note.textContent = reply.error ?? "no code"; return; }
    this.code = result.code ?? "";
    this.pre.textContent = result.code ?? "";
    this.note.textContent = result.code === null ? `No code yet: ${result.error}` : "";
  }

  private async copy(): Promise<void> {
    try {
      await navigator.clipboard.writeText(this.code);
      this.notice("Code copied");
    } catch {
      // no clipboard permission (http page, iframe): select the text for Ctrl+C instead
      const range = document.createRange();
      range.selectNodeContents(this.pre);
      const sel = window.getSelection();
      sel?.removeAllRanges();
      sel?.addRange(range);
      this.notice("Code selected: press Ctrl+C to copy");
    }
  }

  private download(): void {
    const url = URL.createObjectURL(new Blob([this.code], { type: "text/x-python" }));
    const a = el("a", { href: url, download: fileName(this.modelName()) });
    document.body.append(a);
    a.click();
    a.remove();
    window.setTimeout(() => URL.revokeObjectURL(url), 1000);
  }

  destroy(): void {
    window.clearTimeout(this.timer);
  }
}
