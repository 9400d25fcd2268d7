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

from ..errors import EditError, UnknownLayerError
from . import fresh_configs, registry
from .layerkind import DENIED, Slots, plain, slots_of, type_of

LAYER_KWARGS = {"name", "dtype", "trainable", "autocast", "activity_regularizer"}
INPUT_KWARGS = {"input_shape", "input_dim", "batch_input_shape", "batch_size"}
HIDDEN = {"name", "dtype", "weights", "quantization_config", "gptq_unpacked_column_size",
          "reverse_dtype"}  # set elsewhere (rename) or not from a form

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
    "GroupNormalization": {"groups": 4}, "RandomPosterization": {"factor": 4}, "Dot": {"axes": 1},
    "StringLookup": {"vocabulary": ["a", "b", "c"]}, "IntegerLookup": {"vocabulary": [1, 2, 3]},
    "TextVectorization": {"vocabulary": ["a", "b", "c"]},
}
RNNS = ("LSTM", "GRU", "SimpleRNN", "ConvLSTM1D", "ConvLSTM2D", "ConvLSTM3D")
MODEL_MODULES = {"Functional": "keras.src.models.functional", "Sequential": "keras"}  # wrapped
NESTED_LAYER = {  # the layer a wrapper wraps by default, and the classes it may wrap (None: any)
    "Bidirectional": ("LSTM", {"units": 16}, RNNS),
    "TimeDistributed": ("Dense", {"units": 16}, None),
    "SpectralNormalization": ("Dense", {"units": 16}, (  # layers with a `kernel` or `embeddings`
        "Dense", "EinsumDense", "Embedding", "Conv1D", "Conv2D", "Conv3D", "Conv1DTranspose",
        "Conv2DTranspose", "Conv3DTranspose", "DepthwiseConv1D", "DepthwiseConv2D")),
}
ACTIVATIONS = ["linear", "relu", "sigmoid", "softmax", "tanh", "gelu", "elu", "selu", "swish",
               "softplus", "softsign", "leaky_relu", "relu6", "silu", "hard_sigmoid",
               "exponential", "mish", "log_softmax"]
OUTPUT_MODES = ["int", "one_hot", "multi_hot", "count"]
CHOICES = {  # by argument name; offered where the default is one of them
    "padding": ["valid", "same"], "data_format": [None, "channels_last", "channels_first"],
    "merge_mode": ["concat", "sum", "mul", "ave", None], "interpolation": ["bilinear", "nearest"],
    "activation": ACTIVATIONS, "recurrent_activation": ACTIVATIONS, "output_mode": OUTPUT_MODES,
    "fill_mode": ["reflect", "wrap", "constant", "nearest"], "score_mode": ["dot", "concat"],
    "window": ["hann", "hamming"], "use_cudnn": ["auto", True, False],
    "flash_attention": [None, True, False], "scaling": ["density", "spectrum", None],
}
CLASS_CHOICES = {  # (class, argument): choices where they differ from CHOICES
    ("Conv1D", "padding"): ["valid", "same", "causal"],
    ("Resizing", "interpolation"): ["bilinear", "nearest", "bicubic", "lanczos3", "lanczos5",
                                    "area"],
    ("UpSampling2D", "interpolation"): ["nearest", "bilinear", "bicubic", "lanczos3", "lanczos5"],
    ("RandomFlip", "mode"): ["horizontal_and_vertical", "horizontal", "vertical"],
    ("STFTSpectrogram", "mode"): ["log", "magnitude", "psd", "real", "imag", "angle", "stft"],
    ("CategoryEncoding", "output_mode"): ["multi_hot", "one_hot", "count"],
    ("HashedCrossing", "output_mode"): ["int", "one_hot"],
    ("TextVectorization", "output_mode"): ["int", "multi_hot", "count"],
    ("TextVectorization", "standardize"): ["lower_and_strip_punctuation", "lower",
                                           "strip_punctuation", None],
    ("TextVectorization", "split"): ["whitespace", "character", None],
}
RECURRENT_STATES = {"LSTM": 2, "GRU": 1, "SimpleRNN": 1, "ConvLSTM1D": 2, "ConvLSTM2D": 2,
                    "ConvLSTM3D": 2}


@dataclass(frozen=True)
class LayerKind:
    class_name: str  # the public keras.layers name
    group: str
    slots: Slots
    cls: type

    def slots_for(self, config: dict) -> Slots:
        """The slots a layer with this config has: a catalog layer's never depend on it."""
        return self.slots

    def n_outputs(self, config: dict) -> int:
        """Output tensors per call (tensor_index 0..n-1) that this config gives."""
        if self.class_name in RECURRENT_STATES and config.get("return_state"):
            return 1 + RECURRENT_STATES[self.class_name]
        if self.class_name == "Bidirectional":
            inner = config.get("layer") if isinstance(config.get("layer"), dict) else {}
            inner_config = inner.get("config") if isinstance(inner.get("config"), dict) else {}
            outputs = 2 if config.get("merge_mode", "concat") is None else 1
            if inner_config.get("return_state"):
                outputs += 2 * RECURRENT_STATES.get(_canonical(inner.get("class_name")), 1)
            return outputs
        return 1

    def schema(self) -> list[dict]:
        """One entry per constructor argument a form can set: name, type, default, required
        (a required argument's default is its suggested value), choices where there are few."""
        suggested, fields = self.suggested_args(), []
        for p in self._parameters():
            if p.name in HIDDEN:
                continue
            required = p.default is inspect.Parameter.empty
            default = suggested.get(p.name) if required else p.default
            choices = CLASS_CHOICES.get((self.class_name, p.name), CHOICES.get(p.name))
            if choices is not None and default is None and None not in choices:
                choices = [None, *choices]  # None: Keras's default (activation=None is linear)
            elif choices is not None and plain(default) not in choices:
                choices = None  # same name, other meaning (ZeroPadding2D's padding)
            field = {"name": p.name, "type": "choice" if choices else type_of(p.name, default),
                     "default": plain(default), "required": required}
            if choices:
                field["choices"] = list(choices)
            fields.append(field)
        return fields

    def suggested_args(self) -> dict:
        """Values for the required constructor arguments (and a few whose defaults do not make a
        working layer), so that a palette drop works."""
        args = {p.name: SUGGESTED[p.name] for p in self._parameters()
                if p.default is inspect.Parameter.empty and p.name in SUGGESTED}
        if self.class_name in NESTED_LAYER:
            inner, config, _ = NESTED_LAYER[self.class_name]
            args["layer"] = {"class_name": inner, "config": dict(config)}
        args.update(SUGGESTED_FOR.get(self.class_name, {}))
        return args

    def make_config(self, **kwargs: Any) -> dict:
        """The full Keras config of a layer built from suggested_args() updated by kwargs."""
        args = {**self.suggested_args(), **kwargs}
        return self.config_of(self.build(**args), args)

    def config_of(self, layer: keras.layers.Layer, given: Any) -> dict:
        """The config of `layer`, just built from the arguments `given`."""
        return fresh_configs.read(self.class_name, layer, given)

    def build(self, **kwargs: Any) -> keras.layers.Layer:
        """`cls(**kwargs)`; a nested layer may be given as a catalog layer config or object.
        TypeError for arguments the class does not take; ValueError (Keras's message) for values
        Keras refuses."""
        unknown = sorted(set(kwargs) - _accepted_by(self.cls))
        if shaped := [k for k in unknown if k in INPUT_KWARGS]:
            raise TypeError(f"{self.class_name} takes no {', '.join(shaped)}: input shapes come "
                            "from Input boxes (Graph.add_input).")
        for key, value in kwargs.items():
            if key in ("layer", "backward_layer") and value is not None:
                nested = self._nested(key, value)
                kwargs[key] = self.inner_kind(nested["class_name"]).create(nested["config"])
            self._check_value(key, value)
        try:
            return self.cls(**kwargs)
        except Exception as e:
            # Names the signatures do not show may still be taken through **kwargs (a config's
            # vocabulary_size): Keras decides, and a refusal that names one is a TypeError.
            refused = [k for k in unknown if repr(k) in str(e) or f"`{k}`" in str(e)]
            if refused:
                raise TypeError(f"{self.class_name} takes no argument(s) "
                                f"{', '.join(map(repr, refused))}: {e}") from e
            if isinstance(e, ValueError):
                raise
            # Keras says some wrong values with TypeError, KeyError, ...
            raise ValueError(f"Keras refused {self.class_name}({_shown(kwargs)}): "
                             f"{type(e).__name__}: {e}") from e

    def _check_value(self, key: str, value: Any) -> None:
        _check_safe(self.class_name, key, value)

    def create(self, config: dict) -> keras.layers.Layer:
        """`cls.from_config(config)`; nested layers (at any depth) must be catalog classes."""
        return self.cls.from_config(self.checked(config))

    def checked(self, config: Any) -> dict:
        """A copy of config whose values (nested layers at any depth) the catalog accepts."""
        if not isinstance(config, dict):
            raise EditError(f"A {self.class_name} config is a dict, got {config!r:.120}.")
        config = dict(config)
        for key, value in config.items():
            if key in ("layer", "backward_layer") and value is not None:
                config[key] = self._nested(key, value)
            self._check_value(key, value)
        return config

    def _nested(self, key: str, value: Any) -> dict:
        """A nested layer as a serialized catalog layer (module pinned to keras.layers)."""
        allowed = NESTED_LAYER.get(self.class_name, (None, None, ()))[2]
        if isinstance(value, keras.layers.Layer):
            value = {"class_name": type(value).__name__, "config": value.get_config()}
        if not isinstance(value, dict) or not isinstance(value.get("config"), dict):
            raise EditError(f"{self.class_name}.{key} must be a layer config "
                            f"{{'class_name': ..., 'config': {{...}}}}, got {value!r:.120}.")
        if value.get("class_name") in MODEL_MODULES and allowed is None:  # TimeDistributed(model)
            return self.model_inside(value["class_name"], value["config"])
        inner = self.inner_kind(value.get("class_name"))
        if allowed is not None and inner.class_name not in allowed:
            raise EditError(f"{self.class_name} wraps one of {', '.join(allowed)}, "
                            f"not {inner.class_name}.")
        return {"module": "keras.layers", "class_name": inner.class_name,
                "config": inner.checked(value["config"]), "registered_name": None}

    def inner_kind(self, class_name: str):
        """The kind of a layer this wrapper wraps: a catalog layer (nested.WrapperKind, which
        kinds.get gives for TimeDistributed, takes models as well)."""
        return get(class_name)

    def model_inside(self, class_name: str, config: Any) -> dict:
        """A model this wrapper wraps, serialized: the catalog alone does not know models."""
        raise EditError(f"{self.class_name} wraps a {class_name} model only as a box of a "
                        "drawing (kerascanvas.kinds.get gives its kind); the catalog alone "
                        "knows keras.layers classes.")

    def _parameters(self) -> tuple[inspect.Parameter, ...]:
        return _own_parameters(self.cls)


@functools.cache
def _own_parameters(cls: type) -> tuple[inspect.Parameter, ...]:
    """The named constructor arguments of a class: read once per class (every add asks for its
    suggested arguments, and `inspect.signature` is a measurable part of an edit)."""
    return tuple(p for p in list(inspect.signature(cls.__init__).parameters.values())[1:]
                 if p.kind not in (p.VAR_KEYWORD, p.VAR_POSITIONAL))


@functools.cache
def _accepted_by(cls: type) -> set[str]:
    """Keyword arguments a class takes: its own and, through **kwargs, its bases'."""
    names = set()
    for base in cls.__mro__:
        if base is object or "__init__" not in vars(base):
            continue
        params = list(inspect.signature(base.__init__).parameters.values())[1:]
        names |= {p.name for p in params if p.kind not in (p.VAR_KEYWORD, p.VAR_POSITIONAL)}
        if not any(p.kind is p.VAR_KEYWORD for p in params):
            break  # this __init__ passes nothing further up
    return names | LAYER_KWARGS


def _check_safe(class_name: str, key: str, value: Any) -> None:
    """No user code (a function of one's own) and no file (a lookup vocabulary given as a
    path) goes into a layer."""
    if callable(value) and not getattr(value, "__module__", "").startswith("keras.") and \
            not any(value is trusted for trusted in registry.held().values()):
        raise EditError(f"{class_name}.{key} may not be user code unless you trust it "
                        f"(kc.register(fn), or import with trust_custom=True); got {value!r:.80}.")
    if key == "vocabulary" and isinstance(value, str):
        raise EditError(f"{class_name}.vocabulary must be a list of tokens, not a file path; "
                        f"got {value!r:.80}.")
    if key not in ("layer", "backward_layer"):  # those are checked as catalog layers
        check_serialized(f"{class_name}.{key}", value)


# Serialized objects a layer config may hold besides nested layers (initializers, regularizers,
# constraints, dtype policies): Keras would deserialize any class named in a config, so only
# these modules are let through, and never a registered custom class ("package>Name").
SERIALIZED_MODULES = ("keras.initializers", "keras.regularizers", "keras.constraints",
                      "keras.dtype_policies", "keras.quantizers")  # (quantizers: int8 configs)


def check_serialized(where: str, value: Any, depth: int = 0) -> None:
    """Refuse a serialized object in a config value unless it is one of Keras's own
    initializers, regularizers, constraints or dtype policies."""
    if depth > 20:
        raise EditError(f"{where} is nested too deeply.")
    if isinstance(value, dict):
        if "class_name" in value:
            module, name = value.get("module"), value.get("class_name")
            allowed = (module in SERIALIZED_MODULES
                       or (module == "keras" and isinstance(name, str) and name.endswith("DTypePolicy"))
                       # no module: Keras looks a plain name up among the kind it expects
                       # (regularizers for a kernel_regularizer); "pkg>Name", "__lambda__" not
                       or (module is None and isinstance(name, str) and name.isidentifier()
                           and not name.startswith("_") and _keras_object_name(name)))
            trusted = (_trusted_object(module, name, value.get("registered_name"))
                       or registry.held_named(module, name, value.get("registered_name"),
                                              value.get("config")) is not None)
            if not trusted and (not allowed or value.get("registered_name") not in (None, name)
                                or not isinstance(name, str) or name.startswith("_")):
                # a function is written {"class_name": "function", "config": its name}
                shown = value.get("config") if name == "function" else name
                shown = shown.rsplit(">", 1)[-1] if isinstance(shown, str) else "..."  # "pkg>"
                what = f"function {shown!r:.60}" if name == "function" else f"{name!r:.60}"
                raise EditError(f"{where} holds a serialized {what} from {module!r:.60}; a "
                                "config may only hold Keras's own initializers, regularizers, "
                                "constraints and dtype policies, Keras's own layers and the "
                                "layer classes, Regularizer, Initializer and Constraint classes "
                                f"and functions you trust (kc.register({shown:.60}), or import "
                                "with trust_custom=True).")
        for item in value.values():
            check_serialized(where, item, depth + 1)
    elif isinstance(value, (list, tuple)):
        for item in value:
            check_serialized(where, item, depth + 1)


def _keras_object_name(name: str) -> bool:
    """A plain name Keras's own initializers, regularizers or constraints use: a user's class
    Keras's registry knows by that name (register_keras_serializable) is not trusted by it."""
    return any(hasattr(family, name) for family in (
        keras.initializers, keras.regularizers, keras.constraints, keras.dtype_policies))


def _trusted_object(module: Any, name: Any, registered_name: Any) -> bool:
    """A layer object held in a config (Dense(activation=layers.ReLU())): a layer class of
    Keras's own, or a class the user registered (kc.register)."""
    if not isinstance(name, str):
        return False
    if module == "keras.layers":
        return name in registry.keras_own() or name in _kinds()
    cls = registry.registered().get(name)
    home = "__main__" if module is None else module  # Keras writes a notebook's module as None
    return cls is not None and cls.__module__ == home and registered_name in (
        None, name, keras.saving.get_registered_name(cls))


def _shown(kwargs: dict) -> str:
    return ", ".join(f"{k}={v!r:.40}" for k, v in kwargs.items())


def _public_classes() -> dict[str, type]:
    return {attr: getattr(keras.layers, attr) for attr in dir(keras.layers)
            if inspect.isclass(getattr(keras.layers, attr))
            and issubclass(getattr(keras.layers, attr), keras.layers.Layer)}


@functools.cache
def _kinds() -> dict[str, LayerKind]:
    by_class: dict[type, str] = {}
    for attr, cls in sorted(_public_classes().items()):  # the class's own name where public
        if attr == cls.__name__ or cls not in by_class:
            by_class[cls] = attr
    kinds = {}
    for cls, name in by_class.items():
        if (name in DENIED or cls.__name__ in DENIED or name.endswith("Cell")
                or not cls.__module__.startswith("keras.src.layers.")):
            continue
        group = cls.__module__.split(".")[3]  # keras.src.layers.<group>...
        group = "recurrent" if group == "rnn" else group
        kinds[name] = LayerKind(name, group, slots_of(name, cls), cls)
    return kinds


@functools.cache
def _aliases() -> dict[str, str]:
    """Every public name (Convolution2D, AvgPool2D) and class __name__ (GroupedQueryAttention,
    as type(layer).__name__ gives) of an offered class -> its catalog name."""
    canonical = {kind.cls: name for name, kind in _kinds().items()}
    found = {attr: canonical[cls] for attr, cls in _public_classes().items() if cls in canonical}
    found.update({cls.__name__: name for cls, name in canonical.items()})
    return found


def _canonical(class_name: Any) -> str | None:
    return _aliases().get(class_name) if isinstance(class_name, str) else None


def names() -> list[str]:
    """Every offered class name, sorted."""
    return sorted(_kinds())


def get(class_name: Any) -> LayerKind:
    """The kind of an offered class, by class name (aliases such as Convolution2D accepted)."""
    canonical = _canonical(class_name)
    if canonical is None:
        why = DENIED.get(class_name) if isinstance(class_name, str) else None
        raise UnknownLayerError(
            f"{class_name!r:.120} is not a layer the canvas offers" + (f" ({why})" if why else "")
            + "; kerascanvas.catalog.names() lists them.")
    return _kinds()[canonical]


def groups() -> dict[str, list[str]]:
    """Group (from the Keras module: core, convolutional, ...) -> sorted class names."""
    found: dict[str, list[str]] = {}
    for name, kind in sorted(_kinds().items()):
        found.setdefault(kind.group, []).append(name)
    return found
