"""The layout strategy="model_parallel" chooses for a drawing: a mesh ("batch", "model") over the
visible devices, with every device on the "model" axis, and a LayoutMap. An imported KerasHub
backbone brings its own (`Backbone.get_layout_map(mesh)`); otherwise the largest Dense,
EinsumDense and Embedding kernels (subclasses too) are split on "model", and everything else is
replicated.
"""

from __future__ import annotations

import re
from typing import Any

import keras

from ..errors import TrainingError

SHARDED_CLASSES = (keras.layers.Dense, keras.layers.EinsumDense, keras.layers.Embedding)
LARGE_SHARE = 0.1
"""A kernel is split when it holds at least this share of the largest one's numbers: splitting
a small kernel saves little memory and costs a gather on every step."""


def model_parallel(model: keras.Model, devices: list[str]) -> Any:
    """A keras.distribution.ModelParallel for `model` over `devices` (two or more)."""
    mesh = keras.distribution.DeviceMesh((1, len(devices)), ("batch", "model"), devices)
    layout_map = backbone_layout(model, mesh)
    if layout_map is None:
        layout_map = largest_kernels(model, mesh)
    if not len(layout_map):  # every device would compute the same thing
        raise TrainingError(
            f"strategy='model_parallel' found nothing to split over {len(devices)} devices: no "
            f"Dense, EinsumDense or Embedding kernel with a dimension {len(devices)} divides. "
            "Use strategy='data_parallel', or a keras.distribution.ModelParallel with your own "
            "LayoutMap.")
    return keras.distribution.ModelParallel(layout_map=layout_map, batch_dim_name="batch")


def backbone_layout(model: keras.Model, mesh: Any) -> Any:
    """The LayoutMap of the KerasHub backbone the model is, or None. An imported backbone is
    drawn as its layers (a plain Functional model), so it is known by them: a layer of a KerasHub
    model family (`keras_hub.src.models.gemma...`) whose backbone class offers get_layout_map."""
    for layer in [model, *model.layers]:
        module = type(layer).__module__.split(".")
        if module[:3] != ["keras_hub", "src", "models"] or len(module) < 4:
            continue
        backbone = _backbone_of_family(module[3])
        if backbone is not None:
            return backbone.get_layout_map(mesh, model_parallel_dim_name="model",
                                           data_parallel_dim_name="batch")
    return None


def _backbone_of_family(family: str) -> type | None:
    """The KerasHub Backbone class of a model family ("gemma") that defines get_layout_map."""
    from keras_hub.models import Backbone

    found, seen = [Backbone], set()
    while found:
        cls = found.pop()
        if cls in seen:
            continue
        seen.add(cls)
        if cls.__module__.startswith(f"keras_hub.src.models.{family}.") and \
                "get_layout_map" in vars(cls):
            return cls
        found += cls.__subclasses__()
    return None


def largest_kernels(model: keras.Model, mesh: Any) -> Any:
    """A LayoutMap splitting on "model" the largest Dense/EinsumDense/Embedding kernels: each
    on its last dimension that the "model" axis divides (a Dense's units: column parallel),
    by its exact variable path."""
    ways = dict(zip(mesh.axis_names, mesh.shape))["model"]
    kernels = [v for layer in model.layers if isinstance(layer, SHARDED_CLASSES)
               for v in layer.weights if v.name in ("kernel", "embeddings")]
    layout_map = keras.distribution.LayoutMap(mesh)
    if not kernels:
        return layout_map
    largest = max(_size(v) for v in kernels)
    taken = set()  # (LayoutMap's `in` is always true: its lookup answers None, not KeyError)
    for variable in sorted(kernels, key=_size, reverse=True):
        dims = [d for d in reversed(range(len(variable.shape))) if variable.shape[d] % ways == 0]
        key = re.escape(variable.path)
        if _size(variable) < LARGE_SHARE * largest or not dims or key in taken:
            continue
        axes = [None] * len(variable.shape)
        axes[dims[0]] = "model"
        layout_map[key] = tuple(axes)
        taken.add(key)
    return layout_map


def _size(variable: Any) -> int:
    size = 1
    for d in variable.shape:
        size *= int(d)
    return size
