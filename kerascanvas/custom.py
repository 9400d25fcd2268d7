"""Layer classes beyond the catalog: Keras's own non-public layers and classes the user registered.

Trust (DESIGN.md, "Who may name a class"): a class name from the browser or a file never becomes an
import. Keras's own layers (`keras.src.applications.convnext.LayerScale`, ...) are found among the
Keras modules already loaded, because they are Keras's code; a user's class is usable only once the
kernel user hands the class object to `kc.register(MyLayer)` (or imports a model with
`trust_custom=True`, which registers the classes it meets). Both become catalog-like kinds
(`catalog.LayerKind`): slots from the call signature, a form from `__init__`, config checks.
"""

from __future__ import annotations

import functools
import inspect
import sys
from typing import Any

from .drawing import EditError

_registered: dict[str, type] = {}  # drawing class name -> class, in registration order
_list_called: set[str] = {"CustomScaleLayer"}  # called on a list, `layer([a, b])`


def register(cls: type, name: str | None = None, list_input: bool = False) -> str:
    """Make a user layer class usable in graphs: import, the palette's "custom" group, files.
    Returns the class name drawings use for it (the class's `__name__` unless `name` is given).
    list_input=True: the layer is called on a list of tensors, `layer([a, b])` (import finds
    that out by itself from the model's calls)."""
    import keras

    if not (inspect.isclass(cls) and issubclass(cls, keras.layers.Layer)):
        raise TypeError(f"kc.register takes a keras.layers.Layer subclass, got {cls!r:.80}.")
    if issubclass(cls, keras.Model):
        raise TypeError(f"{cls.__name__} is a model: models come in by import "
                        "(Graph.from_model), as nested Functional or Sequential models.")
    if issubclass(cls, keras.layers.Lambda):
        raise TypeError("Lambda runs whatever function it is given and cannot be registered; "
                        "write the function as a Layer subclass and register that.")
    name = cls.__name__ if name is None else name
    if not (isinstance(name, str) and name.isidentifier()):
        raise TypeError(f"A registered class name is an identifier, got {name!r:.80}.")
    taken = _taken_by(name)
    if taken is not None and taken is not cls:
        raise EditError(f"The name {name!r} is already used by {_where(taken)}: register "
                        f"{cls.__module__}.{cls.__qualname__} under another name "
                        f"(kc.register(cls, name=...)).")
    _registered[name] = cls
    if list_input:
        _list_called.add(name)
    _kind.cache_clear()
    return name


def called_on_a_list(name: str) -> None:
    """A class's calls take a list of tensors (seen in an imported model)."""
    if name not in _list_called:
        _list_called.add(name)
        _kind.cache_clear()


def unregister(name: str) -> None:
    """Forget a registered class (drawings that use it stop loading)."""
    _registered.pop(name, None)
    _kind.cache_clear()


def registered() -> dict[str, type]:
    return dict(_registered)


def registered_objects() -> dict[str, type]:
    """Registered and Keras-own classes by drawing name, for Keras's custom_object_scope."""
    return {**keras_own(), **_registered}


def _taken_by(name: str):
    from . import catalog, ops

    if name in _registered:
        return _registered[name]
    try:
        return catalog.get(name).cls
    except ValueError:
        pass
    if name in ops.names() or name in keras_own():
        return ops.get(name) if name in ops.names() else keras_own()[name]
    return None


def _where(thing: Any) -> str:
    return f"{getattr(thing, '__module__', '?')}.{getattr(thing, '__qualname__', thing)}"


@functools.cache
def keras_own() -> dict[str, type]:
    """Layer classes defined inside Keras (outside keras.layers, whose classes the catalog
    decides about) that Keras's own modules loaded: LayerScale, CustomScaleLayer, ... Names
    defined twice are left out (a name must say which class it means)."""
    import keras

    from . import catalog

    found: dict[str, list[type]] = {}
    for module_name, module in list(sys.modules.items()):
        if (not module_name.startswith("keras.src.") or module_name.startswith("keras.src.layers.")
                or module is None):
            continue
        for value in list(vars(module).values()):
            if (inspect.isclass(value) and value.__module__ == module_name
                    and issubclass(value, keras.layers.Layer) and not issubclass(value, keras.Model)
                    and value.__name__ not in catalog.DENIED):
                found.setdefault(value.__name__, []).append(value)
    return {name: classes[0] for name, classes in found.items() if len(classes) == 1}


def is_keras_own(cls: type) -> bool:
    return keras_own().get(cls.__name__) is cls


def class_name_of(cls: type) -> str | None:
    """The drawing class name of a Keras-own or registered class, or None."""
    if is_keras_own(cls):
        return cls.__name__
    return next((n for n, c in _registered.items() if c is cls), None)


def get(class_name: Any):
    """The kind of a registered or Keras-own class, or None."""
    if not isinstance(class_name, str):
        return None
    return _kind(class_name)


@functools.cache
def _kind(class_name: str):
    from . import catalog

    cls, group = _registered.get(class_name), "custom"
    if cls is None:
        cls, group = keras_own().get(class_name), "keras"
    if cls is None:
        return None
    slots = (catalog.Slots("list", (), 1, None) if class_name in _list_called
             else catalog._slots(class_name, cls))
    return catalog.LayerKind(class_name, group, slots, cls)


def not_registered(class_name: Any, module: Any = None) -> str:
    """Why a class name is refused, and how to make it usable."""
    where = f" (from {module!r:.80})" if isinstance(module, str) and module else ""
    return (f"{class_name!r:.80}{where} is not a layer the canvas offers and no class of that "
            f"name is registered: {HOW_TO_REGISTER}")


HOW_TO_REGISTER = ("register it from Python with kc.register(TheClass), or import the model with "
                   "Graph.from_model(model, trust_custom=True).")


def import_line(cls: type) -> tuple[str, str | None]:
    """How generated code names a class: (expression, import statement or None)."""
    module, name = cls.__module__, cls.__qualname__
    if module == "__main__" or "<" in name or "." in name:
        return cls.__name__, None  # defined in the notebook: the code runs beside it
    return cls.__name__, f"from {module} import {cls.__name__}"
