"""What the benchmarks share: the line saying where they ran, timing an import against plain
Keras, and the residual graph they time."""

from __future__ import annotations

import copy
import gc
import os
import platform
import statistics
import time

import kerascanvas as kc


def machine() -> str:
    """Keras's version and backend, Python's, and the load average: each benchmark's first line."""
    import keras

    return (f"keras {keras.__version__}, backend {keras.backend.backend()}, python "
            f"{platform.python_version()}, load average {os.getloadavg()[0]:.1f}")


def import_times(model, rounds: int) -> tuple[float, float]:
    """Median seconds of `keras.Model.from_config` of the model's config and of
    `kc.Graph.from_model(model).model` (weights copied, model built): one warm-up, then `rounds`
    interleaved rounds with the garbage collector paused."""
    import keras

    config = model.get_config()
    copies = [copy.deepcopy(config) for _ in range(rounds + 1)]  # from_config consumes its dict

    def plain():
        return keras.Model.from_config(copies.pop())

    def drawn():
        return kc.Graph.from_model(model).model

    plain(), drawn()  # warm-up
    times = {"plain": [], "drawn": []}
    for _ in range(rounds):  # interleaved
        for label, fn in (("plain", plain), ("drawn", drawn)):
            gc.disable()
            start = time.perf_counter()
            fn()
            times[label].append(time.perf_counter() - start)
            gc.enable()
    return statistics.median(times["plain"]), statistics.median(times["drawn"])


def residual(n_blocks: int, g: kc.Graph | None = None, **dense) -> kc.Graph:
    """2 layers a block (Dense + Add, residual) after one input; `dense`: more Dense config."""
    g = g or kc.Graph()
    with g.batch():
        g.add_input((16,), name="x")
        h = "x"
        for i in range(n_blocks):
            d = g.add_layer("Dense", name=f"dense_{i}", units=16, **dense)
            g.connect(h, d)
            a = g.add_layer("Add", name=f"add_{i}")
            g.connect(h, a)
            g.connect(d, a)
            h = a
    return g
