"""The JSON-able snapshot of a Graph that the browser mirrors, built from parts that diffs.py
compares: per-layer entries (structure), per-box view rows (positions, sizes, pins, depth level),
edges keyed by their slot, and a few drawing-wide values.

A layer's entry is made again only when something it shows may have changed (its spec, Keras
object, call records, problems or expanded flag are not the same objects as last time), so a
big drawing costs little to describe after a small edit.
"""

from __future__ import annotations

import json
import math
from collections import Counter
from dataclasses import dataclass, field
from typing import Any

from ..geometry import boxes
from ..io.inner import inner_view
from ..kinds import calls as call_model
from ..kinds.kinds import NESTED_MODEL_CLASSES as MODELS
from ..words import canvas_words  # the state is what the canvas shows
from . import shape

STATE_VERSION = shape.VERSION  # the shape of the state; `revision` (diffs.py) counts its changes


@dataclass
class Parts:
    """A Graph's state taken apart. Keys of `cache` and `edge_cache` are what each entry was made
    from (identities and values), to tell when it must be made again."""

    layers: dict[str, dict] = field(default_factory=dict)  # name -> entry without view fields
    view: dict[str, tuple] = field(default_factory=dict)  # name -> view row (shape.VIEW_ROW)
    top: int | None = None  # the deepest depth: a box's depth is top - level
    edges: dict[tuple, dict] = field(default_factory=dict)  # dst (layer, call, slot) -> entry
    scalars: dict[str, Any] = field(default_factory=dict)  # name, problems, model, can_undo, ...
    structure: int = -1  # the Graph's structure revision these layers and edges describe
    checked: bool = True  # problems and model include Keras's answer (see `parts(quick=)`)
    expanded: frozenset = frozenset()
    folded: frozenset = frozenset()
    positions: dict = field(default_factory=dict)  # what the view rows were made from
    sizes: dict = field(default_factory=dict)
    pinned: frozenset = frozenset()
    ports: dict = field(default_factory=dict)  # name -> (spec, filled, size, port layout, direction)
    cache: dict[str, tuple] = field(default_factory=dict)
    edge_cache: dict[tuple, tuple] = field(default_factory=dict)


def graph_state(g) -> dict:
    return assemble(parts(g))


def parts(g, previous: Parts | None = None, quick: bool = False) -> Parts:
    """The state of `g` in parts, reusing what `previous` made where nothing it shows changed.
    `quick`: a structural edit's problems as kerascanvas finds them, without waiting for Keras to
    build the model (`checked` false); a later call without it adds Keras's answer."""
    p = Parts()
    if not quick:
        _ = g.model  # builds it if it can: Keras's refusal is a problem too
        _ = g.repeats
    if (previous is not None and previous.structure == g.structure_revision
            and (previous.checked or not _checked(g))):
        # a view edit: layers, edges, problems and model are the same as before
        p.layers, p.edges, p.cache, p.edge_cache = (previous.layers, previous.edges,
                                                     previous.cache, previous.edge_cache)
        p.scalars = dict(previous.scalars)
        p.top = previous.top
        p.checked = previous.checked
        flipped = (previous.expanded ^ g.expanded) | (previous.folded ^ g.folded)
        if flipped:  # an expanded box shows its inside, a folded run's head says "×N": only
            # those entries are made again
            p.layers, p.cache = dict(p.layers), dict(p.cache)
            for name in flipped & p.layers.keys():
                _remake(g, p, name, {name: p.layers[name]["problems"]}, None, None)
    else:
        _structure(g, p, previous, quick)
    p.structure, p.expanded, p.folded = g.structure_revision, g.expanded, g.folded
    p.scalars["can_undo"], p.scalars["can_redo"] = g.can_undo, g.can_redo
    p.scalars["history_dropped"] = g.history_dropped  # undo steps dropped past the history cap
    p.scalars["direction"] = g.direction  # a view choice: sent with any edit
    _view(g, p, previous)
    return p


def assemble(p: Parts) -> dict:
    """The full state the front end reads (js/src/mirror/types.ts GraphState)."""
    layers = [box_layer(entry, p.view[name], p.top) for name, entry in p.layers.items()]
    return shape.full_state(STATE_VERSION, layers, list(p.edges.values()), p.scalars)


def box_layer(entry: dict, row, top: int | None) -> dict:
    """A full state's layer: its entry and its view row's fields, the level as a depth."""
    layer = {**entry, **dict(zip(shape.VIEW_ROW, row, strict=True))}
    level = layer.pop("level")
    layer["depth"] = None if level is None else top - level
    return layer


def _checked(g) -> bool:
    """Whether what a quick state leaves out is known: Keras's answer and the repeated blocks."""
    return g.model_checked and g.repeats_found


def _structure(g, p: Parts, previous: Parts | None, quick: bool = False) -> None:
    p.checked = _checked(g)
    problems = g.problems if g.model_checked else list(g.problems_before_keras())
    by_layer: dict[str, list[str]] = {}
    for pr in problems:
        if pr.layer is not None:
            by_layer.setdefault(pr.layer, []).append(canvas_words(pr.message))
    old = previous.cache if previous is not None else {}
    old_layers = previous.layers if previous is not None else {}
    for name in g.specs:
        _remake(g, p, name, by_layer, old.get(name), old_layers, quick and not g.repeats_found)
    old_edges = previous.edge_cache if previous is not None else {}
    for e in g.drawn_edges:
        record = g.call_record(*e.src[:2])
        built = g.is_built(e.dst[0], e.dst[1])
        cached = old_edges.get(e.dst)
        if cached is not None and cached[0] is e and cached[1] is record and cached[2] == built:
            p.edges[e.dst] = previous.edges[e.dst]
        else:
            t = g.tensor(e.src)
            p.edges[e.dst] = shape.edge_entry({
                "src": list(e.src), "dst": list(e.dst),
                "shape": None if t is None else _shape(t.shape),
                "dtype": None if t is None else str(t.dtype), "built": built})
        p.edge_cache[e.dst] = (e, record, built)
    # until Keras has answered, a drawing without problems is taken to be a model
    has_model = g.model is not None if g.model_checked else not problems
    p.top = max(g.depth.layer_depth.values(), default=0)
    p.scalars = {
        "name": g.name,
        "notes": [*g.notes, *left_out_note(g)],
        "box": boxes.layout(),
        "problems": [{"message": canvas_words(pr.message), "layer": pr.layer, "call": pr.call,
                      "slot": pr.slot}
                     for pr in problems],
        # a model holds every drawn layer, each with its own weights (weights shared across
        # nested models are refused): its count is the boxes' sum, without walking Keras's
        # weight lists (a quarter of a second at 5,000 layers)
        "model": None if not has_model else {
            "inputs": g.inputs, "outputs": [list(t) for t in g.outputs], **_model_counts(g, p)},
    }


def _model_counts(g, p: Parts) -> dict:
    """The model's parameter counts and weight memory: the boxes' sum, or, where a box kept as
    its object holds another box's layer (tied weights), each variable once (g.param_counts)."""
    left = set(g.left_out) if g.inputs else set()  # (a box cut off from the Inputs keeps its
    entries = [e for name, e in p.layers.items() if name not in left]  # weights, not the model's)
    if any(entry["made_from"] == "object" for entry in entries):
        counts = g.param_counts()
        return {"params": counts["total"], "trainable_params": counts["trainable"],
                "non_trainable_params": counts["non_trainable"],
                "weight_bytes": g.weight_bytes()}
    return {"params": sum(entry["params"] or 0 for entry in entries),
            "trainable_params": sum(entry["trainable_params"] or 0 for entry in entries),
            "non_trainable_params": sum((entry["params"] or 0) - (entry["trainable_params"] or 0)
                                        for entry in entries),
            "weight_bytes": sum(entry["weight_bytes"] or 0 for entry in entries)}


def _remake(g, p: Parts, name: str, by_layer: dict, cached: tuple | None = None,
            old_layers: dict | None = None, runs_unknown: bool = False) -> None:
    """A layer's entry, reused from `old_layers` when made from the same objects and values.
    `runs_unknown`: a quick state keeps the run a layer was in (a new layer is in none) until
    the repeated blocks are found again."""
    spec = g.specs[name]
    layer = g.live_layer(name)
    records = tuple(g.call_record(name, k) for k in range(spec.calls))
    why = tuple(g.pending_reason(name, k) for k in range(spec.calls))
    objects = (spec, layer, *records)
    run = (cached[1][4] if cached is not None else None) if runs_unknown else g.run_head(name)
    values = (getattr(layer, "built", False), why, tuple(by_layer.get(name, ())),
              name in g.expanded, run, name in g.folded)
    if (cached is not None and len(cached[0]) == len(objects)
            and all(a is b for a, b in zip(cached[0], objects)) and cached[1] == values):
        p.layers[name] = old_layers[name]
    else:
        p.layers[name] = _layer_entry(g, name, spec, layer, records, why, by_layer, run)
    p.cache[name] = (objects, values)


def _view(g, p: Parts, previous: Parts | None) -> None:
    positions, sizes, pinned = g.positions, g.box_sizes, g.pinned
    depth = g.depth.layer_depth
    p.positions, p.sizes, p.pinned = positions, sizes, pinned

    def row(name):  # in the order of shape.VIEW_ROW
        x, y = positions.get(name, (0.0, 0.0))
        w, h = sizes[name]
        k = depth.get(name)  # sent as a level from the top: appending a layer keeps it
        return (x, y, w, h, name in pinned, None if k is None else p.top - k, p.ports[name][3])

    if previous is not None and previous.layers is p.layers and previous.sizes is sizes:
        # a move: only boxes whose coordinates are new objects (their row was placed again)
        old = previous.positions
        p.ports = previous.ports
        p.view = dict(previous.view)
        for name in [n for n, xy in positions.items() if old.get(n) is not xy] + list(
                pinned ^ previous.pinned):
            if name in p.layers:
                p.view[name] = row(name)
        return
    p.ports = _ports(g, sizes, previous.ports if previous is not None else {})
    p.view = {name: row(name) for name in p.layers}


def _ports(g, sizes: dict, old: dict) -> dict:
    """Each box's port layout (boxes.py), made again only where its spec, filled slots or size
    changed."""
    into = Counter(e.dst[:2] for e in g.drawn_edges)
    made, flow = {}, g.direction
    for name, spec in g.specs.items():
        filled = [into[(name, k)] for k in range(spec.calls)]
        was = old.get(name)
        if was is not None and was[0] is spec and was[1] == filled and was[2] == sizes[name] \
                and was[4] == flow:
            made[name] = was
        else:
            made[name] = (spec, filled, sizes[name],
                          boxes.port_layout(spec, filled, sizes[name], flow), flow)
    return made


def _layer_entry(g, name, spec, layer, records, why, by_layer, run) -> dict:
    calls = [{"index": k, "built": record is not None,
              "output_shapes": None if record is None else [_shape(t.shape) for t in record.outputs],
              "missing": why[k],
              # the call's settings (training=..., use_causal_mask=...: kerascanvas/kinds/calls.py)
              "settings": _jsonable(call_model.of(spec, k).settings_dict)}
             for k, record in enumerate(records)]
    inside = inner_view(layer) if layer is not None and spec.class_name in MODELS else None
    expanded = name in g.expanded and inside is not None
    return shape.layer_entry({
        "name": name, "class_name": spec.class_name, "group": _group(spec),
        "config": _jsonable(_shown_config(spec)), "is_input": spec.is_input,
        "slots": {"kind": spec.slots.kind, "names": list(spec.slots.names),
                  "min": spec.slots.min, "max": spec.slots.max},
        "n_outputs": spec.n_outputs, "calls": calls,
        # how the box's layer is made again: Keras's from_config, or a class of one's own
        # from the arguments its __init__ accepts (kerascanvas/kinds/custom.py)
        "made_from": _made_from(spec),
        "params": _params(layer),
        # "yes", "no" or "partly" (a nested model some of whose layers are frozen), and the
        # parameters that train: counted once per entry, made again when its spec changes
        "trainable": _trainable(spec, layer),
        "trainable_params": _trainable_params(layer),
        "weight_bytes": _weight_bytes(layer),
        # LoRA's rank on its layer (a nested model: the largest among its layers), and whether
        # its layer can take LoRA now (the box menu's "LoRA..."): graph/lora.py
        "lora_rank": _lora_rank(spec, layer),
        "lora_ready": _lora_ready(spec, layer),
        # its dtype policy's name ("float32", "int8_from_float32"), and the quantization modes
        # its layer takes now (the box menu's "Quantize ..."): graph/quantize.py
        "dtype_policy": _dtype_policy(spec, layer),
        "quantize_ready": _quantize_ready(spec, layer),
        "problems": by_layer.get(name, []),
        # a nested model: how many layers it holds, and its inside while expanded
        "inner_layers": None if inside is None else
        sum(1 for item in inside["layers"] if item["class_name"] != "InputLayer"),
        "expanded": expanded,
        # sent collapsed too: Find reaches the layers inside (js/src/interaction/find.ts)
        "inner": inside,
        # the run of repeated blocks it belongs to (named by its first layer), and on that first
        # layer while the run is folded: what its one box shows (kerascanvas/geometry/folds.py)
        "run": run,
        "fold": _fold(g, name),
    })


def _fold(g, name: str) -> dict | None:
    if name not in g.folded:
        return None
    from ..geometry import folds

    run = next((r for r in g.repeats if r.blocks[0][0] == name), None)
    # stack: how far the cards behind its box show (its size includes them)
    return None if run is None else {**folds.info(run), "stack": folds.STACK}


def _params(layer) -> int | None:
    """Parameters of a built layer; a keras.ops operation has none; None while unbuilt."""
    if layer is None:
        return None
    if not hasattr(layer, "count_params"):
        return 0
    return layer.count_params() if layer.built else None


def _trainable(spec, layer) -> str:
    if layer is None or not hasattr(layer, "trainable"):  # pending: its config says
        return "yes" if spec.config.get("trainable", True) is not False else "no"
    from ..network.flags import trainable_state

    return trainable_state(layer)


def _lora_rank(spec, layer) -> int | None:
    if layer is None or not hasattr(layer, "trainable"):  # pending: its config says
        rank = spec.config.get("lora_rank")
        return rank if type(rank) is int else None
    from ..network.flags import lora_rank

    return lora_rank(layer)


def _lora_ready(spec, layer) -> bool:
    """Whether the box's layer takes LoRA now, or holds layers a KerasHub backbone gives LoRA
    (a TransformerDecoder's query and value): its menu's "LoRA..." (graph/lora.py)."""
    if spec.is_input or layer is None or not hasattr(layer, "trainable"):
        return False
    from ..network.inside import takes_lora, targets

    return takes_lora(layer) or bool(targets(layer))


def _dtype_policy(spec, layer) -> str | None:
    policy = getattr(layer, "dtype_policy", None)
    if policy is not None:
        return policy.name
    dtype = spec.config.get("dtype")  # pending: its config says (a name or a serialized policy)
    if isinstance(dtype, dict):
        dtype = (dtype.get("config") or {}).get("name")
    return dtype if isinstance(dtype, str) else None


def _quantize_ready(spec, layer) -> list[str]:
    if spec.is_input or spec.class_name in MODELS or layer is None:
        return []
    from ..network.flags import quantize_modes

    return quantize_modes(layer)


def _trainable_params(layer) -> int | None:
    """Parameters that train of a built layer (as `_params`); each variable once."""
    if layer is None:
        return None
    if not hasattr(layer, "count_params"):
        return 0
    if not layer.built:
        return None
    seen: set[int] = set()
    total = 0
    from ..network.flags import training_weights

    for v in training_weights(layer):
        if id(v) not in seen:
            seen.add(id(v))
            total += math.prod(v.shape)
    return total


def _weight_bytes(layer) -> float | None:
    """The memory of a built layer's weights, as Keras's model.summary counts it (by each
    variable's dtype: a quantized kernel takes a quarter of a float32 one, int4 an eighth)."""
    if layer is None or not hasattr(layer, "count_params") or not layer.built:
        return None
    from keras.src.utils.summary_utils import weight_memory_size  # (Keras's summary's own)

    return weight_memory_size(layer.weights)


def _shown_config(spec) -> dict:
    """A nested model's config without its inner layers (the inspector edits only the top
    level; the inside travels as `inner`, laid out, while expanded)."""
    if spec.class_name in MODELS:
        return {k: v for k, v in spec.config.items() if k not in ("layers", "input_layers", "output_layers")}
    return spec.config


def _made_from(spec) -> str:
    if spec.is_input:
        return "config"
    from ..kinds import kinds

    return getattr(kinds.get(spec.class_name), "made_from", "config")


def _group(spec) -> str:
    if spec.is_input:
        return "input"
    from ..kinds import kinds

    return kinds.get(spec.class_name).group


def _shape(shape) -> list:
    return [None if s is None else int(s) for s in shape]


def _jsonable(value: Any) -> Any:
    from .. import limits

    text = json.dumps(value, default=repr)
    if len(text) <= limits.CONFIG_SHOWN_BYTES or not isinstance(value, dict):
        return json.loads(text)
    shown, left = {}, limits.CONFIG_SHOWN_BYTES  # the Graph keeps the config whole; the
    for k, v in value.items():  # browser gets values up to the cap, and a note for the rest
        item = json.dumps(v, default=repr)
        left -= len(item)
        shown[k] = json.loads(item) if left >= 0 else f"<{len(item):,} bytes, not shown>"
    return shown


def left_out_note(g) -> list[str]:
    """What the footer says of boxes wired to no Input: left out of the model, not a problem."""
    names = g.left_out if g.inputs else []
    if not names:
        return []
    shown = ", ".join(names[:5]) + (f" and {len(names) - 5} more" if len(names) > 5 else "")
    return [f"Not wired to an Input, left out of the model: {shown}."]

