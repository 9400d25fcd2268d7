"""Bounded resources: every cap on what an edit, a browser intent or a file may make the kernel
allocate, in one place.

A browser intent and a file are untrusted; a Python call goes through the same checks, so a
notebook user who means it raises a cap explicitly, for a while or for the session:

    with kc.limits.allow(layer_params=2_000_000_000):
        g.add_layer("Dense", units=500_000)          # 2e9 parameters: allowed inside the block
    kc.limits.LAYER_PARAMS = 2_000_000_000          # or from now on

Each refusal names the number it found and the cap it broke, and changes nothing.
Parameters are counted from the shapes of a layer's variables before any of them holds memory
(they are created in a `keras.StatelessScope` that defers their values, see `counted`).
"""

from __future__ import annotations

import contextlib
import functools
import math
import sys
from collections.abc import Iterator
from typing import Any

from .errors import LimitError

LAYER_PARAMS = 200_000_000
"""Parameters (scalars in a layer's variables) one layer may hold: 800 MB as float32. VGG16's
largest layer holds 103 million."""

TOTAL_PARAMS = 1_000_000_000
"""Parameters the whole drawing may hold (its live layers together)."""

ACTIVATION = 100_000_000
"""Elements of one output tensor per sample (None dimensions counted as 1): what one Input
or one layer output may hold. A (2**31,) Input is refused, a (1024, 1024, 3) image is fine."""

FORWARD_ELEMENTS = 50_000_000
"""Elements that the forward-pass view (`forward_steps`) may compute for its one sample,
every node's outputs together: it keeps them all to show them."""

FILE_BYTES = 4 << 30
"""Bytes a saved file may decompress to (all entries, weights included): a zip bomb stops
here, before anything is decompressed."""

FILE_ENTRIES = 64
"""Entries in a saved file's zip archive."""

WEIGHT_ARRAYS = 1_000_000
"""Arrays in a saved file's weights archive (one per variable of the drawing)."""

PENDING_WEIGHT_BYTES = 256 << 20
"""Bytes of weights a saved file may hold for boxes that are still pending (an input removed
after they were trained): they have no shapes to check the file against until called again."""

DOCUMENT_BYTES = 256 << 20
"""Bytes of a saved file's drawing (its JSON document), decompressed."""

CONSTANT_VALUES = 10_000
"""Numbers in one constant of an operation (the mean of `x - mean`; a list of lists counts
every number): what a config, a file's weights part and the code carry inline."""

CALLS = 10_000
"""Calls of one layer (shared uses): what a file may hold, and so what an edit may make."""

LIST_INPUTS = 1_000
"""Tensors one call of a merge layer (a list slot: Add, Concatenate) may take. Keras's
Concatenate compares its inputs' shapes pairwise when it builds: 8,000 inputs took 10 s."""

STATE_BYTES = 64 << 20
"""Bytes of one state push to the browser (the JSON of `Graph.state()`)."""

CONFIG_SHOWN_BYTES = 64 << 10
"""Bytes of one config value that the state shows; a longer one is elided in the state only
(the Graph keeps it whole)."""

HISTORY_BYTES = 512 << 20
"""Bytes the undo history may keep alive: old layer objects and weights, the configs and
positions only old steps hold (history.changes_bytes); beyond it the oldest steps are dropped,
with a warning."""

# ----- training insights (insights.py) --------------------------------------------------------

INSIGHT_BYTES = 32 << 20
"""Bytes of training insight records a drawing keeps (as JSON): beyond it older records are
thinned (every second one dropped, the latest kept), with a warning; a file holding more is
refused."""

INSIGHT_MEMORY = 256 << 20
"""Bytes of memory the training insight records of a drawing may take, estimated as
INSIGHT_VALUE_BYTES per value of their JSON (`json_values`): beyond it older records are thinned
as at INSIGHT_BYTES; a file holding more is refused before its JSON is parsed. JSON bytes alone
say little: 32 MiB of minimal records (96 KiB zipped) took 560 MB."""

INSIGHT_VALUE_BYTES = 128
"""Memory one value of insight records' JSON (a number, string, list or object, keys included)
takes at most while it is parsed and checked: the Python object, its place in its container and
the checked record's copy. Measured: 48 bytes for recorded records, up to 105 for minimal ones
(an empty dict parsed, a full one checked). Strings take their length besides (at most the JSON's
bytes: INSIGHT_BYTES)."""

_NAMES = {"layer_params": "LAYER_PARAMS", "total_params": "TOTAL_PARAMS",
          "activation": "ACTIVATION", "forward_elements": "FORWARD_ELEMENTS",
          "file_bytes": "FILE_BYTES", "file_entries": "FILE_ENTRIES",
          "state_bytes": "STATE_BYTES", "history_bytes": "HISTORY_BYTES",
          "config_shown_bytes": "CONFIG_SHOWN_BYTES", "weight_arrays": "WEIGHT_ARRAYS",
          "document_bytes": "DOCUMENT_BYTES", "calls": "CALLS", "list_inputs": "LIST_INPUTS",
          "pending_weight_bytes": "PENDING_WEIGHT_BYTES", "insight_bytes": "INSIGHT_BYTES",
          "insight_memory": "INSIGHT_MEMORY"}




@contextlib.contextmanager
def allow(**caps: int) -> Iterator[None]:
    """Raise (or lower) caps inside a `with` block, e.g. allow(layer_params=10**9)."""
    unknown = sorted(set(caps) - set(_NAMES))
    if unknown:
        raise TypeError(f"allow() takes {sorted(_NAMES)}, not {unknown}.")
    for key, value in caps.items():
        if not isinstance(value, int) or isinstance(value, bool) or value < 0:
            raise TypeError(f"allow({key}=...) takes a whole number >= 0, got {value!r}.")
    saved = {key: globals()[_NAMES[key]] for key in caps}
    globals().update({_NAMES[k]: v for k, v in caps.items()})
    try:
        yield
    finally:
        globals().update({_NAMES[k]: v for k, v in saved.items()})


def _cap_note(key: str) -> str:
    return (f"(raise it from Python with kerascanvas.limits.allow({key}=...) if you mean it)")


def _over(key: str, claim: str, per: str = "", layer: str | None = None) -> LimitError:
    """The error for a value over the cap `key`: "<claim>; the cap is <cap> <per>(raise it ...)."."""
    return LimitError(f"{claim}; the cap is {globals()[_NAMES[key]]:,} {per}{_cap_note(key)}.",
                      layer=layer)


# ----- parameters ------------------------------------------------------------------------------

def params_of(obj: Any) -> int:
    """Scalars in an object's variables, from their shapes (no value is read). Asked once per
    layer made (the network keeps the total as layers come and go)."""
    return sum(map(scalars, getattr(obj, "weights", ())))


def check_layer_params(name: str, count: int) -> None:
    if count > LAYER_PARAMS:
        raise _over("layer_params", f"{name} would hold {count:,} parameters", "per layer ",
                    layer=name)


def check_total_params(count: int) -> None:
    if count > TOTAL_PARAMS:
        raise _over("total_params", f"The drawing would hold {count:,} parameters")


class counted:
    """Variables created inside the block (a layer's first call, a model's constructor) are only
    shapes until their count is checked against LAYER_PARAMS; then they get their values.

    A class, not a generator: every structural edit enters one or two of these."""

    _KEY = "uninitialized_variables"

    def __init__(self, name: str):
        self.name = name

    def __enter__(self) -> None:
        global_state, stateless_scope = _keras_scopes()
        self._state = global_state
        self._before = global_state.get_global_attribute(self._KEY)
        global_state.set_global_attribute(self._KEY, [])
        self._scope = stateless_scope(initialize_variables=False)
        try:
            self._scope.__enter__()
        except BaseException:
            global_state.set_global_attribute(self._KEY, self._before)
            raise

    def __exit__(self, kind, error, trace) -> bool:
        state, scope = self._state, self._scope
        try:
            if scope.__exit__(kind, error, trace) or kind is not None:
                return False
            created = state.get_global_attribute(self._KEY) or []
            if created:
                check_layer_params(self.name, sum(map(scalars, created)))
            for v in created:  # now they may hold memory
                v._deferred_initialize()
                assigned = scope.get_current_value(v)  # a build that assigned a value
                if assigned is not None:
                    v.assign(assigned)
            return False
        finally:
            state.set_global_attribute(self._KEY, self._before)


def scalars(variable: Any) -> int:
    """Scalars in a variable, from its shape. A Keras variable's own shape tuple is read: under
    TensorFlow `.shape` builds a TensorShape of Dimension objects each time (every edit that
    calls a layer counts its variables twice)."""
    keras_variable = _keras_variable()
    if isinstance(variable, keras_variable):
        return math.prod(keras_variable.shape.fget(variable))
    return math.prod(variable.shape)


@functools.cache
def _keras_variable() -> type:
    from keras.src.backend.common.variables import Variable

    return Variable


@functools.cache
def _keras_scopes() -> tuple:
    """Keras's global state and StatelessScope, imported once (this module imports no keras
    at its top: the drawing, which imports it, stays pure Python)."""
    import keras
    from keras.src.backend.common import global_state

    return global_state, keras.StatelessScope


@contextlib.contextmanager
def shapes_only(name: str) -> Iterator[None]:
    """A probe: layers made and called inside the block get variables that are shapes only and
    never values (they are thrown away after); over LAYER_PARAMS the block raises LimitError,
    counted before anything was allocated. What `accepts` uses to ask Keras "would this call
    work?" without building a real layer."""
    import keras
    from keras.src.backend.common import global_state

    key = "uninitialized_variables"
    before = list(global_state.get_global_attribute(key) or [])
    global_state.set_global_attribute(key, [])
    try:
        with keras.StatelessScope(initialize_variables=False):
            yield
        created = global_state.get_global_attribute(key) or []
        check_layer_params(name, sum(map(scalars, created)))
    finally:
        global_state.set_global_attribute(key, before)


# ----- activations -----------------------------------------------------------------------------

def per_sample(shape: Any) -> int:
    """Elements of one sample of a tensor shape (batch axis dropped, None counted as 1)."""
    size = 1
    for d in tuple(shape)[1:]:  # (a loop: every call's outputs are weighed)
        if d is not None:
            size *= int(d)
    return size


def check_activation(where: str, shape: Any, layer: str | None = None) -> None:
    size = per_sample(shape)
    if size > ACTIVATION:
        raise _over("activation", f"{where} would make tensors of shape {tuple(shape)}: "
                    f"{size:,} elements per sample", layer=layer)


def check_forward(model: Any) -> None:
    """The forward-pass view computes and keeps every node's outputs for one sample."""
    total = 0
    for nodes in model._nodes_by_depth.values():
        for node in nodes:
            total += sum(per_sample(t.shape) for t in node.output_tensors)
    if total > FORWARD_ELEMENTS:
        raise _over("forward_elements",
                    f"The forward pass of one sample would compute {total:,} elements")


# ----- files -------------------------------------------------------------------------------------

def check_entries(fp: Any, where: str, cap_name: str = "file_entries") -> None:
    """A zip archive's entry count, from its end record, before its directory is parsed (a
    directory of millions of entries takes gigabytes as ZipInfo objects)."""
    import zipfile

    cap = globals()[_NAMES[cap_name]]
    record = zipfile._EndRecData(fp)  # the count is in the end record (zip64 included)
    entries = record[4] if record else 0  # _ECD_ENTRIES_TOTAL
    if entries > cap:
        raise _over(cap_name, f"{where} holds {entries:,} entries")


def check_archive(infos: list, where: str) -> None:
    """A zip archive's entries, read from its directory before anything is decompressed."""
    size = sum(i.file_size for i in infos)
    if size > FILE_BYTES:
        raise _over("file_bytes", f"{where} decompresses to {size:,} bytes")


def check_document(size: int, where: str) -> None:
    if size > DOCUMENT_BYTES:
        raise _over("document_bytes", f"{where}'s drawing decompresses to {size:,} bytes")


def check_array(header_shape: tuple, dtype: Any, stored: int, where: str) -> None:
    """An array of a weights file: its header's shape must fit the bytes stored for it, so a
    header that claims more is refused before numpy allocates it."""
    size = math.prod(header_shape) * dtype.itemsize
    if size > stored:
        raise LimitError(f"{where} claims {size:,} bytes of values in {stored:,} stored bytes.")


def check_inflated(where: str, entry: str, size: int, budget: int) -> None:
    """An entry of a weights archive, by the size its header says it inflates to (zipfile
    inflates no further): at most what the weight it is for takes."""
    if size > budget:
        raise LimitError(f"{where}: {entry!r} inflates to {size:,} bytes, but the weight it is "
                         f"for takes {budget:,} bytes: refused unread.")


def check_pending(where: str, size: int) -> None:
    """Weights held for pending boxes, entry by entry as their sizes add up."""
    if size > PENDING_WEIGHT_BYTES:
        raise _over("pending_weight_bytes",
                    f"{where}'s weights for pending boxes inflate to {size:,} bytes")


def json_values(text: bytes | str) -> int:
    """How many values (keys included) a JSON text holds at most, counted without parsing it:
    every value but the first follows a ',' or ':' or opens a list or object (one of these in a
    string counts too: an upper bound)."""
    marks = (",", ":", "[", "{") if isinstance(text, str) else (b",", b":", b"[", b"{")
    return 1 + sum(text.count(m) for m in marks)


def check_insights(text: bytes | str, where: str) -> None:
    """A file's insight records, by their bytes and the memory they would take, before they
    are parsed."""
    if len(text) > INSIGHT_BYTES:
        raise _over("insight_bytes", f"{where}'s training insights are {len(text):,} bytes of "
                    "JSON")
    size = json_values(text) * INSIGHT_VALUE_BYTES
    if size > INSIGHT_MEMORY:
        raise _over("insight_memory", f"{where}'s training insights would take about {size:,} "
                    f"bytes of memory ({INSIGHT_VALUE_BYTES} per JSON value)")


def check_list_inputs(name: str, call: int, count: int) -> None:
    if count > LIST_INPUTS:
        raise _over("list_inputs", f"{name} call {call} would take {count:,} tensors",
                    "per call ", layer=name)


def check_calls(name: str, calls: int) -> None:
    if calls > CALLS:
        raise _over("calls", f"{name} would have {calls:,} calls", layer=name)


# ----- state and history ---------------------------------------------------------------------

def check_state(size: int) -> None:
    if size > STATE_BYTES:
        raise _over("state_bytes", f"The drawing's state would be {size:,} bytes to send to the "
                    "browser", "per push ")


def held_bytes(value: Any, seen: set | None = None) -> int:
    """Bytes of weights a journal value keeps alive: arrays, layers' variables, and the lists,
    tuples and dicts that hold them (a rough count: what matters is the big arrays)."""
    seen = set() if seen is None else seen
    if id(value) in seen:
        return 0
    seen.add(id(value))
    nbytes = getattr(value, "nbytes", None)
    if isinstance(nbytes, int):
        return nbytes
    if hasattr(value, "weights") and hasattr(value, "get_config"):  # a layer or a model
        total = 0
        for v in value.weights:
            if id(v) not in seen:
                seen.add(id(v))
                total += math.prod(v.shape) * itemsize(v.dtype)
        return total
    if isinstance(value, dict):
        return sum(held_bytes(v, seen) for v in value.values())
    if isinstance(value, (list, tuple)):
        return sum(held_bytes(v, seen) for v in value)
    return 0


STEP_BYTES = 2_048
"""What one undo step holds besides its changes, configs and weights: the step, its journal and
their small containers (measured: about 1.3 KB)."""


def config_bytes(value: Any, depth: int = 0) -> int:
    """Bytes of a config (dicts, lists, strings, numbers at any depth): a rough count, on the
    high side."""
    size = sys.getsizeof(value)
    if depth > 50:
        return size
    if isinstance(value, dict):
        return size + sum(config_bytes(k, depth + 1) + config_bytes(v, depth + 1)
                          for k, v in value.items())
    if isinstance(value, (list, tuple)):
        return size + sum(config_bytes(v, depth + 1) for v in value)
    return size


def config_bytes_beyond(old: Any, new: Any, depth: int = 0) -> int:
    """Bytes of config `old` that config `new` does not share (the same objects): what an undo
    step alone keeps of a config it replaced. An edit that copies only the path it changes (a
    nested model's trainable flag) then weighs a few bytes, without walking the whole config."""
    if old is new:
        return 0
    if depth > 50:
        return sys.getsizeof(old)
    if isinstance(old, dict) and isinstance(new, dict):
        return sys.getsizeof(old) + sum(
            config_bytes_beyond(v, new[k], depth + 1) if k in new
            else config_bytes(k, depth + 1) + config_bytes(v, depth + 1)
            for k, v in old.items())
    if isinstance(old, (list, tuple)) and isinstance(new, (list, tuple)) and len(old) == len(new):
        return sys.getsizeof(old) + sum(config_bytes_beyond(a, b, depth + 1)
                                        for a, b in zip(old, new))
    return config_bytes(old, depth)


def itemsize(dtype: Any) -> int:
    digits = "".join(c for c in str(dtype) if c.isdigit())
    return max(1, int(digits) // 8) if digits else 4
