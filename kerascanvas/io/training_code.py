"""The training part of the exported code: the `compile(...)` and `fit(...)` of the last run.

The trainer records a run's settings as it starts (`run_settings`, kept on the graph as
`last_training`): plain values and Keras's own serialized objects, never the data or the live
optimizer. `to_code` writes them after the model's code (Graph.to_code(training=True)); the data
are written as names (`x_train, y_train`): the code cannot hold the arrays given to set_data
(so `ruff check` finds them undefined, and nothing else). A run under a keras.distribution object
is written as Keras code too, set before the model is made (its variables are laid out as they
are created).
"""

from __future__ import annotations

import re
from typing import Any

import keras

from . import codegen
from .codegen import Call, Raw, statement

DATA_NAMES = frozenset({"x_train", "y_train", "x_val", "y_val", "train_data", "val_data"})
"""The names the training code gives the data: kept free of layers' identifiers."""
DISTRIBUTION_NAMES = frozenset({"device_mesh", "layout_map"})
"""The names the distribution's code uses, likewise."""

# fit arguments never written: the data, and what only the canvas uses
_NOT_WRITTEN = {"x", "y", "validation_data", "callbacks", "verbose", "sample_weight"}
_PLAIN = (bool, int, float, str, type(None))


def to_code(g, op_names: bool = False) -> str:
    """codegen.to_code's code, then the compile and fit of the graph's last training run."""
    model = codegen.to_code(g, op_names, reserved=DATA_NAMES | DISTRIBUTION_NAMES).split("\n")
    distribution = (g.last_training or {}).get("distribution")
    if distribution is not None:  # after the imports, before any variable is made
        after_imports = model.index("") + 1
        model[after_imports:after_imports] = [*distribution_lines(distribution), ""]
    return "\n".join(model) + "\n".join(lines(g)) + "\n"


def run_settings(optimizer: Any, loss: Any, metrics: Any, fit_arguments: dict, dataset: bool,
                 validation: str | None, distribution: Any = None) -> dict:
    """What a run compiles and fits with, as plain data: the optimizer the model is compiled
    with, the loss (the one chosen when "auto"), the metrics, fit's literal arguments (epochs,
    batch_size, validation_split, ...); `dataset`: whether the training data is a dataset;
    `validation`: "arrays", "dataset" or None; `distribution`: the keras.distribution object
    the run used, or None."""
    return {"optimizer": keras.optimizers.serialize(optimizer),
            "loss": _serialized(loss, keras.losses.serialize),
            "metrics": _serialized(metrics, keras.metrics.serialize),
            "fit": {k: v for k, v in fit_arguments.items()
                    if k not in _NOT_WRITTEN and _is_literal(v)},
            "validation": validation, "dataset": dataset,
            "distribution": distribution_settings(distribution)}


def distribution_settings(distribution: Any) -> dict | None:
    """A keras.distribution object as plain data: its class, mesh (shape and axis names; the
    devices are those the code's machine lists), batch axis and layout map ({key: axes})."""
    mesh = getattr(distribution, "device_mesh", None)
    if mesh is None:
        return None
    layout_map = getattr(distribution, "_layout_map", None) or {}  # (Keras offers no getter)
    return {"class_name": type(distribution).__name__,
            "shape": [int(s) for s in mesh.shape], "axis_names": list(mesh.axis_names),
            "batch_dim_name": getattr(distribution, "batch_dim_name", None),
            "layout_map": {str(k): list(layout_map[k].axes) for k in layout_map}}


def distribution_lines(settings: dict) -> list[str]:
    """The Keras code that sets the distribution a run used: a DeviceMesh, a LayoutMap for a
    ModelParallel, then set_distribution (before the model is made)."""
    mesh = (f"keras.distribution.DeviceMesh(shape={tuple(settings['shape'])!r}, "
            f"axis_names={tuple(settings['axis_names'])!r})")
    said = ["# The last run was distributed: its device mesh, set before the model is made."]
    if settings["class_name"] != "ModelParallel":
        return [*said, f"device_mesh = {mesh}",
                ("keras.distribution.set_distribution(keras.distribution.DataParallel("
                 "device_mesh=device_mesh))")]
    entries = [f"layout_map[{key!r}] = {tuple(axes)!r}"
               for key, axes in settings["layout_map"].items()]
    return [*said, f"device_mesh = {mesh}",
            "layout_map = keras.distribution.LayoutMap(device_mesh)", *entries,
            "keras.distribution.set_distribution(keras.distribution.ModelParallel(",
            f"    layout_map=layout_map, batch_dim_name={settings['batch_dim_name']!r}))"]


def lines(g) -> list[str]:
    """`model.compile(...)` and `model.fit(...)` of the graph's last run, after a comment saying
    what the data names stand for; with no run yet, the Train panel's defaults, said so."""
    settings = g.last_training
    if settings is None:
        settings = _defaults(g)
        said = ["# No training run on this graph yet: the Train panel's defaults (its loss",
                "# follows the targets; set the one yours need)."]
    else:
        said = ["# The last training run on the canvas."]
    data = "train_data" if settings["dataset"] else "x_train, y_train"
    validating = {"arrays": ", x_val, y_val for its validation_data",
                  "dataset": ", val_data for its validation_data"}.get(settings["validation"], "")
    said.append(f"# {data} stand for the data given to set_data{validating}.")
    compiled = Call("model.compile", (
        ("optimizer", _constructed(settings["optimizer"], "optimizers")),
        ("loss", _written(settings["loss"], "losses")),
        ("metrics", _written(settings["metrics"], "metrics"))))
    positional = (("", Raw("train_data")),) if settings["dataset"] else (
        ("", Raw("x_train")), ("", Raw("y_train")))
    validation = {"arrays": Raw("(x_val, y_val)"), "dataset": Raw("val_data")}.get(
        settings["validation"])
    fitted = Call("model.fit", positional + tuple(settings["fit"].items())
                  + ((("validation_data", validation),) if validation is not None else ()))
    return ["", *said, *statement("", compiled), *statement("", fitted)]


def _defaults(g) -> dict:
    """Trainer.fit's defaults; the loss a person would pick for what the output layers end in
    (the panel's "auto" picks it from the targets, which the graph does not know)."""
    losses = [{"softmax": "sparse_categorical_crossentropy", "sigmoid": "binary_crossentropy"}
              .get(g.specs[layer].config.get("activation"), "mean_squared_error")
              for layer, _, _ in g.outputs]
    return {"optimizer": keras.optimizers.serialize(keras.optimizers.Adam()),
            "loss": losses[0] if len(losses) == 1 else losses, "metrics": [],
            "fit": {"epochs": 1, "batch_size": 32}, "validation": None, "dataset": False}


def _serialized(value: Any, serialize) -> Any:
    """A loss or metrics setting as data: names as they are, Keras objects serialized, lists
    and dicts of them likewise."""
    if isinstance(value, dict):
        return {k: _serialized(v, serialize) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_serialized(v, serialize) for v in value]
    if isinstance(value, _PLAIN):
        return value
    found = serialize(value)
    if isinstance(found, dict) and found.get("class_name") == "function":  # a Keras function
        return found["config"]  # by its name
    return found


def _written(value: Any, family: str) -> Any:
    if isinstance(value, dict) and "class_name" not in value:  # {output name: loss}
        return {k: _written(v, family) for k, v in value.items()}
    if isinstance(value, list):
        return [_written(v, family) for v in value]
    return _constructed(value, family)


def _constructed(entry: Any, family: str) -> Any:
    """A serialized Keras object as its constructor, with the arguments that differ from the
    class's defaults and an optimizer's learning rate (`keras.optimizers.Adam(learning_rate=
    0.0001)`); an object of another module through keras.saving."""
    if not (isinstance(entry, dict) and "class_name" in entry):  # (a learning rate schedule
        return entry  # is one: through keras.saving)
    cls = getattr(getattr(keras, family), str(entry.get("class_name")), None)
    # (torch's and TF's optimizers are backend classes of Keras's names: keras.src.backend...)
    own = entry.get("module") == f"keras.{family}" or str(entry.get("module")).startswith(
        "keras.src.backend.")
    if own and isinstance(cls, type) and isinstance(entry.get("config"), dict):
        try:
            default = _short_floats(cls().get_config())
        except TypeError:  # no default constructor
            default = {}
        args = {k: v for k, v in _short_floats(entry["config"]).items()
                if k == "learning_rate" or default.get(k, object()) != v  # (said even if default)
                and not (k == "name" and _unnumbered(v) == _unnumbered(default.get(k)))}
        if all(k.isidentifier() for k in args):
            return Call(f"keras.{family}.{cls.__name__}",
                        tuple((k, _constructed(v, family)) for k, v in args.items()))
    return Call("keras.saving.deserialize_keras_object", (("", entry),))


def _unnumbered(name: Any) -> Any:
    """A name without the number Keras adds to a default one ("adam_3" -> "adam")."""
    return re.sub(r"_\d+$", "", name) if isinstance(name, str) else name


def _short_floats(config: dict) -> dict:
    """A config with float32 values as written (Keras keeps a learning rate in a float32
    variable: 1e-4 reads back as 9.999999747378752e-05)."""
    import numpy as np

    def short(v):
        if isinstance(v, float) and float(np.float32(v)) == v:
            return float(str(np.float32(v)))
        return v

    return {k: short(v) for k, v in config.items()}


def _is_literal(value: Any) -> bool:
    if isinstance(value, (list, tuple)):
        return all(map(_is_literal, value))
    if isinstance(value, dict):
        return all(isinstance(k, _PLAIN) and _is_literal(v) for k, v in value.items())
    return isinstance(value, _PLAIN)
