// The front end's house: js/src in folders by layer, each file importing only from its own folder
// or from those below it (LAYERS, bottom up; docs/architecture.md says what each holds). Every
// import counts, `import type` and dynamic `import()` too: a type is a dependency to the reader.
import { describe, expect, it } from "vitest";

declare global {
  interface ImportMeta {
    glob(pattern: string, options: { query: string; import: string; eager: true }): Record<string, string>;
  }
}

/** The folders of js/src, bottom up; "." is the esbuild entries (widget.ts, viewer.ts). */
export const LAYERS = ["base", "mirror", "scene", "training", "panels", "interaction", "teaching", "canvas", "."];

const SOURCES = import.meta.glob("../src/**/*.ts", { query: "?raw", import: "default", eager: true });
const IMPORT = /(?:\bfrom\s+|\bimport\s*\(\s*|\bimport\s+)["'](\.{1,2}\/[^"'?]+)/g;

/** A path under src ("mirror/store.ts") from a glob key ("../src/mirror/store.ts"). */
function underSrc(key: string): string {
  return key.replace(/^\.\.\/src\//, "");
}

/** Where a relative import from `from` (under src) leads, under src; null when outside src. */
function resolve(from: string, spec: string): string | null {
  const parts = from.split("/").slice(0, -1);
  for (const step of spec.split("/")) {
    if (step === "..") {
      if (!parts.length) return null;
      parts.pop();
    } else if (step !== ".") parts.push(step);
  }
  return parts.join("/");
}

export function folderOf(path: string): string {
  return path.includes("/") ? path.split("/")[0] : ".";
}

/** "file (folder) imports target (folder above it)" for each import that reaches up. */
export function upwardImports(sources: Record<string, string>): string[] {
  const rank = new Map(LAYERS.map((l, i) => [l, i]));
  const found: string[] = [];
  for (const [file, text] of Object.entries(sources)) {
    for (const m of text.matchAll(IMPORT)) {
      const target = resolve(file, m[1]);
      if (target === null) continue;
      const here = folderOf(file), there = folderOf(target);
      if ((rank.get(there) ?? -1) > (rank.get(here) ?? LAYERS.length)) found.push(`${file} (${here}) imports ${target} (${there}, above it)`);
    }
  }
  return found.sort();
}

const sources = Object.fromEntries(Object.entries(SOURCES).map(([k, v]) => [underSrc(k), v]));

describe("the front end's house", () => {
  it("finds the sources in their folders", () => {
    expect(Object.keys(sources).length).toBeGreaterThan(50);
    expect(sources["mirror/store.ts"]).toContain("import");
  });

  it("puts every file in a declared folder, and only the entries at the top", () => {
    const stray = Object.keys(sources).filter((f) => !LAYERS.includes(folderOf(f)) || f.split("/").length > 2);
    expect(stray).toEqual([]);
    expect(Object.keys(sources).filter((f) => folderOf(f) === ".").sort()).toEqual(["viewer.ts", "widget.ts"]);
  });

  it("has no folder importing from one above it", () => {
    expect(upwardImports(sources)).toEqual([]);
  });

  it("the rule finds an import reaching up, type-only and dynamic ones too", () => {
    const fake = {
      "mirror/store.ts": 'import type { Ui } from "../interaction/ui";\nimport { el } from "../base/dom";',
      "scene/scene.ts": 'const m = await import("../canvas/canvas");\nimport { x } from "./boxes";',
      "interaction/ui.ts": 'import { s } from "../mirror/store";\nimport d from "../../../kerascanvas/canvas/intents.json";',
      "widget.ts": 'import { c } from "./canvas/canvas";',
    };
    expect(upwardImports(fake)).toEqual([
      "mirror/store.ts (mirror) imports interaction/ui (interaction, above it)",
      "scene/scene.ts (scene) imports canvas/canvas (canvas, above it)",
    ]);
  });
});
