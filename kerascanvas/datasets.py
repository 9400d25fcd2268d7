"""Small real data sets shipped inside the package, so that examples and tests train on real data
without downloading anything. Only NumPy is needed to load them."""

from __future__ import annotations

import gzip
from importlib import resources

import numpy as np

__all__ = ["digits"]


def digits() -> tuple[np.ndarray, np.ndarray]:
    """1,797 hand-written digits (UCI, as bundled with scikit-learn; see kerascanvas/data/README.md).

    Returns `(x, y)`: `x` float32 of shape (1797, 8, 8, 1) scaled to [0, 1] (the raw pixels count
    0..16), `y` int64 labels 0..9 of shape (1797,).
    """
    source = resources.files("kerascanvas") / "data" / "digits.csv.gz"
    with source.open("rb") as raw, gzip.open(raw, "rt") as text:
        table = np.loadtxt(text, delimiter=",", dtype=np.float32)
    x = (table[:, :64] / 16.0).reshape(-1, 8, 8, 1).astype(np.float32)
    y = table[:, 64].astype(np.int64)
    return x, y
