"""The layers inside a layer, by path ("self_attention/query"), and the LoRA a layer's config
cannot carry.

A nested Functional or Sequential model lists its layers, and its config holds theirs: a layer
inside it gets LoRA through that config (`lora_rank`, kinds/nested.py). A layer made inside
another layer's `build` (KerasHub's TransformerDecoder makes its attention's `query` and `value`
EinsumDense there) is in no config: its box keeps the path and rank and the
network enables it there each time it makes the box's layer, before weights flow in (and sets
the trainable flags KerasHub's Backbone.enable_lora sets on such layers: LayerSpec.inside).
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from typing import Any

from ..errors import EditError

# The layers KerasHub's Backbone.enable_lora targets by default (Backbone.default_lora_layer_names:
# the attention's query and value projections, under either naming).
BACKBONE_TARGETS = ("query_dense", "value_dense", "query", "value")
MAX_RANK = 4096  # a rank from the browser or a file is untrusted: LoRA's matrices grow with it


def children(layer: Any) -> list:
    """The layers directly inside `layer`: a model's layers, or the layers Keras tracks as its
    attributes (Keras's own walk, the one KerasHub's Backbone.enable_lora uses)."""
    if _lists_layers(layer):
        return list(layer.layers)
    flatten = getattr(layer, "_flatten_layers", None)
    return list(flatten(include_self=False, recursive=False)) if flatten is not None else []


def at(layer: Any, path: Iterable[str]) -> Any:
    """The layer at `path` (names, one per depth) inside `layer`; KeyError naming the missing part
    (also when two layers at one depth share the name: a path cannot tell them apart)."""
    for part in path:
        found = [x for x in children(layer) if getattr(x, "name", None) == part]
        if len(found) != 1:
            raise KeyError(part)
        layer = found[0]
    return layer


def walk(layer: Any, prefix: tuple = ()) -> Iterator[tuple[tuple, Any]]:
    """(path, layer) for every layer inside `layer`, each before the layers inside it."""
    for x in children(layer):
        path = (*prefix, x.name)
        yield path, x
        yield from walk(x, path)


def in_config(layer: Any, path: Iterable[str]) -> bool:
    """Whether the config of `layer` holds the config of the layer at `path` (`layer` and every
    layer holding it on the way are Functional or Sequential models, whose configs list their
    layers'); True for the layer itself (path empty)."""
    for part in path:
        if type(layer).__name__ not in ("Functional", "Sequential"):
            return False
        layer = at(layer, [part])
    return True


def targets(layer: Any, with_lora: bool = False) -> list[str]:
    """Paths of the layers inside `layer` that KerasHub's Backbone.enable_lora would give LoRA
    (its own default_lora_layer_names for a backbone) and that can take it now (with_lora:
    those that have it already too)."""
    names = BACKBONE_TARGETS
    default = getattr(layer, "default_lora_layer_names", None)
    if callable(default):
        names = tuple(default())
    return ["/".join(p) for p, x in walk(layer) if p[-1] in names
            and (takes_lora(x) or (with_lora and getattr(x, "lora_enabled", False)))]


def takes_lora(layer: Any) -> bool:
    """Whether Keras can enable LoRA on this layer now (Dense, EinsumDense, Embedding: built or
    not, without it yet and without a kernel constraint)."""
    return (callable(getattr(layer, "enable_lora", None)) and hasattr(layer, "lora_enabled")
            and not layer.lora_enabled and getattr(layer, "kernel_constraint", None) is None)


def outside_config(layer: Any) -> tuple:
    """What was done to the layers made in `layer`'s build, which its config cannot say (what an
    import keeps as the box's LayerSpec.inside): each trainable flag unlike its holder's, holders
    first, then LoRA (after the flags, as Keras's Backbone.enable_lora does it)."""
    flags, lora = [], []

    def visit(holder: Any, path: tuple) -> None:
        for x in children(holder):
            at_path = (*path, x.name)
            if not in_config(layer, at_path):
                if bool(x.trainable) != bool(holder.trainable):
                    flags.append(("/".join(at_path), "trainable", bool(x.trainable)))
                if getattr(x, "lora_enabled", False):
                    lora.append(("/".join(at_path), "lora", x.lora_rank))
            visit(x, at_path)

    visit(layer, ())
    return tuple(flags + lora)


def made(layer: Any, done: Iterable[tuple[str, str, Any]]) -> None:
    """A layer the network just made and built: a frozen one frozen again (Keras sets the flag
    on the layers inside a layer when it is set, not on those its build makes later: a
    TransformerDecoder(trainable=False) would train), then `done` redone."""
    import keras

    if not getattr(layer, "trainable", True) and not isinstance(layer, keras.Model):
        layer.trainable = True  # (setting the flag it has does nothing)
        layer.trainable = False
    redo(layer, done)


def redo(layer: Any, done: Iterable[tuple[str, str, Any]]) -> None:
    """What was done inside a layer (LayerSpec.inside), done again, in order, on a layer just
    made and built (LoRA a layer has already is kept)."""
    for path, what, value in done:
        try:
            x = at(layer, path.split("/"))
        except KeyError:
            raise EditError(f"{layer.name} has no layer {path!r:.120} inside it (or two by that "
                            "name), where LoRA or a trainable flag was set.",
                            layer=layer.name) from None
        if what == "trainable":
            x.trainable = value
        elif not x.lora_enabled:
            x.enable_lora(value)


def _lists_layers(layer: Any) -> bool:
    import keras

    return isinstance(layer, keras.Model) and hasattr(layer, "layers")
