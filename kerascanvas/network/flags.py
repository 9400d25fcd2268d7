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
    if not getattr(layer, "trainable", True):
        return "no"
    flags = [bool(x.trainable) for x in sublayers(layer) if hasattr(x, "trainable")]
    if all(flags):
        return "yes"
    if getattr(layer, "weights", None) and not layer.trainable_weights:
        return "no"
    return "partly"
