// Layer kinds coloured by family (the catalog's group), with a legend; and the activation a box
// shows. Pure.
import type { LayerState } from "../mirror/types";

/** Family of a catalog group (Keras module: core, convolutional, ...), for colour and legend. */
export const FAMILIES: { name: string; groups: string[]; hue: number }[] = [
  { name: "Input", groups: ["input"], hue: 210 },
  { name: "Core / dense", groups: ["core", "activations"], hue: 265 },
  { name: "Convolution", groups: ["convolutional"], hue: 25 },
  { name: "Pooling", groups: ["pooling"], hue: 175 },
  { name: "Normalization", groups: ["normalization"], hue: 330 },
  { name: "Regularization", groups: ["regularization"], hue: 55 },
  { name: "Merging", groups: ["merging"], hue: 130 },
  { name: "Recurrent / attention", groups: ["recurrent", "attention"], hue: 0 },
  { name: "Reshaping", groups: ["reshaping"], hue: 95 },
  { name: "Preprocessing", groups: ["preprocessing"], hue: 300 },
  { name: "Model", groups: ["model", "nested"], hue: 230 },
];

export function family(layer: Pick<LayerState, "group" | "is_input" | "inner_layers">): { name: string; hue: number } | null {
  if (layer.is_input) return FAMILIES[0];
  if (layer.inner_layers !== null) return FAMILIES[FAMILIES.length - 1];
  const g = (layer.group || "").toLowerCase();
  return FAMILIES.find((f) => f.groups.some((x) => g === x || g.startsWith(x))) ?? null;
}

/** The activation a box shows ("relu"), none for linear or layers without one. */
export function activationText(config: Record<string, unknown>): string | null {
  // a name ("relu"), a serialized activation ({config: {name}}) or a registered function
  // ({config: "keras_hub>gelu_approximate"}, shown without its package), as picture.py reads it
  const a = config.activation;
  const inner = a && typeof a === "object" ? (a as { config?: unknown }).config : a;
  const raw = inner && typeof inner === "object" ? (inner as { name?: unknown }).name : inner;
  const name = typeof raw === "string" ? raw.slice(raw.lastIndexOf(">") + 1) : null;
  return name && name !== "linear" ? name : null;
}
