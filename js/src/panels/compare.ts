// "Compare with…": the toolbar's entry asks the kernel what there is to compare with (the drawing
// as imported, as last saved, the snapshots kept by name) and offers it in the canvas's menu; the
// panel under the toolbar says what is compared with and what changed, has a key of the marks,
// lists the selected box's differences and ends the comparison. The menu's entries are pure
// (tested); every name is set as text.
import { clear, el } from "../base/dom";
import type { Client } from "../mirror/protocol";
import { differenceLines, summaryLine, type ComparisonView } from "../scene/comparemarks";

export interface CompareChoices { imported: boolean; saved: boolean; snapshots: string[]; active: string | null }

export interface CompareEntry { label: string; fields: { against: string; snapshot?: string } }

/** The menu's entries for what the kernel offers: imported, saved, each snapshot, and "End
 * compare" while comparing. */
export function compareEntries(choices: Partial<CompareChoices> | null | undefined): CompareEntry[] {
  const entries: CompareEntry[] = [];
  if (choices?.imported === true) entries.push({ label: "Compare with the drawing as imported", fields: { against: "imported" } });
  if (choices?.saved === true) entries.push({ label: "Compare with the drawing as last saved", fields: { against: "saved" } });
  for (const name of Array.isArray(choices?.snapshots) ? choices.snapshots : []) {
    if (typeof name === "string") entries.push({ label: `Compare with snapshot “${name}”`, fields: { against: "snapshot", snapshot: name } });
  }
  if (typeof choices?.active === "string") entries.push({ label: "End compare", fields: { against: "none" } });
  return entries;
}

export const NOTHING_TO_COMPARE = "Nothing to compare with yet: import a model, save the drawing, or keep a snapshot "
  + "(g.snapshot(\"before\")). From Python, canvas.compare_with(...) also takes another graph, a keras.Model or a file.";

/** Asks the kernel what there is to compare with; `show` gets the menu's entries, each sending
 * its intent, or `none` says there is nothing. */
export async function compareMenu(client: Client, show: (entries: [string, () => void][]) => void,
  none: (message: string) => void, refused: (message: string) => void): Promise<void> {
  const reply = await client.send("compare_choices");
  if (!reply.ok) { refused(reply.error ?? "The kernel did not answer."); return; }
  const entries = compareEntries(reply.result as Partial<CompareChoices>);
  if (!entries.length) { none(NOTHING_TO_COMPARE); return; }
  show(entries.map(({ label, fields }) => [label, () => {
    void client.send("compare", fields).then((r) => { if (!r.ok) refused(r.error ?? "The comparison was refused."); });
  }]));
}

const KEY: [string, string][] = [["added", "added"], ["changed", "changed"], ["renamed", "renamed"], ["weights", "other weights"],
  ["ghost", "removed"], ["rewired", "rewired edge"]];

/** The panel under the toolbar while comparing (hidden otherwise). */
export class ComparePanel {
  readonly root = el("div", { class: "kc-compare", role: "region", "aria-label": "Comparison", hidden: "" });
  private line = el("span", { class: "kc-compare-summary" });
  private detail = el("ul", { class: "kc-compare-detail", "aria-label": "Differences of the selected box" });
  private drawn = "";

  constructor(end: () => void, signal: AbortSignal) {
    const key = el("span", { class: "kc-compare-key" });
    for (const [cls, words] of KEY) {
      const item = el("span", { class: "kc-legend-item" });
      item.append(el("span", { class: `kc-cmp-swatch kc-cmp-swatch-${cls}` }), document.createTextNode(words));
      key.append(item);
    }
    const button = el("button", { class: "kc-button jp-ToolbarButtonComponent kc-compare-end", "data-action": "end-compare",
      "aria-label": "End compare", title: "Stop marking the changes" }, "End compare");
    button.addEventListener("click", end, { signal });
    const head = el("div", { class: "kc-compare-head" });
    head.append(this.line, button);
    this.root.append(head, key, this.detail);
  }

  show(view: ComparisonView | null, selected: string | null): void {
    const key = view ? JSON.stringify([view.against, view.summary, selected, selected ? view.marks[selected] : null]) : "";
    if (key === this.drawn) return;
    this.drawn = key;
    this.root.hidden = !view;
    clear(this.detail);
    if (!view) return;
    this.line.textContent = summaryLine(view);
    const mark = selected ? view.marks[selected] : undefined;
    if (selected && mark) for (const line of differenceLines(selected, mark)) this.detail.append(el("li", {}, line));
    else if (selected) this.detail.append(el("li", { class: "kc-muted" }, `${selected}: no differences`));
  }
}
