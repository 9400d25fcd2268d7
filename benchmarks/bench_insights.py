"""Training insights' cost.

`--flow user` (the default; issue 45): as a user meets it, on a 16-32-32-3 MLP, 16,384 samples,
batch 64, three epochs: a new canvas and one fit, then an edit (the middle Dense 32 -> 40 units:
a structural change, a new model) and a fit, then a fit again (steady state), each beside the
same fit with plain `model.fit` on a new (or, for steady state, the same) Keras model and beside
the anchor, Keras's TensorBoard callback with histogram_freq=1 writing to a temporary folder.
Every round makes new models for all of them, the variants rotating which goes first; reported:
medians of wall times and of per-round ratios (plain / variant: neighbours share the machine's
load), and which epochs the canvas recorded. A new model's records may land after its fit returns
(their program still being made: insights/late.py): the new canvas's time is its fit's, and how
long after it its records were in is reported apart (untimed, before the next step: a person
edits seconds later; a fit started sooner waits for them), and the same after the edit's fit.

    .venv/bin/python benchmarks/bench_insights.py --flow user --rounds 5
    KERAS_BACKEND=jax .venv/bin/python benchmarks/bench_insights.py --flow user

`--flow trainer` (issue 45): the Trainer's own cost in steady state (insights off), a canvas
fitting again against plain `fit` again, at one batch, one epoch and three epochs; and, as the
two fits' ratio moves by more than 3% on a shared machine, the Trainer's own code timed by the
clock around it (`own_time`) as a share of the fit.

`--flow steady` (issue 21): throughput of `Trainer.fit` with insights recorded
(weights, gradients on the probe batch, activations, once per epoch) against plain `model.fit`,
and against `Trainer.fit(insights=False)`, and of `canvas.fit` with insights (the Train button's
path: the canvas's training updates and live strips included; no browser is attached, so
messages are built but go nowhere), on the digits CNN of bench_training.py and on a 50-layer
residual model, in one process.

    .venv/bin/python benchmarks/bench_insights.py [--rounds 5] [--epochs 2] [--repeat 4]
    KERAS_BACKEND=jax .venv/bin/python benchmarks/bench_insights.py

Plain `model.fit` runs in a thread of its own, as the Trainer's does (see run_plain). Each
variant is warmed up once (tracing and compiling, the insights program included), then
rounds rotate which goes first; the garbage collector is paused while timing. Reported per model:
the median of per-round ratios (plain time / insights time: neighbouring runs share the
machine's state) and the ratio of the best rounds, and the time one record takes.

Two ratios: the whole fit (what one press of Train costs, fixed per-fit work included: it
weighs most on short fits), and the steady state per epoch (the median time from one epoch's
end to the next, epochs after the first, the record included: what a long run pays). `--repeat`
sets the epoch's length (the digits repeated: 4 gives 7,188 samples, 225 batches).
"""

from __future__ import annotations

import argparse
import gc
import os
import platform
import statistics
import sys
import threading
import time
from pathlib import Path

import keras
import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))

from bench_training import drawn_graph as digits_graph
from bench_training import plain_model as digits_plain

import kerascanvas as kc
from kerascanvas.datasets import digits
from kerascanvas.insights import insights, recording
from kerascanvas.training.trainer import Trainer, device_description

BLOCKS = 24  # 24 x (Dense, Add) + Flatten, stem and head: 51 layers


def residual_plain() -> keras.Model:
    image = keras.Input((8, 8, 1), name="image")
    h = keras.layers.Flatten(name="flatten")(image)
    h = keras.layers.Dense(64, activation="relu", name="dense")(h)
    for i in range(BLOCKS):
        f = keras.layers.Dense(64, activation="relu", name=f"dense_{i + 1}")(h)
        h = keras.layers.Add(name="add" if i == 0 else f"add_{i}")([h, f])
    out = keras.layers.Dense(10, name=f"dense_{BLOCKS + 1}")(h)
    model = keras.Model(image, out, name="model")
    model.compile(optimizer=keras.optimizers.Adam(1e-3),
                  loss=keras.losses.SparseCategoricalCrossentropy(from_logits=True),
                  metrics=["accuracy"])
    return model


def residual_graph() -> kc.Graph:
    g = kc.Graph()
    with g.batch():
        g.add_input((8, 8, 1), name="image")
        g.add_layer("Flatten")
        g.add_layer("Dense", units=64, activation="relu")
        g.connect("image", "flatten")
        g.connect("flatten", "dense")
        h = "dense"
        for i in range(BLOCKS):
            f = g.add_layer("Dense", units=64, activation="relu")
            a = g.add_layer("Add")
            g.connect(h, f)
            g.connect(h, a)
            g.connect(f, a)
            h = a
        head = g.add_layer("Dense", units=10)
        g.connect(h, head)
    return g


def timed(fn) -> tuple[float, float]:
    """(wall seconds, CPU seconds of this process) of one call: on a shared machine the CPU time
    is the steadier figure (other jobs slow the wall clock, not the work done)."""
    gc.collect()
    gc.disable()
    try:
        start, cpu = time.perf_counter(), time.process_time()
        fn()
        return time.perf_counter() - start, time.process_time() - cpu
    finally:
        gc.enable()


class EpochClock(keras.callbacks.Callback):
    """When each epoch ended (after every other callback's epoch end: the record included)."""

    def __init__(self):
        super().__init__()
        self.ends: list[float] = []

    def on_train_begin(self, logs=None):
        self.ends = []

    def on_epoch_end(self, epoch, logs=None):
        self.ends.append(time.perf_counter())

    def steady(self) -> float | None:
        """Median seconds between epoch ends, from the first epoch's end on."""
        gaps = [b - a for a, b in zip(self.ends, self.ends[1:])]
        return statistics.median(gaps) if gaps else None


def measure(name: str, plain: keras.Model, graph: kc.Graph, x, y, args) -> None:
    fit = {"epochs": args.epochs, "batch_size": args.batch_size}
    clock = EpochClock()
    trainer = Trainer(graph)
    trainer.set_data(x, y)
    costs: list[float] = []
    record = recording.Recorder._record

    def timed_record(self, *a, **k):
        start = time.perf_counter()
        record(self, *a, **k)
        costs.append(time.perf_counter() - start)

    recording.Recorder._record = timed_record
    finish = recording.Recorder._finish_record
    full: list[float] = []  # from a record's start until its numbers are in the store

    def timed_finish(self, measure_, vector, epoch, partial, started):
        finish(self, measure_, vector, epoch, partial, started)
        full.append(time.monotonic() - started)

    recording.Recorder._finish_record = timed_finish

    def run_plain():  # in a thread of its own, as the Trainer runs fit: under torch on these
        # machines a fit in the main thread ran 10 to 30 times slower than the same fit in a
        # thread (its intra-op thread pool), which would flatter the Trainer
        in_a_thread(lambda: plain.fit(x, y, verbose=0, callbacks=[clock], **fit))

    def run_trainer(on: bool):
        def run():
            trainer.fit(optimizer="adam", learning_rate=1e-3, metrics=["accuracy"], block=True,
                        insights=on, callbacks=[clock], **fit)
            assert trainer.status["state"] == "finished", trainer.status
        return run

    canvas = kc.Canvas(graph)  # the Train button's path: the canvas's updates and strips too
    canvas.trainer.set_data(x, y)

    def run_canvas():
        canvas.fit(optimizer="adam", learning_rate=1e-3, metrics=["accuracy"], insights=True,
                   callbacks=[clock], **fit)
        assert canvas.trainer.status["state"] == "finished", canvas.trainer.status

    variants = {"plain": run_plain, "off": run_trainer(False), "on": run_trainer(True),
                "canvas": run_canvas}
    for run in variants.values():
        run()  # warm-up: trace and compile each (the insights program too)
    costs.clear()
    full.clear()
    times: dict[str, list[float]] = {k: [] for k in variants}
    cpu: dict[str, list[float]] = {k: [] for k in variants}
    epochs: dict[str, list[float | None]] = {k: [] for k in variants}
    names = list(variants)
    for r in range(args.rounds):
        for k in names[r % len(names):] + names[:r % len(names)]:
            wall, used = timed(variants[k])
            times[k].append(wall)
            cpu[k].append(used)
            epochs[k].append(clock.steady())
    recording.Recorder._record = record
    recording.Recorder._finish_record = finish

    def pair(a, b, of=times):
        return statistics.median(p / q for p, q in zip(of[a], of[b]))

    samples = len(x) * args.epochs
    records = insights.of(graph).records()
    print(f"\n{name}: {len(graph.layers)} layers, {plain.count_params():,} parameters, "
          f"{len(x)} samples x {args.epochs} epochs, batch {args.batch_size}, "
          f"{args.rounds} rounds; {sum(len(v) for v in records.values())} records kept")
    for k in names:
        print(f"  {k:5} samples/s per round: "
              f"{', '.join(f'{samples / t:,.0f}' for t in times[k])}")
    print(f"  insights on / plain model.fit: median of per-round ratios "
          f"{pair('plain', 'on'):.3f}, best rounds {min(times['plain']) / min(times['on']):.3f}"
          f"  (goal >= 0.95)")
    print(f"  canvas.fit (the Train button's path) with insights / plain model.fit: median of "
          f"per-round ratios {pair('plain', 'canvas'):.3f}, best rounds "
          f"{min(times['plain']) / min(times['canvas']):.3f}  (goal >= 0.95)")
    print(f"  insights on / Trainer without insights: median of per-round ratios "
          f"{pair('off', 'on'):.3f}, best rounds {min(times['off']) / min(times['on']):.3f}")
    print(f"  CPU time of the process: insights on / plain {pair('plain', 'on', cpu):.3f}, "
          f"on / off {pair('off', 'on', cpu):.3f} (median of per-round ratios), "
          f"{', '.join(f'{k} {statistics.median(cpu[k]):.2f} s' for k in names)} (medians)")
    if args.epochs > 1:
        print(f"  steady state per epoch (epochs after the first), insights on / plain: median "
              f"of per-round ratios {pair('plain', 'on', epochs):.3f}; on / off "
              f"{pair('off', 'on', epochs):.3f}; off / plain {pair('plain', 'off', epochs):.3f}; "
              f"epoch medians (ms): "
              f"{', '.join(f'{k} {statistics.median(epochs[k]) * 1000:.0f}' for k in names)}")
    print(f"  whole fit, Trainer without insights / plain: median of per-round ratios "
          f"{pair('plain', 'off'):.3f}; load average now {os.getloadavg()[0]:.2f}")
    print(f"  one record: median {statistics.median(costs) * 1000:.1f} ms in the training "
          f"thread, {statistics.median(full) * 1000:.1f} ms until it is in the store, "
          f"{len(costs)} records; one epoch (plain): "
          f"{statistics.median(times['plain']) / args.epochs * 1000:.0f} ms")


MLP_SAMPLES, MLP_BATCH, MLP_EPOCHS = 16_384, 64, 3


def mlp_plain(middle: int) -> keras.Model:
    """The user flow's model in plain Keras, named as the canvas names its layers."""
    x = keras.Input((16,), name="x")
    h = keras.layers.Dense(32, activation="relu", name="dense")(x)
    h = keras.layers.Dense(middle, activation="relu", name="dense_1")(h)
    model = keras.Model(x, keras.layers.Dense(3, name="dense_2")(h))
    model.compile(optimizer=keras.optimizers.Adam(1e-3), loss=mlp_loss())
    return model


def mlp_loss():
    return keras.losses.SparseCategoricalCrossentropy(from_logits=True)


def mlp_canvas() -> kc.Canvas:
    g = kc.Graph()
    with g.batch():
        g.add_input((16,), name="x")
        g.add_layer("Dense", units=32, activation="relu")
        g.add_layer("Dense", units=32, activation="relu")
        g.add_layer("Dense", units=3)
        g.connect("x", "dense")
        g.connect("dense", "dense_1")
        g.connect("dense_1", "dense_2")
    return kc.Canvas(g, keep=False)


def in_a_thread(fn) -> None:
    """fn in a thread of its own, as the Trainer runs fit (see run_plain in `measure`); its
    error raised here (an anchor that failed at once once timed as faster than plain fit)."""
    failed: list[BaseException] = []

    def run():
        try:
            fn()
        except BaseException as e:  # noqa: BLE001 - raised again in the caller
            failed.append(e)

    thread = threading.Thread(target=run)
    thread.start()
    thread.join()
    if failed:
        raise failed[0]


def user_flow(args) -> None:
    import tempfile

    rng = np.random.default_rng(0)
    x = rng.normal(size=(MLP_SAMPLES, 16)).astype("float32")
    y = (x[:, :3].argmax(1)).astype("int64")  # (learnable: the loss falls)
    fit = {"epochs": MLP_EPOCHS, "batch_size": MLP_BATCH, "verbose": 0}
    logs = tempfile.TemporaryDirectory()
    held: dict[str, object] = {}  # models and canvases a round's later steps reuse
    recorded: list[list[float]] = []
    # seconds from a new model's fit's return to its records in
    landing: dict[str, list[float]] = {"canvas_new": [], "canvas_edit": []}

    def plain(middle, again=False):
        def run():
            model = held["steady"] if again else mlp_plain(middle)
            in_a_thread(lambda: model.fit(x, y, **fit))
            held["steady"] = model
        return run

    def anchor():
        model = mlp_plain(32)
        board = keras.callbacks.TensorBoard(log_dir=tempfile.mkdtemp(dir=logs.name),
                                            histogram_freq=1)
        in_a_thread(lambda: model.fit(x, y, callbacks=[board], **fit))

    def canvas_fit(canvas, on=True):
        canvas.fit(optimizer="adam", learning_rate=1e-3, loss=held["loss"], insights=on,
                   epochs=MLP_EPOCHS, batch_size=MLP_BATCH)
        assert canvas.trainer.status["state"] == "finished", canvas.trainer.status

    def canvas_new():  # (the fit, until canvas.fit returns: its records may land after)
        canvas = held["canvas"] = mlp_canvas()
        canvas.set_data(x, y)
        canvas_fit(canvas)

    def landed(k):
        """After a timed fit of a new model: how long until its records are in (canvas.insights
        waits for records still waiting for their program), and which epochs."""
        started = time.perf_counter()
        epochs = sorted({r["epoch"] for r in held["canvas"].insights["dense"]})
        landing[k].append(time.perf_counter() - started)
        if k == "canvas_new":
            recorded.append(epochs)

    def canvas_edit():  # (times the edit too: what a user waits for)
        canvas = held["canvas"]
        canvas.graph.configure("dense_1", units=40)
        canvas_fit(canvas)

    def canvas_steady(on):
        return lambda: canvas_fit(held["canvas"], on)

    held["loss"] = mlp_loss()
    # (in this order within a round: each step reuses the one before; "plain again" reuses
    # plain_new's model)
    variants = {"plain_new": plain(32), "anchor_new": anchor, "canvas_new": canvas_new,
                "plain_edit": plain(40), "canvas_edit": canvas_edit,
                "plain_again": plain(40, again=True), "canvas_again": canvas_steady(True),
                "canvas_again_off": canvas_steady(False)}
    for k, run in variants.items():
        run()  # warm-up: Keras's and TensorFlow's own first-use costs (not the model's)
        if k in ("canvas_new", "canvas_edit"):
            landed(k)
    recorded.clear()
    for k in landing:
        landing[k].clear()
    times: dict[str, list[float]] = {k: [] for k in variants}
    pairs = [("plain_new", "anchor_new"), ("plain_edit", "canvas_edit"),
             ("plain_again", "canvas_again")]
    for r in range(args.rounds):
        # rotate which goes first, each step after the one it builds on
        first = ["plain_new", "anchor_new", "canvas_new"]
        order = first[r % 3:] + first[:r % 3]
        order += [k for p in pairs[1:] for k in (p[::-1] if r % 2 else p)]
        order += ["canvas_again_off"]
        for k in order:
            wall, _ = timed(variants[k])
            times[k].append(wall)
            if k in ("canvas_new", "canvas_edit"):  # (untimed; the next step comes once
                landed(k)                                # they are in)

    def ratio(a, b):
        return statistics.median(p / q for p, q in zip(times[a], times[b]))

    print(f"\nuser flow: 16-32-32-3 MLP, {MLP_SAMPLES:,} samples x {MLP_EPOCHS} epochs, batch "
          f"{MLP_BATCH}, {args.rounds} rounds; load average now {os.getloadavg()[0]:.2f}")
    for k in variants:
        print(f"  {k:17} median {statistics.median(times[k]):.3f} s  "
              f"({', '.join(f'{t:.2f}' for t in times[k])})")
    print(f"  new canvas, one fit (insights on) / plain fit of a new model: "
          f"{ratio('plain_new', 'canvas_new'):.3f}  (goal >= 0.9)")
    print(f"  TensorBoard anchor (histogram_freq=1) / plain: {ratio('plain_new', 'anchor_new'):.3f}"
          f"; canvas / anchor: {ratio('anchor_new', 'canvas_new'):.3f} (> 1: ahead of it)")
    print(f"  edit then fit / plain fit of the edited model (new): "
          f"{ratio('plain_edit', 'canvas_edit'):.3f}  (goal >= 0.9)")
    print(f"  steady state, insights on / plain fit again: {ratio('plain_again', 'canvas_again'):.3f}"
          f"; insights off (the Trainer's own) / plain: "
          f"{ratio('plain_again', 'canvas_again_off'):.3f}")
    print(f"  epochs recorded on a new canvas's fit: {recorded}")
    for k, seconds in landing.items():
        print(f"  {k}: its records in after its fit returned (a new model's record program "
              f"still being made): {', '.join(f'{t:.2f}' for t in seconds)} s")
    logs.cleanup()


def trainer_flow(args) -> None:
    """The Trainer's own cost in steady state (issue 45): a canvas fitting again with insights
    off against plain `fit` again of one Keras model (in a thread, as the Trainer runs it),
    interleaved, at three fit lengths: one batch (all fixed per-fit work: the undo snapshot,
    checks, the run's record and updates), one epoch and three epochs of the user flow's MLP."""
    rng = np.random.default_rng(0)
    x = rng.normal(size=(MLP_SAMPLES, 16)).astype("float32")
    y = (x[:, :3].argmax(1)).astype("int64")
    canvas, loss, plain = mlp_canvas(), mlp_loss(), mlp_plain(32)
    canvas.set_data(x, y)
    print(f"\nthe Trainer's own cost: 16-32-32-3 MLP, {MLP_SAMPLES:,} samples, insights off, "
          f"{args.rounds * 2} rounds each")
    for label, epochs, batch in (("one batch", 1, MLP_SAMPLES), ("one epoch", 1, MLP_BATCH),
                                 (f"{MLP_EPOCHS} epochs", MLP_EPOCHS, MLP_BATCH)):
        def run_plain(epochs=epochs, batch=batch):
            in_a_thread(lambda: plain.fit(x, y, epochs=epochs, batch_size=batch, verbose=0))

        def run_canvas(epochs=epochs, batch=batch):
            canvas.fit(optimizer="adam", learning_rate=1e-3, loss=loss, insights=False,
                       epochs=epochs, batch_size=batch)

        for run in (run_plain, run_canvas):
            run()  # warm-up: this length's dataset and steps
        times: dict[str, list[float]] = {"plain": [], "canvas": []}
        for r in range(args.rounds * 2):
            order = (("plain", run_plain), ("canvas", run_canvas))
            for k, run in order[::-1] if r % 2 else order:
                times[k].append(timed(run)[0])
        ratio = statistics.median(p / c for p, c in zip(times["plain"], times["canvas"]))
        extra = statistics.median(c - p for p, c in zip(times["plain"], times["canvas"]))
        # (plain fit's own harness, a thread started and joined, counted the same way and
        # taken off: the Trainer starts its thread as plain fit's run here does)
        harness = statistics.median(own_time(run_plain)[0] for _ in range(args.rounds))
        own = [(o - harness, w) for o, w in (own_time(run_canvas) for _ in range(args.rounds))]
        print(f"  {label:9}: plain {statistics.median(times['plain']):.3f} s, canvas "
              f"{statistics.median(times['canvas']):.3f} s; plain / canvas {ratio:.3f} "
              f"(goal >= 0.97), {extra * 1000:+.1f} ms a fit")
        print(f"             the Trainer's own code: median {statistics.median(o for o, _ in own) * 1000:.1f} ms "
              f"of a {statistics.median(w for _, w in own):.3f} s fit = "
              f"{statistics.median(o / w for o, w in own) * 100:.2f}% (goal <= 3%; "
              f"{', '.join(f'{o / w * 100:.2f}' for o, w in own)}; plain fit's thread "
              f"{harness * 1000:.1f} ms taken off)")


def own_time(run_canvas) -> tuple[float, float]:
    """(seconds spent in the Trainer's own code, the fit's wall seconds) of one `run_canvas()`:
    the fit's wall time less Keras's `fit` call in the training thread (the checks, compile
    check, undo snapshot, thread start, the run's sealing and last update), plus the CPU time
    of the Trainer's callbacks inside it (all of them, in whichever thread: the batch ends run
    in Keras's executor beside training; their wall time there counts waits for the
    interpreter lock while training holds it, which is not their cost).
    Counted by the clock around each call, not by comparing two noisy fits: on this shared
    2-core machine neighbouring fits vary by more than the 3% goal."""
    from kerascanvas.training import trainer as trainer_module

    spent = [0.0]
    patched = {}

    calls = [0]

    def clocked(fn):  # (the CPU time of the calling thread: not its waits for the GIL)
        def call(*a, **k):
            calls[0] += 1
            start = time.thread_time()
            try:
                return fn(*a, **k)
            finally:
                spent[0] += time.thread_time() - start
        return call

    # the clock's own cost per call (two clock reads: a system call each), taken off below
    noop, n = clocked(lambda: None), 20_000
    for _ in range(n):
        noop()
    clock_s, spent[0], calls[0] = spent[0] / n, 0.0, 0

    progress = trainer_module._Progress
    for name in [n for n in vars(progress) if n.startswith("on_")]:  # (the hooks it has)
        patched[(progress, name)] = progress.__dict__[name]
        setattr(progress, name, clocked(progress.__dict__[name]))
    keras_fit = [0.0]
    model_fit = keras.Model.__dict__.get("fit")

    def fit(self, *a, **k):
        start = time.perf_counter()
        try:
            return super(keras.Model, self).fit(*a, **k)
        finally:
            keras_fit[0] += time.perf_counter() - start

    keras.Model.fit = fit
    try:
        wall, _ = timed(run_canvas)
    finally:
        for (cls, name), fn in patched.items():
            setattr(cls, name, fn)
        if model_fit is None:
            del keras.Model.fit
        else:
            keras.Model.fit = model_fit
    return wall - keras_fit[0] + max(0.0, spent[0] - calls[0] * clock_s), wall


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--flow", choices=("user", "trainer", "steady"), default="user")
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--epochs", type=int, default=2)
    parser.add_argument("--repeat", type=int, default=4)
    parser.add_argument("--batch-size", type=int, default=32)
    parser.add_argument("--models", default="digits,residual")
    args = parser.parse_args()
    if args.flow in ("user", "trainer"):
        print(f"keras {keras.__version__}, backend {keras.backend.backend()}, python "
              f"{platform.python_version()}, device: {device_description()}")
        (user_flow if args.flow == "user" else trainer_flow)(args)
        return
    x, y = digits()
    x, y = np.concatenate([x] * args.repeat), np.concatenate([y] * args.repeat)
    print(f"keras {keras.__version__}, backend {keras.backend.backend()}, python "
          f"{platform.python_version()}, device: {device_description()}")
    models = {"digits": ("digits CNN", digits_plain, digits_graph),
              "residual": ("50-layer residual", residual_plain, residual_graph)}
    for key in args.models.split(","):
        name, plain, graph = models[key]
        measure(name, plain(), graph(), x, y, args)


if __name__ == "__main__":
    main()
