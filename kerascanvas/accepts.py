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

MAX_NEW_PROBES = 300  # layers made to check slots in one answer (each check is cached after)
_classes: dict[tuple, list[str]] = {}
_configs: dict[tuple, bool] = {}
_spec_keys: dict[int, tuple] = {}  # id(spec) -> (spec, its _config_key)
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
    multi-argument layers are not judged, nor, past MAX_NEW_PROBES new checks in one answer, the
    slots after them."""
    accept, refuse = [], []
    fed: dict[tuple[str, int], list] = {}  # one pass over the edges, not one per slot
    for src, dst in g.edges:
        fed.setdefault(dst[:2], []).append((dst[2], src))
    probes = [0]
    for name, spec in g.specs.items():
        if spec.is_input or spec.slots.kind not in ("single", "list"):
            continue
        for call in range(spec.calls):
            into = sorted(fed.get((name, call), ()))
            if spec.slots.kind == "single" and into:
                continue
            others = [g.tensor(src) for _, src in into]
            if any(o is None for o in others):
                continue
            ok = _config_accepts(spec, others, tensor, probes)
            if ok is None:
                return {"accept": accept, "refuse": refuse}
            slot = len(into) if spec.slots.kind == "list" else 0
            (accept if ok else refuse).append(f"in:{name}:{call}:{slot}")
    return {"accept": accept, "refuse": refuse}


def _config_key(spec) -> tuple[str, str]:
    """A spec's class and config as text, kept per spec object (specs outlive edits: a drawing's
    copies share them), so asking again on a big drawing does not encode every config again."""
    held = _spec_keys.get(id(spec))
    if held is None or held[0] is not spec:
        if len(_spec_keys) > 20_000:
            _spec_keys.clear()
        config = {k: v for k, v in spec.config.items() if k != "name"}  # names aside: Add x 1,000
        held = _spec_keys[id(spec)] = (spec, (spec.class_name, json.dumps(
            config, sort_keys=True, default=str)))
    return held[1]


def _config_accepts(spec, others: list, tensor, probes: list[int]) -> bool | None:
    """Whether a layer of this spec takes `tensor` after `others`; None once `probes[0]` (the new
    checks made for this answer) reaches MAX_NEW_PROBES."""
    key = (_config_key(spec), tuple((tuple(o.shape), str(o.dtype)) for o in others),
           tuple(tensor.shape), str(tensor.dtype))
    if key not in _configs:
        if probes[0] >= MAX_NEW_PROBES:
            return None
        probes[0] += 1
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
