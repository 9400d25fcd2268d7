import { describe, expect, it } from "vitest";
import { groupsThatFit, toolbarButtons } from "../src/panels/toolbar";

describe("the toolbar", () => {
  it("groups its buttons by what they are for and offers Save and Load on every canvas", () => {
    const labels = (file: boolean) => toolbarButtons(file).map((g) => [g.name, g.buttons.map((b) => b.label)]);
    expect(labels(false)).toEqual([["Edit", ["Undo", "Redo", "Add layer"]], ["View", ["Find", "Arrange", "Fit"]],
      ["Teach", ["Keras's walk", "Forward pass", "Outputs", "Node view"]], ["Export", ["Export SVG", "Export PNG", "Export HTML"]],
      ["File", ["Save as…", "Load…", "Compare…"]]]); // last: the first to go into More
    expect(labels(true)[4]).toEqual(["File", ["Save", "Save as…", "Load", "Compare…"]]);
    const all = toolbarButtons(true).flatMap((g) => g.buttons);
    expect(all.every((b) => b.title.length > 0 && b.label.length > 0)).toBe(true);
    expect(new Set(all.map((b) => b.label)).size).toBe(all.length); // one accessible name each
  });

  it("keeps on the bar the groups that fit and sends the rest, last first, to the More menu", () => {
    const widths = [150, 120, 260, 240];
    expect(groupsThatFit(widths, 800, 70)).toBe(4); // all fit: no More button
    expect(groupsThatFit(widths, 769, 70)).toBe(3); // 770 needed: Export goes
    expect(groupsThatFit(widths, 400, 70)).toBe(2);
    expect(groupsThatFit(widths, 100, 70)).toBe(1); // at least the first group stays
  });
});
