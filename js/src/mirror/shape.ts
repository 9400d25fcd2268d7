// The mirrored state's shape, read from its one description (kerascanvas/mirror/state.json), which the
// kernel builds its state and diffs from (kerascanvas/mirror/shape.py) and the types come from
// (statetypes.ts): the view row's order, the empty state, and the checks the shared fixtures
// (test/fixtures/states.json) go through on both sides.
import description from "../../../kerascanvas/mirror/state.json";
import type { BoxView, Drawing, GraphState, LayerState, ViewRow } from "./types";

interface TypeSpec { is: string; of?: string | Record<string, string>; fields?: Record<string, string>; one_of?: string[] }
const TYPES = description.types as Record<string, TypeSpec>;
const D = description as unknown as {
  layer: { fields: Record<string, string> }; edge: { fields: Record<string, string> };
  view: { row: Record<string, string>; depth: string }; drawing: { fields: Record<string, string>; empty: Record<string, unknown> };
  full: { fields: Record<string, string> }; diff: { fields: Record<string, string> };
};

/** The drawing-wide values, each sent whole when it changed. */
export const DRAWING_FIELDS = Object.keys(D.drawing.fields) as (keyof Drawing)[];

/** A diff's view row's fields, in order (kerascanvas/mirror/shape.py VIEW_ROW). */
export const VIEW_ROW = Object.keys(D.view.row) as (keyof BoxView | "level")[];

/** A full state's layer from its entry and view row: the row's level becomes a depth. */
export function boxLayer(entry: object, row: ViewRow, top: number): LayerState {
  const layer: Record<string, unknown> = { ...entry };
  VIEW_ROW.forEach((f, i) => { if (f === "level") { const level = row[i] as number | null; layer.depth = level === null ? null : top - level; } else layer[f] = row[i]; });
  return layer as unknown as LayerState;
}

/** A layer's view row, its depth as a level under `top`. */
export function viewRow(layer: LayerState, top: number): ViewRow {
  return VIEW_ROW.map((f) => (f === "level" ? (layer.depth === null ? null : top - layer.depth) : layer[f])) as ViewRow;
}

/** The state of a drawing with no layers, at revision 0 (before the kernel's first word). */
export function emptyState(): GraphState {
  return { ...(structuredClone(D.drawing.empty) as object), version: description.version, revision: 0, layers: [], edges: [] } as unknown as GraphState;
}

// ----- checks against the description (kerascanvas/mirror/shape.py makes the same ones) -----------------

const FORMS: Record<string, (v: unknown, spec: TypeSpec) => boolean> = {
  text: (v) => typeof v === "string",
  int: (v) => Number.isInteger(v),
  number: (v) => typeof v === "number",
  bool: (v) => typeof v === "boolean",
  object: (v) => typeof v === "object" && v !== null && !Array.isArray(v),
  record: (v) => typeof v === "object" && v !== null && !Array.isArray(v),
  map: (v) => typeof v === "object" && v !== null && !Array.isArray(v),
  list: (v) => Array.isArray(v),
  tuple: (v, spec) => Array.isArray(v) && v.length === Object.keys(spec.of as object).length,
};

class Departure extends Error {}

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

function fields(value: unknown, described: Record<string, string>, where: string,
  special: Record<string, (v: unknown, where: string) => void> = {}): void {
  if (!isObject(value)) throw new Departure(`${where} must be an object`);
  const names = new Map(Object.entries(described).map(([f, t]) => [f.replace(/\?$/, ""), t]));
  for (const f of Object.keys(described)) {
    if (!f.endsWith("?") && !(f in value)) throw new Departure(`${where} lacks '${f}'`);
  }
  for (const [f, v] of Object.entries(value)) {
    if (!names.has(f)) throw new Departure(`${where} has '${f}', which state.json does not describe`);
    if (special[f]) special[f](v, `${where}.${f}`);
    else checkValue(v, names.get(f)!, `${where}.${f}`);
  }
}

function checkValue(value: unknown, typeName: string, where: string): void {
  if (typeName.endsWith("?")) {
    if (value === null) return;
    typeName = typeName.slice(0, -1);
  }
  const spec = TYPES[typeName];
  if (!FORMS[spec.is](value, spec) || (spec.one_of && !spec.one_of.includes(value as string))) {
    throw new Departure(`${where} must be a ${typeName} (${spec.is}), got ${JSON.stringify(value)?.slice(0, 80)}`);
  }
  if (spec.is === "list") (value as unknown[]).forEach((item, i) => checkValue(item, spec.of as string, `${where}[${i}]`));
  else if (spec.is === "tuple") Object.entries(spec.of as Record<string, string>).forEach(([n, t], i) => checkValue((value as unknown[])[i], t, `${where}.${n}`));
  else if (spec.is === "map") for (const [k, item] of Object.entries(value as object)) checkValue(item, spec.of as string, `${where}['${k}']`);
  else if (spec.is === "record") fields(value, spec.fields!, where);
}

function list(check: (item: unknown, where: string) => void) {
  return (v: unknown, where: string) => {
    if (!Array.isArray(v)) throw new Departure(`${where} must be a list`);
    v.forEach((item, i) => check(item, `${where}[${i}]`));
  };
}

const LAYER = { ...D.layer.fields, ...Object.fromEntries(Object.entries(D.view.row).filter(([f]) => f !== "level")), depth: D.view.depth };

function keyed(part: { fields: Record<string, string> }, key: string, keyType: string) {
  const patch = Object.fromEntries(Object.entries(part.fields).map(([f, t]) => [f === key ? f : `${f}?`, t]));
  const none = () => {};
  return (change: unknown, where: string) => {
    fields(change, { "removed?": "", "set?": "", "patch?": "", "insert?": "", "order?": "" }, where,
      { removed: none, set: none, patch: none, insert: none, order: none });
    const c = change as Record<string, unknown[] | undefined>;
    for (const k of ["removed", "order"]) list((v, w) => checkValue(v, keyType, w))(c[k] ?? [], `${where}.${k}`);
    list((v, w) => {
      if (!Array.isArray(v) || v.length !== 2) throw new Departure(`${w} must be [index, key]`);
      checkValue(v[0], "count", `${w}.index`);
      checkValue(v[1], keyType, `${w}.key`);
    })(c.insert ?? [], `${where}.insert`);
    list((v, w) => fields(v, part.fields, w))(c.set ?? [], `${where}.set`);
    list((v, w) => fields(v, patch, w))(c.patch ?? [], `${where}.patch`);
  };
}

function rows(value: unknown, where: string): void {
  if (!isObject(value)) throw new Departure(`${where} must be an object`);
  const row = Object.entries(D.view.row);
  for (const [name, values] of Object.entries(value)) {
    if (!Array.isArray(values) || values.length !== row.length) {
      throw new Departure(`${where}['${name}'] must be a list of ${row.length}: ${row.map(([f]) => f).join(", ")}`);
    }
    row.forEach(([f, t], i) => checkValue(values[i], t, `${where}['${name}'].${f}`));
  }
}

function problem(check: () => void): string | null {
  try { check(); return null; } catch (e) { if (e instanceof Departure) return e.message; throw e; }
}

/** Where a full state departs from the description (the first place found), or null. */
export function stateProblem(state: unknown): string | null {
  return problem(() => fields(state, { ...D.full.fields, ...D.drawing.fields }, "state", {
    layers: list((v, w) => fields(v, LAYER, w)), edges: list((v, w) => fields(v, D.edge.fields, w)) }));
}

/** Where a diff departs from the description (the first place found), or null. */
export function diffProblem(diff: unknown): string | null {
  const drawing = Object.fromEntries(Object.entries(D.drawing.fields).map(([f, t]) => [`${f}?`, t]));
  return problem(() => fields(diff, { ...D.diff.fields, ...drawing, "layers?": "", "edges?": "", "view?": "" }, "diff", {
    layers: keyed(D.layer, "name", "name"), edges: keyed(D.edge, "dst", "target"), view: rows }));
}
