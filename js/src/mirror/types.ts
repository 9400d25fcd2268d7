// The state the kernel mirrors (its types generated from kerascanvas/mirror/state.json into
// statetypes.ts) and the palette (kinds.palette()).
export * from "./statetypes";
import type { Slots } from "./statetypes";

export interface SchemaField { name: string; type: string; default: unknown; required: boolean; choices?: unknown[] }
export interface PaletteEntry { class_name: string; group: string; slots: Slots; schema: SchemaField[]; suggested: Record<string, unknown> }
