// The inspector's call settings sections (callsettings.ts): the rows, what each field's text
// becomes, and the key that makes the form again when a setting changes.
import { describe, expect, it } from "vitest";
import { parseNewSetting, parseSetting, settingRows, settingsKey } from "../src/panels/callsettings";
import type { Call } from "../src/mirror/types";

const call = (index: number, settings: Record<string, unknown>): Call =>
  ({ index, built: true, output_shapes: null, missing: null, settings });

describe("call settings in the inspector", () => {
  it("lists each call's settings with the editor their value needs", () => {
    const rows = settingRows([call(0, { use_causal_mask: true, dropout: 0.5 }), call(1, { mode: "x", ids: [1, 2] }), call(2, {})]);
    expect(rows).toEqual([
      { call: 0, name: "dropout", kind: "number", value: 0.5 },
      { call: 0, name: "use_causal_mask", kind: "bool", value: true },
      { call: 1, name: "ids", kind: "other", value: [1, 2] },
      { call: 1, name: "mode", kind: "text", value: "x" },
    ]);
  });

  it("reads a field's text as its kind: a number field refuses what is not a number", () => {
    expect(parseSetting("number", "rate", " 0.25 ")).toBe(0.25);
    expect(() => parseSetting("number", "rate", "abc")).toThrow("rate= must be a number");
    expect(() => parseSetting("number", "rate", "")).toThrow("rate= must be a number");
    expect(parseSetting("text", "mode", "<b>x</b>")).toBe("<b>x</b>");
  });

  it("reads name=value typed to add a setting", () => {
    expect(parseNewSetting("use_causal_mask=True")).toEqual(["use_causal_mask", true]);
    expect(parseNewSetting(" training = false")).toEqual(["training", false]);
    expect(parseNewSetting("k=None")).toEqual(["k", null]);
    expect(parseNewSetting("k=3")).toEqual(["k", 3]);
    expect(parseNewSetting("k='same'")).toEqual(["k", "same"]);
    expect(parseNewSetting("k=same")).toEqual(["k", "same"]);
    expect(() => parseNewSetting("use_causal_mask")).toThrow("name=value");
    expect(() => parseNewSetting("not a name=1")).toThrow("name=value");
  });

  it("keys the form by every call's settings", () => {
    const a = settingsKey([call(0, { training: true })]);
    expect(settingsKey([call(0, { training: false })])).not.toBe(a);
    expect(settingsKey([call(0, { training: true })])).toBe(a);
    expect(settingsKey([call(0, { training: true }), call(1, {})])).not.toBe(a);
  });
});
