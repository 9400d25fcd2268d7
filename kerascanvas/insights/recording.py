"""What happens inside the layers while a model trains, measured on the device.

`Recorder` is a Keras callback that `Trainer.fit` adds. At the end of a run's first and last
epochs, and of the epochs between as often as a record's measured cost allows (every epoch when
epochs are long, every k epochs when they are short: records stay under RECORD_SHARE of training
time; `record_epoch`), and every N batches in long epochs, it records, per layer:

- weights: for each weight its mean, std, norm, min, max and a histogram; the update-to-weight
  ratio ||w - w_before|| / ||w_before|| since the previous record (the weight delta: free);
- gradients: each weight's gradient norm on a fixed probe batch (one extra forward and backward
  pass per record, backend-specific through Keras: tf.GradientTape, jax.grad over the model's
  stateless loss, torch.autograd.grad);
- activations: on the same probe batch, the layer's output mean, std, fraction of zeros, dead
  units (units zero on >= 99% of the probe) and a histogram, taken from the same forward pass
  the gradients come from. That pass runs as training does (BatchNormalization on the batch,
  Dropout dropping: record_program.PROBE_TRAINING) and changes no state.

Statistics are computed with keras.ops where the tensors live (record_program.py, with
tensor_stats: stacked by size); one small vector per record travels to the host. The records
go to an `insights.Insights` store (plain floats and lists).
"""

from __future__ import annotations

import concurrent.futures
import math
import threading
import time
import warnings
import weakref
from collections.abc import Callable
from typing import Any

import keras
import numpy as np

from . import tensor_stats
from .record_program import DEAD_SHARE, Measure, measure  # noqa: F401 - (part of a record)
from .tensor_stats import BINS  # noqa: F401 - (the histogram's bins, part of a record)

# The probe batch: one batch at Keras's default size. 32 samples give every layer's histograms and
# dead units (a unit zero on all of them; a layer is named when half its units are) for less
# than 64 cost (its forward and backward pass and its outputs' statistics dominate a record on
# small models: on a 2-core CPU, a record of the 50-layer residual model 1.06 -> 0.76 ms under
# JAX; the digits CNN 8.4 -> 6.4 ms under torch; 128 had cost twice 64).
PROBE_SAMPLES = 32
# Records take at most RECORD_SHARE of training time (besides the first and last epoch of a
# run, always recorded): an epoch is recorded when the time since the last record affords one
# (record_epoch); in long epochs, records are also taken every N batches, at most COST_SHARE
# (together with the epochs' own records, at most about RECORD_SHARE)
RECORD_SHARE = 0.03
COST_SHARE = 0.015
MIN_BATCHES_BETWEEN = 50  # and never come more often than this
# Records started and not yet in the store, at most (each holds a copy of the weights): a record
# slower than an epoch (a large model's first, eager records; tiny epochs) waits for the oldest
PENDING_RECORDS = 2
_FIELDS = tensor_stats.FIELDS


def _unpack(stats: tuple[list, list]) -> dict[str, Any]:
    """A summary row as `Measure.rows` gives it ((its FIELDS as floats, its histogram counts as
    ints)) as a record's statistics."""
    values, counts = stats
    out = {k: (v if math.isfinite(v) else None) for k, v in zip(_FIELDS, values)}
    out["non_finite"] = int(values[-1])
    out["histogram"] = {"counts": counts, "range": [out["min"], out["max"]]}
    return out


# ----- the probe batch --------------------------------------------------------------------------

def probe_batch(x: Any, y: Any, samples: int = PROBE_SAMPLES) -> tuple[Any, Any] | None:
    """The first `samples` of the training data (arrays, a list/dict of arrays, a tf.data
    Dataset or a PyDataset's first batch), or None when it cannot be had cheaply."""
    def head(a):
        if isinstance(a, dict):
            return {k: head(v) for k, v in a.items()}
        if isinstance(a, (list, tuple)):
            return type(a)(head(v) for v in a)
        return np.asarray(a[:samples])

    try:
        if hasattr(x, "element_spec") or isinstance(x, keras.utils.PyDataset):
            # as NumPy: a tf.data batch is TensorFlow's, which JAX's and torch's measures refuse
            batch = next(iter(x.take(1))) if hasattr(x, "element_spec") else x[0]
            x, y = (batch[0], batch[1]) if isinstance(batch, tuple) else (batch, None)
        return head(x), (None if y is None else head(y))
    except Exception:  # noqa: BLE001 - no probe: weights are still recorded
        return None


# ----- the callback -------------------------------------------------------------------------------

def _as_inputs(model, x) -> Any:
    """x in the structure the model's inputs were given in (a one-input list model takes [x])."""
    struct = getattr(model, "_inputs_struct", None)
    if isinstance(struct, list) and len(struct) == 1 and not isinstance(x, (list, tuple, dict)):
        return [x]
    return x


class Recorder(keras.callbacks.Callback):
    """Records insights (see the module's docstring) into `store` while fit runs.

    A record is started in the training thread (its device program dispatched: under JAX, and
    on a GPU, training goes on while it computes) and finished in a worker thread (its vector
    moved to the host, made into records, added to the store), in order: one worker thread for
    all recorders, started on first use (a thread per run cost about 1 ms of each run).
    `finish()` waits for them: the Trainer calls it as a run ends, before the run becomes an undo
    step."""

    def __init__(self, store, probe: tuple[Any, Any] | None, first_epoch: float = 0.0):
        super().__init__()
        self._store = store
        self._probe = probe
        self._first_epoch = first_epoch  # epochs recorded before this run
        self._measure: Measure | None = None
        self._previous: list = []  # the weights at the last record (for update ratios)
        self._every: int | None = None  # batches between records within an epoch
        self._last_epoch_s: float | None = None  # the last epoch's length, until _plan uses it
        self._epoch = 0
        self._batch = 0
        self._since = 0  # batches since the last record
        self._epoch_started = 0.0
        self._pending: list[concurrent.futures.Future] = []
        self._ended = threading.Event()

    def on_train_begin(self, logs=None):
        model = self.model
        if self._probe is not None:
            self._probe = (_as_inputs(model, self._probe[0]), self._probe[1])
        try:
            self._measure = measure(model, self._probe, self._store.compiled)
            self._previous = self._measure.initial(later=_worker().submit)
        except Exception as e:  # noqa: BLE001 - a model recording cannot follow: train without
            self._measure = None
            warnings.warn(f"Training insights cannot record this model ({type(e).__name__}: "
                          f"{e}); training goes on without them.", RuntimeWarning, stacklevel=1)
        self._unprepared = self._measure is not None
        self._ended = threading.Event()  # set as the run ends: a held program is made then
        self._last_record_at = time.monotonic()
        self._run_first: int | None = None  # the run's first epoch (Keras's initial_epoch)

    def _prepare(self) -> None:
        """The record's program made in the worker (Measure.prepare), at the first record (Keras
        has traced its own training step by then: the two never trace at once). A new model's
        program is made once the run has ended, or HOLD_S after its first record if the run
        goes on: making it (XLA's compile, a TensorFlow trace, holding the interpreter) takes
        the CPU a short fit trains on, and such a fit ends before it is done anyway: its records
        land after it (late.py). A long run has its live records HOLD_S later."""
        self._unprepared = False
        x, y = self._probe if self._probe is not None else (None, None)
        later = _worker().submit
        if self._measure not in _PREPARED:  # (a program made before needs no holding)
            _PREPARED.add(self._measure)
            later = _first_held(later, self._ended, HOLD_S)
        self._measure.prepare(x, y, self._previous, later)

    def on_epoch_begin(self, epoch, logs=None):
        if self._run_first is None:
            self._run_first = epoch
        self._epoch = epoch
        self._batch = 0
        self._epoch_started = time.monotonic()

    def on_train_batch_begin(self, batch, logs=None):
        self._batch = batch
        self._since += 1
        if self._last_epoch_s is not None:
            self._plan()
        every = self._every
        # (none within half an interval of the epoch's end: the epoch's own record comes then)
        if every is not None and self._since > every and self._steps() - batch > every // 2:
            self._record(self._first_epoch + self._epoch + batch / max(self._steps(), 1),
                         partial=True)

    def on_epoch_end(self, epoch, logs=None):
        cost = None if self._measure is None else self._measure.cost
        busy = any(not f.done() for f in self._pending)
        last = int((self.params or {}).get("epochs") or 0) - 1
        if record_epoch(epoch - self._run_first, last - self._run_first,
                        time.monotonic() - self._last_record_at, cost, busy,
                        within=self._every is not None):
            self._record(int(self._first_epoch) + epoch + 1, partial=False)
        self._every, self._last_epoch_s = None, time.monotonic() - self._epoch_started
        self._plan()

    def _plan(self) -> None:
        """How often to record within an epoch so that recording stays cheap, from the last
        epoch's length per batch and a record's cost (from its start until it is in the store,
        most of it beside training). A model's first record may still be computing: the training
        thread does not wait for it (taken while its program is still being made, it copies
        the values and runs in the worker once the program is ready), the batches ask again
        until its cost is known."""
        if self._measure is None:  # (recording stopped)
            self._last_epoch_s = None
            return
        cost = self._measure.cost
        if cost is None:
            return
        steps, spent = self._steps(), self._last_epoch_s
        self._last_epoch_s = None
        if steps and spent is not None:
            self._every = batches_between(cost, spent, steps)

    def on_train_end(self, logs=None):
        self._ended.set()
        # A batch began after the last record: a loop that ended within an epoch without its
        # on_epoch_end (Keras's own fit ends a stopped epoch with it: that record says the stop)
        if self._since > 0:
            done = self._batch + 1
            self._record(self._first_epoch + self._epoch + done / max(self._steps(), done),
                         partial=True)
        # (not waited for here: the last record computes while fit winds down; `finish`)

    def finish(self) -> list[concurrent.futures.Future]:
        """Wait until every record started is in the store (a failure is warned about, and
        recording stops), except those that wait for their program still being made (a new
        model's first records: XLA's compile, a TensorFlow trace): those are returned, to land
        after the run's end (late.py), as they would hold the run's end for seconds. The
        Trainer calls it as a run ends, however it ends."""
        self._ended.set()
        if self._measure is not None and self._measure.compiling:
            late = [f for f in self._pending if not f.done()]
            self._pending = [f for f in self._pending if f.done()]
            self._settle()
            return late
        self._settle()
        return []

    def _steps(self) -> int:
        return int((self.params or {}).get("steps") or 0)

    def _record(self, epoch: float, partial: bool) -> None:
        if self._measure is None:  # recording failed earlier in this run: training goes on
            return
        try:
            self._take(epoch, partial)
        except Exception as e:  # noqa: BLE001 - insights must never end a training run
            self._stopped(e)

    def _stopped(self, e: BaseException) -> None:
        if self._measure is None:
            return
        self._measure = None
        warnings.warn(f"Training insights stopped recording ({type(e).__name__}: {e}); "
                      "training goes on.", RuntimeWarning, stacklevel=1)

    def _settle(self) -> None:
        """Wait for the records started so far (in the training thread: warnings said here)."""
        pending, self._pending = self._pending, []
        for future in pending:
            error = future.exception()
            if error is not None:
                self._stopped(error)

    def _take(self, epoch: float, partial: bool) -> None:
        if any(f.done() and f.exception() is not None for f in self._pending):
            self._settle()  # an earlier record failed: say so, and record no more
            if self._measure is None:
                return
        busy = [f for f in self._pending if not f.done()]
        if len(busy) >= PENDING_RECORDS:
            concurrent.futures.wait(busy[:len(busy) - PENDING_RECORDS + 1])
        if self._unprepared:  # (the run's first record)
            self._prepare()
        started = self._last_record_at = time.monotonic()
        self._since = 0
        self.model  # (under JAX this puts the trained values back on the variables)  # noqa: B018
        x, y = self._probe if self._probe is not None else (None, None)
        measure_ = self._measure
        vector, self._previous = measure_.start(x, y, self._previous)
        self._pending = [f for f in self._pending if not f.done() or f.exception() is not None]
        self._pending.append(_worker().submit(self._finish_record, measure_, vector, epoch,
                                              partial, started))

    def _finish_record(self, measure_: Measure, vector, epoch: float, partial: bool,
                       started: float) -> None:
        rows = measure_.rows(vector)
        self._store.add(_records(rows, measure_.layout, epoch, partial, measure_.relu))
        measure_.cost = time.monotonic() - started


def record_epoch(epoch: int, last: int, since_s: float, cost: float | None, busy: bool,
                 within: bool = False) -> bool:
    """Whether to record as epoch `epoch` of a run ends (counted from 0; `last` its last):
    always the run's first and last epochs; an epoch in between when records taken within long
    epochs are on (`within`: the epoch's own record ends them), or when the training time since
    the last record (`since_s`) makes a record's cost (`cost` seconds from its start until it
    is in the store; None before one was measured) at most RECORD_SHARE of it, and no record
    is still under way (`busy`: a new model's first records wait for its program)."""
    if epoch <= 0 or epoch >= last or within:
        return True
    if cost is None or busy:
        return False
    return cost <= RECORD_SHARE * since_s


def batches_between(cost: float, epoch_s: float, steps: int) -> int | None:
    """Batches between records within an epoch of `steps` batches that took `epoch_s` seconds,
    for records that cost `cost` seconds each (from a record's start until it is in the store):
    records take at most COST_SHARE of training time, and never come more often than every
    MIN_BATCHES_BETWEEN batches; None when none fits within an epoch. An epoch's length per
    batch is a batch's cost: the records in it computed beside it."""
    every = max(MIN_BATCHES_BETWEEN, math.ceil(cost / max(epoch_s / steps, 1e-9) / COST_SHARE))
    return every if every < steps else None


HOLD_S = 10.0
"""How long after a run's first record a new model's record program waits for the run to end
before it is made anyway (Recorder._prepare)."""
_PREPARED: weakref.WeakSet = weakref.WeakSet()  # measures whose program was asked for


def _first_held(submit: Callable, ended: threading.Event, hold_s: float) -> Callable:
    """`submit`, but the first job given (making the program) waits in the worker until `ended`
    is set or `hold_s` have passed; the records after it wait in the worker behind it."""
    first = [True]

    def later(fn: Callable) -> concurrent.futures.Future:
        if not first[0]:
            return submit(fn)
        first[0] = False

        def held():
            ended.wait(hold_s)
            return fn()

        return submit(held)

    return later


_WORKER: list[concurrent.futures.ThreadPoolExecutor] = []
_WORKER_LOCK = threading.Lock()


def _worker() -> concurrent.futures.ThreadPoolExecutor:
    with _WORKER_LOCK:
        if not _WORKER:
            _WORKER.append(concurrent.futures.ThreadPoolExecutor(
                1, thread_name_prefix="kerascanvas-insights"))
        return _WORKER[0]


def _records(rows, layout, epoch: float, partial: bool, relu: dict) -> dict[str, dict]:
    """{layer: record} from the rows `Measure` made, laid out as `layout` says."""
    records: dict[str, dict] = {}
    for (kind, layer, weight), (row, a, b) in zip(layout, rows):
        record = records.setdefault(layer, {"epoch": epoch, "partial": partial, "weights": {},
                                            "gradients": {}, "activations": None})
        stats = _unpack(row)
        if kind == "weight":
            name = weight
            while name in record["weights"]:
                name += "'"
            record["weights"][name] = stats
            record["gradients"][name] = {
                "norm": a if a is not None and math.isfinite(a) else None,
                "update_ratio": b if math.isfinite(b) else None,
                "non_finite": a is not None and not math.isfinite(a)}
        else:
            stats.update(dead_units=int(a), units=int(b), relu_like=relu.get(layer, False))
            record["activations"] = stats
    for name in relu:  # a layer without weights and outputs still has its (empty) record
        records.setdefault(name, {"epoch": epoch, "partial": partial, "weights": {},
                                  "gradients": {}, "activations": None})
    return records
