// The kernel's hints for a wire being drawn (adding.ts): an answer asked for before an edit is
// never shown after it, even for the same port (the hints are keyed by the drawing's revision).
import { describe, expect, it } from "vitest";
import { Adding, type AddingHost } from "../src/interaction/adding";
import type { Port } from "../src/mirror/geometry";
import type { Reply } from "../src/mirror/protocol";
import { emptyState } from "../src/mirror/shape";
import type { GraphState } from "../src/mirror/types";
import { UiStore } from "../src/interaction/ui";

// quick-add's popup is made with the page's document, which node has not: a stand-in
const element = (): unknown => ({
  setAttribute() {}, append() {}, addEventListener() {}, textContent: "",
  classList: { contains: () => false, add() {}, remove() {}, toggle() {} },
});
(globalThis as { document?: unknown }).document ??= { createElement: element };

const port: Port = { key: "out:x:0:0", kind: "out", layer: "x", call: 0, index: 0, label: "", at: { x: 0, y: 0 } };

function canvas() {
  const ui = new UiStore();
  const asked: ((r: Reply) => void)[] = [];
  let state: GraphState = { ...emptyState(), revision: 1 };
  const client = { send: () => new Promise<Reply>((resolve) => asked.push(resolve)) };
  const host = {
    ui, client, state: () => state, palette: () => [], closeMenu() {}, closed() {},
  } as unknown as AddingHost;
  const edited = (revision: number) => {  // what the canvas does with a new state
    state = { ...state, revision };
    ui.setHints(null);
  };
  return { ui, asked, adding: new Adding(host), edited };
}

const answer = (accept: string[]): Reply => ({ ok: true, result: { classes: ["Dense"], accept, refuse: [] } });

describe("wire hints", () => {
  it("an answer asked for before an edit is not shown after it, for the same port", async () => {
    const { ui, asked, adding, edited } = canvas();
    adding.askHints(port);
    expect(asked).toHaveLength(1);
    adding.askHints(port); // the same drag: asked once
    expect(asked).toHaveLength(1);
    edited(2); // e.g. the slot it lit was filled by another edit
    adding.askHints(port);
    expect(asked).toHaveLength(2);
    asked[0](answer(["in:d:0:0"])); // the stale answer arrives last
    await Promise.resolve();
    expect([...(ui.state.hints?.accept ?? [])]).toEqual([]);
    asked[1](answer(["in:e:0:0"]));
    await Promise.resolve();
    expect([...(ui.state.hints?.accept ?? [])]).toEqual(["in:e:0:0"]);
  });
});
