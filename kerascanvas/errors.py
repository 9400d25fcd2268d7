"""The error types that several modules raise: the bottom of the house (it imports nothing of
kerascanvas), so that a module may raise them without importing the module that once held them."""

from __future__ import annotations


class EditError(ValueError):
    """An edit the graph or Keras refused. Nothing was changed."""

    def __init__(self, message: str, layer: str | None = None, call: int | None = None,
                 slot: int | None = None):
        super().__init__(message)
        self.message = message
        self.layer = layer
        self.call = call
        self.slot = slot


class LimitError(EditError):
    """An edit or a file that would go over a cap: nothing was created."""


class UnknownLayerError(ValueError):
    """A class name the canvas does not offer (the catalog's, an operation's or a registered one)."""


class TrainingError(RuntimeError):
    """Training cannot start (or was refused): the message says why."""


class DataError(TrainingError, ValueError):
    """Data that does not fit the model: wrong number of arrays, shape or dtype."""
