"""Where training runs: the devices the backend sees, a name for them, and the distribution
engine fit runs under (none, a tf.distribute.Strategy such as MirroredStrategy, a
keras.distribution object such as DataParallel or ModelParallel: see placement.py).

Only the keras API is used, except to name the GPU and to make a MirroredStrategy, so
KERAS_BACKEND=jax or torch work too.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import keras

from ..errors import TrainingError
from . import layouts, placement


def visible_devices() -> list[str]:
    """Devices of the default type ("gpu:0", ... or "cpu:0"), as keras.distribution lists them."""
    try:
        return list(keras.distribution.list_devices())
    except (AttributeError, NotImplementedError):  # torch: Keras has no distribution library
        import torch

        if torch.cuda.is_available():
            return [f"gpu:{i}" for i in range(torch.cuda.device_count())]
        return ["cpu:0"]


def _accelerators() -> list[str]:
    return [d for d in visible_devices() if not d.startswith("cpu")]


def gpu_name() -> str:
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
    name = gpu_name() if kind == "GPU" else kind
    return f"{kind}: {name}" if len(accelerators) == 1 else f"{len(accelerators)} {kind}s: {name}"


@dataclass
class Engine:
    """How fit runs: on the default device ("none"), or under a distribution engine."""

    name: str  # "none" | "mirrored" | "data_parallel" | "model_parallel" | "custom"
    scope: Callable[[], Any]
    description: str
    replicas: int = 1
    distribution: Any = None  # the keras.distribution object, when the engine is one

    @property
    def distributed(self) -> bool:
        return self.name != "none"

    @property
    def splits_batches(self) -> bool:
        """Whether each batch is split over several replicas (keras.distribution under JAX
        needs it to split evenly; a tf.distribute.Strategy copes with a ragged one)."""
        return self.distribution is not None and self.replicas > 1

    @property
    def mesh(self) -> dict[str, Any] | None:
        """The device mesh (devices, axes) of a keras.distribution engine, else None."""
        return placement.mesh_of(self.distribution)

    def model_to_fit(self, model: keras.Model) -> keras.Model:
        """The model fit trains, called in the engine's scope: the graph's own model, its
        variables laid out by a keras.distribution (or back on one device without an engine);
        under a tf.distribute.Strategy a clone made in its scope (its variables must be created
        there), whose weights go back onto the model as the run ends."""
        if self.distribution is not None:
            placement.lay_out(model, self.distribution)
            return model
        if self.distributed:
            fitting = keras.models.clone_model(model)
            fitting.set_weights(model.get_weights())
            return fitting
        placement.gather(model)
        return model


MODEL_PARALLEL_SPLITS = ("the largest Dense, EinsumDense and Embedding kernels split on model "
                         "(a KerasHub backbone: its own layout), the rest replicated")


def planned_meshes(backend: str, devices: list[str], strategies: list[str]) -> dict[str, str]:
    """What each engine in `strategies` would run on, in words, before any run: the mesh of
    data_parallel and model_parallel (the same shapes choose_engine makes), the devices of
    mirrored, and where "auto" goes. Made from names only: no mesh or strategy is built."""
    listed = f"{len(devices)} device{'s' * (len(devices) != 1)} ({', '.join(devices)})"
    meshes: dict[str, str] = {}
    if "data_parallel" in strategies and backend == "jax":
        meshes["data_parallel"] = placement.describe_mesh(
            {"devices": devices, "axes": {"batch": len(devices)}}) + ": each batch split over them"
    if "model_parallel" in strategies and backend == "jax" and len(devices) > 1:
        meshes["model_parallel"] = placement.describe_mesh(
            {"devices": devices, "axes": {"batch": 1, "model": len(devices)}}) + \
            f": {MODEL_PARALLEL_SPLITS}"
    if "mirrored" in strategies and backend == "tensorflow":
        meshes["mirrored"] = f"MirroredStrategy over {listed}: a copy of the model on each"
    many = len([d for d in devices if not d.startswith("cpu")]) > 1
    auto = ("mirrored" if many and backend == "tensorflow" else
            "data_parallel" if many and backend == "jax" else None)
    meshes["auto"] = f"{auto}: {meshes[auto]}" if auto in meshes else "one device"
    meshes["none"] = "one device"
    return meshes


STRATEGY_NAMES = "'auto', 'none', 'mirrored', 'data_parallel', 'model_parallel'"


def choose_engine(strategy: Any, model: keras.Model | None = None) -> Engine:
    """The engine for fit's `strategy`: a name, a keras.distribution object (JAX) or a
    tf.distribute.Strategy (TensorFlow); "model_parallel" chooses a layout for `model`."""
    backend = keras.backend.backend()
    if not isinstance(strategy, str):
        return _given_engine(strategy, backend)
    if strategy == "auto":
        many = len(_accelerators()) > 1
        strategy = ("mirrored" if many and backend == "tensorflow" else
                    "data_parallel" if many and backend == "jax" else "none")
    if strategy == "none":
        return Engine("none", contextlib.nullcontext, device_description())
    devices = visible_devices()
    listed = f"{len(devices)} devices ({', '.join(devices)}); {device_description()}"
    if strategy == "mirrored":
        if backend != "tensorflow":
            raise TrainingError(f"strategy='mirrored' (tf.distribute.MirroredStrategy) needs the "
                                f"TensorFlow backend; this one is {backend}."
                                + (" Use strategy='data_parallel'." if backend == "jax" else ""))
        import tensorflow as tf

        mirrored = tf.distribute.MirroredStrategy(devices=[f"/{d}" for d in devices])
        return Engine("mirrored", mirrored.scope, f"MirroredStrategy over {listed}",
                       len(devices))
    if strategy == "data_parallel":
        if backend != "jax":
            raise TrainingError(f"strategy='data_parallel' (keras.distribution.DataParallel) "
                                f"needs the JAX backend; this one is {backend}."
                                + (" Use strategy='mirrored'." if backend == "tensorflow" else ""))
        parallel = keras.distribution.DataParallel(devices=devices)
        return Engine("data_parallel", parallel.scope, f"DataParallel over {listed}",
                       len(devices), parallel)
    if strategy == "model_parallel":
        _check_model_parallel(backend, devices)
        if model is None:
            raise TrainingError("strategy='model_parallel' chooses a layout for a model: "
                                "there is none to lay out.")
        parallel = layouts.model_parallel(model, devices)
        return Engine("model_parallel", parallel.scope,
                      f"ModelParallel on a {placement.describe_mesh(placement.mesh_of(parallel))}"
                      f"; {device_description()}", parallel.num_model_replicas, parallel)
    raise ValueError(f"strategy must be {STRATEGY_NAMES}, a keras.distribution object or a "
                     f"tf.distribute.Strategy, got {strategy!r:.80}.")


def _check_model_parallel(backend: str, devices: list[str]) -> None:
    if backend != "jax":
        instead = ("strategy='mirrored' (or a tf.distribute.Strategy) copies the model onto "
                   "each device" if backend == "tensorflow" else
                   "Keras has no distribution for PyTorch: train on one device")
        raise TrainingError(f"strategy='model_parallel' (keras.distribution.ModelParallel) needs "
                            f"the JAX backend; this one is {backend}: {instead}, or set "
                            f"KERAS_BACKEND=jax before Keras is imported.")
    if len(devices) < 2:
        raise TrainingError(f"strategy='model_parallel' splits weights over several devices; "
                            f"jax sees one ({', '.join(devices)}). On a CPU, "
                            f"XLA_FLAGS=--xla_force_host_platform_device_count=2 (set before "
                            f"JAX starts) makes two logical devices.")


def _given_engine(strategy: Any, backend: str) -> Engine:
    """The engine for a distribution object given by the caller, checked by what it offers."""
    name = type(strategy).__name__
    if placement.is_keras_distribution(strategy):
        if backend != "jax":
            raise TrainingError(f"A keras.distribution {name} needs the JAX backend (Keras's "
                                f"distribution for {backend} is an unfinished prototype); this "
                                f"one is {backend}."
                                + (" Use strategy='mirrored' or a tf.distribute.Strategy."
                                   if backend == "tensorflow" else ""))
        mesh = placement.mesh_of(strategy)
        return Engine("custom", strategy.scope,
                      f"{name} on a {placement.describe_mesh(mesh)}; {device_description()}",
                      int(strategy.num_model_replicas), strategy)
    if placement.is_tf_strategy(strategy):
        if backend != "tensorflow":
            raise TrainingError(f"A tf.distribute {name} needs the TensorFlow backend; this one "
                                f"is {backend}."
                                + (" Use a keras.distribution object (DataParallel, "
                                   "ModelParallel) or strategy='data_parallel'."
                                   if backend == "jax" else ""))
        return Engine("custom", strategy.scope, f"{name}; {device_description()}",
                      int(strategy.num_replicas_in_sync))
    raise TypeError(f"strategy must be {STRATEGY_NAMES}, a keras.distribution object "
                    f"(DataParallel, ModelParallel) or a tf.distribute.Strategy; got a {name}: "
                    f"{strategy!r:.80}")
