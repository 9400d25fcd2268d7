"""The values a JAX fit detaches from a model's variables, and putting them back.

Under JAX, fit() detaches every variable's value (weights, optimizer slots, metric counters) as
an epoch's first step begins, holds the state each step returns, and re-attaches it at the
epoch's end; each step donates (deletes) the state it was given. Two ways a run can end leave
the variables detached:
- an error while an epoch's first step reads its batch (keras 3.15; a PyDataset's workers run
  ahead, so a bad batch 5 can surface there): no step of that epoch ran, so the values as the
  epoch began are intact and go back (taken by reference at each epoch's start: no copy);
- a run abandoned mid-epoch (Stop while its data source hangs): its thread waits in a read
  before its next step, so the state the last step returned is intact and goes back.
If a step was running after all, what it was given is gone: `reattach` says so and the caller
falls back on its host copy. Other backends never detach.
"""

from __future__ import annotations

import weakref

import keras


def fit_variables(model: keras.Model) -> list:
    """Every variable fit() steps: weights, optimizer slots, metric counters."""
    optimizer = getattr(model, "optimizer", None)
    return [*model.trainable_variables, *model.non_trainable_variables,
            *(optimizer.variables if optimizer is not None else ()), *model.metrics_variables]


def held_values(variables) -> list:
    """The arrays the variables hold now (JAX), by reference: what `.value` gives outside a
    layer call, without its per-read checks (a stateless scope, autocast), which on a few
    hundred variables cost a tenth of a millisecond at every epoch and record."""
    return [v._value for v in variables]


def array_refs(values) -> list:
    """Weak references to arrays, for `same_arrays` later (they keep nothing alive)."""
    return [weakref.ref(v) for v in values]


def same_arrays(refs: list, values: list) -> bool:
    """Whether `values` are the very arrays `refs` were taken of. Under JAX an array never
    changes in place, so the same arrays are the same weights: a copy made of them then is
    still right."""
    return len(refs) == len(values) and all(ref() is v for ref, v in zip(refs, values))


def detachable_values(model: keras.Model) -> list | None:
    """The variables' values as an epoch begins (by reference), or None under a backend that
    never detaches them."""
    if keras.backend.backend() != "jax":
        return None
    return held_values(fit_variables(model))


def weights_now(model: keras.Model) -> list:
    """The model's weights now, as `set_weights` takes them. Under JAX a copy made on the device
    by one program: no wait for the steps in flight, no fresh host memory (the steps that follow
    donate the originals, so a reference would not do). Elsewhere host copies."""
    if keras.backend.backend() != "jax":
        return model.get_weights()
    return _device_copies()(held_values(model.weights))


_COPIES: list = []


def _device_copies():
    """One jitted program that copies a list of arrays (jnp.copy: a copy in the program, so
    no JAX version can hand the inputs back as its outputs)."""
    if not _COPIES:
        import jax
        import jax.numpy as jnp

        _COPIES.append(jax.jit(lambda values: [jnp.copy(v) for v in values]))
    return _COPIES[0]


def _intact(value) -> bool:
    return value is not None and not (hasattr(value, "is_deleted") and value.is_deleted())


def usable(variable: keras.Variable) -> bool:
    """Whether a variable holds a value (not detached, not taken by a step)."""
    return _intact(getattr(variable, "_value", True))


def reattach(model: keras.Model, values: list | None) -> bool:
    """Put back what a run left detached: the last step's state when fit still holds it, else
    the values as the epoch began. False when some variable is left without a value (a step
    that was running took it)."""
    if values is None:
        return True
    stepped = getattr(model, "_jax_state", None)  # keras's JAX trainer: the last step's state
    if stepped and all(_intact(v) for vs in stepped.values() for v in vs or ()):
        model.jax_state_sync()
    variables = fit_variables(model)
    for variable, value in zip(variables, values, strict=True):
        if getattr(variable, "_value", True) is None and _intact(value):
            variable.assign(value)  # detached and never put back
    return all(usable(v) for v in variables)
