import { describe, expect, it } from "vitest";
import { toolbarButtons } from "../src/panels/toolbar";

describe("the toolbar", () => {
  it("groups its buttons and offers Save and Load only for a canvas with a file", () => {
    const labels = (file: boolean) => toolbarButtons(file).map((g) => g.map((b) => b.label));
    expect(labels(false)).toEqual([["Undo", "Redo"], ["Add layer", "Find", "Arrange", "Fit"],
      ["Keras's walk", "Forward pass", "Outputs", "Node view"], ["Export SVG", "Export PNG", "Export HTML"]]);
    expect(labels(true)[2]).toEqual(["Save", "Load"]);
    expect(toolbarButtons(true).flat().every((b) => b.title.length > 0)).toBe(true);
  });
});
