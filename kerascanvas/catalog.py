"""Which keras.layers classes the canvas offers: their slots, outputs and config schema.

Only classes found by scanning `keras.layers` are offered, looked up by class name: a string never
becomes an import. Left out: what runs user code or loads files, inputs (made by add_input), base
classes, RNN cells, and a few classes that are not called on graph tensors symbolically.
"""

from __future__ import annotations

import functools
import inspect
from dataclasses import dataclass
from typing import Any

import keras

from .drawing import EditError

DENIED = {
    # run user code or load files
    "Lambda": "runs user code", "TFSMLayer": "loads files", "TorchModuleWrapper": "runs user code",
    "JaxLayer": "runs user code", "FlaxLayer": "runs user code",
    # not boxes of their own
    "InputLayer": "inputs are made by add_input", "Layer": "a base class",
    "Wrapper": "a base class", "RNN": "takes a cell object; use LSTM, GRU or SimpleRNN",
    "StackedRNNCells": "an RNN cell", "Pipeline": "holds other layers",
    "SpectralNormalization": "wraps a layer object",
    # preprocessing that needs data, strings or bounding boxes to be called
    "MaxNumBoundingBoxes": "works on bounding-box dicts", "TextVectorization": "needs string inputs",
    "StringLookup": "needs a vocabulary", "IntegerLookup": "needs a vocabulary",
    "STFTSpectrogram": "needs scipy",
}

# Values for required constructor arguments, so that a palette drop makes a working layer.
SUGGESTED = {
    "units": 32, "filters": 16, "kernel_size": 3, "pool_size": 2, "rate": 0.5, "stddev": 0.1,
    "activation": "relu", "output_size": 4, "axes": -1, "input_dim": 1000, "output_dim": 16,
    "num_heads": 2, "key_dim": 16, "head_dim": 8, "num_query_heads": 4, "num_key_value_heads": 2,
    "num_bins": 16, "dims": [2, 1], "factor": 0.2, "height": 16, "width": 16,
    "height_factor": 0.2, "width_factor": 0.2, "n": 4, "scale": 1 / 255, "target_shape": [-1],
    "equation": "ab,bc->ac", "output_shape": 16,
}
SUGGESTED_FOR = {  # optional arguments whose defaults do not make a working layer
    "CategoryEncoding": {"num_tokens": 16}, "Discretization": {"num_bins": 8},
    "GroupNormalization": {"groups": 4}, "RandomPosterization": {"factor": 4},
}
NESTED_LAYER = {  # the layer a wrapper wraps by default, and the classes it may wrap
    "Bidirectional": ("LSTM", {"units": 16}, ("LSTM", "GRU", "SimpleRNN")),
    "TimeDistributed": ("Dense", {"units": 16}, None),
}
CHOICES = {
    "padding": ["valid", "same", "causal"], "data_format": [None, "channels_last", "channels_first"],
    "merge_mode": ["concat", "sum", "mul", "ave", None],
    "interpolation": ["bilinear", "nearest", "bicubic", "lanczos3", "lanczos5", "area"],
    "activation": ["linear", "relu", "sigmoid", "softmax", "tanh", "gelu", "elu", "selu", "swish",
                   "softplus", "softsign", "leaky_relu", "relu6", "silu", "hard_sigmoid",
                   "exponential", "mish", "log_softmax"],
}
CHOICES["recurrent_activation"] = CHOICES["activation"]
RECURRENT_STATES = {"LSTM": 2, "GRU": 1, "SimpleRNN": 1, "ConvLSTM1D": 2, "ConvLSTM2D": 2,
                    "ConvLSTM3D": 2}


class UnknownLayerError(ValueError):
    """A class name the catalog does not offer."""


@dataclass(frozen=True)
class Slots:
    kind: str  # "single" (one tensor), "list" (call(inputs=[...])), "args" (positional tensors)
    names: tuple[str, ...]
    min: int  # slots that must be filled for the call to exist
    max: int | None  # slots that may be filled (None: any number)


@dataclass(frozen=True)
class LayerKind:
    class_name: str
    group: str
    slots: Slots
    cls: type

    def n_outputs(self, config: dict) -> int:
        """Output tensors per call (tensor_index 0..n-1) that this config gives."""
        if self.class_name in RECURRENT_STATES and config.get("return_state"):
            return 1 + RECURRENT_STATES[self.class_name]
        if self.class_name == "Bidirectional":
            inner = config.get("layer") or {}
            inner_config = inner.get("config", {}) if isinstance(inner, dict) else {}
            states = RECURRENT_STATES.get(inner.get("class_name") if isinstance(inner, dict) else "", 1)
            outputs = 2 if config.get("merge_mode", "concat") is None else 1
            return outputs + (2 * states if inner_config.get("return_state") else 0)
        return 1

    def schema(self) -> list[dict]:
        """One entry per constructor argument a form can set: name, type, default, required."""
        fields = []
        suggested = self.suggested_args()
        for p in list(inspect.signature(self.cls.__init__).parameters.values())[1:]:
            if p.kind in (p.VAR_KEYWORD, p.VAR_POSITIONAL):
                continue
            required = p.default is inspect.Parameter.empty
            default = suggested.get(p.name) if required else p.default
            field = {"name": p.name, "type": _type_of(p.name, default), "default": _plain(default),
                     "required": required}
            if p.name in CHOICES:
                field["choices"] = CHOICES[p.name]
            fields.append(field)
        return fields

    def suggested_args(self) -> dict:
        args = {}
        for p in list(inspect.signature(self.cls.__init__).parameters.values())[1:]:
            if p.default is inspect.Parameter.empty and p.name in SUGGESTED:
                args[p.name] = SUGGESTED[p.name]
        if self.class_name in NESTED_LAYER:
            inner, config, _ = NESTED_LAYER[self.class_name]
            args["layer"] = {"class_name": inner, "config": config}
        if self.class_name == "Dot":
            args["axes"] = 1
        args.update(SUGGESTED_FOR.get(self.class_name, {}))
        return args

    def make_config(self, **kwargs: Any) -> dict:
        """The full Keras config of a layer built from suggested_args() updated by kwargs."""
        return self.build(**{**self.suggested_args(), **kwargs}).get_config()

    def build(self, **kwargs: Any) -> keras.layers.Layer:
        """`cls(**kwargs)`, a nested layer given as a catalog layer config or object."""
        for key in ("layer", "backward_layer"):
            if kwargs.get(key) is not None:
                nested = self._nested(key, kwargs[key])
                kwargs[key] = get(nested["class_name"]).create(nested["config"])
        return self.cls(**kwargs)

    def create(self, config: dict) -> keras.layers.Layer:
        """`cls.from_config(config)`; a nested layer must itself be a catalog class."""
        config = dict(config)
        for key in ("layer", "backward_layer"):
            if key in config and config[key] is not None:
                config[key] = self._nested(key, config[key])
        return self.cls.from_config(config)

    def _nested(self, key: str, value: Any) -> dict:
        allowed = NESTED_LAYER.get(self.class_name, (None, None, ()))[2]
        if isinstance(value, keras.layers.Layer):
            value = {"class_name": type(value).__name__, "config": value.get_config()}
        if not isinstance(value, dict) or not isinstance(value.get("config"), dict):
            raise EditError(f"{self.class_name}.{key} must be a layer config "
                            f"{{'class_name': ..., 'config': {{...}}}}, got {value!r:.120}.")
        inner = get(value.get("class_name"))
        if allowed is not None and inner.class_name not in allowed:
            raise EditError(f"{self.class_name} wraps one of {', '.join(allowed)}, "
                            f"not {inner.class_name}.")
        return {"module": "keras.layers", "class_name": inner.class_name,
                "config": dict(value["config"]), "registered_name": None}


def _type_of(name: str, default: Any) -> str:
    if name in CHOICES:
        return "choice"
    if name in ("layer", "backward_layer"):
        return "layer"
    if isinstance(default, bool):
        return "bool"
    if isinstance(default, int):
        return "int"
    if isinstance(default, float):
        return "float"
    if isinstance(default, str):
        return "str"
    if isinstance(default, (tuple, list)):
        return "ints"
    return "any"


def _plain(value: Any) -> Any:
    if isinstance(value, tuple):
        return list(value)
    if value is None or isinstance(value, (bool, int, float, str, list, dict)):
        return value
    return repr(value)


def _slots(name: str, cls: type) -> Slots:
    from keras.src.layers.merging.base_merge import Merge

    if issubclass(cls, Merge):
        return Slots("list", (), 2, 2 if name in ("Subtract", "Dot") else None)
    if name in ("Attention", "AdditiveAttention"):
        return Slots("list", ("query", "value", "key"), 2, 3)
    if name == "HashedCrossing":
        return Slots("list", (), 2, 2)
    params = list(inspect.signature(cls.call).parameters)
    if params[1:3] == ["query", "value"]:
        return Slots("args", ("query", "value", "key"), 2, 3)
    return Slots("single", ("inputs",), 1, 1)


@functools.cache
def _kinds() -> dict[str, LayerKind]:
    kinds = {}
    for attr in dir(keras.layers):
        cls = getattr(keras.layers, attr)
        if (not inspect.isclass(cls) or not issubclass(cls, keras.layers.Layer)
                or attr != cls.__name__ or attr in DENIED or attr.endswith("Cell")
                or not cls.__module__.startswith("keras.src.layers.")):
            continue
        group = cls.__module__.split(".")[3]
        kinds[attr] = LayerKind(attr, "recurrent" if group == "rnn" else group, _slots(attr, cls), cls)
    return kinds


@functools.cache
def _aliases() -> dict[str, str]:  # Convolution2D -> Conv2D, AvgPool2D -> AveragePooling2D, ...
    kinds = _kinds()
    return {attr: getattr(keras.layers, attr).__name__ for attr in dir(keras.layers)
            if inspect.isclass(getattr(keras.layers, attr))
            and getattr(keras.layers, attr).__name__ in kinds}


def names() -> list[str]:
    return sorted(_kinds())


def get(class_name: Any) -> LayerKind:
    """The kind of an offered class, by class name (aliases such as Convolution2D accepted)."""
    canonical = _aliases().get(class_name) if isinstance(class_name, str) else None
    if canonical is None:
        why = DENIED.get(class_name) if isinstance(class_name, str) else None
        raise UnknownLayerError(
            f"{class_name!r} is not a layer the canvas offers" + (f" ({why})" if why else "")
            + "; kerascanvas.catalog.names() lists them.")
    return _kinds()[canonical]


def groups() -> dict[str, list[str]]:
    found: dict[str, list[str]] = {}
    for name, kind in sorted(_kinds().items()):
        found.setdefault(kind.group, []).append(name)
    return found


def palette() -> list[dict]:
    """The catalog for the front end (JSON-able)."""
    return [{"class_name": k.class_name, "group": k.group,
             "slots": {"kind": k.slots.kind, "names": list(k.slots.names), "min": k.slots.min,
                       "max": k.slots.max},
             "schema": k.schema(), "suggested": _plain_dict(k.suggested_args())}
            for k in (_kinds()[n] for n in names())]


def _plain_dict(d: dict) -> dict:
    return {k: _plain(v) for k, v in d.items()}
