"""The values a JAX fit detaches from a model's variables, and putting them back.

Under JAX, fit() detaches every variable's value (weights, optimizer slots, metric counters) as
an epoch's first step begins and re-attaches them at its end, but only once a step of that epoch
has run: an error while that first step reads its batch leaves them all empty (keras 3.15; a
PyDataset's workers run ahead, so a bad batch 5 can surface there). The values as the epoch
begins put them back: taken then (training's progress callback, at each epoch's start), they are
the ones that step would have taken, and are intact because it never ran (no copy needed: only a
step that runs donates them). Other backends never detach.
"""

from __future__ import annotations

import keras


def fit_variables(model: keras.Model) -> list:
    """Every variable fit() steps: weights, optimizer slots, metric counters."""
    optimizer = getattr(model, "optimizer", None)
    return [*model.trainable_variables, *model.non_trainable_variables,
            *(optimizer.variables if optimizer is not None else ()), *model.metrics_variables]


def detachable_values(model: keras.Model) -> list | None:
    """The variables' values as an epoch begins (by reference), or None under a backend that
    never detaches them."""
    if keras.backend.backend() != "jax":
        return None
    return [v.value for v in fit_variables(model)]


def reattach(model: keras.Model, values: list | None) -> None:
    """Put back the values of variables a failed first step left detached."""
    if values is None:
        return
    for variable, value in zip(fit_variables(model), values, strict=True):
        if getattr(variable, "_value", True) is None:  # detached and never put back
            variable.assign(value)
