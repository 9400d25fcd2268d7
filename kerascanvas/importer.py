"""Keras model -> drawing: every layer, every node of it that belongs to the model, weights too.

A layer may have been called outside the model as well, so node indices are renumbered to the
order of the model's own nodes of that layer. The whole import is one `g.batch()`: one rebuild,
one undo step.
"""

from __future__ import annotations

from pathlib import Path

import keras

from . import catalog
from .drawing import EditError


def from_model(model, graph_class):
    """A Graph drawing `model` (Functional or Sequential of catalog layers), weights included."""
    functional = _functional(model)
    nodes = {id(n) for nodes in functional._nodes_by_depth.values() for n in nodes}
    local: dict[int, int] = {}  # id(node) -> its index among the model's nodes of its layer
    for op in functional.operations:
        for node in (n for n in op._inbound_nodes if id(n) in nodes):
            local[id(node)] = sum(1 for n in op._inbound_nodes[: op._inbound_nodes.index(node)]
                                  if id(n) in nodes)
    for op in functional.operations:
        if not isinstance(op, keras.layers.InputLayer):
            _check_offered(op)
    g = graph_class(name=model.name)
    with g.batch():
        for tensor in functional.inputs:  # model input order = the drawing's input order
            layer = tensor._keras_history.operation
            g.add_input(tuple(layer.batch_shape[1:]), name=layer.name, dtype=layer.dtype)
        for op in functional.operations:
            if not isinstance(op, keras.layers.InputLayer):
                g.add_layer_from_config({"class_name": type(op).__name__, "config": op.get_config()})
        for op in functional.operations:
            if isinstance(op, keras.layers.InputLayer):
                continue
            slots = catalog.get(type(op).__name__).slots
            for node in sorted((n for n in op._inbound_nodes if id(n) in nodes), key=lambda n: local[id(n)]):
                for i, tensor in enumerate(node.input_tensors):
                    src, n, t = tensor._keras_history
                    g.connect((src.name, local[id(src._inbound_nodes[n])], t), op.name,
                              call=local[id(node)], slot=None if slots.kind == "list" else i)
        g.set_outputs([_triple(t, local) for t in functional.outputs], only=True)
    for op in functional.operations:
        copy_weights(op, g.keras_layer(op.name))
    return g


def copy_weights(source, target) -> None:
    """Variable to variable, on the backend's device (no round trip through NumPy)."""
    for a, b in zip(target.weights, source.weights, strict=True):
        a.assign(b.value)


def load_keras(path, graph_class):
    """A Graph drawing the model saved in a .keras file (safe mode: no Lambda code is loaded)."""
    path = Path(path)
    if not path.is_file():
        raise EditError(f"There is no file {str(path)!r}.")
    try:
        model = keras.saving.load_model(path, compile=False, safe_mode=True)
    except Exception as e:
        raise EditError(f"Keras could not load {str(path)!r}: {e}") from e
    return from_model(model, graph_class)


def _functional(model):
    if not isinstance(model, keras.Model):
        raise EditError(f"Expected a keras.Model, got {type(model).__name__}.")
    if isinstance(model, keras.Sequential):
        inner = getattr(model, "_functional", None)
        if inner is None:
            raise EditError(f"Sequential model {model.name!r} is not built: give it an Input "
                            "(or call it once) before importing.")
        return inner
    if not hasattr(model, "_nodes_by_depth"):
        raise EditError(f"{model.name!r} is a subclassed model ({type(model).__name__}); only "
                        "Functional and Sequential models can be drawn.")
    return model


def _check_offered(layer) -> None:
    name = type(layer).__name__
    if isinstance(layer, keras.Model):
        raise EditError(f"Layer {layer.name!r} is a nested model ({name}); nested models cannot be "
                        "imported yet.", layer=layer.name)
    try:
        kind = catalog.get(name)
    except ValueError:
        raise EditError(f"Layer {layer.name!r} is a {name}, which the canvas does not offer "
                        "(custom classes and code-running layers such as Lambda are refused).",
                        layer=layer.name) from None
    if kind.cls is not type(layer):
        raise EditError(f"Layer {layer.name!r} is a {type(layer).__module__}.{name}, not Keras's "
                        f"{name}.", layer=layer.name)


def _triple(tensor, local):
    op, n, t = tensor._keras_history
    return (op.name, local[id(op._inbound_nodes[n])], t)
