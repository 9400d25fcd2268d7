// Intents to the kernel: {kind, id, ...}, answered {id, ok, result} or {id, error}. Their kinds
// and fields come from one description, kerascanvas/intents.json, which the kernel reads too.
import type { AnyModel } from "@anywidget/types";
import description from "../../kerascanvas/intents.json";

/** The widget's model as anywidget gives it (the traits are read loosely: the kernel owns them). */
export type Model = Pick<AnyModel, "get" | "on" | "off" | "send">;

export type IntentKind = keyof typeof description.kinds;

/** The fields an intent of `kind` requires and may have, with their types' names. */
export function intentFields(kind: IntentKind): { required: Record<string, string>; optional: Record<string, string> } {
  return description.kinds[kind];
}

/** Whether a string names an intent the kernel takes. */
export function isIntentKind(kind: unknown): kind is IntentKind {
  return typeof kind === "string" && Object.prototype.hasOwnProperty.call(description.kinds, kind);
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

  send(kind: IntentKind, fields: Record<string, unknown> = {}): Promise<Reply> {
    const id = this.next++;
    // when the intent left the page (benchmarks/bench_canvas.py times an edit's parts with it)
    performance.clearMarks?.(`kerascanvas:intent:${kind}`);
    performance.mark?.(`kerascanvas:intent:${kind}`);
    return new Promise((resolve) => {
      this.waiting.set(id, resolve);
      this.model.send({ ...fields, kind, id });
    });
  }

  close(): void {
    this.model.off("msg:custom", this.onMessage);
  }
}
