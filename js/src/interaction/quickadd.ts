// Quick-add: a search of the catalog at the pointer (Tab or Shift+A, or a wire dropped in empty
// space). Ranking is pure and tested; the popup is small DOM.
import { clear, el } from "../base/dom";

/** How well a class name matches a query: exact 0, prefix 1, word start 2 (MaxPooling2D for
 * "pool"), substring 3, letters in order 4; null when it does not match. Case and "_" / " "
 * are ignored. */
export function matchRank(name: string, query: string): number | null {
  const n = name.toLowerCase().replace(/[_\s]/g, "");
  const q = query.toLowerCase().replace(/[_\s]/g, "");
  if (!q) return 3;
  if (n === q) return 0;
  if (n.startsWith(q)) return 1;
  const words = name.replace(/([a-z0-9])([A-Z])/g, "$1 $2").toLowerCase().split(/[\s_]+/);
  for (let i = 1; i < words.length; i++) if (words.slice(i).join("").startsWith(q)) return 2;
  if (n.includes(q)) return 3;
  let j = 0;
  for (const c of n) if (c === q[j]) j++;
  return j === q.length ? 4 : null;
}

/** A catalog entry as quick-add lists it: its name and group ("ops" for keras.ops functions). */
export interface Offer { class_name: string; group?: string }

/** Whether an entry is a keras.ops function (not a layer). */
export function isFunction(e: Offer): boolean {
  return e.group === "ops";
}

/** What an entry is, written beside it: "layer · core", "function · keras.ops". */
export function offerKind(e: Offer): string {
  return isFunction(e) ? "function · keras.ops" : e.group ? `layer · ${e.group}` : "layer";
}

/** Entries matching `query`, best first: by rank, then layers before keras.ops functions
 * ("Add" is the Add layer before ops.add), then shorter names, then alphabetically
 * ("maxpool" finds MaxPooling1D/2D/3D before AdaptiveMaxPooling1D). */
export function rank<T extends Offer>(entries: T[], query: string): T[] {
  const scored: [T, number][] = [];
  for (const e of entries) {
    const r = matchRank(e.class_name, query);
    if (r !== null) scored.push([e, r]);
  }
  scored.sort((a, b) => a[1] - b[1] || Number(isFunction(a[0])) - Number(isFunction(b[0]))
    || a[0].class_name.length - b[0].class_name.length
    || a[0].class_name.localeCompare(b[0].class_name));
  return scored.map(([e]) => e);
}

const SHOWN = 12;

/** The popup: a text field and the ranked list; Enter or a click picks, Escape closes. */
export class QuickAdd {
  readonly root: HTMLElement;
  private input: HTMLInputElement;
  private list: HTMLElement;
  private names: Offer[] = [];
  private active = 0;
  private onPick: ((name: string) => void) | null = null;
  private shown: string[] = [];
  private note: HTMLElement;

  constructor(private onClose: () => void) {
    this.root = el("div", { class: "kc-quickadd", role: "dialog", "aria-label": "Add a layer" });
    this.input = el("input", { type: "search", class: "kc-field", placeholder: "Add a layer…", "aria-label": "quick add search" });
    this.note = el("div", { class: "kc-muted kc-quickadd-note" });
    this.list = el("div", { class: "kc-quickadd-list", role: "listbox" });
    this.root.append(this.input, this.note, this.list);
    this.input.addEventListener("input", () => { this.active = 0; this.draw(); });
    this.input.addEventListener("keydown", (ev) => {
      ev.stopPropagation(); // the notebook's keys stay off while typing here
      if (ev.key === "Escape") { ev.preventDefault(); this.close(); }
      else if (ev.key === "ArrowDown") { ev.preventDefault(); this.active = Math.min(this.active + 1, this.shown.length - 1); this.draw(); }
      else if (ev.key === "ArrowUp") { ev.preventDefault(); this.active = Math.max(this.active - 1, 0); this.draw(); }
      else if (ev.key === "Enter" || ev.key === "Tab") { ev.preventDefault(); const n = this.shown[this.active]; if (n) this.pick(n); }
    });
    this.input.addEventListener("blur", () => window.setTimeout(() => { if (!this.root.contains(document.activeElement)) this.close(); }, 150));
  }

  get isOpen(): boolean { return this.root.classList.contains("kc-show"); }

  open(at: { x: number; y: number }, names: Offer[], note: string, onPick: (name: string) => void): void {
    this.names = names;
    this.onPick = onPick;
    this.active = 0;
    this.input.value = "";
    this.note.textContent = note;
    this.root.style.left = `${at.x}px`;
    this.root.style.top = `${at.y}px`;
    this.root.classList.add("kc-show");
    this.draw();
    this.input.focus({ preventScroll: true });
  }

  /** Change the offered names while open (the kernel's filtered answer arrived). */
  offer(names: Offer[], note: string): void {
    this.names = names;
    this.note.textContent = note;
    this.draw();
  }

  close(): void {
    if (!this.isOpen) return;
    this.root.classList.remove("kc-show");
    this.onPick = null;
    this.onClose();
  }

  private pick(name: string): void {
    const run = this.onPick;
    this.root.classList.remove("kc-show");
    this.onPick = null;
    this.onClose();
    run?.(name);
  }

  private draw(): void {
    clear(this.list);
    const ranked = rank(this.names, this.input.value).slice(0, SHOWN);
    this.shown = ranked.map((e) => e.class_name);
    ranked.forEach((entry, i) => {
      const name = entry.class_name;
      const item = el("div", { class: "kc-quickadd-item" + (i === this.active ? " kc-active" : ""), role: "option",
        "aria-selected": String(i === this.active), "data-class": name, "data-kind": isFunction(entry) ? "function" : "layer" });
      item.append(el("span", { class: "kc-quickadd-name" }, name), el("span", { class: "kc-quickadd-kind" }, offerKind(entry)));
      item.addEventListener("pointerdown", (ev) => { ev.preventDefault(); this.pick(name); });
      this.list.append(item);
    });
    if (!this.shown.length) this.list.append(el("div", { class: "kc-muted" }, "No layer matches."));
  }
}
