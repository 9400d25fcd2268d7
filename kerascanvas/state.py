"""The JSON-able snapshot of a Graph that the widget syncs to the browser (one trait)."""

from __future__ import annotations

import json
from typing import Any

from .inner import inner_view
from .kinds import NESTED_MODEL_CLASSES as MODELS

STATE_VERSION = 1


def graph_state(g) -> dict:
    d, net = g._drawing, g._net
    depth = g.depth.layer_depth
    positions = g.positions
    problems = g.problems
    by_layer: dict[str, list[str]] = {}
    for p in problems:
        if p.layer is not None:
            by_layer.setdefault(p.layer, []).append(p.message)
    layers = []
    for name, spec in d.layers.items():
        layer = net.objects.get(name)
        calls = []
        for k in range(spec.calls):
            record = net.records.get((name, k))
            why = net.status.get((name, k))
            calls.append({"index": k, "built": record is not None,
                          "output_shapes": None if record is None else
                          [_shape(t.shape) for t in record.outputs],
                          "missing": why})
        x, y = positions.get(name, (0.0, 0.0))
        inside = inner_view(layer) if layer is not None and spec.class_name in MODELS else None
        layers.append({
            "name": name, "class_name": spec.class_name, "group": _group(spec),
            "config": _jsonable(_shown_config(spec)), "is_input": spec.is_input,
            "x": x, "y": y, "pinned": name in d.pinned,
            "slots": {"kind": spec.slots.kind, "names": list(spec.slots.names),
                      "min": spec.slots.min, "max": spec.slots.max},
            "n_outputs": spec.n_outputs, "calls": calls,
            "params": _params(layer),
            "depth": depth.get(name), "problems": by_layer.get(name, []),
            # a nested model: how many layers it holds, and its inside while expanded
            "inner_layers": None if inside is None else
            sum(1 for item in inside["layers"] if item["class_name"] != "InputLayer"),
            "expanded": name in d.expanded and inside is not None,
            "inner": inside if name in d.expanded else None,
        })
    edges = []
    for e in d.edges:
        t = g.tensor(e.src)
        edges.append({"src": list(e.src), "dst": list(e.dst),
                      "shape": None if t is None else _shape(t.shape),
                      "dtype": None if t is None else str(t.dtype),
                      "built": g.is_built(e.dst[0], e.dst[1])})
    model = g.model
    return {
        "version": STATE_VERSION, "name": g.name, "layers": layers, "edges": edges,
        "problems": [{"message": p.message, "layer": p.layer, "call": p.call, "slot": p.slot}
                     for p in problems],
        "model": None if model is None else {
            "inputs": g.inputs, "outputs": [list(t) for t in g.outputs],
            "params": int(model.count_params())},
        "can_undo": g.can_undo, "can_redo": g.can_redo,
    }


def _params(layer) -> int | None:
    """Parameters of a built layer; a keras.ops operation has none; None while unbuilt."""
    if layer is None:
        return None
    if not hasattr(layer, "count_params"):
        return 0
    return layer.count_params() if layer.built else None


def _shown_config(spec) -> dict:
    """A nested model's config without its inner layers (the inspector edits only the top
    level; the inside travels as `inner`, laid out, while expanded)."""
    if spec.class_name in MODELS:
        return {k: v for k, v in spec.config.items() if k not in ("layers", "input_layers", "output_layers")}
    return spec.config


def _group(spec) -> str:
    if spec.is_input:
        return "input"
    from . import kinds

    return kinds.get(spec.class_name).group


def _shape(shape) -> list:
    return [None if s is None else int(s) for s in shape]


def _jsonable(value: Any) -> Any:
    return json.loads(json.dumps(value, default=repr))
