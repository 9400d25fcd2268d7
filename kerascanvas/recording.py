"""What happens inside the layers while a model trains, measured on the device.

`Recorder` is a Keras callback that `Trainer.fit` adds. At the end of every epoch (and every N
batches in long epochs, N chosen from the measured cost so that recording stays under
`COST_SHARE` of training time) it records, per layer:

- weights: for each weight its mean, std, norm, min, max and a histogram; the update-to-weight
  ratio ||w - w_before|| / ||w_before|| since the previous record (the weight delta: free);
- gradients: each weight's gradient norm on a fixed probe batch (one extra forward and backward
  pass per record, backend-specific through Keras: tf.GradientTape, jax.grad over the model's
  stateless loss, torch.autograd.grad);
- activations: on the same probe batch, the layer's output mean, std, fraction of zeros, dead
  units (units zero on >= 99% of the probe) and a histogram, taken from the same forward pass
  the gradients come from.

Statistics are computed with keras.ops where the tensors live (tensor_stats: stacked by shape);
one small vector per record travels to the host. The records go to an `insights.Insights` store
(plain floats and lists).
"""

from __future__ import annotations

import concurrent.futures
import math
import threading
import time
import warnings
from typing import Any

import keras
import numpy as np
from keras import ops

from . import tensor_stats
from .tensor_stats import BINS  # noqa: F401 - (the histogram's bins, part of a record)

PROBE_SAMPLES = 128
DEAD_SHARE = 0.99  # a unit zero on at least this share of the probe batch is dead
COST_SHARE = 0.02  # records within an epoch take at most this share of training time
MIN_BATCHES_BETWEEN = 50  # and never come more often than this
_FIELDS = tensor_stats.FIELDS


def _unpack(stats: tuple[list, list]) -> dict[str, Any]:
    """A summary row as `_Measure.rows` gives it ((its FIELDS as floats, its histogram counts as
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

_RELU_NAMES = {"relu", "relu6"}


def relu_like(layer) -> bool:
    """Whether a layer's outputs are a ReLU's: zero for every negative input."""
    config = layer.get_config() if hasattr(layer, "get_config") else {}
    if type(layer).__name__ == "ReLU":
        return not config.get("negative_slope")
    activation = config.get("activation")
    return isinstance(activation, str) and activation in _RELU_NAMES


def _layer_output(layer) -> Any:
    """The first call's output tensor of a layer (its first output)."""
    nodes = getattr(layer, "_inbound_nodes", None) or []
    if not nodes:
        return None
    outputs = nodes[0].output_tensors
    return outputs[0] if outputs else None


def _as_inputs(model, x) -> Any:
    """x in the structure the model's inputs were given in (a one-input list model takes [x])."""
    struct = getattr(model, "_inputs_struct", None)
    if isinstance(struct, list) and len(struct) == 1 and not isinstance(x, (list, tuple, dict)):
        return [x]
    return x


def _assemble(measure, values, previous, grads, outputs) -> tuple[Any, list]:
    """The record's numbers as one vector (per weight: its statistics, gradient norm, update
    ratio; per output: its statistics, dead units, units) and the weights now, copied (stacked
    by shape, as `previous` is: see tensor_stats)."""
    weight_parts, now = [], []
    for group, before in zip(measure.weight_groups, previous):
        rows = tensor_stats.stacked(values, group)
        now.append(rows)
        change = tensor_stats.norms(rows - before) / ops.maximum(tensor_stats.norms(before),
                                                                 1e-12)
        weight_parts.append(ops.concatenate([tensor_stats.summaries(rows), ops.stack(
            [_grad_norms(grads, group), change], axis=1)], axis=1))
    parts = [tensor_stats.in_order(weight_parts, measure.weight_groups)] if weight_parts else []
    if outputs:
        output_parts = []
        for group in tensor_stats.groups(outputs):
            rows = tensor_stats.stacked(outputs, group)
            shape = outputs[group[0]].shape
            units = int(shape[-1]) if len(shape) > 1 else 1
            dead = tensor_stats.dead_units(rows, units, DEAD_SHARE)
            output_parts.append(ops.concatenate([tensor_stats.summaries(rows), ops.stack(
                [dead, ops.full_like(dead, float(units))], axis=1)], axis=1))
        parts.append(tensor_stats.in_order(output_parts, tensor_stats.groups(outputs)))
    return ops.reshape(ops.concatenate(parts, axis=0), (-1,)), now


def _grad_norms(grads, group) -> Any:
    """The gradient norm of each weight in `group`, -1 for a weight without a gradient."""
    present = [grads[i] is not None for i in group]
    if all(present):
        return tensor_stats.norms(tensor_stats.stacked(grads, group))
    if not any(present):
        return ops.full((len(group),), -1.0, dtype="float32")
    return ops.stack([tensor_stats.norms(tensor_stats.stacked(grads, [i]))[0]
                      if grads[i] is not None else ops.convert_to_tensor(-1.0, "float32")
                      for i in group])


class _Measure:
    """What one record computes for a model: its layers' weights (in `layout` order) with their
    gradients on the probe batch and their change since the last record, and its layers' outputs
    on the probe batch. One forward pass on the probe batch gives both: `forward` is a model
    that returns every layer's output (the model's own outputs among them), the loss is taken
    on those and differentiated. Compiled for the backend (tf.function, jax.jit: one device
    program instead of hundreds of small operations), once per model (`measure`); torch runs it
    eagerly, its statistics stacked by shape (tensor_stats)."""

    def __init__(self, model: keras.Model, probe: bool):
        self.model = model
        self.weights, self.layout = [], []
        layers = [l for l in model.layers if not isinstance(l, keras.layers.InputLayer)]
        for layer in layers:
            for weight in layer.trainable_weights + layer.non_trainable_weights:
                self.weights.append(weight)
                self.layout.append(("weight", layer.name, _weight_name(layer, weight)))
        self.weight_groups = tensor_stats.groups(self.weights)
        self.relu = {l.name: relu_like(l) for l in layers}
        self.forward, self.activations, self.predicted = None, 0, []
        if probe:
            self._forward_model(layers)
        self.with_gradients = probe
        self.cost: float | None = None  # seconds from a record's start to its rows, last seen
        self._initial = None
        self._run = self._compiled()

    def _forward_model(self, layers) -> None:
        """`forward`: the model's input to every layer's output and then the model's outputs
        that are not among them; `predicted`: where the model's outputs are in that list."""
        model = self.model
        tensors = [(l.name, _layer_output(l)) for l in layers]
        tensors = [(n, t) for n, t in tensors if t is not None and hasattr(t, "shape")]
        outputs = [t for _, t in tensors]
        predicted = []
        for out in keras.tree.flatten(model.outputs):
            at = next((i for i, t in enumerate(outputs) if t is out), None)
            if at is None:
                at = len(outputs)
                outputs.append(out)
            predicted.append(at)
        try:
            self.forward = keras.Model(model.input, outputs)
            self.activations = len(tensors)
            self.layout += [("activation", n, None) for n, _ in tensors]
        except Exception:  # noqa: BLE001 - a model Keras cannot slice: gradients, no activations
            self.forward = model
            predicted = list(range(len(keras.tree.flatten(model.outputs))))
        self.predicted = predicted

    def initial(self) -> list:
        """The weights now, copied as `__call__` wants its `previous` (one compiled program
        under TensorFlow and JAX, made on first use)."""
        if self._initial is None:
            groups = self.weight_groups

            def copies(values):
                return [tensor_stats.stacked(values, g) for g in groups]

            self._initial = _compile(copies)
        return self._initial([w.value for w in self.weights])

    def __call__(self, x, y, previous) -> tuple[list, list]:
        """(per `layout` entry (statistics, a, b), the weights now): a and b are a weight's
        gradient norm (None without one) and update ratio, an output's dead units and units."""
        vector, previous = self.start(x, y, previous)
        return self.rows(vector), previous

    def start(self, x, y, previous) -> tuple[Any, list]:
        """(the record's vector, still on the device and perhaps still being computed (JAX
        dispatches it and returns), the weights now) for `rows`."""
        try:
            return self._run(x, y, previous)
        except Exception:
            if not self.with_gradients:
                raise
            self.with_gradients = False
            self._run = self._compiled()
            return self._run(x, y, previous)

    def rows(self, vector) -> list:
        """`__call__`'s rows out of `start`'s vector (waits for it, moves it to the host): per
        `layout` entry ((its FIELDS, its histogram counts), a, b). Made with whole-matrix
        conversions: this runs for every record, beside training, holding the interpreter."""
        width = tensor_stats.WIDTH + 2
        matrix = np.asarray(keras.ops.convert_to_numpy(vector), dtype=np.float64)
        matrix = matrix.reshape(len(self.layout), width)
        fields = matrix[:, :len(_FIELDS)].tolist()
        counts = matrix[:, len(_FIELDS):-2].astype(np.int64).tolist()
        rows = []
        for (kind, _, _), values, hist, (a, b) in zip(self.layout, fields, counts,
                                                      matrix[:, -2:].tolist()):
            rows.append(((values, hist), None if kind == "weight" and a == -1.0 else a, b))
        return rows

    def y_pred(self, outputs) -> Any:
        """The model's prediction (in its own output structure) out of `forward`'s outputs."""
        found = [outputs[i] for i in self.predicted]
        struct = getattr(self.model, "_outputs_struct", None)
        if struct is None:
            return found[0] if len(found) == 1 else found
        return keras.tree.pack_sequence_as(struct, found)

    def _eager(self, x, y, previous):
        """One record, run eagerly (torch) or traced by tf.function (TensorFlow)."""
        grads, outputs = [], []
        if self.forward is not None and x is not None:
            grads, outputs = _probe_pass(self, x, y)
        found = dict(zip(map(id, self.model.trainable_variables), grads))
        with _no_grad():
            return _assemble(self, [w.value for w in self.weights], previous,
                             [found.get(id(w)) for w in self.weights], outputs)

    def _compiled(self):
        return self._jax() if keras.backend.backend() == "jax" else _compile(self._eager)

    def _jax(self):
        import jax

        model, forward, weights, measure = self.model, self.forward, self.weights, self
        tv, ntv, mv = (model.trainable_variables, model.non_trainable_variables,
                       model.metrics_variables)
        with_gradients, activations = self.with_gradients, self.activations

        def run(t, n, m, previous, x, y):
            def outputs_of(trainable):
                values = {id(v): a for v, a in zip(tv, trainable)} | \
                    {id(v): a for v, a in zip(ntv, n)}
                outputs, _, losses = forward.stateless_call(
                    [values[id(v)] for v in forward.trainable_variables],
                    [values[id(v)] for v in forward.non_trainable_variables], x,
                    return_losses=True, training=False)
                return _listed(outputs), losses

            def loss_of(trainable):
                outputs, losses = outputs_of(trainable)
                if losses:  # (the forward pass's own losses, as compute_loss_and_updates does)
                    model._losses_override = losses
                try:
                    loss, _ = model.stateless_compute_loss(
                        trainable, n, m, x=x, y=y, y_pred=measure.y_pred(outputs),
                        training=False)
                finally:
                    if losses:
                        model._losses_override = []
                return loss, outputs

            grads, outputs = [None] * len(tv), []
            if forward is not None and x is not None:
                if with_gradients:
                    grads, outputs = jax.grad(loss_of, has_aux=True)(t)
                else:
                    outputs, _ = outputs_of(t)
            found = {id(v): g for v, g in zip(tv, grads)}
            values = {id(v): a for v, a in zip(tv, t)} | {id(v): a for v, a in zip(ntv, n)}
            return _assemble(measure, [values[id(w)] for w in weights], previous,
                             [found.get(id(w)) for w in weights], outputs[:activations])

        jitted = jax.jit(run)
        return lambda x, y, previous: jitted([v.value for v in tv], [v.value for v in ntv],
                                             [v.value for v in mv], previous, x, y)


def _probe_pass(measure: _Measure, x, y) -> tuple[list, list]:
    """(the loss's gradient for each trainable variable of the model, None where it does not
    reach one or without gradients; each layer's output) from one forward pass of
    `measure.forward` on the probe batch, TensorFlow or torch. Changes no variable, optimizer
    or metric."""
    model, forward, keep = measure.model, measure.forward, measure.activations
    variables = model.trainable_variables
    if not measure.with_gradients:
        with _no_grad():
            return [None] * len(variables), _listed(forward(x, training=False))[:keep]
    backend = keras.backend.backend()
    if backend == "tensorflow":
        import tensorflow as tf

        with tf.GradientTape() as tape:
            outputs = _listed(forward(x, training=False))
            loss = model.compute_loss(x=x, y=y, y_pred=measure.y_pred(outputs), training=False)
        return tape.gradient(loss, variables), outputs[:keep]
    if backend == "torch":
        import torch

        values = [v.value for v in variables]
        outputs = _listed(forward(x, training=False))
        loss = model.compute_loss(x=x, y=y, y_pred=measure.y_pred(outputs), training=False)
        wanted = [v for v in values if v.requires_grad]
        found = iter(torch.autograd.grad(loss, wanted, allow_unused=True)) if wanted else iter(())
        return ([next(found) if v.requires_grad else None for v in values],
                [o.detach() for o in outputs[:keep]])
    with _no_grad():  # another backend: weights and activations only
        return [None] * len(variables), _listed(forward(x, training=False))[:keep]


def _compile(fn):
    """fn as one TensorFlow graph or JAX program; torch runs it eagerly."""
    backend = keras.backend.backend()
    if backend == "tensorflow":
        import tensorflow as tf

        return tf.function(fn, reduce_retracing=True)
    if backend == "jax":
        import jax

        return jax.jit(fn)
    return fn


def _listed(outputs) -> list:
    return keras.tree.flatten(outputs)


def measure(model: keras.Model, probe: tuple | None, cache: dict) -> _Measure:
    """The measure of `model`, kept in `cache` (the drawing's insights store): a new fit of the
    same model reuses it and its compiled program; it goes with the drawing."""
    key = (id(model), probe is None, None if probe is None else _shapes(probe))
    if cache.get("key") != key or cache.get("model") is not model:
        cache.update(key=key, model=model, measure=_Measure(model, probe is not None))
    return cache["measure"]


def _shapes(probe) -> Any:
    from keras import tree

    return tuple(repr(getattr(a, "shape", None)) for a in tree.flatten(probe))


def _no_grad():
    if keras.backend.backend() == "torch":
        import torch

        return torch.no_grad()
    import contextlib

    return contextlib.nullcontext()


class Recorder(keras.callbacks.Callback):
    """Records insights (see the module's docstring) into `store` while fit runs.

    A record is started in the training thread (its device program dispatched: under JAX, and
    on a GPU, training goes on while it computes) and finished in a worker thread (its vector
    moved to the host, made into records, added to the store), in order: one worker thread for
    all recorders, started on first use (a thread per run cost about 1 ms of each run).
    `finish()` waits for them: training's end calls it, and so does the Trainer when a run ends
    any other way."""

    def __init__(self, store, probe: tuple[Any, Any] | None, first_epoch: float = 0.0):
        super().__init__()
        self._store = store
        self._probe = probe
        self._first_epoch = first_epoch  # epochs recorded before this run
        self._measure: _Measure | None = None
        self._previous: list = []  # the weights at the last record (for update ratios)
        self._every: int | None = None  # batches between records within an epoch
        self._epoch = 0
        self._batch = 0
        self._since = 0  # batches since the last record
        self._epoch_started = 0.0
        self._pending: list[concurrent.futures.Future] = []

    def on_train_begin(self, logs=None):
        model = self.model
        if self._probe is not None:
            self._probe = (_as_inputs(model, self._probe[0]), self._probe[1])
        try:
            self._measure = measure(model, self._probe, self._store.compiled)
            self._previous = self._measure.initial()
        except Exception as e:  # noqa: BLE001 - a model recording cannot follow: train without
            self._measure = None
            warnings.warn(f"Training insights cannot record this model ({type(e).__name__}: "
                          f"{e}); training goes on without them.", RuntimeWarning, stacklevel=1)

    def on_epoch_begin(self, epoch, logs=None):
        self._epoch = epoch
        self._batch = 0
        self._epoch_started = time.monotonic()

    def on_train_batch_begin(self, batch, logs=None):
        self._batch = batch
        self._since += 1
        if self._every is not None and self._since > self._every:
            self._record(self._first_epoch + self._epoch + batch / max(self._steps(), 1),
                         partial=True)

    def on_epoch_end(self, epoch, logs=None):
        self._record(int(self._first_epoch) + epoch + 1, partial=False)
        if self._measure is not None and self._measure.cost is None:
            self._settle()  # the first record of this model: its cost is needed now
        steps = self._steps()
        cost = self._measure.cost if self._measure is not None else None
        if steps and cost is not None:  # how often within an epoch recording stays cheap
            per_batch = (time.monotonic() - self._epoch_started - cost) / steps
            every = max(MIN_BATCHES_BETWEEN, math.ceil(cost / max(per_batch, 1e-9)
                                                        / COST_SHARE))
            self._every = every if every < steps else None

    def on_train_end(self, logs=None):
        if self._since > 0:  # stopped within an epoch (a stop, a NaN loss): its last state
            done = self._batch + 1
            self._record(self._first_epoch + self._epoch + done / max(self._steps(), done),
                         partial=True)
        self.finish()

    def finish(self) -> None:
        """Wait until every record started is in the store (a failure is warned about, and
        recording stops). Training goes on or ends either way."""
        self._settle()

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
        started = time.monotonic()
        self._since = 0
        self.model  # (under JAX this puts the trained values back on the variables)  # noqa: B018
        x, y = self._probe if self._probe is not None else (None, None)
        measure_ = self._measure
        vector, self._previous = measure_.start(x, y, self._previous)
        self._pending = [f for f in self._pending if not f.done() or f.exception() is not None]
        self._pending.append(_worker().submit(self._finish_record, measure_, vector, epoch,
                                              partial, started))

    def _finish_record(self, measure_: _Measure, vector, epoch: float, partial: bool,
                       started: float) -> None:
        rows = measure_.rows(vector)
        self._store.add(_records(rows, measure_.layout, epoch, partial, measure_.relu))
        measure_.cost = time.monotonic() - started


_WORKER: list[concurrent.futures.ThreadPoolExecutor] = []
_WORKER_LOCK = threading.Lock()


def _worker() -> concurrent.futures.ThreadPoolExecutor:
    with _WORKER_LOCK:
        if not _WORKER:
            _WORKER.append(concurrent.futures.ThreadPoolExecutor(
                1, thread_name_prefix="kerascanvas-insights"))
        return _WORKER[0]


def _weight_name(layer, weight) -> str:
    path = getattr(weight, "path", None) or weight.name
    prefix = layer.name + "/"
    return path.removeprefix(prefix)


def _records(rows, layout, epoch: float, partial: bool, relu: dict) -> dict[str, dict]:
    """{layer: record} from the rows `_Measure` made, laid out as `layout` says."""
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
