// The state the kernel sends (kerascanvas/state.py) and the catalog palette (catalog.palette()).

export type Triple = [string, number, number];
export type Target = [string, number, number];

export interface Slots { kind: "single" | "list" | "args" | "none"; names: string[]; min: number; max: number | null }

export interface CallState {
  index: number;
  built: boolean;
  output_shapes: (number | null)[][] | null;
  missing: string | null;
}

export interface LayerState {
  name: string;
  class_name: string;
  group: string;
  config: Record<string, unknown>;
  is_input: boolean;
  x: number;
  y: number;
  w?: number;                    // the box's size as the kernel lays it out (kerascanvas/boxes.py)
  h?: number;
  pinned: boolean;
  slots: Slots;
  n_outputs: number;
  calls: CallState[];
  params: number | null;
  depth: number | null;
  problems: string[];
  inner_layers: number | null;   // a nested model: how many layers it holds
  expanded: boolean;             // a nested model shown with its inside
  inner: InnerView | null;       // that inside, while expanded
  run?: string | null;           // the run of repeated blocks it is part of (its first layer)
  fold?: FoldInfo | null;        // on a run's first layer while the run is folded into one box
}

/** What a folded run's box shows (kerascanvas/folds.py `info`). */
export interface FoldInfo { copies: number; layers: number; last: string; classes: string; members: number }

/** The inside of an expanded nested model (kerascanvas/inner.py): read-only boxes and edges,
 * coordinates relative to the outer box. */
export interface InnerBox { name: string; class_name: string; x: number; y: number; w: number; h: number; nested: boolean; output: boolean; shape: (number | null)[] | null }
export interface InnerView { layers: InnerBox[]; edges: [string, string][]; width: number; height: number }

export interface EdgeState { src: Triple; dst: Target; shape: (number | null)[] | null; dtype: string | null; built: boolean;
  real?: { src: Triple; dst: Target } } // a wire drawn to or from a folded run's box (folds.ts): the edge it stands for
export interface Problem { message: string; layer: string | null; call: number | null; slot: number | null }

export interface GraphState {
  version: number;
  revision?: number;             // counts the kernel's changes; diffs apply to the revision they follow
  name: string;
  layers: LayerState[];
  edges: EdgeState[];
  problems: Problem[];
  model: { inputs: string[]; outputs: Triple[]; params: number } | null;
  can_undo: boolean;
  can_redo: boolean;
  history_dropped?: number;      // undo steps dropped past the kernel's history cap
}

export interface SchemaField { name: string; type: string; default: unknown; required: boolean; choices?: unknown[] }
export interface PaletteEntry { class_name: string; group: string; slots: Slots; schema: SchemaField[]; suggested: Record<string, unknown> }

/** A change of the state (kerascanvas/diffs.py): only what changed since revision `base`. */
export interface Keyed<E, K> { removed?: K[]; set?: E[]; patch?: Partial<E>[]; insert?: [number, K][]; order?: K[] }
export type LayerEntry = Omit<LayerState, "x" | "y" | "w" | "h" | "pinned" | "depth">;
export type ViewRow = [number, number, number, number, boolean, number | null]; // x, y, w, h, pinned, level
export interface StateDiff {
  base: number;
  revision: number;
  layers?: Keyed<LayerEntry, string>;
  view?: Record<string, ViewRow>;
  top?: number | null;
  edges?: Keyed<EdgeState, Target>;
  name?: string;
  problems?: Problem[];
  model?: GraphState["model"];
  can_undo?: boolean;
  can_redo?: boolean;
  history_dropped?: number;
}
