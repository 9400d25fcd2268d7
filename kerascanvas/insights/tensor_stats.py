"""Small summaries of many tensors, computed where the tensors live (keras.ops).

Tensors of the same size are stacked and summarized together, one row each, so a record costs
a few operations per distinct size instead of about 30 per tensor: a 50-layer residual model
has 52 weights and 51 outputs but only a handful of sizes. Under torch, which runs these
operations one by one, that is the difference between about 3,000 calls and about 150; under
TensorFlow and JAX it makes a smaller program to compile. (A row's statistics read its tensor's
values flattened, so shapes need not match: a (3, 3, 16, 1) kernel and a (144,) bias share a
group. MobileNetV2 has 38 weight shapes and 31 sizes: under JAX on a 2-core CPU its record's
XLA compile took 9.9 s instead of 10.9, its first record 14.0 s instead of 14.6.)

Each summary row holds the FIELDS, then BINS histogram counts over [min, max] of the finite
values (non-finite values count as zero there and in the statistics, and are counted apart).
"""

from __future__ import annotations

import math
from typing import Any

import keras
import numpy as np
from keras import ops

BINS = 16
FIELDS = ("mean", "std", "norm", "min", "max", "zeros", "non_finite")
WIDTH = len(FIELDS) + BINS
# Values stacked into one matrix at most (4 MB): stacking saves operations on many small
# tensors, but copies what it stacks and makes temporaries as big; on a large model that was
# several copies of its weights at once. Bigger tensors are summarized one by one, uncopied.
STACK_VALUES = 1 << 20


def groups(tensors, by_units: bool = False) -> list[list[int]]:
    """Positions of the tensors grouped by size (with `by_units`, by size and last axis: the
    units `dead_units` reads), in the order the groups first appear; a group holds at most
    STACK_VALUES values in all (a tensor bigger than that is a group of its own)."""
    found: dict[tuple, list[list[int]]] = {}
    for i, t in enumerate(tensors):
        shape = tuple(t.shape)
        size = shape if None in shape else math.prod(shape)  # (a shape not known: by shape)
        key = (size, shape[-1] if by_units and len(shape) > 1 else None)
        chunks = found.setdefault(key, [[]])
        if chunks[-1] and isinstance(size, int) and (len(chunks[-1]) + 1) * size > STACK_VALUES:
            chunks.append([])
        chunks[-1].append(i)
    return [chunk for chunks in found.values() for chunk in chunks]


def stacked(tensors, group, copy: bool = True) -> Any:
    """The group's tensors as the rows of one float32 matrix: a fresh copy, or with
    copy=False the tensor itself reshaped where the group has one (a big tensor: no copy)."""
    members = [tensors[i] for i in group]
    if len(members) == 1 and not copy:
        rows = ops.reshape(members[0], (1, -1))
    else:
        if len({tuple(t.shape) for t in members}) > 1:  # (the same size in other shapes)
            members = [ops.reshape(t, (-1,)) for t in members]
        rows = ops.reshape(ops.stack(members), (len(group), -1))
    return rows if str(rows.dtype).endswith("float32") else ops.cast(rows, "float32")


def in_order(parts, layout_groups) -> Any:
    """Row matrices made group by group, put back in the tensors' own order (one matrix)."""
    rows = ops.concatenate(parts, axis=0)
    order = [i for g in layout_groups for i in g]
    if order == sorted(order):
        return rows
    return ops.take(rows, np.argsort(order).astype("int32"), axis=0)


def summaries(rows) -> Any:
    """[k, WIDTH]: each row's FIELDS then its histogram."""
    finite = ops.isfinite(rows)
    bad = ops.sum(ops.cast(ops.logical_not(finite), "float32"), axis=1)
    rows = ops.where(finite, rows, ops.zeros_like(rows))
    lo, hi = ops.min(rows, axis=1), ops.max(rows, axis=1)
    width = ops.maximum(hi - lo, 1e-12)
    index = ops.floor((rows - ops.expand_dims(lo, 1)) / ops.expand_dims(width, 1) * BINS)
    index = ops.cast(ops.clip(index, 0, BINS - 1), "int32")
    head = ops.stack([ops.mean(rows, axis=1), ops.std(rows, axis=1), norms(rows), lo, hi,
                      ops.mean(ops.cast(ops.equal(rows, 0.0), "float32"), axis=1), bad], axis=1)
    return ops.concatenate([head, _counts(index)], axis=1)


def norms(rows) -> Any:
    """Each row's Euclidean norm: [k]."""
    return ops.sqrt(ops.sum(rows * rows, axis=1))


def dead_units(rows, units: int, share: float) -> Any:
    """Rows of same-shape outputs whose last axis has `units` units: how many units of each are
    zero on at least `share` of its values: [k]."""
    k = int(rows.shape[0])
    zero = ops.mean(ops.cast(ops.equal(ops.reshape(rows, (k, -1, units)), 0.0), "float32"),
                    axis=1)
    return ops.sum(ops.cast(zero >= share, "float32"), axis=1)


def _counts(index) -> Any:
    """How many of each row's bin indices fall in each of the BINS bins: [k, BINS], one pass
    over all rows (row r's bins are numbered r * BINS + bin)."""
    k = int(index.shape[0])
    flat = ops.reshape(index + ops.expand_dims(ops.arange(k, dtype="int32") * BINS, 1), (-1,))
    # A bincount: on TensorFlow about half the time of segment_sum, on torch without its
    # copies of the ids. JAX needs the length given to compile it (keras.ops cannot say it).
    if keras.backend.backend() == "jax":
        import jax.numpy as jnp

        counts = jnp.bincount(flat, length=k * BINS)
    else:
        counts = ops.bincount(flat, minlength=k * BINS)
    return ops.reshape(ops.cast(counts, "float32"), (k, BINS))
