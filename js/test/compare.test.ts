// A comparison on the canvas (issue 44): what the kernel's `comparison` trait is read as (a bad
// value is no comparison), what each mark says and where its pill goes (over the box, never wider
// than it), the ghosts of removed layers and the marks drawn (names as text, marks taken off a
// box no longer marked), the rewired edges marked, and the "Compare with…" menu's entries.
import { afterAll, describe, expect, it, vi } from "vitest";
import { compareEntries } from "../src/panels/compare";
import { type CompareMark, PILL_HEIGHT, clip, differenceLines, drawGhosts, drawMarks, ghostLinks, markEdges, pillRect, pillText,
  readComparison, summaryLine } from "../src/scene/comparemarks";

class Node {
  children: Node[] = [];
  parent: Node | null = null;
  attributes: Record<string, string> = {};
  ownText = "";
  constructor(readonly tagName: string) {}
  setAttribute(k: string, v: string) { this.attributes[k] = v; }
  getAttribute(k: string) { return this.attributes[k] ?? null; }
  set textContent(t: string) { this.children = []; this.ownText = t; }
  get textContent(): string { return this.ownText + this.children.map((c) => c.textContent).join(""); }
  set innerHTML(_: string) { throw new Error("innerHTML used"); }
  get firstChild() { return this.children[0] ?? null; }
  get firstElementChild() { return this.children[0] ?? null; }
  append(...nodes: Node[]) { for (const n of nodes) { n.remove(); n.parent = this; this.children.push(n); } }
  replaceChildren() { for (const c of [...this.children]) c.remove(); }
  remove() { if (this.parent) this.parent.children = this.parent.children.filter((c) => c !== this); this.parent = null; }
  all(): Node[] { return this.children.flatMap((c) => [c, ...c.all()]); }
  get classList() {
    const list = () => (this.attributes.class ?? "").split(" ").filter(Boolean);
    return { contains: (c: string) => list().includes(c),
      toggle: (c: string, on: boolean) => { this.attributes.class = [...list().filter((x) => x !== c), ...(on ? [c] : [])].join(" "); } };
  }
  querySelectorAll(sel: string) { return sel === "g[data-edge-key]" ? this.all().filter((n) => "data-edge-key" in n.attributes) : []; }
}
vi.stubGlobal("document", { createElementNS: (_ns: string, tag: string) => new Node(tag), createElement: (tag: string) => new Node(tag) });
afterAll(() => { vi.unstubAllGlobals(); });

const mark = (over: Partial<CompareMark>): CompareMark => ({ kind: "changed", was: null, differences: [], weights: null, ...over });

const VIEW = {
  against: "the drawing as imported", summary: "1 added, 1 removed, 1 renamed, 1 changed", weights_kept: true,
  marks: {
    block_1_conv: mark({ kind: "renamed", was: "Conv1" }),
    head: mark({ differences: [["units", "1000", "10"]], weights: null }),
    extra: mark({ kind: "added" }),
    "<img src=x onerror=alert(1)>": mark({ kind: "weights", weights: 0.25 }),
    bogus: { kind: "exploded" },
  },
  ghosts: [{ name: "dropout", class_name: "Dropout", x: 400, y: 100, w: 160, h: 60, near: ["head"] },
    { name: "broken", class_name: "Dense", x: "far" }],
  rewired: ["pool:0:0>head:0:0", 7], removed_edges: ["pool:0:0>dropout:0:0"],
};

describe("a comparison on the canvas", () => {
  it("reads the kernel's trait, leaving out what is not the shape it sends", () => {
    const view = readComparison(VIEW)!;
    expect(Object.keys(view.marks)).toEqual(["block_1_conv", "head", "extra", "<img src=x onerror=alert(1)>"]);
    expect(view.ghosts.map((g) => g.name)).toEqual(["dropout"]);
    expect(view.rewired).toEqual(["pool:0:0>head:0:0"]);
    expect(readComparison({})).toBeNull();
    expect(readComparison(null)).toBeNull();
    expect(readComparison({ against: 3, summary: "x" })).toBeNull();
    expect(summaryLine(view)).toBe("Compared with the drawing as imported: 1 added, 1 removed, 1 renamed, 1 changed");
  });

  it("says what changed on a pill over the box, never wider than the box", () => {
    expect(pillText(mark({ kind: "added" }))).toBe("+ added");
    expect(pillText(mark({ kind: "renamed", was: "Conv1" }))).toBe("was Conv1");
    expect(pillText(mark({ kind: "renamed", was: "a", differences: [["units", "1", "2"]] }))).toBe("was a · changed");
    expect(pillText(mark({ kind: "weights" }))).toBe("other weights");
    const long = pillRect(mark({ kind: "renamed", was: "a_very_long_layer_name_from_a_real_model_indeed" }), 160);
    expect(long.w).toBeLessThanOrEqual(160);
    expect(long.text.endsWith("…")).toBe(true);
    expect(long.y + long.h).toBeLessThan(0); // above the box, in the gap between rows
    expect(long.h).toBe(PILL_HEIGHT);
    expect(clip("abc", 5)).toBe("abc");
    expect(differenceLines("head", mark({ was: "fc", differences: [["units", "1000", "10"]], weights: 1.5 }))).toEqual(
      ["renamed: fc → head", "units: 1000 → 10", "weights differ: norm of the difference 1.5"]);
  });

  it("draws the marks and ghosts as text, and takes a mark off a box no longer marked", () => {
    const view = readComparison(VIEW)!;
    const groups = new Map<string, Node>();
    const decor = (name: string) => {
      if (name === "not_drawn") return null;
      if (!groups.has(name)) groups.set(name, new Node("g"));
      return { g: groups.get(name) as unknown as SVGGElement, width: 160, height: 60 };
    };
    const at = (name: string) => (name === "head" ? { x: 10, y: 200 } : { x: 0, y: 0 });
    const first = drawMarks(decor, view, ["not_drawn", "old"], at);
    expect(first.marked).toHaveLength(4);
    expect(first.pills).toContainEqual({ x: 10, y: 200 - PILL_HEIGHT - 2, w: expect.any(Number), h: PILL_HEIGHT });
    const evil = groups.get("<img src=x onerror=alert(1)>")!;
    expect(evil.all().some((n) => n.tagName === "title" && n.textContent.includes("<img src=x onerror=alert(1)>"))).toBe(true);
    expect(groups.get("head")!.children[0].attributes["data-compare"]).toBe("changed");
    const again = drawMarks(decor, { ...view, marks: { extra: view.marks.extra } }, first.marked, at);
    expect(again.marked).toEqual(["extra"]);
    expect(groups.get("head")!.children).toHaveLength(0);
    expect(groups.get("extra")!.children).toHaveLength(1);
    drawMarks(decor, null, again.marked, at);
    expect(groups.get("extra")!.children).toHaveLength(0);

    const ghosts = new Node("g");
    drawGhosts(ghosts as unknown as SVGGElement, view.ghosts, (n) => (n === "head" ? { x: 10, y: 200, w: 160, h: 60 } : undefined));
    const [link, ghost] = ghosts.children;
    expect(link.attributes.d).toBe("M400,130 L170,230"); // from the ghost's left to head's right side
    expect(ghostLinks(view.ghosts[0], () => ({ x: 0, y: 0, w: 100, h: 50 }), "right")).toEqual(["M480,100 L50,50"]);
    expect(ghost.attributes["data-ghost"]).toBe("dropout");
    expect(ghost.attributes.transform).toBe("translate(400,100)");
    expect(ghost.textContent).toContain("removed · Dropout");
    expect(ghost.textContent).toContain("it was wired to head");
    drawGhosts(ghosts as unknown as SVGGElement, []);
    expect(ghosts.children).toHaveLength(0);
  });

  it("marks the edges only in this drawing and unmarks them after", () => {
    const layer = new Node("g");
    const a = new Node("g"), b = new Node("g");
    a.setAttribute("data-edge-key", "pool:0:0>head:0:0"); a.setAttribute("class", "kc-edge");
    b.setAttribute("data-edge-key", "x:0:0>pool:0:0"); b.setAttribute("class", "kc-edge");
    layer.append(a, b);
    markEdges(layer as unknown as SVGGElement, new Set(["pool:0:0>head:0:0"]));
    expect(a.attributes.class).toBe("kc-edge kc-cmp-rewired");
    expect(b.attributes.class).toBe("kc-edge");
    markEdges(layer as unknown as SVGGElement, new Set());
    expect(a.attributes.class).toBe("kc-edge");
  });

  it("offers what the kernel says there is to compare with", () => {
    expect(compareEntries({ imported: true, saved: false, snapshots: ["before", 3 as unknown as string], active: null }).map((e) => e.fields))
      .toEqual([{ against: "imported" }, { against: "snapshot", snapshot: "before" }]);
    expect(compareEntries({ imported: false, saved: true, snapshots: [], active: "as saved" }).map((e) => e.label))
      .toEqual(["Compare with the drawing as last saved", "End compare"]);
    expect(compareEntries(null)).toEqual([]);
  });
});
