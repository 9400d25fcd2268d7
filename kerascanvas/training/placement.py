"""Where a model's variables live: laid out over a device mesh by a keras.distribution object
(JAX), or back on one device; and how each layer's weights are laid out now, read from the live
variables.

Keras lays out a variable only as it is created under a distribution (it keeps the layout in
the variable's `_layout`, which later assigns and the optimizer's slots follow). The canvas's
layers already exist when a run starts, so `lay_out` gives each live variable the layout the
distribution would have given it, and moves its value there: the graph's own model then trains
under the distribution, and its weights stay where they trained until a run without one.
"""

from __future__ import annotations

from typing import Any

import keras

from ..errors import TrainingError


def is_keras_distribution(strategy: Any) -> bool:
    """Whether `strategy` offers what Keras's fit uses of a keras.distribution object
    (DataParallel, ModelParallel): a scope, variable and data layouts and a device mesh.
    Checked by what it offers: Keras 3.15 exports no `keras.distribution.Distribution`."""
    return all(callable(getattr(strategy, name, None))
               for name in ("scope", "get_variable_layout", "get_data_layout")) and \
        hasattr(strategy, "device_mesh")


def is_tf_strategy(strategy: Any) -> bool:
    """Whether `strategy` offers what a tf.distribute.Strategy does (a scope, replicas in sync,
    `run`), checked without importing TensorFlow."""
    return callable(getattr(strategy, "scope", None)) and callable(getattr(strategy, "run", None)) \
        and hasattr(strategy, "num_replicas_in_sync")


def lay_out(model: keras.Model, distribution: Any) -> None:
    """Every variable of `model` laid out as `distribution` lays out a new one, its value moved
    there. A layout left by an earlier run is dropped first (Keras's get_variable_layout would
    keep it). A layout that does not fit its variable is refused (TrainingError) with every
    variable put back where it was."""
    before = [(variable, variable._layout) for variable in model.variables]
    reached = 0
    try:
        for reached, (variable, _) in enumerate(before):
            variable._layout = None
            variable._layout = distribution.get_variable_layout(variable)
            variable.assign(variable.value)  # (an assign distributes the value to the layout)
    except Exception as e:
        wrong, layout = before[reached][0], getattr(before[reached][0], "_layout", None)
        for variable, old in before[:reached + 1]:
            value = keras.ops.convert_to_numpy(variable.value)
            variable._layout = old
            variable.assign(value)
        raise TrainingError(f"The distribution's layout {getattr(layout, 'axes', layout)} does "
                            f"not fit {wrong.path} (shape {tuple(wrong.shape)}) on its "
                            f"{describe_mesh(mesh_of(distribution))}: {e}") from e


def gather(model: keras.Model) -> None:
    """Variables on a mesh back on the default device (JAX): those an earlier distributed run
    laid out, and any a step after it left there (a predict after an edit returns the new
    layers' values from a program on the mesh). A run without a distribution must not mix
    them with single-device arrays."""
    for variable in model.variables:
        sharding = getattr(getattr(variable, "_value", None), "sharding", None)
        if getattr(variable, "_layout", None) is not None or \
                len(getattr(sharding, "device_set", ())) > 1:
            value = keras.ops.convert_to_numpy(variable.value)
            variable._layout = None
            variable.assign(value)


def weight_layouts(model: keras.Model | None) -> dict[str, dict[str, str]]:
    """{layer name: {weight: "sharded on model (dim 1 of 2)" or "replicated"}} for the layers
    whose weights live on a mesh of several devices (JAX), from the live values; {} when every
    weight is on one device. A weight is named by its path inside the layer ("kernel",
    "attention/query/kernel")."""
    if model is None or keras.backend.backend() != "jax":
        return {}
    found: dict[str, dict[str, str]] = {}
    for layer in model.layers:
        for variable in layer.weights:
            said = _said(getattr(variable, "_value", None))
            if said is not None:
                inside = variable.path.removeprefix(f"{layer.name}/")
                found.setdefault(layer.name, {})[inside] = said
    return found


def _said(value: Any) -> str | None:
    sharding = getattr(value, "sharding", None)
    spec, mesh = getattr(sharding, "spec", None), getattr(sharding, "mesh", None)
    if spec is None or mesh is None or len(sharding.device_set) < 2:
        return None
    split = []  # (dim, axes of more than one device)
    for dim, axes in enumerate(spec):
        named = [a for a in ((axes,) if isinstance(axes, str) else axes or ()) if mesh.shape[a] > 1]
        if named:
            split.append((dim, "+".join(named)))
    if not split:
        return "replicated"
    return ", ".join(f"sharded on {axes} (dim {dim} of {len(value.shape)})"
                     for dim, axes in split)


def mesh_of(distribution: Any) -> dict[str, Any] | None:
    """The device mesh a distribution uses, as plain data: {"devices": [...], "axes": {name:
    size}, "batch_axis": name}; None without one."""
    mesh = getattr(distribution, "device_mesh", None)
    if mesh is None:
        return None
    return {"devices": [str(d) for d in mesh.devices.flatten()],
            "axes": dict(zip(mesh.axis_names, (int(s) for s in mesh.shape))),
            "batch_axis": getattr(distribution, "batch_dim_name", None)}


def describe_mesh(mesh: dict[str, Any]) -> str:
    """"mesh (batch: 1, model: 2) over 2 devices (cpu:0, cpu:1)"."""
    axes = ", ".join(f"{name}: {size}" for name, size in mesh["axes"].items())
    devices = mesh["devices"]
    return f"mesh ({axes}) over {len(devices)} device{'s' * (len(devices) != 1)} " \
        f"({', '.join(devices)})"
