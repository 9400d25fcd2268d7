"""On a lent GPU machine (no TensorFlow there): the canvas's Trainer (kerascanvas/training/ since
the house move, issue 39) trains a drawing on the GPU under KERAS_BACKEND=jax or torch, names the
device, and is timed against plain Keras's fit of the same model (median of 3 three-epoch fits
each, after a first fit that compiles). Carry Keras, namex and optree as wheels (.whl, see
on_a_gpu.sh) and run `KERAS_BACKEND=jax python3 benchmarks/trainer_on_a_gpu.py` there with
PYTHONPATH holding the wheels' folder and the checkout. QUICK=1 stops after the first fit."""
import gc
import os
import statistics
import sys
import time

import keras
import numpy as np

import kerascanvas as kc
from kerascanvas.datasets import digits
from kerascanvas.training import Trainer

backend = keras.backend.backend()
try:
    print("backend", backend, "devices", keras.distribution.list_devices())
except Exception as e:  # noqa: BLE001 - a machine without devices says so
    print("backend", backend, "list_devices failed:", type(e).__name__, e)
x, y = digits()
x = np.repeat(x, 8, axis=0).astype("float32"); y = np.repeat(y, 8, axis=0)
print("data", x.shape, y.shape, x.dtype, y.dtype)

def graph():
    g = kc.Graph()
    g.add_input(x.shape[1:], name="image")
    g.add_layer("Conv2D", filters=32, kernel_size=3, activation="relu", name="conv")
    g.add_layer("Flatten", name="flat")
    g.add_layer("Dense", units=64, activation="relu", name="hidden")
    g.add_layer("Dense", units=10, name="head")
    for a, b in [("image", "conv"), ("conv", "flat"), ("flat", "hidden"), ("hidden", "head")]:
        g.connect(a, b)
    return g

def canvas_fit(insights):
    t = Trainer(graph())
    t.set_data(x, y)
    start = time.perf_counter()
    t.fit(epochs=3, batch_size=64, loss=keras.losses.SparseCategoricalCrossentropy(from_logits=True), block=True, insights=insights)
    took = time.perf_counter() - start
    return took, t.status, t.history

def plain_fit():
    m = graph().model
    m = keras.Model.from_config(m.get_config())
    m.compile(optimizer="adam", loss=keras.losses.SparseCategoricalCrossentropy(from_logits=True))
    start = time.perf_counter()
    h = m.fit(x, y, epochs=3, batch_size=64, verbose=0)
    return time.perf_counter() - start, h.history

took, status, history = canvas_fit(True)
print("first canvas fit (insights on):", round(took, 2), "s; status", status["state"], "device:", status["device"])
print("history", {k: [round(v, 4) for v in vs] for k, vs in history.items()})
assert status["state"] == "finished", status
assert all(np.isfinite(v).all() for v in history.values())
assert "gpu" in str(status["device"]).lower() or "cuda" in str(status["device"]).lower(), status["device"]
if os.environ.get("QUICK"): sys.exit(0)
gc.disable()
rounds = {"canvas": [], "canvas_no_insights": [], "plain": []}
for _ in range(3):
    rounds["plain"].append(plain_fit()[0])
    rounds["canvas"].append(canvas_fit(True)[0])
    rounds["canvas_no_insights"].append(canvas_fit(False)[0])
gc.enable()
med = {k: statistics.median(v) for k, v in rounds.items()}
print("median s per 3-epoch fit:", {k: round(v, 3) for k, v in med.items()},
      "ratio canvas/plain", round(med["canvas"] / med["plain"], 3),
      "no insights/plain", round(med["canvas_no_insights"] / med["plain"], 3))
print("OK", backend)
