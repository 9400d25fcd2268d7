// Intents to the kernel: {kind, id, ...}, answered {id, ok, result} or {id, error}. Their kinds
// and fields come from one description, kerascanvas/canvas/intents.json, which the kernel reads too.
import type { AnyModel } from "@anywidget/types";
import description from "../../../kerascanvas/canvas/intents.json";

/** The widget's model as anywidget gives it (the traits are read loosely: the kernel owns them). */
export type Model = Pick<AnyModel, "get" | "on" | "off" | "send">;

type Kinds = typeof description.kinds;
export type IntentKind = keyof Kinds;

/** The fields of an intent of `kind` as the description names them: each required one there,
 * each optional one allowed, no other (checked when the code compiles). Their values' types,
 * which a JSON import cannot carry into TypeScript's types, `intentProblem` checks. */
export type IntentFields<K extends IntentKind> = K extends IntentKind // (one kind at a time)
  ? [keyof Kinds[K]["required"] | keyof Kinds[K]["optional"]] extends [never]
    ? Record<string, never> // a kind without fields takes none
    : { [F in keyof Kinds[K]["required"]]: unknown } & { [F in keyof Kinds[K]["optional"]]?: unknown }
  : never;

/** `send`'s fields argument: optional where the kind requires no field. */
export type FieldsArg<K extends IntentKind> = {} extends IntentFields<K> ? [fields?: IntentFields<K>] : [fields: IntentFields<K>];

/** The same followed by one more optional argument (a caller's own, such as where to show a refusal). */
export type IntentArgs<K extends IntentKind, More> =
  {} extends IntentFields<K> ? [fields?: IntentFields<K>, more?: More] : [fields: IntentFields<K>, more?: More];

/** The fields an intent of `kind` requires and may have, with their types' names. */
export function intentFields(kind: IntentKind): { required: Record<string, string>; optional: Record<string, string> } {
  return description.kinds[kind];
}

/** Whether a string names an intent the kernel takes. */
export function isIntentKind(kind: unknown): kind is IntentKind {
  return typeof kind === "string" && Object.prototype.hasOwnProperty.call(description.kinds, kind);
}

interface TypeSpec { is: string; of?: string | Record<string, string>; means: string }
const TYPES = description.types as Record<string, TypeSpec>;

/** What a value of each JSON form is (the kernel's intents.FORMS). */
const FORMS: Record<string, (v: unknown) => boolean> = {
  text: (v) => typeof v === "string",
  int: (v) => Number.isInteger(v) && Math.abs(v as number) < 1e21, // (JSON writes larger ones 1e+21: a float)
  number: (v) => typeof v === "number",
  bool: (v) => typeof v === "boolean",
  object: (v) => typeof v === "object" && v !== null && !Array.isArray(v),
  list: Array.isArray,
  tuple: Array.isArray,
};

function shown(value: unknown): string {
  const text = value === undefined ? "undefined" : JSON.stringify(value);
  return text.length > 80 ? text.slice(0, 80) : text;
}

/** Why `value` (found at `where`, e.g. "'dst'") is not of the described type `typeName`, or null. */
export function mistyped(value: unknown, typeName: string, where: string): string | null {
  const nullable = typeName.endsWith("?");
  if (nullable) {
    if (value === null) return null;
    typeName = typeName.slice(0, -1);
  }
  const spec = TYPES[typeName];
  if (!spec) return `${where} has the undescribed type ${typeName}.`;
  const items = spec.is === "tuple" ? Object.entries(spec.of as Record<string, string>) : [];
  const fits = FORMS[spec.is]?.(value) && (spec.is !== "tuple" || (value as unknown[]).length === items.length);
  if (!fits) return `${where} must be ${spec.means}${nullable ? " or null" : ""}, got ${shown(value)}.`;
  const list = value as unknown[];
  if (spec.is === "tuple") {
    for (let i = 0; i < items.length; i++) {
      const problem = mistyped(list[i], items[i][1], `'${items[i][0]}' of ${where}`);
      if (problem) return problem;
    }
  } else if (spec.is === "list") {
    for (let i = 0; i < list.length; i++) {
      const problem = mistyped(list[i], spec.of as string, `item ${i} of ${where}`);
      if (problem) return problem;
    }
  }
  return null;
}

/** What the kernel will refuse in this intent, read from the same description as the kernel's
 * check (kerascanvas/canvas/intents.py): an unknown kind, a missing required field, a field not
 * described or of another type; null when there is nothing. Checks the intent as JSON carries it
 * (NaN becomes null, undefined fields vanish), as the kernel receives it. */
export function intentProblem(intent: { kind: unknown } & Record<string, unknown>): string | null {
  const { kind } = intent;
  if (!isIntentKind(kind)) return `Unknown intent kind ${shown(kind)}.`;
  const sent = JSON.parse(JSON.stringify(intent)) as Record<string, unknown>;
  const { required, optional } = intentFields(kind);
  const missing = Object.keys(required).filter((f) => !(f in sent));
  if (missing.length) return `A '${kind}' intent needs ${missing.map((f) => `'${f}'`).join(", ")}.`;
  for (const field of Object.keys(sent)) {
    if (field === "kind" || field === "id") continue;
    const typeName = required[field] ?? optional[field];
    if (typeName === undefined) return `${kind}: '${field}' is not a field of this intent.`;
    const problem = mistyped(sent[field], typeName, `'${field}'`);
    if (problem) return `${kind}: ${problem}`;
  }
  return null;
}

export interface Reply { ok: boolean; result?: unknown; error?: string }

export class Client {
  private next = 1;
  private waiting = new Map<number, (r: Reply) => void>();
  private readonly onMessage = (msg: any) => {
    if (!msg || typeof msg !== "object" || typeof msg.id !== "number") return;
    const resolve = this.waiting.get(msg.id);
    if (!resolve) return;
    this.waiting.delete(msg.id);
    resolve(msg.error !== undefined ? { ok: false, error: String(msg.error) } : { ok: true, result: msg.result });
  };

  constructor(private model: Model) {
    model.on("msg:custom", this.onMessage);
  }

  /** Send an intent; its reply comes back. One the description refuses is sent all the same
   * (the kernel answers why) and said on the console: it is a bug of the front end. */
  send<K extends IntentKind>(kind: K, ...[fields]: FieldsArg<K>): Promise<Reply> {
    const id = this.next++;
    const intent = { ...(fields as Record<string, unknown> | undefined), kind, id };
    const problem = intentProblem(intent);
    if (problem) console.error(`kerascanvas: an intent the description (intents.json) refuses: ${problem}`);
    // when the intent left the page (benchmarks/bench_canvas.py times an edit's parts with it)
    performance.clearMarks?.(`kerascanvas:intent:${kind}`);
    performance.mark?.(`kerascanvas:intent:${kind}`);
    return new Promise((resolve) => {
      this.waiting.set(id, resolve);
      this.model.send(intent);
    });
  }

  close(): void {
    this.model.off("msg:custom", this.onMessage);
  }
}
