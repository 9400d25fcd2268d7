"""Layer kinds by class name: the catalog's, keras.ops operations (by their keras.ops name),
registered and Keras-own layer classes (custom.py), plus models nested as layers (which come by
import only, never from the palette); and the palette, which gathers the offered ones.

The top of the kinds: every kind offers layerkind.Kind, and the modules that make them
(catalog, custom, ops, nested) do not import this one.
"""

from __future__ import annotations

import functools

from ..errors import UnknownLayerError
from . import catalog, custom, nested, ops
from .layerkind import plain

NESTED_MODEL_CLASSES = ("Functional", "Sequential")


def get(class_name: str, new: bool = False):
    """The kind (slots, n_outputs, create) for a class name found in a drawing. new=True: for
    a new box, which a class unregistered since (custom.retired) may no longer make."""
    if class_name in NESTED_MODEL_CLASSES:
        return nested.kind(class_name)
    try:
        return nested.wrapper(catalog.get(class_name))  # TimeDistributed may wrap a model
    except UnknownLayerError as e:
        found = ops.get(class_name) or custom.get(class_name)
        if found is None and not new:
            found = custom.retired(class_name)
        if found is None:
            if class_name == "Lambda":  # the class is never trusted; one object may be
                raise UnknownLayerError(LAMBDA_REFUSED) from e
            if isinstance(class_name, str) and class_name in catalog.DENIED:
                raise
            raise UnknownLayerError(custom.not_registered(class_name)) from e
        return found


LAMBDA_REFUSED = ("'Lambda' is not a layer the canvas offers: it runs whatever function it holds, "
                  "which a file or the browser cannot bring in. Trust one Lambda layer object "
                  "from Python with "
                  "kc.register(model.get_layer(name)), then its box's kind (Lambda_<name>) loads.")


def offered(class_name) -> bool:
    """Whether the browser may add a box of this class: a catalog layer, an allow-listed
    keras.ops function or a class the kernel user registered (never Keras-internal by name)."""
    return isinstance(class_name, str) and (class_name in catalog.names() or class_name in
                                            ops.names() or class_name in custom.offered())


def config_of(kind, layer, given) -> dict:
    """The config of a box made from `given`: the object's get_config(), and for an operation
    the constants its calls take as well (they are not part of the Operation's own config)."""
    made = getattr(kind, "config_of", None)
    return layer.get_config() if made is None else made(layer, given)


def palette() -> list[dict]:
    """The offered kinds for the front end (JSON-able): catalog layers by their Keras group, the
    allow-listed keras.ops functions (group "ops") and registered classes (group "custom")."""
    return [*_fixed_palette(), *map(_entry, [custom.get(n) for n in custom.offered()])]


@functools.cache
def _fixed_palette() -> tuple[dict, ...]:
    """The catalog's and the ops' entries: they never change, and making them takes a third
    of a second (a canvas sends its palette again whenever a class is registered)."""
    return tuple(map(_entry, [catalog.get(n) for n in catalog.names()]
                     + [ops.get(n) for n in ops.names()]))


def _entry(k) -> dict:
    return {"class_name": k.class_name, "group": k.group,
            "slots": {"kind": k.slots.kind, "names": list(k.slots.names), "min": k.slots.min,
                      "max": k.slots.max},
            "schema": k.schema(),
            "suggested": {n: plain(v) for n, v in k.suggested_args().items()}}
