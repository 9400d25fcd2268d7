"""Where the time of benchmark (a) goes: Keras's own work against kerascanvas's (issue 22).

    .venv/bin/python benchmarks/bench_edit_split.py [--rounds 11]

The 200-layer residual graph of bench_graph.py built three ways (plain Keras, kc.Graph edit by
edit, kc.Graph in one batch), with timers around Keras's own work: making the layers (for
kc.Graph, `LayerKind.build`, which holds the constructor and kerascanvas's argument checks),
calling them with their variables' initialization (`Layer.__call__`, and `limits.counted`'s exit,
where kerascanvas initializes the variables it deferred), and `keras.Model`. What is left of a
build's time is the Python around those: in plain Keras, the benchmark's loop; in kc.Graph, its
edits, transactions and undo steps. Medians over interleaved rounds, garbage collector paused.
"""

from __future__ import annotations

import argparse
import functools
import gc
import inspect
import statistics
import time
from collections import Counter

import bench_graph as bench
import keras
from keras.src.layers.layer import Layer
from keras.src.models.functional import Functional

from kerascanvas import limits
from kerascanvas.kinds import catalog

spent: Counter = Counter()
depth: Counter = Counter()


class timer:
    def __init__(self, label: str):
        self.label = label

    def __enter__(self):
        depth[self.label] += 1
        self.start = time.perf_counter()

    def __exit__(self, *exc):
        depth[self.label] -= 1
        spent[self.label] += time.perf_counter() - self.start


def wrap(owner, attr: str, label: str) -> None:
    """Time `owner.attr` under `label` (the outermost call only)."""
    original = getattr(owner, attr)

    @functools.wraps(original)
    def timed(*args, **kwargs):
        if depth[label]:
            return original(*args, **kwargs)
        with timer(label):
            return original(*args, **kwargs)

    timed.__signature__ = inspect.signature(original)  # Keras reads constructor signatures
    setattr(owner, attr, timed)


def plain():
    """bench_graph.plain_residual with the constructors timed apart."""
    with timer("make layers"):
        x = keras.Input((bench.WIDTH,), name="x")
    h = x
    for i in range(bench.BLOCKS):
        with timer("make layers"):
            dense = keras.layers.Dense(bench.WIDTH, activation="relu", name=f"dense_{i}")
        d = dense(h)
        with timer("make layers"):
            add = keras.layers.Add(name=f"add_{i}")
        h = add([h, d])
    return keras.Model(x, h, name="model")


LABELS = ("make layers", "call (+ variables)", "keras.Model")


def main(argv=None):
    parser = argparse.ArgumentParser()
    parser.add_argument("--rounds", type=int, default=11)
    args = parser.parse_args(argv)
    wrap(Layer, "__call__", "call (+ variables)")
    wrap(limits.counted, "__exit__", "call (+ variables)")  # deferred variables initialized
    wrap(Functional, "__init__", "keras.Model")
    wrap(catalog.LayerKind, "build", "make layers")
    builds = {"plain Keras": plain, "kc.Graph edit by edit": bench.graph_residual,
              "kc.Graph batch": bench.graph_residual_batch}
    for build in builds.values():
        build()
    rows = {label: [] for label in builds}
    for _ in range(args.rounds):
        for label, build in builds.items():
            spent.clear()
            gc.disable()
            start = time.perf_counter()
            build()
            total = time.perf_counter() - start
            gc.enable()
            row = {key: spent[key] for key in LABELS}
            row["total"], row["the rest (Python around Keras)"] = total, total - sum(row.values())
            rows[label].append(row)
    print(f"keras {keras.__version__}, backend {keras.backend.backend()}; ms, medians of "
          f"{args.rounds} rounds")
    print(f"{'':32}" + "".join(f"{label:>24}" for label in builds))
    for key in ("total", *LABELS, "the rest (Python around Keras)"):
        print(f"{key:32}" + "".join(f"{statistics.median(r[key] for r in rows[label]) * 1e3:24.1f}"
                                     for label in builds))


if __name__ == "__main__":
    main()
