"""The example an empty canvas offers ("Start from an example"): a small model shaped like the
data the canvas was given (set_data), else like the digits that ship with kerascanvas (8x8x1,
ten classes), drawn in one undo step so that a first Train works at once."""

from __future__ import annotations

import numpy as np

from ..errors import EditError
from ..graph.graph import Graph
from ..training.data import classes_of


def draw_example(g: Graph, data: tuple | None) -> list[str]:
    """Draw the example on the empty drawing `g`, as one undo step; returns its boxes' names.
    Images (x of rank 3 per sample) get Conv2D -> MaxPooling2D -> Flatten -> Dense; anything
    else Dense -> Dense. The last layer fits y: softmax over its classes, else its width."""
    if g.layers:
        raise EditError("The example starts an empty canvas: delete the drawing first (or "
                        "start another canvas).")
    shape, units, activation = _shaped_by(data)
    with g.batch():
        x = g.add_input(shape, name="image" if len(shape) == 3 else "features")
        chain: list = [("Flatten", {})] if len(shape) == 2 else []  # (a sequence: flat)
        if len(shape) == 3:
            chain += [("Conv2D", {"filters": 16, "kernel_size": 3, "activation": "relu",
                                  "padding": "same"}), ("MaxPooling2D", {}), ("Flatten", {})]
        else:
            chain.append(("Dense", {"units": 32, "activation": "relu"}))
        chain.append(("Dense", {"units": units, "activation": activation}))
        last, made = x, [x]
        for class_name, config in chain:
            name = g.add_layer(class_name, **config)
            g.connect(last, name)
            last = name
            made.append(name)
    return made


def _shaped_by(data: tuple | None) -> tuple[tuple, int, str]:
    """(the Input's shape, the last layer's units, its activation) for the data, if any."""
    if not data:
        return (8, 8, 1), 10, "softmax"  # the digits (kerascanvas.datasets.digits)
    x, y = data[0], data[1]
    shape: tuple = (8, 8, 1)
    if isinstance(x, np.ndarray) and 2 <= x.ndim <= 4 and all(0 < d <= 4096 for d in x.shape[1:]):
        shape = tuple(int(d) for d in x.shape[1:])
    if classes_of(y):  # integer labels 0..n-1
        return shape, max(2, int(np.max(y)) + 1), "softmax"
    if isinstance(y, np.ndarray) and y.ndim == 2:
        return shape, int(y.shape[1]), "linear"
    return shape, 1, "linear"
