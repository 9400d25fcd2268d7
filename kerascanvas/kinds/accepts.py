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

import keras

from .. import limits
from . import catalog, kinds

MAX_NEW_PROBES = 300  # layers made to check slots in one answer (each check is cached after)
_classes: dict[tuple, list[str]] = {}
_configs: dict[tuple, bool] = {}
_spec_keys: dict[int, tuple] = {}  # id(spec) -> (spec, its _config_key)


def _fresh(t) -> keras.KerasTensor:
    return keras.KerasTensor(tuple(t.shape), dtype=t.dtype)


def _probe(make, args_of, base: list | None = None) -> bool:
    """Whether `make()`'s layer takes `args_of()` (after a first call on `base`, which builds it
    as the drawing's first call did), made and called on the shape-only path."""
    try:
        with limits.shapes_only("probe"):
            layer = make()
            if base is not None and not _calls(layer, base):
                layer = make()  # the first call no longer builds it (it will be refused itself)
            layer(*args_of())
        return True
    except Exception:  # noqa: BLE001 - any refusal (the parameter cap's too) means "does not accept"
        return False


def _calls(layer: keras.layers.Layer, args: list) -> bool:
    try:
        layer(*args)
        return True
    except Exception:  # noqa: BLE001 - any refusal means "does not accept"
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
    would refuse it ("refuse"), as the canvas names ports: "in:layer:call:slot". The verdict is
    the kernel's own: a layer with a complete call is judged as built by that call's inputs (a
    Dense's second call takes only its first call's width); a call the new tensor would leave
    pending is accepted, as connect accepts it; named slots (query, value, key) are judged with the
    tensors already in the others. Past MAX_NEW_PROBES new checks in one answer, the slots after
    them are not judged."""
    accept, refuse = [], []
    fed: dict[tuple[str, int], list] = {}  # one pass over the edges, not one per slot
    for src, dst in g.edges:
        fed.setdefault(dst[:2], []).append((dst[2], src))
    probes = [0]
    for name, spec in g.specs.items():
        if spec.is_input or spec.slots.kind not in ("single", "list", "args"):
            continue
        built_on = None  # the inputs of this layer's first complete call, which built its weights
        for call in range(spec.calls):
            into = sorted(fed.get((name, call), ()))
            tensors = [g.tensor(src) for _, src in into]
            if built_on is None and into and all(t is not None for t in tensors):
                built_on = (call, into, tensors)
        for call in range(spec.calls):
            into = sorted(fed.get((name, call), ()))
            if spec.slots.kind == "single" and into:
                continue
            filled = {slot: g.tensor(src) for slot, src in into}
            if any(o is None for o in filled.values()):
                continue
            base = None if built_on is None or built_on[0] == call else built_on
            for slot in _free_slots(spec, filled):
                ok = _config_accepts(spec, filled, slot, tensor, base, probes)
                if ok is None:
                    return {"accept": accept, "refuse": refuse}
                (accept if ok else refuse).append(f"in:{name}:{call}:{slot}")
    return {"accept": accept, "refuse": refuse}


def _free_slots(spec, filled: dict) -> list[int]:
    """The slots a wire may be dropped on: the single slot, a list's next place, each empty named slot."""
    if spec.slots.kind == "list":
        return [len(filled)]
    if spec.slots.kind == "single":
        return [0]
    return [i for i in range(len(spec.slots.names)) if i not in filled]


def _args(spec, filled: dict, slot: int, tensor) -> list | None:
    """The positional arguments of the call once `tensor` is in `slot`; None while a required
    slot stays empty (the call stays pending: Keras is not asked yet)."""
    have = {**filled, slot: tensor}
    if spec.slots.kind == "list":
        args = [_fresh(have[i]) for i in sorted(have)]
        # a merge layer needs its minimum number of tensors: the new one stands in for them
        while len(args) < max(2, spec.slots.min):
            args.append(_fresh(tensor))
        return [args]
    required = max(1, spec.slots.min)
    if any(i not in have for i in range(required)):
        return None
    args = []
    for i in range(max(have) + 1):
        if i not in have:
            return None  # a gap before a filled slot: pending until it is filled
        args.append(_fresh(have[i]))
    return args


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


def _shapes(tensors) -> tuple:
    return tuple((tuple(t.shape), str(t.dtype)) for t in tensors)


def _config_accepts(spec, filled: dict, slot: int, tensor, base, probes: list[int]) -> bool | None:
    """Whether a layer of this spec takes `tensor` in `slot` with `filled` in its other slots,
    built first by `base` (its first complete call's inputs) when another call built it; None
    once `probes[0]` (the new checks made for this answer) reaches MAX_NEW_PROBES."""
    args = _args(spec, filled, slot, tensor)
    if args is None:
        return True  # the call stays pending, as connect leaves it
    base_args = None if base is None else _complete_args(spec, base)
    key = (_config_key(spec), _shapes(filled[i] for i in sorted(filled)), slot, tuple(tensor.shape),
           str(tensor.dtype), None if base is None else _shapes(base[2]), limits.LAYER_PARAMS)
    if key not in _configs:
        if probes[0] >= MAX_NEW_PROBES:
            return None
        probes[0] += 1
        _configs[key] = _probe(lambda: _create(spec), lambda: args, base_args)
    return _configs[key]


def _complete_args(spec, base) -> list:
    """The positional arguments of a complete call, from its (slot, source) pairs and tensors."""
    _, into, tensors = base
    args = [_fresh(t) for (_, _src), t in zip(into, tensors)]
    return [args] if spec.slots.kind == "list" else args


def _create(spec) -> keras.layers.Layer:
    return kinds.get(spec.class_name).create({**spec.config, "name": "probe"})
