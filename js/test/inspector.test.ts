// The inspector renders the fields the kernel reads off the live layer (the `inspect` intent):
// every field shown, a value outside the catalog's choices shown as it is, read-only fields
// disabled with their reason, text set as text (never HTML), and an inner layer by its path.
import { describe, expect, it } from "vitest";
import { Inspector, type Shown } from "../src/panels/inspector";
import { type InspectField, type Inspected, inputPresets, parseFieldValue, renderInspector, renderPalette } from "../src/panels/panels";
import type { Client, Reply } from "../src/mirror/protocol";
import type { LayerState } from "../src/mirror/types";

// node has no document: a stand-in with what the panels use (text only: innerHTML throws)
class FakeElement {
  children: FakeElement[] = [];
  parent: FakeElement | null = null;
  attributes: Record<string, string> = {};
  listeners: Record<string, ((ev: unknown) => void)[]> = {};
  private ownText = "";
  checked = false;
  selected = false;
  value = "";
  constructor(readonly tagName: string) {}
  setAttribute(k: string, v: string) { this.attributes[k] = v; if (k === "value") this.value = v; }
  getAttribute(k: string) { return this.attributes[k] ?? null; }
  hasAttribute(k: string) { return k in this.attributes; }
  removeAttribute(k: string) { delete this.attributes[k]; }
  get disabled() { return "disabled" in this.attributes; }
  set textContent(t: string) { this.children = []; this.ownText = t; }
  get textContent(): string { return this.ownText + this.children.map((c) => c.textContent).join(""); }
  set innerHTML(_: string) { throw new Error("innerHTML used"); }
  get firstChild() { return this.children[0] ?? null; }
  append(...nodes: FakeElement[]) { for (const n of nodes) { n.remove(); n.parent = this; this.children.push(n); } }
  insertBefore(n: FakeElement, before: FakeElement | null) {
    n.remove(); n.parent = this;
    const at = before ? this.children.indexOf(before) : -1;
    if (at < 0) this.children.push(n); else this.children.splice(at, 0, n);
  }
  removeChild(n: FakeElement) { this.children = this.children.filter((c) => c !== n); n.parent = null; }
  remove() { this.parent?.removeChild(this); }
  addEventListener(type: string, f: (ev: unknown) => void) { (this.listeners[type] ??= []).push(f); }
  fire(type: string) { for (const f of this.listeners[type] ?? []) f({ target: this }); }
  get classList() { return { contains: (c: string) => (this.attributes.class ?? "").split(" ").includes(c) }; }
  all(): FakeElement[] { return this.children.flatMap((c) => [c, ...c.all()]); }
  querySelector(sel: string): FakeElement | null {
    const cls = sel.match(/^\.([\w-]+)$/)?.[1];
    const label = sel.match(/^\[aria-label="(.+)"\]$/)?.[1];
    return this.all().find((e) => (cls && e.classList.contains(cls)) || (label && e.attributes["aria-label"] === label)) ?? null;
  }
}
(globalThis as { document?: unknown }).document ??= { createElement: (tag: string) => new FakeElement(tag) };

const host = () => new FakeElement("div") as unknown as HTMLElement & FakeElement;
const field = (over: Partial<InspectField>): InspectField =>
  ({ name: "f", value: 1, text: "1", kind: "int", editable: true, reason: null, ...over });
const GELU = { module: "builtins", class_name: "function", config: "keras_hub>gelu_approximate", registered_name: "function" };

const decoder: LayerState = {
  name: "transformer_layer_0", class_name: "TransformerDecoder", is_input: false,
  config: { name: "transformer_layer_0", intermediate_dim: 16, dropout: 0.1, activation: GELU },
  calls: [],
} as unknown as LayerState;

const inspected: Inspected = {
  name: "transformer_layer_0", path: "transformer_layer_0", class_name: "TransformerDecoder", inside: null, is_input: false,
  fields: [
    field({ name: "name", value: "transformer_layer_0", text: "transformer_layer_0", kind: "text", editable: false, reason: "name: use rename" }),
    field({ name: "trainable", value: true, text: "True", kind: "bool" }),
    field({ name: "intermediate_dim", value: 16, text: "16" }),
    field({ name: "dropout", value: 0.1, text: "0.1", kind: "float" }),
    field({ name: "activation", value: GELU, text: "keras_hub>gelu_approximate", kind: "choice", choices: ["linear", "gelu", GELU] }),
    field({ name: "kernel_initializer", value: { class_name: "RandomNormal", config: {} }, text: "RandomNormal", kind: "object",
      editable: false, reason: "a serialized RandomNormal (a Keras object): edit it from Python with g.configure" }),
    field({ name: "note", value: "<b>bold</b>", text: "<b>bold</b>", kind: "text" }),
  ],
};

function control(root: FakeElement, name: string): FakeElement {
  const found = root.querySelector(`[aria-label="${name}"]`);
  if (!found) throw new Error(`no field ${name}`);
  return found;
}

describe("the inspector's fields come from the kernel", () => {
  it("shows every field, a value outside the catalog's choices as it is", () => {
    const root = host();
    const sent: Record<string, unknown>[] = [];
    renderInspector(root, decoder, undefined, null, (c) => sent.push(c), () => undefined, inspected);
    for (const f of inspected.fields.slice(1)) control(root, f.name);
    expect(control(root, "layer name").value).toBe("transformer_layer_0"); // the name row renames
    const activation = control(root, "activation");
    expect(activation.tagName).toBe("select");
    const chosen = activation.children.find((o) => o.selected);
    expect(chosen?.textContent).toBe("keras_hub>gelu_approximate");
    expect(activation.children.map((o) => o.textContent)).toEqual(["linear", "gelu", "keras_hub>gelu_approximate"]);
    expect(control(root, "intermediate_dim").value).toBe("16");
    expect(control(root, "dropout").value).toBe("0.1");
    control(root, "dropout").value = "0.25";
    control(root, "dropout").fire("change");
    activation.value = JSON.stringify("gelu");
    activation.fire("change");
    expect(sent).toEqual([{ dropout: 0.25 }, { activation: "gelu" }]);
  });

  it("never keeps text the kernel was not given: a value refused as typed shows the layer's again", () => {
    const root = host();
    const sent: Record<string, unknown>[] = [];
    renderInspector(root, decoder, undefined, null, (c) => sent.push(c), () => undefined, inspected);
    const units = control(root, "intermediate_dim");
    units.value = "abc";
    units.fire("change");
    expect(sent).toEqual([]);
    expect(units.value).toBe("16"); // the kernel's value, not "abc"
    expect(root.querySelector(".kc-error")?.textContent).toBe('intermediate_dim: expected a whole number, got "abc"; it stays 16.');
    // the next accepted edit makes the form again (its config changed): the message goes
    renderInspector(root, { ...decoder, config: { ...decoder.config, intermediate_dim: 32 } } as LayerState, undefined, null,
      () => undefined, () => undefined, inspected);
    expect(root.querySelector(".kc-error")).toBe(null);
  });

  it("disables a read-only field and says why, visibly and as its title", () => {
    const root = host();
    renderInspector(root, decoder, undefined, null, () => undefined, () => undefined, inspected);
    const init = control(root, "kernel_initializer");
    expect(init.disabled).toBe(true);
    expect(init.getAttribute("title")).toContain("edit it from Python with g.configure");
    expect(root.textContent).toContain("a serialized RandomNormal (a Keras object)");
    expect(control(root, "intermediate_dim").disabled).toBe(false);
  });

  it("sets strings as text, never as HTML", () => {
    const root = host();
    renderInspector(root, decoder, undefined, null, () => undefined, () => undefined, inspected);
    expect(control(root, "note").value).toBe("<b>bold</b>");
    expect(root.all().some((e) => e.tagName === "b")).toBe(false);
  });

  it("reads what is typed by the field's kind", () => {
    expect(parseFieldValue("int", " 3 ")).toBe(3);
    expect(parseFieldValue("int", "None")).toBe(null);
    expect(() => parseFieldValue("int", "3.5")).toThrow("whole number");
    expect(parseFieldValue("float", "1e-5")).toBe(1e-5);
    expect(parseFieldValue("list", "3, None, same")).toEqual([3, null, "same"]);
    expect(parseFieldValue("shape", "(28, 28, 1)")).toEqual([28, 28, 1]);
    expect(() => parseFieldValue("shape", "a")).toThrow("sizes");
    expect(parseFieldValue("object", '{"a": [1]}')).toEqual({ a: [1] });
    expect(parseFieldValue("object", " l2 ")).toBe("l2");
    expect(parseFieldValue("text", "None")).toBe("None");
  });

  it("keeps an Input's shape field, without the batch size", () => {
    const root = host();
    const input = { ...decoder, name: "x", class_name: "InputLayer", is_input: true, config: { batch_shape: [null, 28, 1] } } as unknown as LayerState;
    const sent: Record<string, unknown>[] = [];
    renderInspector(root, input, undefined, null, (c) => sent.push(c), () => undefined, {
      ...inspected, is_input: true, fields: [field({ name: "batch_shape", value: [null, 28, 1], text: "None, 28, 1", kind: "shape" })],
    });
    const shape = control(root, "shape");
    expect(shape.value).toBe("28, 1");
    shape.value = "4, None";
    shape.fire("change");
    expect(sent).toEqual([{ shape: [4, null] }]);
  });
});

describe("the Inspector asks the kernel", () => {
  function inspector(answer: (m: Record<string, unknown>) => Reply) {
    const asked: Record<string, unknown>[] = [];
    const client = { send: async (kind: string, fields: Record<string, unknown>) => {
      asked.push({ kind, ...fields });
      return kind === "inspect" ? answer(fields) : { ok: false, error: "no" };
    } } as unknown as Client;
    const root = host();
    const panel = new Inspector(root, client, new AbortController().signal, () => undefined);
    return { panel, root, asked };
  }
  const shown = (layer: LayerState): Shown => ({ layer, entry: undefined, error: null, edge: null, edgeCount: 0,
    onChange: () => undefined, onRename: () => undefined });

  it("asks `inspect` on selection and fills the form with the answer, once per config", async () => {
    const { panel, root, asked } = inspector(() => ({ ok: true, result: inspected }));
    panel.show(shown(decoder));
    expect(root.textContent).toContain("Reading the layer's config");
    await new Promise((r) => setTimeout(r, 0));
    expect(asked.filter((m) => m.kind === "inspect")).toEqual([{ kind: "inspect", name: "transformer_layer_0" }]);
    expect(control(root, "intermediate_dim").value).toBe("16");
    panel.show(shown(decoder)); // a redraw: nothing asked again
    panel.show({ ...shown(decoder), error: "refused", refusals: 1 }); // made again, from the fields held
    expect(control(root, "intermediate_dim").value).toBe("16");
    expect(asked.filter((m) => m.kind === "inspect").length).toBe(1);
  });

  it("shows a layer inside a nested model by its path, read-only", async () => {
    const inner: Inspected = { name: "deep", path: "middle/inner/deep", class_name: "Dense", inside: "middle/inner", is_input: false,
      fields: ["name", "units"].map((name) => field({ name, editable: false,
        reason: "a layer inside nested model 'middle/inner': the inside of a nested model is read-only" })) };
    const { panel, root, asked } = inspector((m) => ({ ok: true, result: { ...inner, path: m.name } }));
    panel.showPath("middle/inner/deep");
    await new Promise((r) => setTimeout(r, 0));
    expect(asked.filter((m) => m.kind === "inspect")).toEqual([{ kind: "inspect", name: "middle/inner/deep" }]);
    expect(root.textContent).toContain("deep · Dense");
    expect(root.textContent).toContain("inside nested model middle/inner");
    expect(control(root, "units").disabled).toBe(true);
    expect(control(root, "units").getAttribute("title")).toContain("read-only");
    expect(root.textContent).toContain("the inside of a nested model is read-only");
  });

  it("shows the mirrored config read-only when the kernel cannot answer", async () => {
    const { panel, root } = inspector(() => ({ ok: false, error: "This view is read-only." }));
    panel.show(shown(decoder));
    await new Promise((r) => setTimeout(r, 0));
    expect(control(root, "intermediate_dim").disabled).toBe(true);
    expect(control(root, "activation").value).toBe("keras_hub>gelu_approximate");
  });
});

describe("the palette's Inputs", () => {
  it("offers Inputs shaped like the data first, once data is set", () => {
    expect(Object.keys(inputPresets(undefined))).toEqual(["Input", "Input 28x28x1", "Input 32x32x3", "Input 16x8 sequence"]);
    const presets = inputPresets([{ name: null, shape: [8, 8, 1], dtype: "float32" }]);
    expect(Object.entries(presets)[0]).toEqual(["Input 8x8x1 (your data)", { shape: [8, 8, 1], dtype: "float32" }]);
    const named = inputPresets([{ name: "age", shape: [1], dtype: "int64" }, { name: "text", shape: [], dtype: "float32" }]);
    expect(named["Input age 1 (your data)"]).toEqual({ shape: [1], dtype: "int64", name: "age" });
    expect(named["Input text scalar (your data)"]).toEqual({ shape: [], dtype: "float32", name: "text" });
    const root = host();
    const picked: string[] = [];
    renderPalette(root, [], (c) => picked.push(c), presets);
    const entry = root.all().find((e) => e.attributes["data-class"] === "Input 8x8x1 (your data)");
    expect(entry?.textContent).toBe("Input 8x8x1 (your data)");
    expect(root.all().filter((e) => e.attributes.class === "kc-entry").map((e) => e.textContent)[0]).toBe("Input 8x8x1 (your data)");
  });
});

