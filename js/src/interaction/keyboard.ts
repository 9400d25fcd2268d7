// The canvas's keyboard at work: a key pressed on the canvas becomes a command (keys.ts, pure),
// run here through the edits (edits.ts), the menus (contextmenus.ts) and the store's actions.
// Keys the canvas uses stop here: JupyterLab's shortcuts (its keybindings listen on the
// document; Enter edits a cell, A, B, Z, C, V and D act on cells) must not act on them too. Esc
// ends the canvas's own modes first, one a press; only when none is left does it go to the host.
import { type Point, type Port, type View, toScreen } from "../mirror/geometry";
import { type CanvasMenus, innerAnchor, innerRefusal } from "./contextmenus";
import type { Edits } from "./edits";
import { type KeyCommand, type KeyPress, hostKey, keyCommand } from "./keys";
import type { UiStore } from "./ui";
import type { GraphState, LayerState } from "../mirror/types";

export interface KeyboardHost {
  readonly ui: UiStore;
  readonly edits: Edits;
  readonly menus: CanvasMenus;
  state(): GraphState;
  placed(): LayerState[];               // where the boxes are seen
  routes(): (Point[] | null)[];
  ports(): Port[];
  view(): View;
  pointer(): { inside: boolean; last: Point };  // over the drawing; its last point on the stage
  cancelGesture(): boolean;             // a pointer gesture under way is cancelled (false: none)
  closeMenu(): void;
  hideError(): boolean;                 // the refusal shown goes (false: none was)
  glideTo(view: View): void;
  quickAdd(at: Point): void;
  find(): void;
  rename(): void;
  copied(count: number): void;
  focusBox(name: string): void;
  focusPort(key: string): void;
  showError?(message: string, at?: Point): void;  // a refusal, next to `at` (world)
}

const FIELDS = ["INPUT", "SELECT", "BUTTON", "TEXTAREA"];

export class Keyboard {
  constructor(private host: KeyboardHost, root: HTMLElement, signal: AbortSignal) {
    root.addEventListener("keydown", (ev) => this.onKey(ev), { signal });
  }

  private onKey(ev: KeyboardEvent): void {
    const target = ev.target as HTMLElement;
    const field = FIELDS.includes(target.tagName);
    // JupyterLab leaves keys alone in a text field (:read-write), not in a slider, a select, a
    // check box or a button: "b" there inserted a cell, an arrow moved to the next one
    const typing = target.matches?.(":read-write") ?? false;
    const k: KeyPress = { key: ev.key, ctrl: ev.ctrlKey || ev.metaKey, shift: ev.shiftKey, alt: ev.altKey };
    if (this.handle(k, target, field)) { ev.stopPropagation(); ev.preventDefault(); }
    else if (hostKey(k, typing)) ev.stopPropagation();
  }

  /** Whether the canvas used the key. */
  private handle(k: KeyPress, target: HTMLElement, field: boolean): boolean {
    if (k.key === "Escape" && !field) return this.escape();
    const attr = (name: string) => target.getAttribute?.(name) ?? null;
    const edge = attr("data-edge");
    const { ui, edits } = this.host;
    const command = keyCommand(k, {
      port: attr("data-port"), toggle: attr("data-toggle"), edge: edge === null ? null : Number(edge), box: attr("data-name"),
      field,
    }, { selected: [...ui.state.selected], edge: edits.selectedEdge(), clipboard: ui.state.clipboard.length,
      pointerInside: this.host.pointer().inside });
    return command ? this.run(command) : false;
  }

  /** Runs one command; false when it had nothing to act on (the key then goes on). */
  run(command: KeyCommand): boolean {
    const { host } = this;
    const { ui, edits } = host;
    switch (command.kind) {
      case "port": {
        const port = host.ports().find((p) => p.key === command.port);
        const armed = ui.state.armed;
        if (port?.kind === "out") { ui.arm(port); host.focusPort(port.key); }
        else if (port && armed) { ui.arm(null); host.focusPort(port.key); edits.connect(armed, port); }
        break;
      }
      case "toggle": edits.toggle(command.name); break;
      case "inspect-edge": edits.inspectEdge(command.index); break;
      case "edge-menu": {
        const e = host.state().edges[command.index];
        const pts = host.routes()[command.index];
        if (e && pts) host.menus.openEdge(e, toScreen(host.view(), pts[Math.floor(pts.length / 2)]));
        break;
      }
      case "box-menu": {
        const layer = host.placed().find((l) => l.name === command.name);
        if (layer) host.menus.openBox(layer, toScreen(host.view(), { x: layer.x + 20, y: layer.y + 20 }));
        break;
      }
      case "select-box":
        if (command.add) ui.addSelectedBoxes([command.name]); else ui.selectBoxes([command.name]);
        host.focusBox(command.name);
        break;
      case "find": host.find(); break;
      case "edit": {
        const intent = command.intent;
        // a layer inside a nested model is read-only: Delete says so and changes nothing
        const inner = intent.kind === "remove" ? intent.names.find((n) => n.includes("/")) : undefined;
        if (inner !== undefined) { host.showError?.(innerRefusal(inner), innerAnchor(host.placed(), inner)); break; }
        if (intent.kind === "disconnect") { const e = edits.selectedEdge(); if (e) edits.removeEdge(e); } // it also clears the selection
        else if (intent.kind === "remove") edits.remove(intent.names, intent.bridge ?? false);
        else edits.perform(intent);
        break;
      }
      case "copy": ui.copy(ui.state.selected); host.copied(ui.state.clipboard.length); break;
      case "paste": edits.paste(); break;
      case "select-all": ui.selectBoxes(host.state().layers.map((l) => l.name)); break;
      case "quick-add": host.quickAdd(host.pointer().last); break;
      case "rename": host.rename(); break;
      case "nudge": if ([...ui.state.selected].some((n) => n.includes("/"))) break; edits.nudge(command.dx, command.dy); break;
      case "pan": { const v = host.view(); host.glideTo({ ...v, x: v.x + command.dx, y: v.y + command.dy }); break; }
      case "escape": return this.escape();
    }
    return true;
  }

  /** Esc: a gesture under way is cancelled (a wire being drawn goes, a dragged box goes back),
   * else a menu closes, else the armed port and the selection go, else a refusal shown; false
   * when none of these was there (the host's Esc then). */
  escape(): boolean {
    const { host } = this;
    if (host.cancelGesture()) return true;
    if (host.ui.state.gesture.kind === "menu") { host.closeMenu(); return true; }
    if (host.ui.escape()) { host.hideError(); return true; }
    return host.hideError();
  }
}
