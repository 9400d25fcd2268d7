"""Training a Graph's model: `Trainer.fit` runs `keras.Model.fit` in a background thread of the
kernel, so the notebook and the widget stay live; progress reaches subscribers at most 10 times a
second; `stop()` ends it after the current batch and keeps the weights.

While it runs the Graph refuses edits (`graph._edit_lock` holds the reason), so the layers being
trained never change under it. The graph's own model is trained, so the weights stay on the
graph's layers. With a distribution engine (several GPUs, or when asked) the variables must be
created under the engine's scope: the model is cloned there, trained, and its weights are copied
back onto the graph's layers at the end (also after a stop or a failure).

Only the keras API is used, except to name the GPU and to make a `tf.distribute.MirroredStrategy`,
so KERAS_BACKEND=jax or torch work too.
"""

from __future__ import annotations

import contextlib
import inspect
import math
import threading
import time
import traceback
import warnings
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

import keras

from .graph import Graph

__all__ = ["DataError", "Trainer", "TrainingError", "choices", "device_description",
           "panel_options"]

UPDATES_PER_SECOND = 10
MAX_CURVE_POINTS = 2000
LOCK_MESSAGE = ("Training is running: the graph cannot be edited until it ends. "
                "Stop it (canvas.stop()) or wait for it to finish.")
# Arguments of keras.Model.fit that the Trainer sets itself.
_OWN_FIT_ARGUMENTS = {"x", "y", "epochs", "batch_size", "validation_split", "validation_data"}
# Choices offered by the training panel (Python callers may pass any Keras identifier).
OPTIMIZERS = ("adam", "adamw", "sgd", "rmsprop", "adagrad", "adadelta", "adamax", "nadam", "lion")
LOSSES = ("auto", "sparse_categorical_crossentropy", "categorical_crossentropy",
          "binary_crossentropy", "mean_squared_error", "mean_absolute_error", "huber")
# Distribution engines: "auto" uses the backend's own one when it sees several GPUs.
STRATEGIES = ("auto", "none", "mirrored", "data_parallel")
METRICS = ("accuracy", "sparse_categorical_accuracy", "categorical_accuracy", "binary_accuracy",
           "mean_absolute_error", "mean_squared_error", "auc", "precision", "recall")


class TrainingError(RuntimeError):
    """Training cannot start (or was refused): the message says why."""


class DataError(TrainingError, ValueError):
    """Data that does not fit the model: wrong number of arrays, shape or dtype."""


# ----- devices ----------------------------------------------------------------------------------

def _devices() -> list[str]:
    """Devices of the default type ("gpu:0", ... or "cpu:0"), as keras.distribution lists them."""
    try:
        return list(keras.distribution.list_devices())
    except (AttributeError, NotImplementedError):  # torch: Keras has no distribution library
        import torch

        if torch.cuda.is_available():
            return [f"gpu:{i}" for i in range(torch.cuda.device_count())]
        return ["cpu:0"]


def _accelerators() -> list[str]:
    return [d for d in _devices() if not d.startswith("cpu")]


def _gpu_name() -> str:
    backend = keras.backend.backend()
    try:
        if backend == "tensorflow":
            import tensorflow as tf

            gpu = tf.config.list_physical_devices("GPU")[0]
            return tf.config.experimental.get_device_details(gpu).get("device_name", "GPU")
        if backend == "jax":
            import jax

            return jax.devices()[0].device_kind
        if backend == "torch":
            import torch

            return torch.cuda.get_device_name(0)
    except Exception:  # noqa: BLE001, S110 - a name is a nicety; the device is still used
        pass
    return "GPU"


def device_description() -> str:
    """Where training runs: "GPU: NVIDIA H100 80GB HBM3", "2 GPUs: ...", or
    "CPU: no GPU visible to tensorflow" (the backend's name)."""
    accelerators = _accelerators()
    if not accelerators:
        return f"CPU: no GPU visible to {keras.backend.backend()}"
    kind = accelerators[0].split(":")[0].upper()
    name = _gpu_name() if kind == "GPU" else kind
    return f"{kind}: {name}" if len(accelerators) == 1 else f"{len(accelerators)} {kind}s: {name}"


@dataclass
class _Engine:
    """How fit runs: on the default device ("none"), or under a distribution engine."""

    name: str  # "none" | "mirrored" | "data_parallel" | "custom"
    scope: Callable[[], Any]
    description: str
    replicas: int = 1

    @property
    def distributed(self) -> bool:
        return self.name != "none"


def _engine(strategy: Any) -> _Engine:
    backend = keras.backend.backend()
    if not isinstance(strategy, str):
        if isinstance(strategy, keras.distribution.Distribution) or hasattr(strategy, "scope"):
            return _Engine("custom", strategy.scope,
                           f"{type(strategy).__name__}; {device_description()}")
        raise TypeError(f"strategy must be 'auto', 'none', 'mirrored', 'data_parallel', a "
                        f"tf.distribute.Strategy or a keras.distribution.Distribution, got "
                        f"{strategy!r:.80}.")
    if strategy == "auto":
        many = len(_accelerators()) > 1
        strategy = ("mirrored" if many and backend == "tensorflow" else
                    "data_parallel" if many and backend == "jax" else "none")
    if strategy == "none":
        return _Engine("none", contextlib.nullcontext, device_description())
    devices = _devices()
    listed = f"{len(devices)} devices ({', '.join(devices)}); {device_description()}"
    if strategy == "mirrored":
        if backend != "tensorflow":
            raise TrainingError(f"strategy='mirrored' (tf.distribute.MirroredStrategy) needs the "
                                f"TensorFlow backend; this one is {backend}."
                                + (" Use strategy='data_parallel'." if backend == "jax" else ""))
        import tensorflow as tf

        mirrored = tf.distribute.MirroredStrategy(devices=[f"/{d}" for d in devices])
        return _Engine("mirrored", mirrored.scope, f"MirroredStrategy over {listed}",
                       len(devices))
    if strategy == "data_parallel":
        if backend != "jax":
            raise TrainingError(f"strategy='data_parallel' (keras.distribution.DataParallel) "
                                f"needs the JAX backend; this one is {backend}."
                                + (" Use strategy='mirrored'." if backend == "tensorflow" else ""))
        parallel = keras.distribution.DataParallel(devices=devices)
        return _Engine("data_parallel", parallel.scope, f"DataParallel over {listed}",
                       len(devices))
    raise ValueError(f"strategy must be 'auto', 'none', 'mirrored' or 'data_parallel', got "
                     f"{strategy!r:.80}.")


# ----- data: what it holds, and whether it fits the model ----------------------------------------

@dataclass(frozen=True)
class _Leaf:
    """One array (or one tensor spec of a dataset): its shape, batch first, and dtype."""

    shape: tuple
    dtype: str
    kind: str  # "float" | "int" | "bool" | "string" | "other"


def _kind(dtype: str) -> str:
    for prefix, kind in (("float", "float"), ("bfloat", "float"), ("int", "int"),
                         ("uint", "int"), ("bool", "bool"), ("string", "string")):
        if dtype.startswith(prefix):
            return kind
    return "other"


def _is_array(value: Any) -> bool:
    return hasattr(value, "shape") and hasattr(value, "dtype")


def _leaf(value: Any) -> _Leaf:
    if not _is_array(value):
        import numpy as np

        value = np.asarray(value)
    shape = getattr(value.shape, "as_list", lambda: value.shape)()  # a TensorShape
    try:
        dtype = keras.backend.standardize_dtype(value.dtype)
    except (ValueError, TypeError, AttributeError):
        kind = getattr(value.dtype, "kind", "")
        dtype = "string" if kind in ("U", "S") else str(value.dtype)
    shape = tuple(None if d is None else int(d) for d in shape)
    return _Leaf(shape, dtype, _kind(dtype))


def _structure(value: Any) -> Any:
    """A _Leaf, a list of them, or a dict of them, as Keras reads x or y."""
    if isinstance(value, Mapping):
        return {str(k): _leaf(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)) and value and all(_is_array(v) for v in value):
        return [_leaf(v) for v in value]  # several arrays: one per input (or output)
    return _leaf(value)


def _spec_structure(spec: Any) -> Any:
    if isinstance(spec, Mapping):
        return {str(k): _leaf(v) for k, v in spec.items()}
    if isinstance(spec, (list, tuple)):
        return [_leaf(v) for v in spec]
    return _leaf(spec)


@dataclass
class _Batches:
    """What a data source yields: x and y structures, and how many samples (arrays only)."""

    source: str  # how messages name it: "x", "the dataset", "validation_data"
    x: Any
    y: Any
    samples: int | None  # None for datasets
    is_dataset: bool


def _is_dataset(value: Any) -> bool:
    return hasattr(value, "element_spec") or isinstance(value, keras.utils.PyDataset)


def _describe(x: Any, y: Any, source: str) -> _Batches:
    """Read shapes and dtypes from arrays, a tf.data.Dataset or a keras.utils.PyDataset."""
    if x is None:
        raise DataError(f"{source}: no inputs (x is None).")
    if _is_dataset(x):
        if y is not None:
            raise DataError(f"{source}: a dataset yields (x, y) pairs itself; pass y=None, got "
                            f"y of type {type(y).__name__}.")
        kind = "tf.data.Dataset" if hasattr(x, "element_spec") else "PyDataset"
        what = f"the {kind}" if source == "x" else f"{source} (a {kind})"
        if hasattr(x, "element_spec"):
            element = x.element_spec
            pair = _spec_structure
        else:
            if len(x) == 0:
                raise DataError(f"{what} is empty (len 0).")
            element = x[0]
            pair = _structure
        if not isinstance(element, tuple) or len(element) not in (2, 3):
            raise DataError(f"{what} must yield (x, y) or (x, y, sample_weight) batches to train "
                            f"on; it yields {type(element).__name__} elements.")
        return _Batches(what, pair(element[0]), pair(element[1]), None, True)
    if y is None:
        raise DataError(f"{source}: targets are missing (y is None); training needs x and y.")
    xs, ys = _structure(x), _structure(y)
    counts = {leaf.shape[0] if leaf.shape else None for leaf in _leaves(xs) + _leaves(ys)}
    if len(counts) > 1 or None in counts:
        sizes = ", ".join(f"{name} {leaf.shape[0] if leaf.shape else 'scalar'}"
                          for name, leaf in _named(xs, "x") + _named(ys, "y"))
        raise DataError(f"{source}: every array needs the same number of samples; got {sizes}.")
    return _Batches("x" if source == "x" else source, xs, ys, counts.pop(), False)


def _leaves(structure: Any) -> list[_Leaf]:
    if isinstance(structure, dict):
        return list(structure.values())
    return list(structure) if isinstance(structure, list) else [structure]


def _named(structure: Any, base: str) -> list[tuple[str, _Leaf]]:
    if isinstance(structure, dict):
        return [(f"{base}[{k!r}]", v) for k, v in structure.items()]
    if isinstance(structure, list):
        return [(f"{base}[{i}]", v) for i, v in enumerate(structure)]
    return [(base, structure)]


def _align(names: list[str], structure: Any, role: str, what: str) -> list[_Leaf]:
    """The leaves in the model's order of inputs (or outputs), or a DataError that says why not."""
    plural = f"{len(names)} {role}{'s' if len(names) != 1 else ''} ({', '.join(names)})"
    if isinstance(structure, dict):
        if set(structure) != set(names):
            raise DataError(f"The model has {plural}, but {what} names {sorted(structure)}.")
        return [structure[n] for n in names]
    leaves = structure if isinstance(structure, list) else [structure]
    if len(leaves) != len(names):
        held = f"{len(leaves)} array{'s' if len(leaves) != 1 else ''}"
        raise DataError(f"The model has {plural}, but {what} holds {held}"
                        + ("; pass a list, or a dict by name." if len(names) > 1 else "."))
    return leaves


def _fits(shape: tuple, expected: tuple) -> bool:
    return len(shape) == len(expected) and all(
        a is None or b is None or a == b for a, b in zip(shape, expected))


def _shape(shape: tuple) -> str:
    return "(" + ", ".join("None" if d is None else str(d) for d in shape) + \
        ("," if len(shape) == 1 else "") + ")"


_ACCEPTS = {"float": {"float", "int", "bool"}, "int": {"int", "bool"}, "bool": {"bool", "int"},
            "string": {"string"}}


def _check_inputs(model: keras.Model, batches: _Batches) -> None:
    tensors = list(model.inputs)
    names = [t._keras_history.operation.name for t in tensors]
    what = batches.source if batches.is_dataset or batches.source == "x" else \
        f"{batches.source}'s x"
    for name, tensor, leaf in zip(names, tensors, _align(names, batches.x, "input", what)):
        expected = tuple(tensor.shape)
        if batches.is_dataset and _fits((None,) + leaf.shape, expected):
            raise DataError(f"Input {name!r} expects batches of shape {_shape(expected)}, but "
                            f"{what} yields unbatched elements of shape {_shape(leaf.shape)}: "
                            f"call .batch(32) on the dataset.")
        if not _fits(leaf.shape, expected):
            raise DataError(f"Input {name!r} expects batches of shape {_shape(expected)}, but "
                            f"{what} has shape {_shape(leaf.shape)}.")
        wanted = _kind(tensor.dtype)
        if leaf.kind not in _ACCEPTS.get(wanted, {wanted}):
            raise DataError(f"Input {name!r} expects {tensor.dtype} values, but {what} holds "
                            f"{leaf.dtype} data (shape {_shape(leaf.shape)}).")


def _sparse_loss(loss: Any) -> bool | None:
    """True for a sparse (integer label) loss, False for one that wants y shaped like the
    output, None when that cannot be told (a function of the user's, or None: inferred)."""
    if loss is None:
        return None
    name = loss if isinstance(loss, str) else type(loss).__name__
    if isinstance(loss, (str, keras.losses.Loss)):
        return "sparse" in name.lower()
    return None


def _label_shape(y: tuple, out: tuple) -> bool:
    """y holds integer class labels for an output whose last axis scores the classes."""
    return _fits(y, out[:-1]) or _fits(y, out[:-1] + (1,))


def _target_shape(y: tuple, out: tuple) -> bool:
    return _fits(y, out) or (out[-1:] == (1,) and _fits(y, out[:-1]))


def _check_outputs(model: keras.Model, batches: _Batches, loss: Any) -> list[_Leaf]:
    tensors = list(model.outputs)
    names = [t._keras_history.operation.name for t in tensors]
    what = batches.source if batches.is_dataset else (
        "y" if batches.source == "x" else f"{batches.source}'s y")
    losses = loss if isinstance(loss, (list, tuple)) else (
        [loss.get(n) for n in names] if isinstance(loss, Mapping) else [loss] * len(names))
    leaves = _align(names, batches.y, "output", f"{what} (targets)")
    for name, tensor, leaf, one_loss in zip(names, tensors, leaves, losses):
        out, sparse = tuple(tensor.shape), _sparse_loss(one_loss)
        if leaf.kind not in ("float", "int", "bool"):
            raise DataError(f"Output {name!r}: targets must be numbers, but {what} holds "
                            f"{leaf.dtype} data.")
        labels, targets = _label_shape(leaf.shape, out), _target_shape(leaf.shape, out)
        if sparse is True and not labels:
            raise DataError(f"Output {name!r} has shape {_shape(out)}, so the sparse loss "
                            f"{one_loss!r} needs integer labels of shape {_shape(out[:-1])}, but "
                            f"{what} has shape {_shape(leaf.shape)}.")
        if sparse is False and not targets:
            raise DataError(f"Output {name!r} has shape {_shape(out)}, but {what} has shape "
                            f"{_shape(leaf.shape)}"
                            + ("; for integer class labels use a sparse loss such as "
                               "'sparse_categorical_crossentropy'." if labels else "."))
        if sparse is None and not (targets or labels):
            raise DataError(f"Output {name!r} has shape {_shape(out)}, but {what} has shape "
                            f"{_shape(leaf.shape)} (neither that shape nor integer labels of "
                            f"shape {_shape(out[:-1])}).")
    return leaves


def _check_data(model: keras.Model, batches: _Batches, loss: Any = None) -> list[_Leaf]:
    """Raise DataError when the data does not fit the model; returns the target leaves."""
    _check_inputs(model, batches)
    return _check_outputs(model, batches, loss)


def _divisible(x, y, validation_data, arguments: dict, samples: int, replicas: int):
    """keras.distribution.DataParallel shards every batch over the devices, so each batch, the
    last one included, must divide evenly. Split off the validation data as Keras does (the last
    fraction, before shuffling), then leave out the last few samples of each part. Returns
    (x, y, validation_data, samples left out); `arguments` loses its validation_split."""
    for key in ("batch_size", "validation_batch_size"):
        size = arguments.get(key)
        if size and size % replicas:
            raise TrainingError(f"{key} must be a multiple of the {replicas} devices that "
                                f"DataParallel splits each batch over, got {size}.")

    def take(tree, start, stop):
        return keras.tree.map_structure(lambda a: a[start:stop], tree)

    split = arguments.pop("validation_split", 0.0)
    if split and validation_data is None:
        at = math.floor(samples * (1.0 - split))
        validation_data = (take(x, at, samples), take(y, at, samples))
        x, y, samples = take(x, 0, at), take(y, 0, at), at
    keep = samples - samples % replicas
    x, y = take(x, 0, keep), take(y, 0, keep)
    dropped = samples - keep
    if isinstance(validation_data, (tuple, list)):
        count = _leaves(_structure(validation_data[0]))[0].shape[0]
        kept = count - count % replicas
        validation_data = tuple(take(part, 0, kept) for part in validation_data)
        dropped += count - kept
    return x, y, validation_data, dropped


def _ends_in(tensor: Any, activation: str) -> bool:
    layer = tensor._keras_history.operation
    if type(layer).__name__.lower() == activation:  # keras.layers.Softmax
        return True
    return getattr(getattr(layer, "activation", None), "__name__", "") == activation


def _default_loss(model: keras.Model, targets: list[_Leaf]) -> tuple[list, list[str]]:
    """The loss a person would pick: integer labels -> (sparse) cross-entropy, from logits unless
    the output ends in softmax/sigmoid; anything else -> mean squared error."""
    losses, names = [], []
    for tensor, leaf in zip(model.outputs, targets):
        out = tuple(tensor.shape)
        integer = leaf.kind in ("int", "bool")
        if integer and out[-1] not in (None, 1) and _label_shape(leaf.shape, out):
            logits = not _ends_in(tensor, "softmax")
            losses.append(keras.losses.SparseCategoricalCrossentropy(from_logits=logits))
            names.append("sparse_categorical_crossentropy" + (" (from logits)" if logits else ""))
        elif integer and out[-1] == 1:
            logits = not _ends_in(tensor, "sigmoid")
            losses.append(keras.losses.BinaryCrossentropy(from_logits=logits))
            names.append("binary_crossentropy" + (" (from logits)" if logits else ""))
        else:
            losses.append(keras.losses.MeanSquaredError())
            names.append("mean_squared_error")
    return losses, names


# ----- progress -------------------------------------------------------------------------------

class _Progress(keras.callbacks.Callback):
    """Feeds the Trainer's status from inside fit. Batch ends may run in Keras's executor threads
    (async_safe), which keeps fit pipelined as it is without callbacks; they may come out of order
    within an epoch, so the Trainer keeps the highest batch seen."""

    async_safe = True

    def __init__(self, trainer: Trainer):
        super().__init__()
        self._trainer = trainer

    def on_train_begin(self, logs=None):
        self._trainer._began(self.params)

    def on_epoch_begin(self, epoch, logs=None):
        self._trainer._epoch_began(epoch)

    def on_train_batch_begin(self, batch, logs=None):
        if self._trainer._stop_requested.is_set():
            self.model.stop_training = True  # Keras checks it after this batch ends

    def on_train_batch_end(self, batch, logs=None):
        if self._trainer._batch_ended(batch, logs or {}):
            self.model.stop_training = True

    def on_epoch_end(self, epoch, logs=None):
        self._trainer._epoch_ended(epoch, logs or {})


def _finite(value: Any) -> Any:
    """JSON for the front end: Jupyter refuses NaN and infinity in messages."""
    if isinstance(value, float) and not math.isfinite(value):
        return None
    if isinstance(value, dict):
        return {k: _finite(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_finite(v) for v in value]
    return value


def _floats(logs: Mapping) -> dict[str, float]:
    out = {}
    for k, v in logs.items():
        try:
            out[str(k)] = float(v)
        except (TypeError, ValueError):
            pass
    return out


# ----- the trainer ------------------------------------------------------------------------------

class Trainer:
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
        # Set by each fit, read by the training thread and its callbacks:
        self._fitting: keras.Model | None = None  # the model being fit (a clone under an engine)
        self._first_epoch = 0
        self._nan: str | None = None  # why a non-finite loss stopped training
        self._nan_at = (0, 0)  # (epoch, batch) where it did
        self._note = ""  # said with the final message
        self._started = time.monotonic()

    # ----- public ---------------------------------------------------------------------------

    def set_data(self, x: Any, y: Any = None, validation_data: Any = None) -> None:
        """Data to train on: NumPy arrays (a list or a dict by input name for several inputs),
        a `tf.data.Dataset` or a `keras.utils.PyDataset` yielding (x, y) batches.
        `validation_data` is (x_val, y_val) or a dataset. Checked against the model now when
        there is one, and again at fit."""
        if self.running:
            raise TrainingError("Training is running: set data after it ends (or stop it).")
        batches = [_describe(x, y, "x")]
        if validation_data is not None:
            batches.append(self._validation_batches(validation_data))
        model = self.graph.model
        if model is not None:
            for b in batches:
                _check_data(model, b)
        self._data = (x, y, validation_data)

    def fit(self, *, optimizer: Any = "adam", learning_rate: float | None = None,
            loss: Any = None, metrics: Any = (), epochs: int = 1, batch_size: int | None = 32,
            validation_split: float = 0.0, strategy: Any = "auto", block: bool = False,
            **fit_kwargs: Any) -> keras.callbacks.History:
        """Compile and train the graph's model on the data from `set_data`.

        `optimizer` by name (or a keras Optimizer), `learning_rate` None for the optimizer's own
        default, `loss` None to pick one from the targets (integer labels: sparse categorical
        cross-entropy), `strategy` "auto" | "none" | "mirrored" | "data_parallel" or an engine.
        Other keyword arguments go to `keras.Model.fit` (shuffle, class_weight, callbacks, ...).

        With block=False (the default, as the Train button does) training runs in a background
        thread and this returns at once the History that fills as epochs end; `wait()` blocks.
        With block=True it waits, and raises what fit raised.
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
        if self.graph._edit_lock is not None:
            raise TrainingError(f"The graph is locked: {self.graph._edit_lock}")
        arguments = self._fit_arguments(model, epochs, batch_size, validation_split, fit_kwargs)
        x, y, validation_data = self._data
        batches = _describe(x, y, "x")
        targets = _check_data(model, batches, loss)
        if validation_data is not None:
            _check_data(model, self._validation_batches(validation_data), loss)
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
            loss, loss_names = _default_loss(model, targets)
            loss, loss_key = (loss[0] if len(loss) == 1 else loss), tuple(loss_names)
        engine = _engine(strategy)
        note = ""
        if engine.name == "data_parallel" and not batches.is_dataset:
            x, y, validation_data, dropped = _divisible(
                x, y, validation_data, arguments, batches.samples, engine.replicas)
            if dropped:
                note = (f" {dropped} sample(s) left out so that every batch splits evenly over "
                        f"{engine.replicas} devices.")
        fitting = self._compile(model, engine, optimizer, learning_rate, (loss, loss_key),
                                metrics)

        self._stop_requested.clear()
        self._error = None
        self._history = keras.callbacks.History()
        callbacks = list(arguments.pop("callbacks", None) or [])
        arguments.update(x=x, y=y, validation_data=validation_data,
                         callbacks=[self._history, _Progress(self), *callbacks])
        first_epoch = int(arguments.get("initial_epoch", 0) or 0)
        with self._lock:
            self._status = self._fresh_status("running", epochs - first_epoch)
            self._status.update(device=engine.description, loss=", ".join(loss_names),
                                message=f"Training on {engine.description}.{note}")
            self._epochs, self._curve = {}, []
            self._first_epoch = first_epoch
            self._fitting = fitting
            self._nan = None
            self._note = note
            self._started = time.monotonic()
        self.graph._edit_lock = LOCK_MESSAGE
        self._done.clear()
        self._emit(force=True)  # "running", before any update from the thread
        self._thread = threading.Thread(target=self._run, args=(model, fitting, engine, arguments),
                                        name="kerascanvas-fit", daemon=True)
        self._thread.start()
        return self.wait() if block else self._history

    def wait(self, timeout: float | None = None) -> keras.callbacks.History:
        """Block until training ends; returns the History, or raises what fit raised.
        An interrupt (Ctrl-C, the notebook's stop button) stops training, keeping the weights."""
        try:
            if not self._done.wait(timeout):  # a signal (Ctrl-C, the kernel's interrupt) gets in
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

    def stop(self) -> None:
        """Stop after the current batch; the weights trained so far stay on the layers."""
        self._stop_requested.set()
        fitting = self._fitting
        if self.running and fitting is not None:
            fitting.stop_training = True

    @property
    def data(self) -> tuple[Any, Any, Any] | None:
        """(x, y, validation_data) as given to set_data, or None."""
        return self._data

    @property
    def running(self) -> bool:
        return not self._done.is_set()

    @property
    def history(self) -> dict[str, list[float]]:
        """Per-epoch logs so far ("loss", "val_loss", metrics...), like `History.history`."""
        with self._lock:
            return {k: list(v) for k, v in self._epochs.items()}

    @property
    def curve(self) -> list[dict[str, float]]:
        """Training logs sampled while it runs (at most 10 a second, thinned to 2,000 points):
        each {"epoch": progress in epochs, e.g. 1.5, "loss": ..., metric: ...}."""
        with self._lock:
            return [dict(p) for p in self._curve]

    @property
    def status(self) -> dict[str, Any]:
        """state ("idle" | "running" | "stopped" | "finished" | "failed"), epoch (1-based),
        epochs, batch (batches done in this epoch), batches (per epoch, or None), eta_s,
        elapsed_s, device, loss, logs (latest running values), message, traceback."""
        with self._lock:
            return dict(self._status, logs=dict(self._status["logs"]))

    def snapshot(self) -> dict[str, Any]:
        """status and per-epoch history as JSON (NaN and infinity become null): what the
        training panel shows."""
        with self._lock:
            status = dict(self._status, logs=dict(self._status["logs"]))
            history = {k: list(v) for k, v in self._epochs.items()}
        return _finite({"status": status, "history": history})

    def on_update(self, callback: Callable[[dict], None]) -> Callable[[], None]:
        """Call `callback(snapshot)` as training progresses: at most 10 times a second, and once
        when it ends. It runs in the training thread: keep it quick. Returns an unsubscribe."""
        if not callable(callback):
            raise TypeError(f"on_update takes a callable, got {type(callback).__name__}.")
        self._subscribers.append(callback)

        def unsubscribe() -> None:
            if callback in self._subscribers:
                self._subscribers.remove(callback)

        return unsubscribe

    # ----- preparing ------------------------------------------------------------------------

    def _validation_batches(self, validation_data: Any) -> _Batches:
        if _is_dataset(validation_data):
            return _describe(validation_data, None, "validation_data")
        if not isinstance(validation_data, (tuple, list)) or len(validation_data) not in (2, 3):
            raise DataError(f"validation_data must be (x_val, y_val) or a dataset, got "
                            f"{type(validation_data).__name__}.")
        return _describe(validation_data[0], validation_data[1], "validation_data")

    @staticmethod
    def _fit_arguments(model, epochs, batch_size, validation_split, extra) -> dict:
        if not isinstance(epochs, int) or isinstance(epochs, bool) or epochs < 1:
            raise ValueError(f"epochs must be a whole number >= 1, got {epochs!r}.")
        if batch_size is not None and (not isinstance(batch_size, int) or
                                       isinstance(batch_size, bool) or batch_size < 1):
            raise ValueError(f"batch_size must be a whole number >= 1, got {batch_size!r}.")
        if not isinstance(validation_split, (int, float)) or not 0 <= validation_split < 1:
            raise ValueError(f"validation_split must be a number in [0, 1), got "
                             f"{validation_split!r}.")
        accepted = set(inspect.signature(model.fit).parameters) - _OWN_FIT_ARGUMENTS
        unknown = sorted(set(extra) - accepted)
        if unknown:
            raise TypeError(f"fit() got unexpected keyword argument(s) {unknown}; it takes "
                            f"those of keras.Model.fit: {sorted(accepted)}.")
        return dict({"verbose": 0}, epochs=epochs, batch_size=batch_size,
                    validation_split=float(validation_split), **extra)

    def _compile(self, model, engine, optimizer, learning_rate, losses, metrics) -> keras.Model:
        """The model to fit, compiled. The graph's model itself when no engine is used (compiled
        again only when a setting changed, so the optimizer's state carries over between runs);
        under an engine, a clone made in its scope."""
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
            fitting = model
            if engine.distributed:
                fitting = keras.models.clone_model(model)
                fitting.set_weights(model.get_weights())
            fitting.compile(optimizer=_optimizer(optimizer, learning_rate), loss=loss,
                            metrics=metrics)
        self._compiled = None if engine.distributed else (model, key)
        return fitting

    # ----- running (in the training thread) -------------------------------------------------

    def _run(self, model: keras.Model, fitting: keras.Model, engine: _Engine,
             arguments: dict) -> None:
        state, message, trace = "finished", "Training finished.", None
        try:
            with engine.scope():
                fitting.fit(**arguments)
            if self._nan is not None:
                state, message = "failed", self._nan
            elif self._stop_requested.is_set():
                state, message = "stopped", "Stopped; the weights trained so far are kept."
        except BaseException as e:  # noqa: BLE001 - reported in status; the kernel lives on
            self._error = e
            state, message = "failed", f"{type(e).__name__}: {e}"
            trace = traceback.format_exc()
        finally:
            if fitting is not model:
                try:
                    model.set_weights(fitting.get_weights())
                except Exception as e:  # noqa: BLE001
                    state, trace = "failed", traceback.format_exc()
                    message = f"Could not copy the trained weights back: {e}"
            with self._lock:
                self._status.update(state=state, message=message + self._note, traceback=trace,
                                    eta_s=0.0 if state == "finished" else None,
                                    elapsed_s=time.monotonic() - self._started)
                self._fitting = None
            self.graph._edit_lock = None
            try:
                self._emit(force=True)
            finally:
                self._done.set()

    def _began(self, params: Mapping) -> None:
        with self._lock:
            self._started = time.monotonic()
            self._status["batches"] = params.get("steps")

    def _epoch_began(self, epoch: int) -> None:
        with self._lock:
            self._status.update(epoch=epoch - self._first_epoch + 1, batch=0)

    def _batch_ended(self, batch: int, logs: Mapping) -> bool:
        """Record one batch end; True when training must stop (the loss is NaN or infinite)."""
        values = _floats(logs)
        loss = values.get("loss")
        bad = loss is not None and not math.isfinite(loss)
        with self._lock:
            s = self._status
            s["batch"] = max(s["batch"], batch + 1)
            s["logs"] = values
            done = (s["epoch"] - 1) * (s["batches"] or 0) + s["batch"]
            elapsed = time.monotonic() - self._started
            s["elapsed_s"] = elapsed
            if s["batches"]:
                s["eta_s"] = elapsed / done * (s["epochs"] * s["batches"] - done)
            where = (s["epoch"], batch + 1)
            if bad and (self._nan is None or where < self._nan_at):  # batch ends may come
                self._nan_at = where  # out of order: name the first
                self._nan = (f"The loss became {loss} at epoch {s['epoch']}, batch {batch + 1}: "
                            f"training stopped. Try a lower learning rate, or check the data for "
                            f"NaN or infinite values.")
        self._emit()
        return bad

    def _epoch_ended(self, epoch: int, logs: Mapping) -> None:
        values = _floats(logs)
        with self._lock:
            for k, v in values.items():
                self._epochs.setdefault(k, []).append(v)
            if self._status["batches"] is None:
                self._status["batches"] = self._status["batch"]
        self._emit()

    def _emit(self, force: bool = False) -> None:
        now = time.monotonic()
        with self._lock:
            if not force and now - self._last_emit < 1.0 / UPDATES_PER_SECOND:
                return
            self._last_emit = now
            s = self._status
            if s["state"] == "running" and s["logs"] and s["batches"]:
                self._curve.append({"epoch": s["epoch"] - 1 + s["batch"] / s["batches"],
                                    **s["logs"]})
                if len(self._curve) > MAX_CURVE_POINTS:
                    self._curve = self._curve[::2]
        if not self._subscribers:
            return
        snapshot = self.snapshot()
        with self._emit_lock:
            for callback in list(self._subscribers):
                try:
                    callback(snapshot)
                except Exception as e:  # noqa: BLE001 - a display error must not end training
                    warnings.warn(f"A training update callback failed: {e!r}", RuntimeWarning,
                                  stacklevel=1)

    @staticmethod
    def _fresh_status(state: str, epochs: int) -> dict[str, Any]:
        return {"state": state, "epoch": 0, "epochs": epochs, "batch": 0, "batches": None,
                "eta_s": None, "elapsed_s": 0.0, "device": None, "loss": None, "logs": {},
                "message": "", "traceback": None}

    def __repr__(self) -> str:
        s = self.status
        return f"<kerascanvas.Trainer {s['state']}: epoch {s['epoch']}/{s['epochs']}>"


def _identity(value: Any) -> Any:
    return value if isinstance(value, (str, int, float, type(None))) else id(value)


def _optimizer(optimizer: Any, learning_rate: float | None) -> keras.optimizers.Optimizer:
    if isinstance(optimizer, str):
        config = {} if learning_rate is None else {"learning_rate": float(learning_rate)}
        return keras.optimizers.get({"class_name": optimizer, "config": config})
    if learning_rate is not None:
        optimizer.learning_rate = float(learning_rate)
    return optimizer


# ----- the training panel's fields -------------------------------------------------------------

def choices() -> dict[str, list[str]]:
    """Names the training panel offers: optimizers, losses ("auto" picks one), metrics."""
    return {"optimizers": list(OPTIMIZERS), "losses": list(LOSSES), "metrics": list(METRICS),
            "strategies": list(STRATEGIES)}


def panel_options(message: Mapping) -> dict[str, Any]:
    """Keyword arguments for `Trainer.fit` from an untrusted panel message: each field checked
    for type and range, names only from `choices()`. Missing fields take fit's defaults."""
    options: dict[str, Any] = {}

    def number(key, low, high, whole):
        value = message[key]
        ok = isinstance(value, int if whole else (int, float)) and not isinstance(value, bool)
        if not ok or not math.isfinite(value) or not low <= value <= high:
            kind = "a whole number" if whole else "a number"
            raise ValueError(f"{key!r} must be {kind} in [{low}, {high}], got {value!r:.40}.")
        return value

    def name(key, allowed, value=None):
        value = message[key] if value is None else value
        if not isinstance(value, str) or value not in allowed:
            raise ValueError(f"{key!r} must be one of {list(allowed)}, got {value!r:.80}.")
        return value

    if "optimizer" in message:
        options["optimizer"] = name("optimizer", OPTIMIZERS)
    if message.get("learning_rate") is not None:
        options["learning_rate"] = float(number("learning_rate", 1e-9, 10.0, False))
    if "loss" in message:
        loss = name("loss", LOSSES)
        options["loss"] = None if loss == "auto" else loss
    if "metrics" in message:
        metrics = message["metrics"]
        if not isinstance(metrics, list) or len(metrics) > len(METRICS):
            raise ValueError(f"'metrics' must be a list of names, got {metrics!r:.80}.")
        options["metrics"] = [name("metrics", METRICS, m) for m in metrics]
    if "epochs" in message:
        options["epochs"] = number("epochs", 1, 100_000, True)
    if "batch_size" in message:
        options["batch_size"] = number("batch_size", 1, 1 << 20, True)
    if "strategy" in message:
        options["strategy"] = name("strategy", STRATEGIES)
    if "validation_split" in message:
        split = number("validation_split", 0.0, 0.95, False)
        options["validation_split"] = float(split)
    return options
