// LoRA from the box menu (issue 41): "LoRA…" only on a box whose layer can take it, after the
// freezing entries; the rank field takes whole numbers 1..4096; the box says "LoRA r=4".
import { describe, expect, it, vi } from "vitest";
import { LORA_LABEL, MAX_LORA_RANK, loraRank, withLora } from "../src/interaction/contextmenus";
import type { MenuAction } from "../src/interaction/menu";
import type { LayerState } from "../src/mirror/types";
import { loraText } from "../src/scene/boxes";

const box = (over: Partial<LayerState>) => ({ name: "dense", lora_rank: null, lora_ready: false, ...over }) as unknown as LayerState;

describe("LoRA in the box menu", () => {
  const actions: MenuAction[] = ["call-again", "freeze", "freeze-before", "rename", "delete"];
  const items = (): [string, () => void][] => actions.map((a) => [a, () => {}]);

  it("is offered after the freezing entries, only where the layer can take it", () => {
    const open = vi.fn();
    const entries = withLora(box({ lora_ready: true }), items(), actions, open);
    expect(entries.map((e) => e[0])).toEqual(["call-again", "freeze", "freeze-before", LORA_LABEL, "rename", "delete"]);
    entries[3][1]();
    expect(open).toHaveBeenCalledOnce();
    expect(withLora(box({ lora_ready: false }), items(), actions, open).map((e) => e[0])).toEqual(actions);
    expect(withLora(box({ lora_ready: false, lora_rank: 4 }), items(), actions, open).length).toBe(actions.length);
  });

  it("takes a whole rank from 1 to the kernel's bound", () => {
    expect(loraRank("4")).toBe(4);
    expect(loraRank(" 16 ")).toBe(16);
    expect(loraRank(String(MAX_LORA_RANK))).toBe(MAX_LORA_RANK);
    for (const bad of ["0", "-1", "2.5", "", "x", "1e3", String(MAX_LORA_RANK + 1)]) expect(loraRank(bad)).toBeNull();
  });

  it("a box with LoRA says its rank", () => {
    expect(loraText(box({ lora_rank: 4 }))).toBe("LoRA r=4");
    expect(loraText(box({}))).toBeNull();
  });
});
