// The inspector's "call k settings" sections (issue 23): each call's non-tensor keyword arguments
// (training=, use_causal_mask=, ...) with an editor fitting each value, a button that clears
// one, and a field that adds one as name=value. A change sends configure_call; the kernel checks
// it (kerascanvas/canvas/intent_checks.py) and, when it refuses, the inspector is made again from its state.
import { el } from "../base/dom";
import type { Call } from "../mirror/types";

export type SettingKind = "bool" | "number" | "text" | "other";

export interface SettingRow { call: number; name: string; kind: SettingKind; value: unknown }

/** Each call's settings as rows, calls in order and names sorted within one. */
export function settingRows(calls: Call[]): SettingRow[] {
  return calls.flatMap((c) => Object.keys(c.settings ?? {}).sort().map((name) => {
    const value = c.settings[name];
    return { call: c.index, name, value, kind: kindOf(value) };
  }));
}

function kindOf(value: unknown): SettingKind {
  if (typeof value === "boolean") return "bool";
  if (typeof value === "number") return "number";
  if (typeof value === "string") return "text";
  return "other"; // lists (set from Python): shown, not edited here
}

/** The value typed into a setting's field: a number field takes only a finite number. */
export function parseSetting(kind: SettingKind, name: string, text: string): unknown {
  if (kind !== "number") return text;
  const value = Number(text.trim());
  if (text.trim() === "" || !Number.isFinite(value)) throw new Error(`${name}= must be a number, got ${JSON.stringify(text.slice(0, 40))}.`);
  return value;
}

/** "name=value" typed into a call's add field: true/false (or True/False) a bool, None/null
 * null, a number a number, anything else text (quotes around it taken off). */
export function parseNewSetting(text: string): [string, unknown] {
  const at = text.indexOf("=");
  const name = text.slice(0, at).trim();
  if (at < 0 || !/^[A-Za-z_][A-Za-z0-9_]*$/.test(name)) {
    throw new Error(`Type a setting as name=value (e.g. use_causal_mask=True), got ${JSON.stringify(text.slice(0, 40))}.`);
  }
  const raw = text.slice(at + 1).trim();
  if (/^(true|false)$/i.test(raw)) return [name, raw.toLowerCase() === "true"];
  if (raw === "None" || raw === "null") return [name, null];
  if (raw !== "" && Number.isFinite(Number(raw))) return [name, Number(raw)];
  const quoted = /^(["'])(.*)\1$/.exec(raw);
  return [name, quoted ? quoted[2] : raw];
}

/** What the sections show, as a key: the inspector makes its form again when it changes. */
export function settingsKey(calls: Call[]): string {
  return JSON.stringify(calls.map((c) => c.settings ?? {}));
}

/** The sections, appended to `host`; `onSet` sends configure_call, `onError` shows a local mistake. */
export function renderCallSettings(host: HTMLElement, calls: Call[],
  onSet: (call: number, settings: Record<string, unknown>) => void, onError: (message: string) => void): void {
  const rows = settingRows(calls);
  for (const c of calls) {
    const box = el("div", { class: "kc-call-settings", "aria-label": `call ${c.index} settings` });
    box.append(el("div", { class: "kc-title" }, `call ${c.index} settings`));
    for (const r of rows.filter((row) => row.call === c.index)) box.append(settingRow(r, onSet, onError));
    const add = el("input", { class: "kc-field", placeholder: "name=value", "aria-label": `add a setting to call ${c.index}` });
    add.addEventListener("change", () => {
      if (!add.value.trim()) return;
      try {
        const [name, value] = parseNewSetting(add.value);
        onSet(c.index, { [name]: value });
      } catch (e) { onError((e as Error).message); }
    });
    box.append(labelled("add", add));
    host.append(box);
  }
}

function settingRow(r: SettingRow, onSet: (call: number, settings: Record<string, unknown>) => void,
  onError: (message: string) => void): HTMLElement {
  const label = `call ${r.call} ${r.name}`;
  let input: HTMLInputElement;
  if (r.kind === "bool") {
    input = el("input", { type: "checkbox", "aria-label": label });
    input.checked = r.value === true;
    input.addEventListener("change", () => onSet(r.call, { [r.name]: input.checked }));
  } else if (r.kind === "other") {
    input = el("input", { class: "kc-field", "aria-label": label, disabled: "" });
    input.value = JSON.stringify(r.value);
  } else {
    input = el("input", { class: "kc-field", "aria-label": label, ...(r.kind === "number" ? { inputmode: "decimal" } : {}) });
    input.value = String(r.value);
    input.addEventListener("change", () => {
      try { onSet(r.call, { [r.name]: parseSetting(r.kind, r.name, input.value) }); }
      catch (e) { onError((e as Error).message); }
    });
  }
  const remove = el("button", { type: "button", class: "kc-clear", "aria-label": `clear ${label}`, title: `clear ${r.name}` }, "×");
  remove.addEventListener("click", (ev) => { ev.preventDefault(); onSet(r.call, { [r.name]: null }); });
  const row = labelled(r.name, input);
  row.append(remove);
  return row;
}

function labelled(name: string, input: HTMLElement): HTMLElement {
  const row = el("div", { class: "kc-row kc-setting" });
  row.append(el("span", {}, name), input);
  return row;
}
