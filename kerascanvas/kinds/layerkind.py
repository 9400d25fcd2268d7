"""What every layer kind offers, whichever module makes it: the bottom of the kinds.

A kind is what a box's class name stands for: a catalog layer (catalog.py), a registered or
Keras-own class or a trusted object (custom.py), a keras.ops operation (ops.py) or a model used
as a layer (nested.py). They all offer the `Kind` protocol below; their slots are `Slots`; the
form a box's inspector shows is a schema of fields whose types `type_of` names. Those modules
depend on this one, not on each other; kinds.py gathers them (lookup by name, the palette).
"""

from __future__ import annotations

import importlib.util
from dataclasses import dataclass, field
from typing import Any, Protocol, runtime_checkable

from . import calls


@dataclass(frozen=True)
class Slots:
    """The tensors one call of a box takes."""

    kind: str  # "single" (one tensor), "list" (call(inputs=[...])), "args" (positional tensors),
    # "none" (an Input)
    names: tuple[str, ...]
    min: int  # slots that must be filled for the call to exist
    max: int | None  # slots that may be filled (None: any number)
    named: tuple[str, ...] = ()  # the last of `names`: tensor keyword arguments (calls.py)
    # the call's own name for slot "inputs" (passed by keyword: decoder(decoder_sequence=x),
    # LSTM's sequences=, a preprocessing layer's data=); the class's, not the drawing's: not
    # compared
    first: str = field(default="inputs", compare=False)


@dataclass(frozen=True)
class NoSlots(Slots):
    """Input layers take no tensors."""

    kind: str = "none"
    names: tuple[str, ...] = ()
    min: int = 0
    max: int | None = 0


@runtime_checkable
class Kind(Protocol):
    """What graph, network, import and code export ask of any kind."""

    class_name: str  # the name drawings use for it
    group: str  # the palette group
    cls: type  # the Keras class (Layer or Operation) its boxes are

    @property
    def slots(self) -> Slots: ...

    def slots_for(self, config: dict) -> Slots:
        """The slots a box with this config has."""

    def n_outputs(self, config: dict) -> int:
        """Output tensors per call (tensor_index 0..n-1) that this config gives."""

    def schema(self) -> list[dict]:
        """The form: one field per argument (name, type, default, required[, choices])."""

    def suggested_args(self) -> dict:
        """Arguments that make a working box from a palette drop."""

    def checked(self, config: Any) -> dict:
        """A copy of a config the kind accepts (EditError / TypeError naming what is wrong)."""

    def create(self, config: dict) -> Any:
        """The Keras object a config describes (checked first)."""

    def build(self, **kwargs: Any) -> Any:
        """The Keras object made from arguments."""

    def make_config(self, **kwargs: Any) -> dict:
        """The full config of a box built from suggested_args() updated by kwargs."""


# Class names never offered as kinds, and why (catalog.py scans keras.layers, custom.py
# Keras's other modules: both leave these out).
DENIED = {
    # run user code or load files
    "Lambda": "runs user code", "TFSMLayer": "loads files", "TorchModuleWrapper": "runs user code",
    "JaxLayer": "runs user code", "FlaxLayer": "runs user code",
    # not boxes of their own
    "InputLayer": "inputs are made by add_input", "Layer": "a base class",
    "Wrapper": "a base class", "RNN": "takes a cell object; use LSTM, GRU or SimpleRNN",
    "StackedRNNCells": "an RNN cell", "Pipeline": "holds a list of layer objects",
    # called on dicts of images and bounding boxes, not on one tensor
    "MaxNumBoundingBoxes": "works on bounding-box dicts",
}
if importlib.util.find_spec("scipy") is None:  # its default window is looked up with scipy
    DENIED["STFTSpectrogram"] = "needs scipy"


def slots_of(name: str, cls: type) -> Slots:
    """The slots of a layer class, read from its call signature (and Keras's merge layers)."""
    from keras.src.layers.merging.base_merge import Merge

    if issubclass(cls, Merge):
        return Slots("list", (), 2, 2 if name in ("Subtract", "Dot") else None)
    if name in ("Attention", "AdditiveAttention"):  # call(inputs=[query, value, key])
        return Slots("list", ("query", "value", "key"), 2, 3)
    if name == "HashedCrossing":  # call(inputs=(x1, x2))
        return Slots("list", (), 2, 2)
    params = [p.name for p in calls.call_parameters(cls)]
    if params[:3] == ["query", "value", "key"]:  # MultiHeadAttention, GroupQueryAttention
        slots = Slots("args", ("query", "value", "key"), 2, 3)
    else:  # (training, initial_state: not slots)
        first = calls.call_parameters(cls)[:1]
        slots = Slots("single", ("inputs",), 1, 1, first=first[0].name if first and first[0].kind
                      in (first[0].POSITIONAL_OR_KEYWORD, first[0].KEYWORD_ONLY) else "inputs")
    # tensor keyword arguments (attention_mask, padding_mask): named slots after those
    return calls.with_keywords(slots, calls.keyword_defaults(cls, slots.names))


# Form field types by argument name, where the default does not tell (None) or tells too
# little (3)
TYPES = {
    **dict.fromkeys(["kernel_size", "strides", "pool_size", "dilation_rate", "size", "cropping",
                     "output_padding", "output_size", "tile_grid_size", "axes", "shared_axes",
                     "attention_axes", "dims", "output_shape"], "ints"),
    **dict.fromkeys(["target_shape", "noise_shape"], "shape"),
    **dict.fromkeys(["seed", "num_tokens", "num_bins", "value_dim", "sliding_window", "salt",
                     "sequence_length", "lora_rank", "max_tokens", "output_sequence_length",
                     "frame_step", "fft_length"], "int"),
    **dict.fromkeys(["max_value", "lora_alpha", "logit_soft_cap", "max_freq", "fill_value",
                     "width_factor"], "float"),
    "layer": "layer", "backward_layer": "layer",
}


def type_of(name: str, default: Any) -> str:
    """The form field type of an argument, from its name and default."""
    if TYPES.get(name) == "ints" and default is not None and not _ints(default):
        return "any"  # nested, as Cropping2D's ((0, 0), (0, 0))
    if name in TYPES:
        return TYPES[name]
    if isinstance(default, bool):
        return "bool"
    if isinstance(default, int):
        return "int"
    if isinstance(default, float):
        return "float"
    if isinstance(default, str) and not name.endswith(("_initializer", "_regularizer",
                                                       "_constraint")):
        return "str"
    if _ints(default):
        return "ints"
    return "any"  # serialized Keras objects, arrays, mixed values: set from Python


def _ints(value: Any) -> bool:
    """An int or a flat tuple of ints, what a form's "3, 3" gives."""
    return type(value) is int or (isinstance(value, (tuple, list))
                                  and all(type(v) is int for v in value))


def plain(value: Any) -> Any:
    """A default or suggested value as JSON can hold it (tuples as lists, objects as repr)."""
    if isinstance(value, tuple):
        return [plain(v) for v in value]
    if value is None or isinstance(value, (bool, int, float, str, list, dict)):
        return value
    return repr(value)


def settle(layer) -> None:
    """An adapted preprocessing layer (Normalization) works from what its adapted variables
    give once finalized: weights set from outside need that step, as Keras's loading takes it."""
    if callable(getattr(layer, "adapt", None)) and callable(getattr(layer, "finalize_state", None)):
        layer.finalize_state()
