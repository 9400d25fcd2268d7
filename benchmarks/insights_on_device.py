"""Issue 21 on whatever device the backend trains on (a lent GPU): where a record's statistics
are computed, how many bytes one record moves to the host against the model's weights, and
the dead-ReLU problem named after a canvas fit (the issue's own check: a ReLU layer whose bias
starts far below zero). Prints one line per fact; exits 1 when one is wrong.

    KERAS_BACKEND=jax .venv/bin/python benchmarks/insights_on_device.py
"""

from __future__ import annotations

import sys

import keras
import numpy as np

import kerascanvas as kc
from kerascanvas.datasets import digits
from kerascanvas.insights import record_program
from kerascanvas.training.devices import device_description


def where(vector) -> str:
    """The device a record's vector was computed on (before it moves to the host)."""
    if hasattr(vector, "devices"):  # JAX
        return ",".join(str(d) for d in vector.devices())
    return str(getattr(vector, "device", "host"))  # torch / TensorFlow


def main() -> int:
    seen: list[tuple[str, int]] = []
    rows = record_program.Measure.rows

    def spied(self, vector):
        vector = vector() if callable(vector) else vector  # (TensorFlow's deferred program)
        seen.append((where(vector), int(np.prod(vector.shape)) * 4))
        return rows(self, vector)

    record_program.Measure.rows = spied
    g = kc.Graph()
    g.add_input((8, 8, 1), name="image")
    g.add_layer("Flatten")
    g.add_layer("Dense", units=64, activation="relu",
                bias_initializer={"class_name": "Constant", "config": {"value": -10.0}})
    g.add_layer("Dense", units=10)
    for src, dst in (("image", "flatten"), ("flatten", "dense"), ("dense", "dense_1")):
        g.connect(src, dst)
    canvas = kc.Canvas(g)
    canvas.set_data(*digits())
    canvas.fit(epochs=3, batch_size=32)
    weights = sum(int(np.prod(w.shape)) * 4 for w in canvas.graph.model.weights)
    problems = [p for p in canvas.insight_problems if p[0] == "dense"]
    print(f"keras {keras.__version__}, backend {keras.backend.backend()}, "
          f"device: {device_description()}")
    print(f"records computed on: {sorted({d for d, _ in seen})}; {len(seen)} records, "
          f"{seen[0][1]:,} bytes to the host each; the model's weights: {weights:,} bytes")
    print(f"epochs recorded for 'dense': {[r['epoch'] for r in canvas.insights['dense']]}")
    print(f"problems named for 'dense': {problems}")
    on_gpu = not device_description().startswith("CPU")
    ok = (bool(seen) and all(("cpu" not in d.lower()) == on_gpu for d, _ in seen)
          and any(kind == "dead_units" for _, kind, _, _ in problems))
    print("OK" if ok else "WRONG")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
