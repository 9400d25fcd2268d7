// Intents to the kernel: {kind, id, ...}, answered {id, ok, result} or {id, error}.

export interface Model {
  get(name: string): any;
  on(event: string, cb: (...args: any[]) => void): void;
  off(event?: string | null, cb?: ((...args: any[]) => void) | null): void;
  send(content: any): void;
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

  send(kind: string, fields: Record<string, unknown> = {}): Promise<Reply> {
    const id = this.next++;
    return new Promise((resolve) => {
      this.waiting.set(id, resolve);
      this.model.send({ ...fields, kind, id });
    });
  }

  close(): void {
    this.model.off("msg:custom", this.onMessage);
  }
}
