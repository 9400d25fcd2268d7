"""What a training run is given (Trainer's methods, split from trainer.py by concern):
the data set with `set_data`, checked against the model, and the arguments of
Keras's fit that a run passes on.
"""

from __future__ import annotations

import functools
import inspect
from collections.abc import Callable
from typing import Any

from ..errors import DataError, TrainingError
from .data import (
    Batches,
    check_data,
    check_finite,
    data_inputs,
    describe_data,
    is_dataset,
    summary,
)

# Arguments of keras.Model.fit that the Trainer sets itself.
_OWN_FIT_ARGUMENTS = {"x", "y", "epochs", "batch_size", "validation_split", "validation_data"}


@functools.lru_cache(maxsize=8)
def _fit_parameters(fit: Callable) -> frozenset:
    """The keyword arguments a `fit` takes besides those the Trainer sets (read once per class:
    reading a signature costs about 0.1 ms, on every press of Train)."""
    return frozenset(inspect.signature(fit).parameters) - _OWN_FIT_ARGUMENTS - {"self"}


class Given:
    """What a run is given: its data, checked, and the arguments fit takes."""

    data_summary: str | None = None  # what set_data got, in words (DataSummary)
    data_inputs: tuple = ()  # the Inputs x fits (data.data_inputs), for the palette

    def set_data(self, x: Any, y: Any = None, validation_data: Any = None) -> DataSummary:
        """Data to train on: NumPy arrays (a list or a dict by input name for several inputs),
        a `tf.data.Dataset` or a `keras.utils.PyDataset` yielding (x, y) batches.
        `validation_data` is (x_val, y_val) or a dataset. Checked against the model now when
        there is one, and again at fit. Returns what it got, in words."""
        if self.running:
            raise TrainingError("Training is running: set data after it ends (or stop it).")
        batches = [describe_data(x, y, "x")]
        if not batches[0].is_dataset:
            check_finite(x, y, "x")
        if validation_data is not None:
            batches.append(self._validation_batches(validation_data))
        model = self.graph.model
        if model is not None:
            for b in batches:
                check_data(model, b)
        self._data = (x, y, validation_data)
        said = summary(batches[0], y)
        if len(batches) > 1:
            said += " · validation: " + summary(batches[1], None)
        self.data_summary = DataSummary(said)
        self.data_inputs = tuple(data_inputs(batches[0]))
        return self.data_summary

    @property
    def data(self) -> tuple[Any, Any, Any] | None:
        """(x, y, validation_data) as given to set_data, or None."""
        return self._data

    def _validation_batches(self, validation_data: Any) -> Batches:
        if is_dataset(validation_data):
            return describe_data(validation_data, None, "validation_data")
        if not isinstance(validation_data, (tuple, list)) or len(validation_data) not in (2, 3):
            raise DataError(f"validation_data must be (x_val, y_val) or a dataset, got "
                            f"{type(validation_data).__name__}.")
        batches = describe_data(validation_data[0], validation_data[1], "validation_data")
        check_finite(validation_data[0], validation_data[1], "validation_data")  # (NaN there
        return batches  # harms no weight, but a NaN val_loss would hide every result)

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
        accepted = _fit_parameters(type(model).fit)
        unknown = sorted(set(extra) - accepted)
        if unknown:
            raise TypeError(f"fit() got unexpected keyword argument(s) {unknown}; it takes "
                            f"those of keras.Model.fit: {sorted(accepted)}.")
        return dict({"verbose": 0}, epochs=epochs, batch_size=batch_size,
                    validation_split=float(validation_split), **extra)


class DataSummary(str):
    """set_data's answer: a cell shows it as words, not as a quoted string."""

    def __repr__(self) -> str:
        return f"Data set: {self}"

