"""A fresh layer's config, read from Keras once per class, arguments and global settings.

Every box added reads its new layer's `get_config()` back (the drawing keeps what Keras made, not
what was asked). For a built-in layer that config depends only on the class, the arguments, the
name and Keras's global settings, and reading it is a tenth of what adding a Dense costs, so a
drawing of many alike layers reads each kind of config once and copies it after.

Not kept: configs holding a layer (a wrapper's inner layer gets a name of its own) or a seed
Keras drew (RandomCrop's); arguments that are not plain values (an initializer object).
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Mapping
from typing import Any

import keras

MAX_KEPT = 512  # kinds of config kept (least recently used go first)
NESTED_KEYS = ("layer", "backward_layer")

_kept: OrderedDict[tuple, tuple] = OrderedDict()  # a private copy of each config, with where its
# nested dicts and lists are (_plan): a fresh copy is then a few C-speed shallow copies


def read(class_name: str, layer: Any, given: Mapping[str, Any]) -> dict:
    """`layer.get_config()` for a layer just made as `class_name(**given)`: a copy of the one
    read for the same class, arguments and settings if there was one."""
    key = _key(class_name, given)
    if key is not None and key in _kept:
        _kept.move_to_end(key)
        config = _fresh(_kept[key])
        config["name"] = layer.name
        return config
    config = layer.get_config()
    if key is not None and _keepable(config, given):
        plan = _plan(copied(config))
        if plan is None:  # a value that is not plain data: not kept
            return config
        _kept[key] = plan
        if len(_kept) > MAX_KEPT:
            _kept.popitem(last=False)
    return config


def forget() -> None:
    _kept.clear()


def copied(value: Any) -> Any:
    """A copy of a config's dicts and lists at every depth (JSON-like values are shared)."""
    if type(value) in _ATOMS:
        return value
    if isinstance(value, dict):
        return {k: v if type(v) in _ATOMS else copied(v) for k, v in value.items()}
    if isinstance(value, list):  # (Keras's TrackedList too: copied as a list)
        return [copied(v) for v in value]
    if isinstance(value, tuple):
        return tuple(copied(v) for v in value)
    return value


_ATOMS = {str, int, float, bool, type(None)}


def _plan(value: dict | list) -> tuple | None:
    """(value, ((key or index, plan), ...) for each dict or list it holds): what `_fresh`
    copies; None where `value` holds anything but those, atoms and tuples of atoms."""
    nested = []
    for k, v in (value.items() if type(value) is dict else enumerate(value)):
        if type(v) in _ATOMS or (type(v) is tuple and all(type(x) in _ATOMS for x in v)):
            continue  # immutable: shared by every copy
        if type(v) is not dict and type(v) is not list:
            return None
        inner = _plan(v)
        if inner is None:
            return None
        nested.append((k, inner))
    return value, tuple(nested)


def _fresh(plan: tuple) -> Any:
    """A new copy of a planned config: its own dicts and lists at every depth."""
    value, nested = plan
    copy = value.copy()
    for k, inner in nested:
        copy[k] = _fresh(inner)
    return copy


def _keepable(config: Mapping, given: Mapping) -> bool:
    return (not any(config.get(k) is not None for k in NESTED_KEYS)
            and config.get("seed") == given.get("seed"))


def _settings() -> tuple:
    """The global settings a built-in layer's config may take a default from."""
    return (keras.config.backend(), keras.config.floatx(), keras.config.dtype_policy().name,
            keras.config.image_data_format(), keras.config.epsilon())


def _key(class_name: str, given: Mapping[str, Any]) -> tuple | None:
    try:
        args = tuple(sorted([(k, (type(v).__name__, v) if type(v) in _ATOMS else _frozen(v))
                             for k, v in given.items() if k != "name"]))  # (most are atoms)
    except _NotPlain:
        return None
    return class_name, args, _settings()


class _NotPlain(Exception):
    pass


def _frozen(value: Any) -> tuple:
    """A hashable form that tells 1, 1.0 and True apart; _NotPlain for anything else."""
    if value is None or isinstance(value, (str, bool, int, float)):
        return type(value).__name__, value
    if isinstance(value, (list, tuple)):
        return type(value).__name__, tuple(_frozen(v) for v in value)
    if isinstance(value, dict) and all(isinstance(k, str) for k in value):
        return "dict", tuple(sorted((k, _frozen(v)) for k, v in value.items()))
    raise _NotPlain
