"""Training throughput: `Trainer.fit` (what canvas.fit and the Train button run: a background
thread, progress callbacks, an update subscriber) against plain `model.fit` on the same model and
data, in one process (issue 5: ratio at least 0.97).

    .venv/bin/python benchmarks/bench_training.py [--rounds 7] [--epochs 2] [--repeat 8]

The data are the shipped digits, repeated `--repeat` times. Both models have the same layers with
the same names and the same compile settings; each is warmed up once (tracing, compiling), then
rounds alternate which goes first (ABBA), the garbage collector is paused while timing. Reported,
for wall clock and for the process's CPU time: the ratio of the median speeds, the median of the
per-round ratios (neighbouring runs share the machine's state) and the ratio of the best rounds.
"""

from __future__ import annotations

import argparse
import gc
import platform
import statistics
import time

import keras
import numpy as np

import kerascanvas as kc
from kerascanvas.datasets import digits
from kerascanvas.training.trainer import Trainer, device_description


def plain_model() -> keras.Model:
    image = keras.Input((8, 8, 1), name="image")
    h = keras.layers.Conv2D(16, 3, padding="same", activation="relu", name="conv2d")(image)
    h = keras.layers.Flatten(name="flatten")(h)
    h = keras.layers.Dense(64, activation="relu", name="dense")(h)
    out = keras.layers.Dense(10, name="dense_1")(h)
    model = keras.Model(image, out, name="model")
    model.compile(optimizer=keras.optimizers.Adam(1e-3),
                  loss=keras.losses.SparseCategoricalCrossentropy(from_logits=True),
                  metrics=["accuracy"])
    return model


def drawn_graph() -> kc.Graph:
    g = kc.Graph()
    g.add_input((8, 8, 1), name="image")
    g.add_layer("Conv2D", filters=16, kernel_size=3, padding="same", activation="relu")
    g.add_layer("Flatten")
    g.add_layer("Dense", units=64, activation="relu")
    g.add_layer("Dense", units=10)
    for src, dst in (("image", "conv2d"), ("conv2d", "flatten"), ("flatten", "dense"),
                     ("dense", "dense_1")):
        g.connect(src, dst)
    return g


def timed(fn) -> tuple[float, float]:
    """(wall seconds, CPU seconds of this process, all threads) of one call."""
    gc.collect()
    gc.disable()
    try:
        wall, cpu = time.perf_counter(), time.process_time()
        fn()
        return time.perf_counter() - wall, time.process_time() - cpu
    finally:
        gc.enable()


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--rounds", type=int, default=7)
    parser.add_argument("--epochs", type=int, default=2)
    parser.add_argument("--repeat", type=int, default=8)
    parser.add_argument("--batch-size", type=int, default=32)
    parser.add_argument("--threads", type=int, default=0,
                        help="TensorFlow op threads (0: its default). 1 steadies the figures on "
                             "a small shared machine")
    args = parser.parse_args()
    if args.threads and keras.backend.backend() == "tensorflow":
        import tensorflow as tf

        tf.config.threading.set_intra_op_parallelism_threads(args.threads)
        tf.config.threading.set_inter_op_parallelism_threads(args.threads)

    x, y = digits()
    x, y = np.concatenate([x] * args.repeat), np.concatenate([y] * args.repeat)
    samples = len(x) * args.epochs
    fit = {"epochs": args.epochs, "batch_size": args.batch_size}

    model = plain_model()
    trainer = Trainer(drawn_graph())
    trainer.set_data(x, y)
    updates = []
    trainer.on_update(lambda snapshot: updates.append(time.monotonic()))

    def run_plain():
        model.fit(x, y, verbose=0, **fit)

    def run_canvas():
        trainer.fit(optimizer="adam", learning_rate=1e-3, metrics=["accuracy"], block=True, **fit)
        assert trainer.status["state"] == "finished", trainer.status

    run_plain()
    run_canvas()  # warm-up: trace and compile both
    wall = {"plain": [], "canvas": []}
    cpu = {"plain": [], "canvas": []}
    canvas_time = 0.0
    updates.clear()
    for r in range(args.rounds):
        order = [("plain", run_plain), ("canvas", run_canvas)]
        for name, run in order if r % 2 == 0 else order[::-1]:
            seconds, cpu_seconds = timed(run)
            wall[name].append(seconds)
            cpu[name].append(cpu_seconds)
            canvas_time += seconds if name == "canvas" else 0.0

    def speed(times):
        return statistics.median(samples / t for t in times)

    def best(times):  # the least disturbed run of each: interference only ever slows a run
        return min(times["plain"]) / min(times["canvas"])

    def pair_ratio(times):  # plain time / canvas time within each round: drift cancels
        return statistics.median(p / c for p, c in zip(times["plain"], times["canvas"]))

    print(f"keras {keras.__version__}, backend {keras.backend.backend()}, python "
          f"{platform.python_version()}, device: {device_description()}")
    print(f"{len(x)} samples x {args.epochs} epochs, batch {args.batch_size}, "
          f"{args.rounds} rounds (ABBA), TensorFlow op threads: {args.threads or 'default'}")
    for label, times in (("wall clock", wall), ("CPU time", cpu)):
        print(f"{label}: plain model.fit {speed(times['plain']):,.0f} samples/s, Trainer.fit "
              f"{speed(times['canvas']):,.0f} samples/s; ratio of medians "
              f"{speed(times['canvas']) / speed(times['plain']):.3f}, median of per-round "
              f"ratios {pair_ratio(times):.3f}, best round {best(times):.3f} (target >= 0.97)")
        for name in ("plain", "canvas"):
            print(f"  {name:6} rounds: {', '.join(f'{samples / t:,.0f}' for t in times[name])}")
    print(f"progress updates: {len(updates)} in {canvas_time:.1f} s of training "
          f"= {len(updates) / canvas_time:.1f} a second (limit 10, plus start and end of each run)")


if __name__ == "__main__":
    main()
