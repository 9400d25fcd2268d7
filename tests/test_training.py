"""Training (issue 5): real training on the shipped digits, stop, NaN, bad data, edits refused while
training, faults inside fit, throttled updates, devices, and 2 logical devices in a subprocess."""

from __future__ import annotations

import itertools
import json
import os
import re
import signal
import subprocess
import sys
import textwrap
import threading
import time
from pathlib import Path

import keras
import numpy as np
import pytest
from support import ok

import kerascanvas as kc
from kerascanvas.datasets import digits
from kerascanvas.training import trainer as training
from kerascanvas.training.trainer import DataError, Trainer, TrainingError

ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture(scope="module")
def data():
    return digits()


def mlp(units: int = 32, activation: str | None = "relu") -> kc.Graph:
    """image (8, 8, 1) -> Flatten -> Dense(units, activation) -> Dense(10) logits."""
    g = kc.Graph()
    g.add_input((8, 8, 1), name="image")
    g.add_layer("Flatten")
    g.add_layer("Dense", units=units, activation=activation)
    g.add_layer("Dense", units=10)
    g.connect("image", "flatten")
    g.connect("flatten", "dense")
    g.connect("dense", "dense_1")
    return g


def until(condition, timeout=20.0):
    end = time.monotonic() + timeout
    while not condition():
        assert time.monotonic() < end, "timed out"
        time.sleep(0.01)


def run_script(source: str, **env) -> dict:
    """Run Python in a fresh interpreter (device set-up must precede TensorFlow's own);
    the script prints one JSON line last."""
    done = subprocess.run([sys.executable, "-c", textwrap.dedent(source)], cwd=ROOT,
                          capture_output=True, text=True, timeout=240, check=False,
                          env={**os.environ, "TF_CPP_MIN_LOG_LEVEL": "3", **env})
    assert done.returncode == 0, done.stderr[-3000:]
    return json.loads(done.stdout.strip().splitlines()[-1])


# ----- the data set ------------------------------------------------------------------------------

def test_digits_ship_inside_the_package(data):
    x, y = data
    assert x.shape == (1797, 8, 8, 1) and x.dtype == np.float32
    assert x.min() == 0.0 and x.max() == 1.0
    assert y.shape == (1797,) and y.dtype.kind == "i"
    assert np.bincount(y).tolist() == [178, 182, 177, 183, 181, 182, 181, 179, 174, 180]
    assert (Path(kc.__file__).parent / "data" / "digits.csv.gz").is_file()


# ----- training for real ------------------------------------------------------------------------

def test_fit_lowers_the_loss_and_the_weights_stay_on_the_layers(data):
    x, y = data
    g = mlp()
    before = g.keras_layer("dense").get_weights()[0].copy()
    trainer = Trainer(g)
    trainer.set_data(x, y)
    assert trainer.data[0] is x and trainer.data[1] is y and trainer.data[2] is None
    history = trainer.fit(epochs=6, batch_size=32, learning_rate=3e-3, metrics=["accuracy"],
                          validation_split=0.2, block=True)
    losses = history.history["loss"]
    assert len(losses) == 6 and losses[-1] < 0.6 * losses[0]
    assert history.history["val_accuracy"][-1] > 0.8  # it learns the digits, not noise
    assert trainer.history == history.history
    status = trainer.status
    assert status["state"] == "finished" and status["epoch"] == 6 and status["epochs"] == 6
    assert status["batch"] == status["batches"] == 45  # 1437 training samples / 32
    assert status["device"] == training.device_description()
    assert status["loss"] == "sparse_categorical_crossentropy (from logits)"
    assert g.lock_reason is None and not trainer.running
    trained = g.keras_layer("dense").get_weights()[0]
    assert not np.allclose(trained, before)
    # A later edit downstream re-calls "dense" (its input shape is unchanged): weights survive.
    g.add_layer("Dense", units=3, name="extra")
    g.connect("dense_1", "extra")
    np.testing.assert_array_equal(g.model.get_layer("dense").get_weights()[0], trained)
    ok(g)


def test_a_second_fit_with_the_same_settings_continues_the_optimizer(data):
    x, y = data
    g = mlp()
    trainer = Trainer(g)
    trainer.set_data(x[:256], y[:256])
    trainer.fit(epochs=1, block=True)
    optimizer = g.model.optimizer
    trainer.fit(epochs=1, block=True)
    assert g.model.optimizer is optimizer and int(optimizer.iterations) == 16
    trainer.fit(epochs=1, learning_rate=0.01, block=True)  # a changed setting compiles again
    assert g.model.optimizer is not optimizer and int(g.model.optimizer.iterations) == 8


def test_runs_in_a_row_undo_to_the_weights_each_began_with_even_when_set_between(data):
    """Each run is one undo step holding the weights from before it. Under JAX a run that
    follows another reuses the host copy the first made of the weights it ended with (a JAX
    array never changes in place), so it copies them once; weights set between the runs are new
    arrays and are read afresh."""
    x, y = data
    g = mlp()
    trainer = Trainer(g)
    trainer.set_data(x[:256], y[:256])
    trainer.fit(epochs=1, block=True)
    after_first = g.keras_layer("dense").get_weights()
    copies = []
    real = np.array  # (numpy's own: every copy made while the run starts and ends)
    shapes = {w.shape for layer in ("dense", "dense_1") for w in g.keras_layer(layer).weights}

    def counted(value, *a, **k):
        if getattr(value, "shape", None) in shapes:  # (a weight's values)
            copies.append(value.shape)
        return real(value, *a, **k)

    np.array = counted
    try:
        trainer.fit(epochs=1, block=True)  # its start reads the weights the first run ended with
    finally:
        np.array = real
    if keras.backend.backend() == "jax":
        assert len(copies) == 4  # the trained weights at its end only (2 Dense x kernel, bias)
    after_second = g.keras_layer("dense").get_weights()
    set_between = [w * 0.5 for w in after_second]
    g.keras_layer("dense").set_weights(set_between)
    trainer.fit(epochs=1, block=True)
    g.undo()  # the third run: back to the weights set between the runs
    for got, want in zip(g.keras_layer("dense").get_weights(), set_between):
        np.testing.assert_array_equal(got, want)
    g.undo()  # the second run
    for got, want in zip(g.keras_layer("dense").get_weights(), after_first):
        np.testing.assert_array_equal(got, want)
    g.redo()
    for got, want in zip(g.keras_layer("dense").get_weights(), after_second):
        np.testing.assert_array_equal(got, want)


def test_validation_data_and_datasets(data):
    import tensorflow as tf

    x, y = data
    trainer = Trainer(mlp())
    trainer.set_data(x[:512], y[:512], validation_data=(x[512:640], y[512:640]))
    history = trainer.fit(epochs=2, block=True)
    assert len(history.history["val_loss"]) == 2
    dataset = tf.data.Dataset.from_tensor_slices((x[:512], y[:512])).batch(64)
    trainer.set_data(dataset, validation_data=dataset.take(1))
    history = trainer.fit(epochs=2, block=True)
    assert len(history.history["val_loss"]) == 2 and trainer.status["batches"] == 8

    class Batches(keras.utils.PyDataset):
        def __len__(self):
            return 4

        def __getitem__(self, i):
            return x[i * 64:(i + 1) * 64], y[i * 64:(i + 1) * 64]

    trainer.set_data(Batches())
    assert len(trainer.fit(epochs=2, block=True).history["loss"]) == 2


# ----- stop, NaN, faults ------------------------------------------------------------------------

def test_stop_mid_epoch_keeps_the_weights(data):
    x, y = data
    g = mlp()
    before = [w.copy() for w in g.model.get_weights()]
    trainer = Trainer(g)
    trainer.set_data(x, y)
    trainer.fit(epochs=3, batch_size=1)
    until(lambda: trainer.status["batch"] >= 20)
    trainer.stop()
    trainer.wait(timeout=20)
    status = trainer.status
    assert status["state"] == "stopped", status
    assert status["epoch"] == 1 and status["batch"] < status["batches"] == 1797
    # the curve ends where the run stopped, not at the end of an epoch it did not finish
    assert trainer.curve[-1]["epoch"] == pytest.approx(status["batch"] / 1797)
    after = g.model.get_weights()
    assert all(np.isfinite(w).all() for w in after)
    assert any(not np.allclose(a, b) for a, b in zip(after, before))
    assert g.lock_reason is None
    g.configure("dense_1", units=4)  # editing works again


def test_a_stop_before_keras_begins_its_fit_still_stops_after_one_batch(data):
    """Stop pressed as the run starts, before Keras's fit resets the model's stop flag: the run
    still stops, after its first batch (the Trainer asks no callback per batch begun)."""
    x, y = data
    g = mlp()
    trainer = Trainer(g)
    trainer.set_data(x, y)
    pressed = []

    def press_once(snapshot):  # (the first update: "running", sent before the thread starts)
        if not pressed:
            pressed.append(snapshot["status"]["state"])
            trainer.stop()

    trainer.on_update(press_once)
    trainer.fit(epochs=3, batch_size=1, block=True)
    status = trainer.status
    assert pressed == ["running"] and status["state"] == "stopped", (pressed, status)
    assert status["epoch"] == 1 and status["batch"] == 1, status
    assert g.lock_reason is None


@pytest.fixture
def kernel_interrupts():
    """SIGINT raises KeyboardInterrupt, as in a kernel running a cell (whatever an earlier test
    in this worker left as the handler: in a full run these two failed there, alone never)."""
    before = signal.signal(signal.SIGINT, signal.default_int_handler)
    yield
    signal.signal(signal.SIGINT, before)


def test_an_interrupt_while_waiting_stops_training_and_keeps_the_weights(data, kernel_interrupts):
    x, y = data
    g = mlp()
    before = g.model.get_weights()[0].copy()
    trainer = Trainer(g)
    trainer.set_data(x, y)

    def interrupt():  # what the notebook's stop button does to a kernel busy in fit(block=True)
        until(lambda: trainer.status["batch"] >= 5, timeout=180)  # (a loaded machine traces slowly)
        os.kill(os.getpid(), signal.SIGINT)

    threading.Thread(target=interrupt, daemon=True).start()
    with pytest.raises(KeyboardInterrupt):
        trainer.fit(epochs=3, batch_size=1, block=True)
    assert not trainer.running and trainer.status["state"] == "stopped"
    assert not np.allclose(g.model.get_weights()[0], before) and g.lock_reason is None


def test_an_interrupt_that_lands_on_another_thread_still_stops_a_blocking_fit(data,
                                                                               kernel_interrupts):
    """The kernel's interrupt is a process signal: the OS may hand it to any thread (here the
    fit's own). Python raises it in the main thread only when that thread runs again, so the
    blocking wait must wake up to take it, not sleep until training ends."""
    x, y = data
    g = mlp()
    trainer = Trainer(g)
    trainer.set_data(x, y)

    def interrupt():
        until(lambda: trainer.status["batch"] >= 5, timeout=180)  # (a loaded machine traces slowly)
        fit_thread = next(t for t in threading.enumerate() if t.name == "kerascanvas-fit")
        signal.pthread_kill(fit_thread.ident, signal.SIGINT)

    threading.Thread(target=interrupt, daemon=True).start()
    started = time.monotonic()
    with pytest.raises(KeyboardInterrupt):
        trainer.fit(epochs=200, batch_size=1, block=True)  # minutes, if nothing stopped it
    assert trainer.status["state"] == "stopped" and trainer.status["epoch"] == 1
    assert time.monotonic() - started < 60 and g.lock_reason is None


def test_a_nan_loss_stops_training_with_a_message(data):
    x, y = data
    x = x.copy()
    x[40] = np.nan  # NaN data is refused before training (issue 13)
    trainer = Trainer(mlp(activation=None))
    with pytest.raises(DataError, match="non-finite"):
        trainer.set_data(x, y)
    x[40] = np.finfo(np.float32).max  # finite, but every hidden unit overflows to +-inf and the
    trainer.set_data(x, y)  # next layer sums both: NaN in batch 2 whatever the initial weights
    with pytest.warns(RuntimeWarning, match=r"loss became (nan|inf) at epoch \d, batch \d") as seen:
        history = trainer.fit(epochs=3, shuffle=False, block=True)
    said = next(str(w.message) for w in seen if "loss became" in str(w.message))
    epoch = int(re.search(r"at epoch (\d)", said).group(1))
    status = trainer.status
    assert status["state"] == "failed" and "lower learning rate" in status["message"]
    assert status["epoch"] == epoch and status["batch"] < status["batches"]
    assert len(history.history["loss"]) == epoch < 3  # the epochs after it never ran
    assert all(np.isfinite(w).all() for w in trainer.graph.model.get_weights())
    assert json.dumps(trainer.snapshot(), allow_nan=False)  # NaN never reaches the browser
    trainer.set_data(*data)  # a later run trains (under JAX, a batch end that re-attached the
    trainer.fit(epochs=1, block=True)  # state from Keras's executor thread left deleted buffers)
    assert trainer.status["state"] == "finished", trainer.status["message"]
    assert all(np.isfinite(w).all() for w in trainer.graph.model.get_weights())


class _BlowsUpInEpoch(keras.utils.PyDataset):
    """The digits in batches of 32; from epoch `bad` on, one batch overflows every unit."""

    def __init__(self, x, y, bad: int):
        super().__init__()
        self.x, self.y, self.bad, self.reads_of_2 = x, y, bad, 0

    def __len__(self):
        return len(self.x) // 32

    def __getitem__(self, i):
        x = self.x[i * 32:(i + 1) * 32].copy()
        if i == 2:  # read once an epoch (checks and the probe read batch 0)
            self.reads_of_2 += 1
            if self.reads_of_2 >= self.bad:
                x[0] = np.finfo(np.float32).max
        return x, self.y[i * 32:(i + 1) * 32]


class _EpochEnds(keras.callbacks.Callback):
    def __init__(self):
        super().__init__()
        self.weights = []

    def on_epoch_end(self, epoch, logs=None):
        self.weights.append(self.model.get_weights())


@pytest.mark.parametrize("bad", [1, 2])
def test_a_loss_that_blows_up_puts_back_the_weights_its_epoch_began_with(data, bad):
    """Epoch 1 starts from the weights the run remembered for undo (no copy of its own); a later
    epoch from its own copy. Either way the weights are exactly those, and the run's undo step
    puts back the ones from before it."""
    g = mlp(activation=None)
    trainer = Trainer(g)
    trainer.set_data(_BlowsUpInEpoch(*data, bad))
    before = [w.copy() for w in g.model.get_weights()]
    ends = _EpochEnds()
    with pytest.warns(RuntimeWarning, match="loss became"):
        trainer.fit(epochs=3, shuffle=False, block=True, callbacks=[ends])
    assert trainer.status["state"] == "failed" and trainer.status["epoch"] == bad
    assert "from the start of that epoch are restored" in trainer.status["message"]
    expected = before if bad == 1 else ends.weights[bad - 2]
    for a, b in zip(expected, g.model.get_weights(), strict=True):
        assert np.array_equal(a, b)
    g.undo()
    for a, b in zip(before, g.model.get_weights(), strict=True):
        assert np.array_equal(a, b)
    trainer.set_data(*data)  # and the next run trains
    trainer.fit(epochs=1, block=True)
    assert trainer.status["state"] == "finished"


def test_an_exception_inside_fit_is_reported_and_the_graph_stays_intact(data):
    x, y = data
    g = mlp()
    layers_before = dict(g.layers)

    class Broken(keras.utils.PyDataset):
        def __len__(self):
            return 10

        def __getitem__(self, i):
            if i == 3:
                raise RuntimeError("batch 3 is unreadable")
            return x[i * 32:(i + 1) * 32], y[i * 32:(i + 1) * 32]

    class Faulty(keras.callbacks.Callback):
        def on_epoch_end(self, epoch, logs=None):
            raise ValueError(f"callback failed after epoch {epoch + 1}")

    trainer = Trainer(g)
    trainer.set_data(x, y)
    trainer.fit(epochs=3, callbacks=[Faulty()])  # in the background: the error lands in status
    until(lambda: not trainer.running)
    status = trainer.status
    assert status["state"] == "failed"
    assert status["message"] == "ValueError: callback failed after epoch 1"
    assert "in on_epoch_end" in status["traceback"]
    assert status["traceback"].rstrip().endswith("ValueError: callback failed after epoch 1")
    with pytest.raises(ValueError, match="after epoch 1"):
        trainer.wait()
    assert g.lock_reason is None and dict(g.layers) == layers_before
    # TensorFlow reads a PyDataset through tf.data: its error arrives wrapped, message kept.
    trainer.set_data(Broken())
    with pytest.raises(Exception, match="batch 3 is unreadable"):
        trainer.fit(epochs=1, block=True)  # blocking fit raises what fit raised
    assert "batch 3 is unreadable" in trainer.status["message"]
    assert g.lock_reason is None and dict(g.layers) == layers_before
    ok(g)
    g.configure("dense", units=8)


def test_edits_and_a_second_fit_are_refused_while_training(data):
    x, y = data
    g = mlp()
    trainer = Trainer(g)
    trainer.set_data(x, y)
    fingerprint = (dict(g.layers), g.edges)
    trainer.fit(epochs=50, batch_size=1)
    try:
        until(lambda: trainer.status["batch"] > 0)
        for edit in (lambda: g.configure("dense", units=3), lambda: g.add_layer("Dense"),
                     lambda: g.remove("dense_1"), lambda: g.disconnect("dense", "dense_1"),
                     g.undo):
            with pytest.raises(kc.EditError, match="Training is running"):
                edit()
        with pytest.raises(TrainingError, match="already running"):
            trainer.fit(epochs=1)
        with pytest.raises(TrainingError, match="running"):
            trainer.set_data(x, y)
        assert trainer.running
    finally:
        trainer.stop()
        trainer.wait(timeout=20)
    assert (dict(g.layers), g.edges) == fingerprint
    ok(g)
    g.configure("dense", units=3)
    assert g.model.get_layer("dense").units == 3


def test_progress_updates_are_throttled_and_json(data):
    x, y = data
    trainer = Trainer(mlp())
    trainer.set_data(x, y)
    updates = []
    stop_listening = trainer.on_update(lambda s: updates.append((time.monotonic(), s)))
    start = time.monotonic()
    trainer.fit(epochs=30, batch_size=256, block=True)  # short epochs: many epoch ends a second
    elapsed = time.monotonic() - start
    updates = list(updates)  # (records landing after the run tell the panel too: late.py)
    end = next(i for i, (_, s) in enumerate(updates) if s["status"]["state"] == "finished")
    times = [t for t, _ in updates[:end]]
    # one at the start, one at the end, at most 10 a second between them
    assert end + 1 <= 10 * elapsed + 2, (end + 1, elapsed)
    assert all(b - a >= 0.099 for a, b in itertools.pairwise(times))
    assert updates[0][1]["status"]["state"] == "running"
    assert all(s["status"]["state"] == "finished" for _, s in updates[end:])
    last = updates[end][1]
    assert len(last["history"]["loss"]) == 30
    json.dumps([s for _, s in updates], allow_nan=False)
    stop_listening()
    trainer.fit(epochs=1, block=True)
    assert updates[-1][1]["status"]["state"] == "finished" and len(updates) <= 10 * elapsed + 2


# ----- data that does not fit is refused before training ------------------------------------------


def test_the_curve_reaches_every_epoch_of_a_fast_fit(data):
    """The curve's running points are sampled at most 10 a second; each epoch's end is a point
    of its own, its values History's: a fit of 30 short epochs used to draw a curve that
    stopped within its first second."""
    x, y = data
    trainer = Trainer(mlp())
    trainer.set_data(x, y)
    trainer.fit(epochs=30, batch_size=256, metrics=["accuracy"], validation_split=0.2,
                block=True)
    curve, history = trainer.curve, trainer.history
    ends = {p["epoch"]: p for p in curve if p["epoch"] == int(p["epoch"])}
    assert sorted(ends) == [float(e) for e in range(1, 31)]
    for e, point in ends.items():
        assert point["loss"] == history["loss"][int(e) - 1]
        assert point["accuracy"] == history["accuracy"][int(e) - 1]
        assert not any(k.startswith("val_") for k in point)  # (those are drawn from history)
    xs = [p["epoch"] for p in curve]
    assert xs == sorted(xs) and len(set(xs)) == len(xs)
    trainer.fit(epochs=2, batch_size=256, block=True)  # a new run: a curve of its own
    assert [p["epoch"] for p in trainer.curve if p["epoch"] == int(p["epoch"])] == [1.0, 2.0]


def test_the_panel_draws_the_whole_run_thinned_not_its_end(data, monkeypatch):
    """The panel's curve is the run's, evenly thinned to widget.CURVE_SENT points: a run of many
    short epochs has more points than that (one per epoch), and sending the last ones alone
    drew only the end of the run."""
    from kerascanvas.canvas import widget

    monkeypatch.setattr(widget, "CURVE_SENT", 8)
    x, y = data
    canvas = kc.Canvas(mlp())
    canvas.set_data(x[:256], y[:256])
    canvas.fit(epochs=30, batch_size=256, block=True)
    whole, sent = canvas.trainer.curve, canvas.training["curve"]
    assert len(whole) >= 30 and len(sent) == 8
    assert sent[0] == whole[0] and sent[-1] == whole[-1] and sent[-1]["epoch"] == 30.0
    assert all(p in whole for p in sent)
    xs = [p["epoch"] for p in sent]
    assert xs == sorted(xs) and xs[3] < 20  # spread over the run

def test_mismatched_data_is_refused_naming_the_input_and_both_shapes(data):
    x, y = data
    trainer = Trainer(mlp())
    with pytest.raises(DataError, match=r"Input 'image' expects batches of shape "
                                        r"\(None, 8, 8, 1\), but x has shape \(1797, 64\)"):
        trainer.set_data(x.reshape(-1, 64), y)
    with pytest.raises(DataError, match=r"expects float32 values, but x holds string data"):
        trainer.set_data(np.full((4, 8, 8, 1), "a"), y[:4])
    with pytest.raises(DataError, match=r"Output 'dense_1' has shape \(None, 10\), but y has "
                                        r"shape \(1797, 3\)"):
        trainer.set_data(x, np.zeros((1797, 3)))
    with pytest.raises(DataError, match=r"same number of samples; got x 1797, y 100"):
        trainer.set_data(x, y[:100])
    with pytest.raises(DataError, match=r"1 input \(image\), but x holds 2 arrays"):
        trainer.set_data([x, x], y)
    with pytest.raises(DataError, match=r"validation_data's x has shape \(10, 8, 8\)"):
        trainer.set_data(x, y, validation_data=(x[:10, ..., 0], y[:10]))
    for empty in ((x[:0], y[:0], None), (x, y, (x[:0], y[:0]))):  # (Keras failed deep inside:
        with pytest.raises(DataError, match=r"no samples \(0 rows\)"):  # StopIteration in JAX)
            trainer.set_data(*empty)
    trainer.set_data(x, y)
    with pytest.raises(DataError, match=r"sparse loss 'sparse_categorical_crossentropy' needs "
                                        r"integer labels of shape \(None,\)"):
        trainer.set_data(x, keras.utils.to_categorical(y, 10))
        trainer.fit(loss="sparse_categorical_crossentropy", block=True)
    with pytest.raises(DataError, match="use a sparse loss"):
        trainer.set_data(x, y)
        trainer.fit(loss="categorical_crossentropy", block=True)
    assert trainer.status["state"] == "idle"  # nothing started


def test_datasets_are_checked_too(data):
    import tensorflow as tf

    x, y = data
    trainer = Trainer(mlp())
    unbatched = tf.data.Dataset.from_tensor_slices((x, y))
    with pytest.raises(DataError, match=r"yields unbatched elements of shape \(8, 8, 1\).*"
                                        r"\.batch\(32\)"):
        trainer.set_data(unbatched)
    flat = tf.data.Dataset.from_tensor_slices((x.reshape(-1, 64), y)).batch(32)
    with pytest.raises(DataError, match=r"\(None, 8, 8, 1\), but the tf.data.Dataset has shape "
                                        r"\(None, 64\)"):
        trainer.set_data(flat)
    with pytest.raises(DataError, match=r"yield \(x, y\)"):
        trainer.set_data(tf.data.Dataset.from_tensor_slices(x).batch(8))
    trainer.set_data(unbatched.batch(32))
    with pytest.raises(DataError, match="validation_split works on arrays only"):
        trainer.fit(validation_split=0.1)


def test_a_dataset_that_yields_nothing_is_said_so_and_changes_nothing(data):
    import tensorflow as tf

    x, y = data
    graph = mlp()
    trainer = Trainer(graph)
    pairs = tf.data.Dataset.from_tensor_slices((x[:64], y[:64]))
    with pytest.raises(DataError, match=r"tf.data.Dataset is empty"):
        trainer.set_data(pairs.take(0).batch(8))  # (it says so: cardinality 0)
    before = [w.copy() for w in graph.model.get_weights()]
    trainer.set_data(pairs.filter(lambda a, b: b > 99).batch(8))  # (it cannot say)
    if keras.backend.backend() == "torch":  # Keras's torch trainer fails on its own terms
        with pytest.raises(ValueError):
            trainer.fit(epochs=1, block=True)
    else:  # TensorFlow only warned "ran out of data" and said finished; JAX: StopIteration
        with pytest.raises(DataError, match="The data yielded no batches: nothing was trained"):
            trainer.fit(epochs=1, block=True)
        assert trainer.status["state"] == "failed"
    assert all(np.array_equal(a, b) for a, b in zip(before, graph.model.get_weights()))
    assert graph.lock_reason is None
    trainer.set_data(x[:64], y[:64])
    trainer.fit(epochs=1, block=True)  # and the next run trains
    assert trainer.status["state"] == "finished"
    with pytest.raises(DataError, match=r"no samples \(0 rows\)"):
        trainer.set_data(x[:0], y[:0])


def test_several_inputs_and_data_set_before_the_model_exists(data):
    x, y = data
    g = kc.Graph()
    g.add_input((8, 8, 1), name="image")
    g.add_input((3,), name="meta", dtype="int32")
    trainer = Trainer(g)
    trainer.set_data({"image": x, "meta": np.zeros((1797, 3), "float32")}, y)  # no model: kept
    g.add_layer("Flatten")
    g.add_layer("Concatenate")
    g.add_layer("Dense", units=10)
    g.connect("image", "flatten")
    g.connect("flatten", "concatenate")
    g.connect("meta", "concatenate")
    g.connect("concatenate", "dense")
    with pytest.raises(DataError, match=r"Input 'meta' expects int32 values, but x holds "
                                        r"float32 data"):
        trainer.fit(block=True)
    with pytest.raises(DataError, match=r"2 inputs \(image, meta\), but x names \['image'\]"):
        trainer.set_data({"image": x}, y)
    trainer.set_data({"image": x, "meta": np.ones((1797, 3), "int32")}, y)
    assert len(trainer.fit(epochs=1, block=True).history["loss"]) == 1


@pytest.mark.filterwarnings("ignore:When providing `inputs` as a dict")  # (Keras: allowed)
def test_a_model_that_takes_and_gives_dicts_trains_on_data_keyed_as_keras_keys_it():
    """An imported model whose inputs and outputs are dicts (a KerasHub backbone's are) takes x
    and y by those keys, as keras.Model.fit does; keyed by its layers' names they were asked
    for instead, and the keys Keras takes were refused."""
    inp = keras.Input((4,), name="inp")
    model = keras.Model({"feat": inp}, {"first": keras.layers.Dense(2, name="dense_a")(inp),
                                        "second": keras.layers.Dense(3, name="dense_b")(inp)})
    g = kc.Graph.from_model(model)
    trainer = Trainer(g)
    rng = np.random.default_rng(0)
    x = {"feat": rng.normal(size=(64, 4)).astype("float32")}
    y = {"first": rng.normal(size=(64, 2)).astype("float32"),
         "second": rng.normal(size=(64, 3)).astype("float32")}
    trainer.set_data(x, y)
    history = trainer.fit(epochs=2, block=True).history  # the loss picked per output key
    assert {"first_loss", "second_loss"} <= set(history) and len(history["loss"]) == 2
    assert trainer.status["loss"] == "mean_squared_error, mean_squared_error"
    assert len(trainer.fit(epochs=1, loss={"first": "mse", "second": "mae"},
                           block=True).history["loss"]) == 1
    with pytest.raises(DataError, match=r"2 outputs \(first, second\), but y \(targets\) "
                                        r"names \['dense_a', 'dense_b'\]"):
        trainer.set_data(x, {"dense_a": y["first"], "dense_b": y["second"]})
    with pytest.raises(DataError, match=r"1 input \(feat\), but x names \['inp'\]"):
        trainer.set_data({"inp": x["feat"]}, y)


def test_fit_refuses_what_cannot_start(data):
    x, y = data
    g = mlp()
    g.add_layer("Add")  # a merge given one input of two: the drawing is not a model
    g.connect("dense_1", "add")
    trainer = Trainer(g)
    with pytest.raises(TrainingError, match="not a complete model yet"):
        trainer.fit()
    g.remove("add")
    with pytest.raises(TrainingError, match=r"call set_data\(x, y\) first"):
        trainer.fit()
    trainer.set_data(x, y)
    with pytest.raises(TypeError, match=r"unexpected keyword argument\(s\) \['epoch'\]"):
        trainer.fit(epoch=3)
    with pytest.raises(ValueError, match="epochs must be a whole number >= 1, got 0"):
        trainer.fit(epochs=0)
    with pytest.raises(ValueError, match="Could not interpret optimizer"):
        trainer.fit(optimizer="adamm")
    with pytest.raises(ValueError, match="strategy must be"):
        trainer.fit(strategy="everything")
    if keras.backend.backend() == "jax":
        with pytest.raises(TrainingError, match="'mirrored'.*needs the TensorFlow backend"):
            trainer.fit(strategy="mirrored")
    else:
        with pytest.raises(TrainingError, match="'data_parallel'.*needs the JAX backend"):
            trainer.fit(strategy="data_parallel")
    assert g.lock_reason is None and not trainer.running


# ----- devices ----------------------------------------------------------------------------------

def test_the_device_is_described(monkeypatch):
    from kerascanvas.training import devices

    monkeypatch.setattr(devices, "visible_devices", lambda: ["cpu:0"])
    assert training.device_description() == f"CPU: no GPU visible to {keras.backend.backend()}"
    monkeypatch.setattr(devices, "gpu_name", lambda: "NVIDIA H100 80GB HBM3")
    monkeypatch.setattr(devices, "visible_devices", lambda: ["gpu:0"])
    assert training.device_description() == "GPU: NVIDIA H100 80GB HBM3"
    assert devices.choose_engine("auto").name == "none"
    monkeypatch.setattr(devices, "visible_devices", lambda: ["gpu:0", "gpu:1"])
    assert training.device_description() == "2 GPUs: NVIDIA H100 80GB HBM3"


def test_two_logical_cpu_devices_train_under_mirrored_strategy():
    result = run_script("""
        import json
        import tensorflow as tf
        cpu = tf.config.list_physical_devices("CPU")[0]
        tf.config.set_logical_device_configuration(
            cpu, [tf.config.LogicalDeviceConfiguration(), tf.config.LogicalDeviceConfiguration()])
        import numpy as np
        import kerascanvas as kc
        from kerascanvas.datasets import digits
        from kerascanvas.training import Trainer
        x, y = digits()
        g = kc.Graph()
        g.add_input((8, 8, 1), name="image"); g.add_layer("Flatten")
        g.add_layer("Dense", units=32, activation="relu"); g.add_layer("Dense", units=10)
        g.connect("image", "flatten"); g.connect("flatten", "dense"); g.connect("dense", "dense_1")
        before = g.keras_layer("dense").get_weights()[0].copy()
        trainer = Trainer(g)
        trainer.set_data(x, y)
        history = trainer.fit(epochs=4, batch_size=64, learning_rate=3e-3, strategy="mirrored",
                              block=True)
        after = g.keras_layer("dense").get_weights()[0]
        reference = history.model.get_layer("dense").get_weights()[0]
        print(json.dumps({"loss": history.history["loss"], "status": trainer.status,
                          "replicas": history.model.distribute_strategy.num_replicas_in_sync,
                          "changed": bool(not np.allclose(before, after)),
                          "copied_back": bool(np.array_equal(after, reference))}))
    """, KERAS_BACKEND="tensorflow")
    assert result["replicas"] == 2
    assert result["status"]["device"].startswith("MirroredStrategy over 2 devices (cpu:0, cpu:1)")
    assert result["status"]["state"] == "finished"
    assert result["loss"][-1] < 0.6 * result["loss"][0]
    assert result["changed"] and result["copied_back"]


def test_jax_backend_trains_and_reports_its_device():
    result = run_script("""
        import json
        import kerascanvas as kc
        from kerascanvas.datasets import digits
        from kerascanvas.training import Trainer, TrainingError
        x, y = digits()
        g = kc.Graph()
        g.add_input((8, 8, 1), name="image"); g.add_layer("Flatten"); g.add_layer("Dense", units=10)
        g.connect("image", "flatten"); g.connect("flatten", "dense")
        trainer = Trainer(g)
        trainer.set_data(x, y)
        plain = trainer.fit(epochs=3, learning_rate=1e-2, block=True).history["loss"]
        device = trainer.status["device"]
        parallel = trainer.fit(epochs=2, learning_rate=1e-2, strategy="data_parallel",
                               validation_split=0.2, block=True)
        message = trainer.status["message"]
        try:
            trainer.fit(strategy="mirrored")
            refused = ""
        except TrainingError as e:
            refused = str(e)
        print(json.dumps({"loss": plain, "device": device, "parallel": trainer.status["device"],
                          "parallel_loss": parallel.history["loss"], "refused": refused,
                          "message": message, "val": len(parallel.history["val_loss"])}))
    """, KERAS_BACKEND="jax", XLA_FLAGS="--xla_force_host_platform_device_count=2")
    assert result["device"] == "CPU: no GPU visible to jax"
    assert result["loss"][-1] < 0.6 * result["loss"][0]
    assert result["parallel"].startswith("DataParallel over 2 devices (cpu:0, cpu:1)")
    assert result["parallel_loss"][-1] < result["loss"][-1]  # it went on from trained weights
    # 1797 * 0.8 -> 1437 training samples: one is left out so that batches split over 2 devices
    assert "1 sample(s) left out so that every batch splits evenly over 2 devices" in \
        result["message"]
    assert result["val"] == 2
    assert "needs the TensorFlow backend; this one is jax" in result["refused"]


# ----- the panel's fields -------------------------------------------------------------------------

def test_the_panel_is_told_the_backend_and_device_before_any_run():
    names = training.choices()
    assert names["backend"] == keras.backend.backend()
    assert names["device"] == training.device_description()
    assert names["meshes"]["none"] == "one device"
    assert set(names["meshes"]) <= set(names["strategies"])


def test_the_panel_says_the_mesh_each_engine_would_use_before_a_run():
    from kerascanvas.training.devices import planned_meshes

    offered = ["auto", "none", "mirrored", "data_parallel", "model_parallel"]
    two_cpus = planned_meshes("jax", ["cpu:0", "cpu:1"], offered)
    assert two_cpus["model_parallel"].startswith(
        "mesh (batch: 1, model: 2) over 2 devices (cpu:0, cpu:1): the largest Dense")
    assert two_cpus["data_parallel"] == \
        "mesh (batch: 2) over 2 devices (cpu:0, cpu:1): each batch split over them"
    assert two_cpus["auto"] == "one device"  # logical CPUs: "auto" does not spread over them
    assert "mirrored" not in two_cpus  # not under JAX
    gpus = planned_meshes("jax", ["gpu:0", "gpu:1"], offered)
    assert gpus["auto"] == f"data_parallel: {gpus['data_parallel']}"
    one = planned_meshes("tensorflow", ["cpu:0"], ["auto", "none", "mirrored", "data_parallel"])
    assert one == {"mirrored": "MirroredStrategy over 1 device (cpu:0): a copy of the model on "
                               "each", "auto": "one device", "none": "one device"}
    # what is not offered is not described
    assert "model_parallel" not in planned_meshes("jax", ["cpu:0"], ["auto", "none"])
