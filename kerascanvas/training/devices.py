"""Where training runs: the devices the backend sees, a name for them, and the distribution
engine fit runs under (none, tf.distribute.MirroredStrategy, keras.distribution.DataParallel).

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

    name: str  # "none" | "mirrored" | "data_parallel" | "custom"
    scope: Callable[[], Any]
    description: str
    replicas: int = 1

    @property
    def distributed(self) -> bool:
        return self.name != "none"


def choose_engine(strategy: Any) -> Engine:
    backend = keras.backend.backend()
    if not isinstance(strategy, str):
        if isinstance(strategy, keras.distribution.Distribution) or hasattr(strategy, "scope"):
            return Engine("custom", strategy.scope,
                           f"{type(strategy).__name__}; {device_description()}")
        raise TypeError(f"strategy must be 'auto', 'none', 'mirrored', 'data_parallel', a "
                        f"tf.distribute.Strategy or a keras.distribution.Distribution, got "
                        f"{strategy!r:.80}.")
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
                       len(devices))
    raise ValueError(f"strategy must be 'auto', 'none', 'mirrored' or 'data_parallel', got "
                     f"{strategy!r:.80}.")
