"""A snapshot: a drawing frozen at one moment, to compare against later (`g.snapshot()`,
`g.as_imported`, `kc.compare`).

It keeps what a comparison reads and nothing live: the layer specs and edges (both immutable in
the drawing, so kept by reference, not copied) and each live layer's weights, copied once as numpy
arrays. Its memory is therefore about one copy of the drawing's weights; `as_imported` skips the
weights of a drawing whose weights are over AS_IMPORTED_WEIGHT_BYTES (its structure is still kept,
and a comparison says that the weights were not kept).
"""

from __future__ import annotations

import time
from collections.abc import Mapping
from types import MappingProxyType
from typing import Any

import numpy as np

# The weights `g.as_imported` copies at most (bytes): above it, the drawing as imported keeps its
# structure only (copying a multi-gigabyte backbone at every import would double its memory).
AS_IMPORTED_WEIGHT_BYTES = 512 * 2**20


class Snapshot:
    """A drawing as it was: `name` (given, or the graph's name and "snapshot"), `graph_name`,
    `specs` ({layer name: LayerSpec}), `edges` (the drawing's ((src, node_index, tensor_index),
    (dst, call, slot)) pairs), `taken_at` (time.time()), and `saved_weights(layer)`, the arrays
    the layer held (empty when it held none or when the weights were not kept: `weights_kept`
    False)."""

    def __init__(self, name: str, graph_name: str, specs: Mapping, edges: tuple,
                 weights: Mapping[str, list] | None):
        self.name = name
        self.graph_name = graph_name
        self.specs = MappingProxyType(dict(specs))
        self.edges = tuple(edges)
        self.weights_kept = weights is not None
        self._weights = dict(weights or {})
        self.taken_at = time.time()

    @property
    def layers(self) -> Mapping[str, Mapping[str, Any]]:
        """{name: {"class_name", "config"}}, as Graph.layers shows them."""
        return MappingProxyType({n: MappingProxyType({"class_name": s.class_name,
                                                      "config": s.config})
                                 for n, s in self.specs.items()})

    def saved_weights(self, name: str) -> list:
        return list(self._weights.get(name, ()))

    @property
    def weight_bytes(self) -> int:
        return sum(w.nbytes for ws in self._weights.values() for w in ws)

    def __repr__(self) -> str:
        kept = "" if self.weights_kept else ", weights not kept"
        return (f"<kerascanvas.Snapshot {self.name!r} of {self.graph_name!r}: {len(self.specs)} layers, "
                f"{len(self.edges)} edges{kept}>")


def take(g, name: str | None = None, max_weight_bytes: int | None = None) -> Snapshot:
    """A Snapshot of Graph `g` now. max_weight_bytes: keep no weights when the drawing's weights
    are over it (None: always keep them)."""
    if name is not None and not isinstance(name, str):
        raise TypeError(f"A snapshot's name is a string, got {name!r:.80}.")
    names = g.live_names
    keep = max_weight_bytes is None or _live_bytes(g, names) <= max_weight_bytes
    weights = {n: [_owned(w) for w in weights_now(g, n)] for n in names} if keep else None
    return Snapshot(name or f"{g.name} (snapshot)", g.name, g.specs, g.edges, weights)


def weights_now(g, name: str) -> list[np.ndarray]:
    """The arrays box `name` of Graph g holds now, as g.saved_weights gives them, read faster:
    under TensorFlow a variable's numpy() runs two ops (a read and an identity); one read op does
    (2,000 layers: 3 times faster). The arrays are TensorFlow's own copies (a later assignment
    to the variable copies before it writes, as a tensor still refers to the value)."""
    layer = g.live_layer(name)
    if layer is None:
        return g.saved_weights(name)
    if _READ is None:  # each value read as an array (get_weights goes through an __array__
        # that NumPy 2 warns about under JAX and torch: a DeprecationWarning at every import)
        return [_array(v.value) for v in getattr(layer, "weights", ())]
    arrays = []
    for v in getattr(layer, "weights", ()):  # (a keras.ops operation has none)
        inner = v.value
        try:
            arrays.append(_READ(resource=inner.handle, dtype=inner.dtype).numpy())
        except AttributeError:  # (not a resource variable)
            return g.saved_weights(name)
    return arrays


def _fast_read():
    """TensorFlow's read op, or None under another backend."""
    import keras

    if keras.backend.backend() != "tensorflow":
        return None
    import tensorflow as tf

    return tf.raw_ops.ReadVariableOp


_READ = _fast_read()


def _live_bytes(g, names) -> int:
    """The bytes of the live layers' weights, read off the variables (nothing is copied)."""
    total = 0
    for n in names:
        for v in getattr(g.live_layer(n), "weights", ()):
            total += int(np.prod(v.shape, dtype=np.int64)) * np.dtype(_dtype_name(v)).itemsize
    return total


def _dtype_name(variable) -> str:
    name = str(getattr(variable, "dtype", "float32"))
    try:
        np.dtype(name)
        return name
    except TypeError:  # (bfloat16 and the like: count them as two bytes)
        return "float16"


def _array(value) -> np.ndarray:
    """A JAX or torch value as a NumPy array (torch's own numpy(): np.array of a tensor goes
    through its __array__, which takes no copy argument)."""
    import keras

    detach = getattr(value, "detach", None)
    if detach is not None:
        try:
            return detach().cpu().numpy()
        except TypeError:  # (a dtype NumPy has not: bfloat16)
            pass
    return keras.ops.convert_to_numpy(value)


def _owned(array) -> np.ndarray:
    """An array no live variable shares (under torch, numpy() is a view of the tensor, which an
    optimizer step changes in place; TensorFlow's read copies: see weights_now)."""
    array = np.asarray(array)
    return array if array.flags.owndata or _READ is not None else array.copy()
