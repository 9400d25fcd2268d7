"""Which layers accept a tensor: the answer the canvas needs while a wire is dragged (slots light
up) and when a wire is dropped in empty space (the quick-add list is filtered to these).

Each check calls a fresh layer on a fresh KerasTensor of the same shape and dtype: nothing drawn
is touched (no node is added to any live layer). Answers are cached by class/config and tensor.
"""

from __future__ import annotations

import json
import logging
from typing import Any

import keras

from . import catalog, kinds

MAX_CHECKED_BOXES = 300  # bigger drawings: the slots of the first 300 boxes are checked
_classes: dict[tuple, list[str]] = {}
_configs: dict[tuple, bool] = {}
_log = logging.getLogger(__name__)


def _fresh(t) -> keras.KerasTensor:
    return keras.KerasTensor(tuple(t.shape), dtype=t.dtype)


def _calls(layer: keras.layers.Layer, args: list) -> bool:
    try:
        layer(*args)
        return True
    except Exception:  # noqa: BLE001 - any refusal means "does not accept"
        return False


def classes_accepting(tensor) -> list[str]:
    """Catalog classes with one tensor slot or a list slot that accept `tensor` (their suggested
    config), sorted."""
    key = (tuple(tensor.shape), str(tensor.dtype))
    if key not in _classes:
        found = []
        for name in catalog.names():
            kind = catalog.get(name)
            if kind.slots.kind not in ("single", "list"):
                continue
            try:
                layer = kind.build(**kind.suggested_args())
            except Exception as e:  # noqa: BLE001 - a class Keras will not build is not offered
                _log.debug("kerascanvas: %s is left out of quick-add: %s", name, e)
                continue
            t = _fresh(tensor)
            if _calls(layer, [[t, _fresh(tensor)]] if kind.slots.kind == "list" else [t]):
                found.append(name)
        _classes[key] = found
    return list(_classes[key])


def ports_accepting(g, tensor) -> dict[str, list[str]]:
    """The free input slots of the drawing that would take `tensor` ("accept") and those that
    would refuse it ("refuse"), as the canvas names ports: "in:layer:call:slot". Slots of
    multi-argument layers are not judged."""
    accept, refuse = [], []
    edges = g.edges
    for name in list(g.layers)[:MAX_CHECKED_BOXES]:
        spec = g.specs[name]
        if spec.is_input or spec.slots.kind not in ("single", "list"):
            continue
        for call in range(spec.calls):
            fed = sorted((e for e in edges if e[1][:2] == (name, call)), key=lambda e: e[1][2])
            if spec.slots.kind == "single" and fed:
                continue
            others = [g.tensor(e[0]) for e in fed]
            if any(o is None for o in others):
                continue
            slot = len(fed) if spec.slots.kind == "list" else 0
            ok = _config_accepts(spec, others, tensor)
            (accept if ok else refuse).append(f"in:{name}:{call}:{slot}")
    return {"accept": accept, "refuse": refuse}


def _config_accepts(spec, others: list, tensor) -> bool:
    key = (spec.class_name, json.dumps(spec.config, sort_keys=True, default=str),
           tuple((tuple(o.shape), str(o.dtype)) for o in others), tuple(tensor.shape), str(tensor.dtype))
    if key not in _configs:
        try:
            layer = kinds.get(spec.class_name).create({**spec.config, "name": "probe"})
        except Exception:  # noqa: BLE001
            _configs[key] = False
            return False
        args: Any = [_fresh(o) for o in others] + [_fresh(tensor)]
        if spec.slots.kind == "list":
            # a merge layer needs its minimum number of tensors: the new one stands in for them
            while len(args) < max(2, spec.slots.min):
                args.append(_fresh(tensor))
            _configs[key] = _calls(layer, [args])
        else:
            _configs[key] = _calls(layer, args)
    return _configs[key]
