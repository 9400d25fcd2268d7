"""Training a Graph's model: `Trainer.fit` runs `keras.Model.fit` in a background thread of the
kernel, so the notebook and the widget stay live; progress reaches subscribers at most 10 times a
second; `stop()` ends it after the current batch and keeps the weights.

While it runs the Graph refuses edits (`graph.lock_reason` holds the reason), so the layers being
trained never change under it. The graph's own model is trained, so the weights stay on the
graph's layers. Under a keras.distribution object (JAX) the graph's model trains with its
variables laid out over the mesh (placement.py); under a tf.distribute.Strategy the variables
must be created in its scope: the model is cloned there, trained, and its weights are copied
back onto the graph's layers at the end (also after a stop or a failure).

Only the keras API is used, except to name the GPU and to make a `tf.distribute.MirroredStrategy`,
so KERAS_BACKEND=jax or torch work too.
"""

from __future__ import annotations

import math
import threading
import time
import traceback
import warnings
from collections.abc import Callable, Mapping
from typing import Any

import keras

from ..errors import DataError, TrainingError
from ..graph.graph import Graph
from ..insights import insights as insight_store
from ..io.training_code import run_settings
from ..network.detached import detachable_values, weights_now
from ..quiet import quiet_own_retracing
from . import run_gate
from .choices import choices, make_optimizer
from .data import (
    NON_FINITE_MARK,
    check_data,
    check_finite,
    default_loss,
    describe_data,
    divisible,
    finite_batches,
    output_names,
)
from .devices import Engine, choose_engine, device_description
from .ending import LOCK_MESSAGE, RUN_START, Ending
from .given import Given
from .reporting import UPDATES_PER_SECOND, Reporting, logged_floats

__all__ = ["DataError", "Trainer", "TrainingError", "choices", "device_description"]

WAIT_SLICE_S = 0.1  # a blocking fit looks for a pending interrupt this often (see _wait_done)
# ----- progress -------------------------------------------------------------------------------

NO_BATCHES = ("The data yielded no batches: nothing was trained. A dataset that filters or takes "
              "may end up empty; check what it yields.")


class _Progress(keras.callbacks.Callback):
    """Feeds the Trainer's status from inside fit. Batch ends run in Keras's executor threads
    (async_safe), which keeps fit pipelined as it is without callbacks (under JAX too: no host
    sync per batch); they may come out of order within an epoch, so the Trainer keeps the highest
    batch seen."""

    # Batch ends never read `self.model`: under JAX that property re-attaches the step's state to
    # the variables, which from an executor thread races the next step that donates (deletes)
    # those arrays (a later run then failed on a deleted buffer). `_fitted` is the bare model.
    async_safe = True

    def __init__(self, trainer: Trainer):
        super().__init__()
        self._trainer = trainer
        self._fitted: keras.Model | None = None

    def set_model(self, model):
        super().set_model(model)
        self._fitted = model

    def on_train_begin(self, logs=None):
        self._trainer._began(self.params)
        # Stop pressed before Keras's fit reset the model's flag: stop after the first batch.
        # (Later presses set the flag themselves: Trainer.stop. No check per batch begun: a
        # callback per batch costs a batch of a small model a few percent.)
        if self._trainer._stop_requested.is_set():
            self._fitted.stop_training = True

    def on_epoch_begin(self, epoch, logs=None):
        model, trainer = self.model, self._trainer
        trainer._detachable = detachable_values(model)
        # put back if the loss blows up; a run's first epoch starts from the weights the run
        # remembered for undo (no second copy) unless a replica trains
        trainer._epoch_weights = RUN_START if epoch == trainer._first_epoch and \
            model is trainer._fitted_for else weights_now(model)
        trainer._epoch_began(epoch)

    def on_train_batch_end(self, batch, logs=None):
        if self._trainer._batch_ended(batch, logs or {}):
            self._fitted.stop_training = True

    def on_epoch_end(self, epoch, logs=None):
        self._trainer._epoch_ended(epoch, logs or {})


# ----- the trainer ------------------------------------------------------------------------------

class Trainer(Reporting, Ending, Given):
    """Trains `graph.model` on data given with `set_data`; one run at a time.

    >>> trainer = Trainer(graph)
    >>> trainer.set_data(x, y)
    >>> trainer.fit(epochs=3, metrics=["accuracy"], block=True).history["loss"]
    """

    def __init__(self, graph: Graph):
        if not isinstance(graph, Graph):
            raise TypeError(f"Trainer takes a kerascanvas.Graph, got {type(graph).__name__}.")
        self.graph = graph
        self._data: tuple[Any, Any, Any] | None = None
        self._thread: threading.Thread | None = None
        self._done = threading.Event()  # set when no training runs (Thread.is_alive can be
        self._done.set()  # wrong after an interrupted join in CPython < 3.13)
        self._stop_requested = threading.Event()
        self._lock = threading.Lock()  # guards the status fields below
        self._emit_lock = threading.Lock()  # subscribers are called one at a time
        self._subscribers: list[Callable[[dict], None]] = []
        self._compiled: tuple[keras.Model, Any] | None = None
        self._history = keras.callbacks.History()
        self._error: BaseException | None = None
        self._status = self._fresh_status("idle", 0)
        self._epochs: dict[str, list[float]] = {}
        self._curve: list[dict[str, float]] = []
        self._last_emit = 0.0
        self._pending: tuple[int, Mapping] | None = None  # the latest batch end (_batch_ended)
        self._any_batch = False  # a batch of this run has ended
        self._folded: tuple[int, Mapping] | None = None  # the one the status holds
        # Set by each fit, read by the training thread and its callbacks:
        self._fitting: keras.Model | None = None  # the model being fit (a clone under an engine)
        self._fitted_for: keras.Model | None = None  # the graph's model the run trains
        self._first_epoch = 0
        self._nan: str | None = None  # why a non-finite loss stopped training
        self._nan_at = (0, 0)  # (epoch, batch) where it did
        self._note = ""  # said with the final message
        # the fitted model's weights as this epoch began (RUN_START: those of _weights_before)
        self._epoch_weights: list | str | None = None
        self._detachable: list | None = None  # see detached.detachable_values
        self._started = time.monotonic()
        self.run: int | None = None  # the id of the last run started (insights.Insights.run)
        self._gate = run_gate.RunGate()  # who ends a run: fit, its thread, or Stop (see run_gate)
        self._batches: Any = None  # the checked PyDataset a run reads (told when it is abandoned)
        self._recording: Any = None  # the run's recording.Recorder, or None

    # ----- public ---------------------------------------------------------------------------

    def fit(self, *, optimizer: Any = "adam", learning_rate: float | None = None,
            loss: Any = None, metrics: Any = (), epochs: int = 1, batch_size: int | None = 32,
            validation_split: float = 0.0, strategy: Any = "auto", block: bool = False,
            insights: bool = True, **fit_kwargs: Any) -> keras.callbacks.History:
        """Compile and train the graph's model on the data from `set_data`.

        `optimizer` by name (or a keras Optimizer), `learning_rate` None for the optimizer's own
        default, `loss` None to pick one from the targets (integer labels: sparse categorical
        cross-entropy), `strategy` "auto" | "none" | "mirrored" | "data_parallel" |
        "model_parallel", a keras.distribution object (JAX) or a tf.distribute.Strategy.
        Other keyword arguments go to `keras.Model.fit` (shuffle, class_weight, callbacks, ...).

        With block=False (the default, as the Train button does) training runs in a background
        thread and this returns at once the History that fills as epochs end; `wait()` blocks.
        With block=True it waits, and raises what fit raised.

        `insights` (default True) records weights, gradients and activations per layer and
        epoch (recording.py) into the graph's insights store (insights.py).
        """
        if self.running:
            raise TrainingError("Training is already running: stop it or wait for it to end "
                                "before starting again.")
        model = self.graph.model
        if model is None:
            why = "; ".join(p.message for p in self.graph.problems)
            raise TrainingError(f"The drawing is not a complete model yet: {why}")
        if self._data is None:
            raise TrainingError("No data to train on: call set_data(x, y) first.")
        if self.graph.lock_reason is not None:
            raise TrainingError(f"The graph is locked: {self.graph.lock_reason}")
        arguments = self._fit_arguments(model, epochs, batch_size, validation_split, fit_kwargs)
        x, y, validation_data = self._data
        batches = describe_data(x, y, "x")
        targets = check_data(model, batches, loss)
        if batches.is_dataset:  # each batch checked as it is read, before a step uses it
            x = finite_batches(x)
        else:  # NaN in the data would reach the weights through the first optimizer step
            check_finite(x, y, "x")
        if validation_data is not None:
            check_data(model, self._validation_batches(validation_data), loss)
        if batches.is_dataset:
            if validation_split:
                raise DataError(f"validation_split works on arrays only; with {batches.source} "
                                f"pass validation_data instead (got {validation_split!r}).")
            arguments.pop("batch_size")  # a dataset is batched already
            if hasattr(x, "element_spec"):  # Keras cannot shuffle a tf.data.Dataset, and warns
                arguments.setdefault("shuffle", False)
        loss_names = [str(loss)]
        loss_key = _identity(loss)
        if loss is None:
            loss, loss_names = default_loss(model, targets)
            loss_key = tuple(loss_names)
            if isinstance(getattr(model, "_outputs_struct", None), dict):
                loss = dict(zip(output_names(model), loss))  # (Keras wants a dict's keys)
            elif len(loss) == 1:
                loss = loss[0]
        engine = choose_engine(strategy, model)
        note = ""
        if engine.splits_batches and not batches.is_dataset:
            x, y, validation_data, dropped = divisible(
                x, y, validation_data, arguments, batches.samples, engine.replicas)
            if dropped:
                note = (f" {dropped} sample(s) left out so that every batch splits evenly over "
                        f"{engine.replicas} devices.")
        fitting = self._compile(model, engine, optimizer, learning_rate, (loss, loss_key),
                                metrics)
        self.graph.last_training = run_settings(  # what to_code(training=True) writes
            fitting.optimizer, loss, metrics, arguments, batches.is_dataset,
            None if validation_data is None else
            "arrays" if isinstance(validation_data, (tuple, list)) else "dataset",
            engine.distribution)

        self._stop_requested.clear()
        self._error = None
        self._history = keras.callbacks.History()
        callbacks = list(arguments.pop("callbacks", None) or [])
        store = insight_store.of(self.graph)
        recorder = self._recorder(store) if insights else None
        self._recording = recorder
        arguments.update(x=x, y=y, validation_data=validation_data,
                         callbacks=[self._history, *([recorder] if recorder else []),
                                    _Progress(self), *callbacks])
        first_epoch = int(arguments.get("initial_epoch", 0) or 0)
        self._batches = x if hasattr(x, "abandon") else None  # (a checked PyDataset)
        token = self._gate.open()
        try:  # an interrupt anywhere from here to the thread's start leaves nothing locked
            self._start(token, model, fitting, engine, arguments, epochs - first_epoch,
                        loss_names, note, first_epoch)
        except BaseException:
            self._not_started(token)
            raise
        return self.wait() if block else self._history

    def _start(self, token, model, fitting, engine, arguments, epochs, loss_names, note,
               first_epoch) -> None:
        with self._lock:
            self._status = self._fresh_status("running", epochs)
            self._status.update(device=engine.description, mesh=engine.mesh,
                                loss=", ".join(loss_names), message=f"Training on {engine.description}.{note}")
            self._epochs, self._curve = {}, []
            self._first_epoch = first_epoch
            self._fitting, self._fitted_for = fitting, model
            self._nan = None
            self._pending = None
            self._any_batch = epochs <= 0  # (a dataset yielding nothing: Keras's fit just ends)
            self._note = note
            self._started = time.monotonic()
        quiet_own_retracing()
        self.graph.lock(LOCK_MESSAGE)
        self._weights_before = self.graph.remember_weights()  # the run becomes one undo step
        self.run = insight_store.of(self.graph).begin_run(self._weights_before)  # its records too
        self._epoch_weights = None
        self._detachable = None
        self._done.clear()
        self._emit(force=True)  # "running", before any update from the thread
        self._thread = threading.Thread(target=self._run, name="kerascanvas-fit", daemon=True,
                                        args=(model, fitting, engine, arguments, token))
        self._thread.start()

    def wait(self, timeout: float | None = None) -> keras.callbacks.History:
        """Block until training ends; returns the History, or raises what fit raised.
        An interrupt (Ctrl-C, the notebook's stop button) stops training, keeping the weights."""
        try:
            if not self._wait_done(timeout):
                raise TimeoutError(f"Training still runs after {timeout} s.")
        except KeyboardInterrupt:
            self.stop()
            self._done.wait()
            raise
        if self._error is not None:
            raise self._error
        if self.status["state"] == "failed":
            warnings.warn(self.status["message"], RuntimeWarning, stacklevel=2)
        return self._history

    def _wait_done(self, timeout: float | None) -> bool:
        """Wait for the run's end in short slices: the kernel's interrupt (SIGINT) may land on
        any thread (the fit's, the backend's), and then only this thread running Python again
        raises it here; one long wait would sleep through it until training ends."""
        end = None if timeout is None else time.monotonic() + timeout
        while not self._done.wait(WAIT_SLICE_S if end is None
                                  else max(0.0, min(WAIT_SLICE_S, end - time.monotonic()))):
            if end is not None and time.monotonic() >= end:
                return False
        return True

    def stop(self) -> None:
        """Stop after the current batch; the weights trained so far stay on the layers."""
        self._stop_requested.set()
        fitting = self._fitting
        if self.running and fitting is not None:
            fitting.stop_training = True
            if self._batches is not None:  # (arrays never hang; a PyDataset's read may)
                self._check_hang(self._gate.current, run_gate.STOP_GRACE_S)

    @property
    def running(self) -> bool:
        return not self._done.is_set()

    # ----- preparing ------------------------------------------------------------------------

    def _recorder(self, store) -> keras.callbacks.Callback:
        from ..insights.recording import Recorder, probe_batch

        x, y, _ = self._data
        return Recorder(store, probe_batch(x, y), first_epoch=store.epochs_done())

    def _compile(self, model, engine, optimizer, learning_rate, losses, metrics) -> keras.Model:
        """The model to fit, compiled. The graph's model itself when no engine is used (compiled
        again only when a setting changed, so the optimizer's state carries over between runs);
        under an engine, compiled again in its scope (devices.Engine.model_to_fit)."""
        metrics = list(metrics) if isinstance(metrics, (list, tuple)) else metrics
        for m in metrics if isinstance(metrics, list) else []:
            if isinstance(m, str) and m not in ("accuracy", "acc", "crossentropy", "ce"):
                keras.metrics.get(m)  # an unknown name fails here, not in the thread
        loss, loss_key = losses
        key = (_identity(optimizer), learning_rate, loss_key,
               tuple(_identity(m) for m in metrics) if isinstance(metrics, list) else metrics)
        if not engine.distributed and self._compiled is not None and \
                self._compiled[0] is model and self._compiled[1] == key:
            return model
        with engine.scope():
            fitting = engine.model_to_fit(model)  # (a clone under a tf.distribute.Strategy)
            fitting.compile(optimizer=make_optimizer(optimizer, learning_rate), loss=loss,
                            metrics=metrics)
        self._compiled = None if engine.distributed else (model, key)
        return fitting

    # ----- running (in the training thread) -------------------------------------------------

    def _run(self, model: keras.Model, fitting: keras.Model, engine: Engine,
             arguments: dict, token: object) -> None:
        if not self._gate.begin(token):
            return  # fit was interrupted before this thread began: it cleaned up
        state, message, trace = "finished", "Training finished.", None
        try:
            with engine.scope():
                fitting.fit(**arguments)
            if self._nan is not None:
                state, message = "failed", self._nan + self._restore_epoch(fitting)
            elif self._stop_requested.is_set():
                state, message = "stopped", "Stopped; the weights trained so far are kept."
            elif not self._any_batch:  # (Keras under TensorFlow only warns: "ran out of data")
                state, message = "failed", NO_BATCHES
                self._error = DataError(NO_BATCHES)
        except BaseException as e:  # noqa: BLE001 - reported in status; the kernel lives on
            self._error = e
            state, message = "failed", f"{type(e).__name__}: {e}"
            trace = traceback.format_exc()
            if NON_FINITE_MARK in str(e):  # a batch was refused before a step used it
                with self._lock:
                    self._fold_batch()
                    where = (self._status["epoch"], self._status["batch"] + 1)
                message = (f"The data holds NaN or infinite values (epoch {where[0]}, batch "
                           f"about {where[1]}): training stopped before that batch, so the "
                           "weights from before it are kept. Clean the data first.")
                self._error = DataError(message)
            elif isinstance(e, StopIteration):  # (JAX's fit on a dataset that yields nothing)
                message = NO_BATCHES
                self._error = DataError(message)
            source = getattr(self._batches, "error", None)
            if source is not None:  # the data source's own error, not the backend's wrapping
                self._error, message = source, f"The data source raised {type(source).__name__}: {source}"
        finally:
            if not self._gate.end(token):  # abandoned after Stop: the canvas was unlocked then
                return  # noqa: B012 - (and may be in use); nobody waits for this thread's error
            copy_failed = self._seal_run(fitting, model)
            if copy_failed is not None:
                state, message, trace = "failed", *copy_failed
            self._release(state=state, message=message + self._note, traceback=trace,
                          eta_s=0.0 if state == "finished" else None)

    def _began(self, params: Mapping) -> None:
        with self._lock:
            self._started = time.monotonic()
            self._status["batches"] = params.get("steps")

    def _epoch_began(self, epoch: int) -> None:
        with self._lock:
            self._fold_batch()
            self._pending = None
            self._status.update(epoch=epoch - self._first_epoch + 1, batch=0)

    def _batch_ended(self, batch: int, logs: Mapping) -> bool:
        """A batch ended; True when training must stop (the loss is NaN or infinite). It runs
        once per batch in Keras's executor, so it only notes the batch (the latest in a
        reference, no lock): the status takes it in when it is read or sent (`_fold_batch`)."""
        loss = logs.get("loss")
        try:
            bad = loss is not None and not math.isfinite(float(loss))
        except (TypeError, ValueError):
            bad = False
        self._any_batch = True
        pending = self._pending
        if pending is None or batch >= pending[0]:  # batch ends may come out of order
            self._pending = (batch, logs)
        if bad:
            with self._lock:
                self._fold_batch()
                where = (self._status["epoch"], batch + 1)
                if self._nan is None or where < self._nan_at:  # name the first
                    self._nan_at = where
                    self._nan = (f"The loss became {float(loss)} at epoch {where[0]}, batch "
                                 f"{where[1]}: training stopped. Try a lower learning rate, or "
                                 f"check the data for NaN or infinite values.")
        if bad or time.monotonic() - self._last_emit >= 1.0 / UPDATES_PER_SECOND:
            self._emit()
        return bad

    def _epoch_ended(self, epoch: int, logs: Mapping) -> None:
        values = logged_floats(logs)
        with self._lock:
            self._fold_batch()
            for k, v in values.items():
                self._epochs.setdefault(k, []).append(v)
            s = self._status
            if s["batches"] is None:
                s["batches"] = s["batch"]
            # (an epoch stopped part way ends its curve where it stopped, not at its end)
            done = min(1.0, s["batch"] / s["batches"]) if s["batches"] else 1.0
            self._curve_point(s["epoch"] - 1 + done,
                              {k: v for k, v in values.items() if not k.startswith("val_")},
                              epoch_end=True)
        self._emit()

    def __repr__(self) -> str:
        s = self.status
        return f"<kerascanvas.Trainer {s['state']}: epoch {s['epoch']}/{s['epochs']}>"


def _identity(value: Any) -> Any:
    return value if isinstance(value, (str, int, float, type(None))) else id(value)
