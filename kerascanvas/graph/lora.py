"""LoRA: `layer.enable_lora(rank)` on a box, on a layer inside it by path ("outer/inner",
"transformer_layer_0/self_attention/query"), on the layers inside a box that KerasHub's
Backbone.enable_lora targets (its attention's query and value), or on those of the whole drawing.

Keras offers it on Dense, EinsumDense and Embedding (and their subclasses, a KerasHub
ReversibleEmbedding): two small trainable matrices next to a kernel that stops training. Where a
config can say it (the box's own, or a nested Functional's config holding the layer) it gets
`lora_rank` and `lora_alpha`; a layer made inside another layer's build (a TransformerDecoder's
attention) is in no config: the box keeps (path, rank) in LayerSpec.inner_lora and the network
enables it each time it makes the box's layer (network/inside.py). Either way the box's live
layer is replaced, in one undo step, by a copy made from its config with its weights, LoRA
enabled on the copy; the rebuild calls the copy where the live layer was. Keras has no
disable_lora: undo puts the old layer object back, untouched, and redo the copy. A box still
pending holds no weights: only its config changes, and Keras enables LoRA when it builds it.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from ..drawing.drawing import Drawing
from ..errors import EditError
from ..kinds import kinds, ops
from ..kinds.nested import with_lora_at
from ..mirror.fields import PathError, split_path
from ..network import inside
from ..network.network import Network
from .history import History

MAX_RANK = inside.MAX_RANK


def enable_lora(g: Any, history: History, network: Network, name: str | None,
                rank: int) -> list[str]:
    """See Graph.enable_lora. Returns the paths that got LoRA."""
    history.check_unlocked()
    if isinstance(rank, bool) or not isinstance(rank, int) or not 1 <= rank <= MAX_RANK:
        raise EditError(f"A LoRA rank is a whole number from 1 to {MAX_RANK}, got {rank!r:.40}.")
    whole = name is None  # as KerasHub's Backbone.enable_lora: every other weight frozen too
    wanted = _every_target(g, history, network) if whole else \
        _targets_of(g, history, network, name)
    plans = {top: _plan(g.keras_layer(top), history.editing.spec(top), paths, rank, whole)
             for top, paths in wanted.items()}
    copies = {}
    for top, (in_config, log) in plans.items():
        spec = history.editing.spec(top)
        live = network.objects.get(top)
        if network.made_from.get(top) is not spec.config:
            live = None  # pending, or changed earlier in a batch: made from the new config
        if live is None and log != spec.inside:
            raise EditError(f"{top} holds no weights yet (it is pending, or changed in this "
                            "batch), and the layers inside it are made when Keras builds it: "
                            "connect it first.", layer=top)
        copies[top] = None if live is None else _copy_with_lora(spec, live, in_config, rank, log)

    def change(d: Drawing) -> None:
        for top, (in_config, log) in plans.items():
            spec_now, copy = d.spec(top), copies[top]
            config = dict(spec_now.config)  # a new config: the rebuild calls the copy
            for path in in_config:
                alpha = inside.at(copy, path).lora_alpha if copy is not None else rank
                if not path:
                    config.update(lora_rank=rank, lora_alpha=alpha)
                else:
                    config = with_lora_at(config, path, rank, alpha)
            if copy is not None:
                network.prepare(top, config, copy, built=True)
            d.replace_spec(replace(spec_now, config=config, inside=log))

    with g.batch():
        if whole:  # the boxes with no target frozen (a flag in their config)
            for box in g.layers:
                layer = network.objects.get(box)
                if box not in wanted and getattr(layer, "trainable", False) and layer.weights:
                    g.set_trainable(box, False)
        history.edit(change)
    return ["/".join([top, *p]) for top, paths in wanted.items() for p in paths]


def _plan(box: Any, spec: Any, paths: list, rank: int, whole: bool) -> tuple[list, tuple]:
    """(the paths whose LoRA the box's config says, the box's new LayerSpec.inside). `whole`:
    as Backbone.enable_lora, the layers in the box frozen, then each target unfrozen and given
    LoRA (in that order: unfreezing a layer with LoRA would make its kernel train again), the
    targets with LoRA already keeping their rank."""
    in_config = [p for p in paths if not inside.at(box, p).lora_enabled
                 and (not p or not whole and inside.in_config(box, p))]
    rest = [p for p in paths if p not in in_config]
    if not whole:
        return in_config, spec.inside + tuple(("/".join(p), "lora", rank) for p in rest)
    named = {"/".join(p): inside.at(box, p) for p in rest}
    log = [e for e in spec.inside if not (e[1] == "lora" and e[0] in named)]
    log += [(x.name, "trainable", False) for x in inside.children(box) if x.weights]
    log += [(p, "trainable", True) for p in named]
    log += [(p, "lora", x.lora_rank if x.lora_enabled else rank) for p, x in named.items()]
    return in_config, tuple(log)


def _targets_of(g: Any, history: History, network: Network, name: Any) -> dict:
    """{box: [path inside it]} for `name`: the layer it names if it takes LoRA, else the layers
    inside it that a KerasHub backbone would give LoRA; a refusal naming what was wrong."""
    try:
        parts = split_path(name) if isinstance(name, str) else None
    except PathError as e:
        raise EditError(str(e)) from None
    if parts is None:
        raise EditError(f"enable_lora takes a layer name or path (a string), got {name!r:.80}.")
    top = parts[0]
    if top not in g.layers:
        raise EditError(f"There is no layer named {top!r:.80} in the drawing.")
    spec = history.editing.spec(top)
    if spec.is_input or isinstance(kinds.get(spec.class_name), ops.OpKind):
        raise EditError(f"{top} is {'an Input' if spec.is_input else 'a keras.ops operation'}: "
                        "it holds no weights to take LoRA.", layer=top)
    box = g.keras_layer(top)
    try:
        target = inside.at(box, parts[1:])
    except KeyError as e:
        raise EditError(f"{top} has no layer {e.args[0]!r:.80} inside at {name!r:.120} (or two "
                        "of that name).", layer=top) from None
    _check_not_done(name, target, top)
    if inside.takes_lora(target):
        return {top: [parts[1:]]}
    found = inside.targets(target)
    if not found:
        every = [p for p, x in inside.walk(target) if inside.takes_lora(x)]
        hint = (f" Inside it these can: {', '.join(name + '/' + '/'.join(p) for p in every[:6])}"
                f"{', ...' if len(every) > 6 else ''}." if every else "")
        raise EditError(f"{name} is a {type(target).__name__}, which has no enable_lora: Keras "
                        f"offers LoRA on Dense, EinsumDense and Embedding layers.{hint}", layer=top)
    return {top: [parts[1:] + p.split("/") for p in found]}


def _every_target(g: Any, history: History, network: Network) -> dict:
    """{box: [path]} of the layers of the drawing that KerasHub's Backbone.enable_lora targets
    (a box so named, or layers so named inside boxes)."""
    found = {}
    for top in g.layers:
        spec = history.editing.spec(top)
        layer = network.objects.get(top)
        if spec.is_input or layer is None or network.made_from.get(top) is not spec.config:
            continue
        paths = [[]] if top in inside.BACKBONE_TARGETS and inside.takes_lora(layer) else []
        paths += [p.split("/") for p in inside.targets(layer, with_lora=True)]
        if paths:
            found[top] = paths
    if not any(inside.targets(network.objects[top]) or paths == [[]]
               for top, paths in found.items()):
        raise EditError("No layer of the drawing is one KerasHub's Backbone.enable_lora targets "
                        f"({', '.join(inside.BACKBONE_TARGETS)}) without LoRA yet: name a box or "
                        "a path instead.")
    return found


def _check_not_done(path: str, layer: Any, top: str) -> None:
    """Refuses a layer that has LoRA already, or a kernel constraint LoRA cannot keep."""
    if getattr(layer, "lora_enabled", False):
        raise EditError(f"{path} has LoRA already (rank {layer.lora_rank}); Keras enables it "
                        "once per layer: undo that step to choose another rank.", layer=top)
    if callable(getattr(layer, "enable_lora", None)) and \
            getattr(layer, "kernel_constraint", None) is not None:
        raise EditError(f"{path} has a kernel_constraint, which Keras's LoRA cannot keep: remove "
                        "the constraint first.", layer=top)


def _copy_with_lora(spec: Any, live: Any, in_config: list, rank: int, log: tuple) -> Any:
    """A new layer made from the box's config, built as the live one is, `log` done inside it
    (LayerSpec.inside), LoRA enabled at each path of `in_config`, holding the live layer's
    weights (matched by path: the new LoRA matrices start as Keras starts them); the live layer
    stays as it is, for undo."""
    try:
        copy = kinds.get(spec.class_name).create(dict(spec.config))
        if not copy.built:
            copy.build_from_config(live.get_build_config())
        inside.made(copy, log)  # (a frozen one frozen again once built)
        for path in in_config:
            inside.at(copy, path).enable_lora(rank)
        values = {v.path: v for v in live.weights}
        for v in copy.weights:
            if v.path in values:
                v.assign(values.pop(v.path))
    except EditError:
        raise
    except Exception as e:  # Keras's own reason (a quantized kernel, ...)
        raise EditError(f"Keras refused to enable LoRA on {spec.name}: {e}",
                        layer=spec.name) from e
    if values:  # a layer made inside with a name of its own each time: no path to match by
        raise EditError(f"{spec.name}'s weights cannot be carried to its layer with LoRA (no "
                        f"match for {next(iter(values))!r:.100}).", layer=spec.name)
    return copy
