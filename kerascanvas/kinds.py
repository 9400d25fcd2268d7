"""Layer kinds by class name: the catalog's, keras.ops operations (by their keras.ops name),
registered and Keras-own layer classes (custom.py), plus models nested as layers (which come by
import only, never from the palette)."""

from __future__ import annotations

NESTED_MODEL_CLASSES = ("Functional", "Sequential")


def get(class_name: str, new: bool = False):
    """The kind (slots, n_outputs, create) for a class name found in a drawing. new=True: for
    a new box, which a class unregistered since (custom.retired) may no longer make."""
    if class_name in NESTED_MODEL_CLASSES:
        from . import nested

        return nested.kind(class_name)
    from . import catalog, custom, ops

    try:
        return catalog.get(class_name)
    except catalog.UnknownLayerError as e:
        found = ops.get(class_name) or custom.get(class_name)
        if found is None and not new:
            found = custom.retired(class_name)
        if found is None:
            if class_name == "Lambda":  # the class is never trusted; one object may be
                raise catalog.UnknownLayerError(LAMBDA_REFUSED) from e
            if isinstance(class_name, str) and class_name in catalog.DENIED:
                raise
            raise catalog.UnknownLayerError(custom.not_registered(class_name)) from e
        return found


LAMBDA_REFUSED = ("'Lambda' is not a layer the canvas offers: it runs whatever function it holds, "
                  "which a file or the browser cannot bring in. Trust one Lambda layer object "
                  "from Python with "
                  "kc.register(model.get_layer(name)), then its box's kind (Lambda_<name>) loads.")


def offered(class_name) -> bool:
    """Whether the browser may add a box of this class: a catalog layer, an allow-listed
    keras.ops function or a class the kernel user registered (never Keras-internal by name)."""
    from . import catalog, custom, ops

    return isinstance(class_name, str) and (class_name in catalog.names() or class_name in
                                            ops.names() or class_name in custom.offered())


def config_of(kind, layer, given) -> dict:
    """The config of a box made from `given`: the object's get_config(), and for an operation
    the constants its calls take as well (they are not part of the Operation's own config)."""
    made = getattr(kind, "config_of", None)
    return layer.get_config() if made is None else made(layer, given)
