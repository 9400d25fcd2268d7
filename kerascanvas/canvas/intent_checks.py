"""Checks of what the browser sends, beside the intents that read it (intent_handlers.py).

`intents.check` has checked every described field's type (intents.json) before a handler runs:
a "port" is a list [str, int, int], a "flag" a bool, a "number" an int or float, and so on. What
is left here is range, size and text: an index 0..9999, a name's length, finite numbers, a
config's size and depth, the training panel's choices and a call's settings. Each check returns
the value it checked, or raises IntentError naming what was wrong (nothing has changed yet)."""

from __future__ import annotations

import math
import re
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from ..drawing.drawing import MAX_NAME_LENGTH
from ..text import check_text
from ..training.choices import LOSSES, METRICS, OPTIMIZERS, STRATEGIES
from .intents import in_range

MAX_MESSAGE_ITEMS = 200  # names in one delete/duplicate; config keys in one configure
MAX_STRING = 10_000
MAX_CONFIG_VALUES = 5_000  # scalars in one config, all nesting levels together
INPUT_DTYPES = ("float32", "float16", "bfloat16", "int32", "int64", "bool")  # what an Input
# made or configured from the browser may hold (strings come from Python only)
MAX_SETTINGS_SENT = 16  # call settings in one configure_call
MAX_SETTING_NAME = 64
MAX_SETTING_TEXT = 200


class IntentError(ValueError):
    """A message from the browser that is malformed; answered as an error, changes nothing."""


# ----- names, indices, numbers ------------------------------------------------------------------

def layer_name(m: Mapping, key: str = "name") -> str:
    value = m.get(key)
    if not isinstance(value, str) or not 0 < len(value) <= MAX_NAME_LENGTH:
        raise IntentError(f"{key!r} must be a layer name (1 to {MAX_NAME_LENGTH} characters), got "
                          f"{value!r:.80}.")
    return check_text(value, f"{key!r}")


MAX_PATH_PARTS = 32  # nested models inside nested models, in a layer path "outer/inner/..."


def layer_path(m: Mapping, key: str = "name") -> str:
    """A layer name, or a path "outer/inner/..." to a layer inside a nested model: each part a
    layer name (Keras names cannot hold "/")."""
    value = m.get(key)
    limit = MAX_PATH_PARTS * (MAX_NAME_LENGTH + 1)
    if not isinstance(value, str) or not 0 < len(value) <= limit:
        raise IntentError(f"{key!r} must be a layer name or a path 'outer/inner' (1 to {limit} "
                          f"characters), got {value!r:.80}.")
    parts = value.split("/")
    if len(parts) > MAX_PATH_PARTS or not all(parts):
        raise IntentError(f"{key!r} must be layer names joined by '/' (at most {MAX_PATH_PARTS}), "
                          f"got {value!r:.80}.")
    for part in parts:
        layer_name({key: part}, key)
    return value


def optional_name(m: Mapping, key: str = "name") -> str | None:
    return None if m.get(key) is None else layer_name(m, key)


def names(m: Mapping) -> list[str]:
    value = m["names"]
    if not 0 < len(value) <= MAX_MESSAGE_ITEMS:
        raise IntentError(f"'names' must be a list of 1 to {MAX_MESSAGE_ITEMS} layer names.")
    return [layer_name({"names": v}, "names") for v in value]


def index(m: Mapping, key: str, optional: bool = False) -> int | None:
    value = m.get(key)
    if value is None and optional:
        return None
    if not isinstance(value, int) or isinstance(value, bool) or not 0 <= value < 10_000:
        raise IntentError(f"{key!r} must be an index 0..9999, got {value!r:.40}.")
    return value


def flag(m: Mapping, key: str) -> bool:
    value = m.get(key)
    if not isinstance(value, bool):
        raise IntentError(f"{key!r} must be true or false, got {value!r:.40}.")
    return value


def number(m: Mapping, key: str) -> float:
    value = m.get(key)
    if not in_range(value) or not math.isfinite(value):
        raise IntentError(f"{key!r} must be a finite number, got {value!r:.40}.")
    return float(value)


def port(m: Mapping, key: str) -> tuple[str, int, int]:
    """A port [layer, node_index, tensor_index]."""
    d = dict(zip(("layer", "node_index", "tensor_index"), m[key], strict=True))
    return (layer_name(d, "layer"), index(d, "node_index"), index(d, "tensor_index"))


def slot(m: Mapping, key: str, optional_slot: bool = False) -> tuple[str, int, int | None]:
    """A slot [layer, call, slot]; the slot may be null (the next free one) if `optional_slot`."""
    d = dict(zip(("layer", "call", "slot"), m[key], strict=True))
    return (layer_name(d, "layer"), index(d, "call"), index(d, "slot", optional=optional_slot))


# ----- configs, shapes, dtypes ------------------------------------------------------------------

def config(m: Mapping) -> dict:
    """A layer's config: identifiers mapped to JSON values of bounded size, depth and count."""
    value = m.get("config", {})
    if len(value) > MAX_MESSAGE_ITEMS:
        raise IntentError("'config' must be an object of at most 200 keys.")
    budget = [MAX_CONFIG_VALUES]
    return {_key(k): _json_value(v, 0, budget) for k, v in value.items()}


def _json_value(value: Any, depth: int, budget: list[int]) -> Any:
    budget[0] -= 1
    if budget[0] < 0:
        raise IntentError(f"A config may hold at most {MAX_CONFIG_VALUES} values.")
    if depth > 6:
        raise IntentError("A config value is nested too deeply.")
    if isinstance(value, int) and not in_range(value):
        raise IntentError(f"A config value is out of range: a number of {len(str(abs(value)))} "
                          "digits.")
    if value is None or isinstance(value, (bool, int)):
        return value
    if isinstance(value, float):
        if not math.isfinite(value):
            raise IntentError(f"A config value must be finite, got {value!r}.")
        return value
    if isinstance(value, str):
        if len(value) > MAX_STRING:
            raise IntentError("A config string is too long.")
        return check_text(value, "A config string", allow_whitespace=True)
    if isinstance(value, list) and len(value) <= MAX_MESSAGE_ITEMS:
        return [_json_value(v, depth + 1, budget) for v in value]
    if isinstance(value, dict) and len(value) <= MAX_MESSAGE_ITEMS:
        return {_key(k): _json_value(v, depth + 1, budget) for k, v in value.items()}
    raise IntentError(f"Unsupported config value {value!r:.80}.")


def _key(k: Any) -> str:
    if not isinstance(k, str) or not k.isidentifier() or len(k) > 64:
        raise IntentError(f"A config key must be an identifier, got {k!r:.40}.")
    return k


def shape(m: Mapping) -> list:
    value = m.get("shape")
    if not isinstance(value, list) or len(value) > 8 or not all(
            v is None or (isinstance(v, int) and not isinstance(v, bool) and 0 < v <= 2**31)
            for v in value):
        raise IntentError(f"'shape' must be a list of up to 8 positive sizes or null, got {value!r:.80}.")
    return value


def input_dtype(dtype: Any) -> str:
    if not isinstance(dtype, str) or dtype not in INPUT_DTYPES:
        raise IntentError(f"'dtype' must be one of {', '.join(INPUT_DTYPES)}, got {dtype!r:.40}.")
    return dtype


# ----- where boxes land -------------------------------------------------------------------------

def view(m: Mapping) -> tuple[float, float, float, float] | None:
    """The world rectangle the browser shows ([x, y, w, h]), where new boxes should land."""
    value = m.get("view")
    if value is None:
        return None
    keys = ("x", "y", "width", "height")
    x, y, w, h = (number(dict(zip(keys, value)), k) for k in keys)
    if w <= 0 or h <= 0:
        raise IntentError("'view' must have a positive width and height.")
    return (x, y, w, h)


def drop_point(m: Mapping) -> tuple[float, float] | None:
    """Where the browser dropped a box ("x", "y"), or None when it did not say."""
    if m.get("x") is not None and m.get("y") is not None:
        return (number(m, "x"), number(m, "y"))
    return None


# ----- the state request, the training panel, a call's settings ---------------------------------

def state_request(m: Mapping) -> None:
    """{"kind": "state", "id": ..., "have": revision or null}: nothing else is accepted."""
    extra = set(m) - {"kind", "id", "have"}
    if extra:
        raise IntentError(f"A state request takes 'have' only, got {sorted(extra)!r:.80}.")
    have = m.get("have")
    if have is not None and have < 0:
        raise IntentError(f"'have' must be a revision (an int >= 0) or null, got {have!r:.40}.")


def panel_options(message: Mapping) -> dict[str, Any]:
    """Keyword arguments for `Trainer.fit` from an untrusted panel message: each field checked
    for type and range, names only from `training_choices.choices()`. Missing fields take fit's
    defaults."""
    options: dict[str, Any] = {}

    def whole_or_real(key, low, high, whole):
        value = message[key]
        ok = isinstance(value, int if whole else (int, float)) and not isinstance(value, bool)
        if not ok or not in_range(value) or not math.isfinite(value) or not low <= value <= high:
            kind = "a whole number" if whole else "a number"
            raise IntentError(f"{key!r} must be {kind} in [{low}, {high}], got {value!r:.40}.")
        return value

    def choice(key, allowed, value=None):
        value = message[key] if value is None else value
        if not isinstance(value, str) or value not in allowed:
            raise IntentError(f"{key!r} must be one of {list(allowed)}, got {value!r:.80}.")
        return value

    if "optimizer" in message:
        options["optimizer"] = choice("optimizer", OPTIMIZERS)
    if message.get("learning_rate") is not None:
        options["learning_rate"] = float(whole_or_real("learning_rate", 1e-9, 10.0, False))
    if "loss" in message:
        loss = choice("loss", LOSSES)
        options["loss"] = None if loss == "auto" else loss
    if "metrics" in message:
        metrics = message["metrics"]
        if not isinstance(metrics, list) or len(metrics) > len(METRICS):
            raise IntentError(f"'metrics' must be a list of names, got {metrics!r:.80}.")
        options["metrics"] = [choice("metrics", METRICS, m) for m in metrics]
    if "epochs" in message:
        options["epochs"] = whole_or_real("epochs", 1, 100_000, True)
    if "batch_size" in message:
        options["batch_size"] = whole_or_real("batch_size", 1, 1 << 20, True)
    if "strategy" in message:
        options["strategy"] = choice("strategy", STRATEGIES)
    if "validation_split" in message:
        options["validation_split"] = float(whole_or_real("validation_split", 0.0, 0.95, False))
    return options


def call_settings(settings: Mapping) -> dict[str, Any]:
    """A call's settings (training=, use_causal_mask=, ...) edited in the inspector: 1..16
    identifiers mapped to bool, int, finite float, short text or null (null takes a setting
    away)."""
    if not 0 < len(settings) <= MAX_SETTINGS_SENT:
        raise IntentError(f"'settings' must name 1 to {MAX_SETTINGS_SENT} call settings, got "
                          f"{len(settings)}.")
    return {_setting_name(k): _setting_value(k, v) for k, v in settings.items()}


def _setting_name(name: Any) -> str:
    if not (isinstance(name, str) and name.isidentifier() and len(name) <= MAX_SETTING_NAME):
        raise IntentError(f"A call setting is named by an identifier (at most "
                          f"{MAX_SETTING_NAME} characters), got {name!r:.60}.")
    return name


def _setting_value(name: str, value: Any) -> Any:
    if not in_range(value):
        raise IntentError(f"Call setting {name}= is out of range: a number of "
                          f"{len(str(abs(value)))} digits.")
    if value is None or isinstance(value, bool) or isinstance(value, int) and in_range(value):
        return value
    if isinstance(value, float) and math.isfinite(value):
        return value
    if isinstance(value, str) and len(value) <= MAX_SETTING_TEXT:
        return check_text(value, f"Call setting {name}=")
    raise IntentError(f"Call setting {name}= must be true/false, a number, text (at most "
                      f"{MAX_SETTING_TEXT} characters) or null, got {value!r:.60}.")


# A file the browser names (Save as..., Load...): a bare name in the kernel's working folder
# (the notebook's), with the drawing's suffix: the browser is untrusted, so it can neither
# reach another folder, nor a dot file, nor a file of another kind.
FILE_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9 _.()-]{0,99}")
FILE_SUFFIXES = (".kc", ".kcanvas")


def file_name(m: Mapping, existing: bool, own: str = "") -> str | None:
    """The file an intent's "name" says, or None when it names none. existing=True (Load):
    the file must be there; False (Save as): it must not be, unless it is the canvas's own
    (`own`), so the browser never writes over a file it did not make."""
    value = m.get("name")
    if value is None:
        return None
    if not isinstance(value, str) or not FILE_NAME.fullmatch(value):
        raise IntentError(f"A file name is letters, digits, spaces and _ . ( ) - (up to 100, "
                          f"no folders), got {value!r:.80}.")
    if not value.endswith(FILE_SUFFIXES):
        value += FILE_SUFFIXES[0]
    there = Path(value).is_file()
    if existing and not there:
        raise IntentError(f"There is no {value!r} in the notebook's folder.")
    if not existing and there and not (own and Path(value).resolve() == Path(own).resolve()):
        raise IntentError(f"{value!r} is already in the notebook's folder: choose another "
                          "name, or Load it.")
    return value

