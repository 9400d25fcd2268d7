"""Trainable flags of live Keras layers: a layer and the layers inside it read and written as one
tuple (an undo step keeps the tuple), and whether a box's weights train ("yes", "no", "partly")."""

from __future__ import annotations

from typing import Any


class Flags:
    """The trainable flags of a layer and of every layer inside it, read as one tuple and
    written in Keras's order (a model before the layers inside it: setting a model's flag sets
    its layers', so each layer's own flag is written after its model's)."""

    __slots__ = ("layers",)

    def __init__(self, root: Any):
        self.layers = tuple(sublayers(root))

    @property
    def values(self) -> tuple[bool, ...]:
        return tuple(bool(layer.trainable) for layer in self.layers)

    @values.setter
    def values(self, flags: tuple[bool, ...]) -> None:
        for layer, flag in zip(self.layers, flags, strict=True):
            layer.trainable = flag


def sublayers(layer: Any) -> list:
    """`layer` and every layer inside it, each after the one holding it (Keras's own walk)."""
    flatten = getattr(layer, "_flatten_layers", None)
    return list(flatten(include_self=True, recursive=True)) if flatten is not None else [layer]


def trainable_state(layer: Any) -> str:
    """"yes", "no" or "partly": whether the weights of a layer (a nested model: of the layers in
    it) train."""
    weights = getattr(layer, "weights", None) or []
    if not getattr(layer, "trainable", True) and not training_weights(layer):
        return "no"
    flags = [bool(x.trainable) for x in sublayers(layer) if hasattr(x, "trainable")]
    if all(flags):
        return "yes"
    if weights and not training_weights(layer):
        return "no"
    return "partly"


def training_weights(layer: Any) -> list:
    """The variables of `layer` that train in a model holding it. A model counts a variable by
    its own flag: freezing a layer sets its variables' flags, and KerasHub's
    Backbone.enable_lora unfreezes query and value inside layers it froze."""
    return [v for v in getattr(layer, "weights", None) or () if v.trainable]


def lora_rank(layer: Any) -> int | None:
    """The LoRA rank of a layer, or the largest one among the layers inside it; None: no LoRA."""
    ranks = [x.lora_rank for x in sublayers(layer) if getattr(x, "lora_enabled", False)]
    return max(ranks) if ranks else None


# Keras's quantization modes that need no calibration data (gptq and awq need a dataset), and the
# ones each layer class takes (Embedding's quantize refuses float8); subclasses take their base's.
QUANTIZE_MODES = ("int8", "float8", "int4")
_MODES_OF = {"Dense": QUANTIZE_MODES, "EinsumDense": QUANTIZE_MODES, "Embedding": ("int8", "int4")}


def quantize_modes(layer: Any) -> list[str]:
    """The modes `layer.quantize(mode)` takes now: a built Dense, EinsumDense or Embedding (or a
    subclass) not quantized yet; [] for any other layer (Keras's Layer.quantize refuses them)."""
    if not getattr(layer, "built", False) or quantization_mode(layer) is not None:
        return []
    for cls in type(layer).__mro__:
        if cls.__module__.startswith("keras.") and cls.__name__ in _MODES_OF:
            return list(_MODES_OF[cls.__name__])
    return []


def quantization_mode(layer: Any) -> str | None:
    """"int8", "float8", "int4" for a quantized layer (its dtype policy says), else None."""
    return getattr(getattr(layer, "dtype_policy", None), "quantization_mode", None)
