"""What the training panel offers (optimizers, losses, metrics, distribution engines) and how a
chosen optimizer becomes a Keras object. Light on purpose: the checks of the panel's untrusted
messages (intent_checks.panel_options) read these names without importing the training code.
Python callers of `Trainer.fit` may pass any Keras identifier or object."""

from __future__ import annotations

from typing import Any

import keras

from .devices import device_description, planned_meshes, visible_devices

OPTIMIZERS = ("adam", "adamw", "sgd", "rmsprop", "adagrad", "adadelta", "adamax", "nadam", "lion")
LOSSES = ("auto", "sparse_categorical_crossentropy", "categorical_crossentropy",
          "binary_crossentropy", "mean_squared_error", "mean_absolute_error", "huber")
# Distribution engines: "auto" uses the backend's own one when it sees several GPUs;
# "model_parallel" (JAX, several devices) splits the largest kernels over them (layouts.py).
STRATEGIES = ("auto", "none", "mirrored", "data_parallel", "model_parallel")
METRICS = ("accuracy", "sparse_categorical_accuracy", "categorical_accuracy", "binary_accuracy",
           "mean_absolute_error", "mean_squared_error", "auc", "precision", "recall")


def choices() -> dict[str, Any]:
    """Names the training panel offers: optimizers, losses ("auto" picks one), metrics; and
    where training would run: the Keras backend, its device, and the mesh each offered
    distribution engine would use ({strategy: words}, before any run)."""
    strategies = offered_strategies()
    backend = keras.backend.backend()
    return {"optimizers": list(OPTIMIZERS), "losses": list(LOSSES), "metrics": list(METRICS),
            "strategies": strategies, "backend": backend, "device": device_description(),
            "meshes": planned_meshes(backend, visible_devices(), strategies)}


def offered_strategies() -> list[str]:
    """The engines the panel offers: "model_parallel" only where it can run (JAX, several
    devices visible)."""
    many = keras.backend.backend() == "jax" and len(visible_devices()) > 1
    return [s for s in STRATEGIES if s != "model_parallel" or many]


def make_optimizer(optimizer: Any, learning_rate: float | None) -> keras.optimizers.Optimizer:
    """A fresh optimizer from a name (with its learning rate), or the object given (its
    learning rate set when one is given)."""
    if isinstance(optimizer, str):
        config = {} if learning_rate is None else {"learning_rate": float(learning_rate)}
        return keras.optimizers.get({"class_name": optimizer, "config": config})
    if learning_rate is not None:
        optimizer.learning_rate = float(learning_rate)
    return optimizer
