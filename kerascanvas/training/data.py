"""Training data: what it holds (arrays, nested structures or a tf.data.Dataset), and whether it
fits the model (number of arrays, shapes, dtypes, label shapes for the loss), checked before fit
starts so that a mistake gets a message that names the array and the model input it was meant for.
"""

from __future__ import annotations

import math
import threading
import time
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import keras

from ..errors import DataError, TrainingError


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
class Batches:
    """What a data source yields: x and y structures, and how many samples (arrays only)."""

    source: str  # how messages name it: "x", "the dataset", "validation_data"
    x: Any
    y: Any
    samples: int | None  # None for datasets
    is_dataset: bool


def is_dataset(value: Any) -> bool:
    return hasattr(value, "element_spec") or isinstance(value, keras.utils.PyDataset)


def describe_data(x: Any, y: Any, source: str) -> Batches:
    """Read shapes and dtypes from arrays, a tf.data.Dataset or a keras.utils.PyDataset."""
    if x is None:
        raise DataError(f"{source}: no inputs (x is None).")
    if is_dataset(x):
        if y is not None:
            raise DataError(f"{source}: a dataset yields (x, y) pairs itself; pass y=None, got "
                            f"y of type {type(y).__name__}.")
        kind = "tf.data.Dataset" if hasattr(x, "element_spec") else "PyDataset"
        what = f"the {kind}" if source == "x" else f"{source} (a {kind})"
        if hasattr(x, "element_spec"):
            if _known_empty(x):
                raise DataError(f"{what} is empty (it yields no batches).")
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
        return Batches(what, pair(element[0]), pair(element[1]), None, True)
    if y is None:
        raise DataError(f"{source}: targets are missing (y is None); training needs x and y.")
    xs, ys = _structure(x), _structure(y)
    counts = {leaf.shape[0] if leaf.shape else None for leaf in _leaves(xs) + _leaves(ys)}
    if len(counts) > 1 or None in counts:
        sizes = ", ".join(f"{name} {leaf.shape[0] if leaf.shape else 'scalar'}"
                          for name, leaf in _named(xs, "x") + _named(ys, "y"))
        raise DataError(f"{source}: every array needs the same number of samples; got {sizes}.")
    samples = counts.pop()
    if samples == 0:  # (Keras failed deep inside: a shape mismatch, StopIteration, num_samples=0)
        raise DataError(f"{source}: the arrays hold no samples (0 rows): nothing to train on.")
    return Batches("x" if source == "x" else source, xs, ys, samples, False)


def summary(batches: Batches, y: Any = None) -> str:
    """What a data source holds, as set_data answers and the Train panel says it:
    "1,797 samples · x (8, 8, 1) float32 · y int64, 10 classes" (shapes per sample; a
    dataset's without its sample count, which it does not say)."""
    parts = [f"{batches.samples:,} samples" if batches.samples is not None else batches.source]
    for name, leaf in _named(batches.x, "x") + _named(batches.y, "y"):
        per_sample = tuple(leaf.shape[1:])  # (a label per sample: no shape to say)
        parts.append(f"{name} {_shape(per_sample) + ' ' if per_sample else ''}{leaf.dtype}")
    classes = classes_of(y)
    if classes:
        parts[-1] += f", {classes} classes"
    return " · ".join(parts)


def data_inputs(batches: Batches) -> list[dict]:
    """The Inputs the data fits, for the palette to offer once data is set: per x array its
    key (a dict's; None for one array or a list's), shape per sample and an Input dtype
    (floats as float32, Keras's default; integers and booleans as they are; strings, which an
    Input from the browser cannot hold, left out). At most 8."""
    keys = list(batches.x) if isinstance(batches.x, dict) else None
    found = []
    for i, (_, leaf) in enumerate(_named(batches.x, "x")[:8]):
        if leaf.kind == "string" or len(leaf.shape) > 9:
            continue
        dtype = leaf.dtype if leaf.dtype in ("int32", "int64", "bool") else "float32"
        found.append({"name": keys[i] if keys and isinstance(keys[i], str) else None,
                      "shape": [d if isinstance(d, int) else None for d in leaf.shape[1:]],
                      "dtype": dtype})
    return found


def classes_of(y: Any) -> int | None:
    """How many classes integer labels hold (one label per sample), else None."""
    import numpy as np

    if not (isinstance(y, np.ndarray) and y.dtype.kind in "iu" and 0 < y.size <= 10_000_000
            and (y.ndim == 1 or (y.ndim == 2 and y.shape[1] == 1))):
        return None
    return int(np.unique(y).size)


def _known_empty(dataset: Any) -> bool:
    """A tf.data.Dataset that says it yields nothing (its cardinality is 0; one it cannot tell
    says -2, and is found out by the first epoch)."""
    try:
        return int(dataset.cardinality()) == 0
    except Exception:  # noqa: BLE001 - a dataset that cannot say: as if it could not tell
        return False


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


def _names(tensors: list, struct: Any) -> list[str]:
    """What data names each tensor by: its key where the model takes or gives a dict (Keras
    matches x and y by those keys, not by layer names), else its layer's name."""
    keyed = {id(t): k for k, t in struct.items()} if isinstance(struct, dict) else {}
    return [str(keyed.get(id(t), t._keras_history.operation.name)) for t in tensors]


def input_names(model: keras.Model) -> list[str]:
    """The model's inputs as x names them (in model.inputs order)."""
    return _names(list(model.inputs), getattr(model, "_inputs_struct", None))


def output_names(model: keras.Model) -> list[str]:
    """The model's outputs as y (and a dict of losses) names them (in model.outputs order)."""
    return _names(list(model.outputs), getattr(model, "_outputs_struct", None))


def _check_inputs(model: keras.Model, batches: Batches) -> None:
    tensors = list(model.inputs)
    names = input_names(model)
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


def _head_hint(tensor, out: tuple, y: tuple) -> str:
    """What fixes an output that kept its input's spatial axes when y has one label or one row
    of targets per sample (a Dense on a Conv2D's (None, 6, 6, 8) gives (None, 6, 6, 10)): a
    Flatten or a global pooling before the layer that makes it. Empty when that is not it."""
    if len(out) < 3 or len(y) > 2:
        return ""
    head = getattr(getattr(tensor, "_keras_history", None), "operation", None)
    pooling = {3: "GlobalAveragePooling1D", 4: "GlobalAveragePooling2D",
               5: "GlobalAveragePooling3D"}.get(len(out))
    fix = f"a Flatten or a {pooling}" if pooling else "a Flatten"
    return (f". The output keeps its input's {_shape(out[1:-1])} grid: put {fix} before "
            f"{getattr(head, 'name', 'the last layer')} so it gives {_shape((None, out[-1]))}")


def _check_outputs(model: keras.Model, batches: Batches, loss: Any) -> list[_Leaf]:
    tensors = list(model.outputs)
    names = output_names(model)
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
        hint = _head_hint(tensor, out, tuple(leaf.shape))
        if sparse is True and not labels:
            raise DataError(f"Output {name!r} has shape {_shape(out)}, so the sparse loss "
                            f"{one_loss!r} needs integer labels of shape {_shape(out[:-1])}, but "
                            f"{what} has shape {_shape(leaf.shape)}{hint}.")
        if sparse is False and not targets:
            raise DataError(f"Output {name!r} has shape {_shape(out)}, but {what} has shape "
                            f"{_shape(leaf.shape)}"
                            + ("; for integer class labels use a sparse loss such as "
                               "'sparse_categorical_crossentropy'." if labels else f"{hint}."))
        if sparse is None and not (targets or labels):
            raise DataError(f"Output {name!r} has shape {_shape(out)}, but {what} has shape "
                            f"{_shape(leaf.shape)} (neither that shape nor integer labels of "
                            f"shape {_shape(out[:-1])}){hint}.")
    return leaves


def check_data(model: keras.Model, batches: Batches, loss: Any = None) -> list[_Leaf]:
    """Raise DataError when the data does not fit the model; returns the target leaves."""
    _check_inputs(model, batches)
    return _check_outputs(model, batches, loss)


def divisible(x, y, validation_data, arguments: dict, samples: int, replicas: int):
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


def default_loss(model: keras.Model, targets: list[_Leaf]) -> tuple[list, list[str]]:
    """The loss a person would pick, per output: integer labels -> (sparse) cross-entropy, from
    logits unless the output ends in softmax/sigmoid; anything else -> mean squared error."""
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


# ----- non-finite values: refused before they reach an optimizer step -------------------------

NON_FINITE_MARK = "kerascanvas: non-finite values in a batch"


def check_finite(x: Any, y: Any, source: str) -> None:
    """Raise DataError if a float array in x or y holds NaN or infinity (arrays only: a dataset
    is checked batch by batch as it is read, see `finite_batches`)."""
    import numpy as np

    for role, part in (("x", x), ("y", y)):
        for path, leaf in _flat(part, role if source == "x" else f"{source}'s {role}"):
            array = leaf if isinstance(leaf, np.ndarray) else None
            if array is None and _is_array(leaf) and hasattr(leaf, "numpy"):
                array = np.asarray(leaf)
            if array is None or array.dtype.kind not in "fc":
                continue
            flat = array.reshape(-1)
            step = 1 << 22  # a bool mask of one chunk at a time, not of the whole array
            for start in range(0, flat.size, step):
                chunk = flat[start:start + step]
                bad = ~np.isfinite(chunk)
                if bad.any():
                    index = np.unravel_index(start + int(bad.argmax()), array.shape)
                    raise DataError(f"{path} holds a non-finite value ({chunk[bad.argmax()]}) at "
                                    f"index {tuple(int(i) for i in index)}: training on it would "
                                    "make the weights NaN. Clean the data first.")


def _flat(value: Any, base: str) -> list[tuple[str, Any]]:
    if isinstance(value, Mapping):
        return [(f"{base}[{k!r}]", v) for k, v in value.items()]
    if isinstance(value, (list, tuple)) and value and all(_is_array(v) for v in value):
        return [(f"{base}[{i}]", v) for i, v in enumerate(value)]
    return [] if value is None else [(base, value)]


def finite_batches(dataset: Any) -> Any:
    """The same batches, each checked before it is handed to fit: the first one holding NaN or
    infinity ends training with an error naming NON_FINITE_MARK, before any step uses it, so
    the weights stay those from before that batch."""
    if hasattr(dataset, "element_spec"):
        import tensorflow as tf

        def check(*element):
            checked = [tf.debugging.check_numerics(t, NON_FINITE_MARK)
                       if t.dtype.is_floating else t for t in tf.nest.flatten(element)]
            return tf.nest.pack_sequence_as(element, checked)

        return dataset.map(check)
    if isinstance(dataset, keras.utils.PyDataset):
        return _FiniteBatches(dataset)
    return dataset


class _FiniteBatches(keras.utils.PyDataset):
    """A PyDataset whose batches are checked for NaN and infinity as they are read."""

    def __init__(self, inner: keras.utils.PyDataset):
        super().__init__(workers=getattr(inner, "_workers", 1),
                         use_multiprocessing=getattr(inner, "_use_multiprocessing", False),
                         max_queue_size=getattr(inner, "_max_queue_size", 10))
        self.inner = inner
        self.error: Exception | None = None  # the source's own error, as it raised it
        self._abandoned = threading.Event()
        self._reads: dict[int, float] = {}  # index -> when its read began, while it runs

    def waiting_s(self) -> float:
        """How long the oldest read still running has waited on the source (0 if none)."""
        started = list(self._reads.values())
        return time.monotonic() - min(started) if started else 0.0

    def abandon(self) -> None:
        """The run reading these batches was abandoned (Stop, a hanging source): a read that
        returns from now on keeps its thread waiting for good (`__getitem__`)."""
        self._abandoned.set()

    def __len__(self):
        return len(self.inner)

    @property
    def num_batches(self):
        return self.inner.num_batches

    def __getitem__(self, index):
        self._reads[index] = time.monotonic()
        try:
            batch = self.inner[index]
        except Exception as e:
            self.error = e  # a backend may wrap it (TensorFlow: UnknownError): kept to show it
            raise
        finally:
            self._reads.pop(index, None)
        if self._abandoned.is_set():  # no way back into that run's fit, not even an error:
            # its end-of-fit code would write the model's training state (under JAX the state
            # a step hands on), which by now belongs to whatever run trains the same model
            threading.Event().wait()
        try:
            check_finite(batch[0], batch[1] if len(batch) > 1 else None, "x")
        except DataError as e:
            raise DataError(f"{NON_FINITE_MARK}: {e}") from None
        return batch

    def on_epoch_begin(self):
        self.inner.on_epoch_begin()

    def on_epoch_end(self):
        self.inner.on_epoch_end()
