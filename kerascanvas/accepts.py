"""Which layers accept a tensor: the answer the canvas needs while a wire is dragged (slots light
up) and when a wire is dropped in empty space (the quick-add list is filtered to these).

Each check calls a fresh layer on a fresh KerasTensor of the same shape and dtype: nothing drawn
is touched (no node is added to any live layer). The fresh layer is made and called on the
shape-only path (`limits.shapes_only`): its variables are counted against limits.LAYER_PARAMS
and never get values, so a probe allocates no weights, and one over the cap "refuses" as the
edit itself would. Answers are cached by class/config, tensor and cap.
"""

from __future__ import annotations

import json
from typing import Any

import keras

from . import catalog, kinds, limits

MAX_NEW_PROBES = 300  # layers made to check slots in one answer (each check is cached after)
_classes: dict[tuple, list[str]] = {}
_configs: dict[tuple, bool] = {}
_spec_keys: dict[int, tuple] = {}  # id(spec) -> (spec, its _config_key)


def _fresh(t) -> keras.KerasTensor:
    return keras.KerasTensor(tuple(t.shape), dtype=t.dtype)


def _probe(make, args_of) -> bool:
    """Whether `make()`'s layer takes `args_of()`, made and called on the shape-only path."""
    try:
        with limits.shapes_only("probe"):
            layer = make()
            layer(*args_of())
        return True
    except Exception:  # noqa: BLE001 - any refusal (the parameter cap's too) means "does not accept"
        return False


def classes_accepting(tensor) -> list[str]:
    """Catalog classes with one tensor slot or a list slot that accept `tensor` (their suggested
    config), sorted."""
    key = (tuple(tensor.shape), str(tensor.dtype), limits.LAYER_PARAMS)
    if key not in _classes:
        found = []
        for name in catalog.names():
            kind = catalog.get(name)
            if kind.slots.kind not in ("single", "list"):
                continue
            listed = kind.slots.kind == "list"
            if _probe(lambda kind=kind: kind.build(**kind.suggested_args()),
                      lambda listed=listed: [[_fresh(tensor), _fresh(tensor)]] if listed
                      else [_fresh(tensor)]):
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
           tuple(tensor.shape), str(tensor.dtype), limits.LAYER_PARAMS)
    if key not in _configs:
        if probes[0] >= MAX_NEW_PROBES:
            return None
        probes[0] += 1

        def args_of() -> list:
            args: Any = [_fresh(o) for o in others] + [_fresh(tensor)]
            if spec.slots.kind != "list":
                return args
            # a merge layer needs its minimum number of tensors: the new one stands in for them
            while len(args) < max(2, spec.slots.min):
                args.append(_fresh(tensor))
            return [args]

        _configs[key] = _probe(
            lambda: kinds.get(spec.class_name).create({**spec.config, "name": "probe"}), args_of)
    return _configs[key]
