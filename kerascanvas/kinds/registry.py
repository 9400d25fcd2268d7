"""What the kernel user trusted, and Keras's own layer classes beyond keras.layers: plain records.

`kc.register` (custom.py) writes here through the functions below; the catalog's config checks
(a registered layer object inside a config) and custom.py's kinds read it. Keeping the records
apart from the kinds they make lets the catalog read them without importing custom.py.
"""

from __future__ import annotations

import functools
import inspect
import sys
import weakref
from typing import Any

from .layerkind import DENIED

_registered: dict[str, type] = {}  # drawing class name -> class, in registration order
_list_called: set[str] = {"CustomScaleLayer"}  # called on a list, `layer([a, b])`
_trusted: dict[str, Any] = {}  # drawing class name -> the one layer object trusted
# Keras's registered name -> a user Regularizer, Initializer or Constraint class or a function
# (an activation), which layer configs may then name
_held: dict[str, Any] = {}
_outputs: dict[str, int] = {}  # drawing class name -> output tensors per call, where not 1
_listeners: list = []  # weak references to callables told when what is offered changes
_version = 0  # bumped by every change (custom.py's kinds are cached per version)


def add_class(name: str, cls: type) -> None:
    _registered[name] = cls


def add_object(name: str, layer: Any) -> None:
    _trusted[name] = layer


def add_held(name: str, obj: Any) -> None:
    _held[name] = obj


def held() -> dict[str, Any]:
    """The objects layers may hold that the user trusted, by the name Keras serializes them with."""
    return dict(_held)


def held_named(module: Any, class_name: Any, registered_name: Any, config: Any) -> Any:
    """The trusted held object a serialized object in a layer config names, or None: a
    function as Keras writes it ("builtins", "function", its registered name as config) or a
    class by module (None for __main__, as Keras writes a notebook's) and registered name."""
    if module == "builtins" and class_name == "function":
        found = _held.get(config) if isinstance(config, str) else None
        return found if inspect.isfunction(found) else None
    for name, obj in _held.items():
        if inspect.isclass(obj) and obj.__name__ == class_name and registered_name in (
                name, None) and module in (obj.__module__, None if obj.__module__ == "__main__"
                                           else obj.__module__):
            return obj
    return None


def forget(name: str) -> None:
    _held.pop(name, None)
    _registered.pop(name, None)
    _trusted.pop(name, None)
    _outputs.pop(name, None)


def note(name: str, list_input: bool = False, outputs: int | None = None) -> None:
    """Record how a class's calls go (on a list; n output tensors), then tell the listeners."""
    if list_input:
        _list_called.add(name)
    if outputs is not None:
        _outputs[name] = outputs
    changed()


def called_on_a_list(name: str) -> None:
    """A class's calls take a list of tensors (seen in an imported model)."""
    if name not in _list_called:
        _list_called.add(name)
        changed()


def gives_outputs(name: str, n: int) -> None:
    """A class's calls return n tensors (seen in an imported model)."""
    if _outputs.get(name, 1) != n:
        _outputs[name] = n
        changed()


def is_list_called(name: str) -> bool:
    return name in _list_called


def outputs_of(name: str) -> int:
    return _outputs.get(name, 1)


def version() -> int:
    return _version


def registered() -> dict[str, type]:
    return dict(_registered)


def trusted() -> dict[str, Any]:
    """The layer objects the user trusted (Lambdas and objects kept as they are), by their
    drawing class names."""
    return dict(_trusted)


def trusted_name(layer) -> str | None:
    """The drawing class name of this very object, if the user trusted it."""
    return next((n for n, obj in _trusted.items() if obj is layer), None)


def offered() -> list[str]:
    """Registered classes and trusted objects, in registration order: the "custom" group."""
    return [*_registered, *_trusted]


def observe(callback) -> None:
    """Call `callback()` whenever registration changes what is offered (a canvas's palette).
    Held weakly (a bound method through WeakMethod): a closed canvas is not kept alive."""
    _listeners.append(weakref.WeakMethod(callback) if inspect.ismethod(callback)
                      else weakref.ref(callback))


def changed() -> None:
    global _version
    _version += 1
    for ref in list(_listeners):
        callback = ref()
        if callback is None:
            _listeners.remove(ref)
        else:
            callback()


def registered_objects() -> dict[str, type]:
    """Registered and Keras-own classes by drawing name, for Keras's custom_object_scope."""
    return {**keras_own(), **_registered, **_held}


def scope():
    """Keras's custom_object_scope of what the user trusted: a box's layer is made inside it,
    so a registered MyReg is found by from_config without being put in Keras's global custom
    objects (where any load_model in the session would then find it)."""
    import keras

    return keras.saving.custom_object_scope(registered_objects())


@functools.cache
def keras_own() -> dict[str, type]:
    """Layer classes defined inside Keras (outside keras.layers, whose classes the catalog
    decides about) that Keras's own modules loaded: LayerScale, CustomScaleLayer, ... Names
    defined twice are left out (a name must say which class it means)."""
    import keras

    found: dict[str, list[type]] = {}
    for module_name, module in list(sys.modules.items()):
        if (not module_name.startswith("keras.src.") or module_name.startswith("keras.src.layers.")
                or module is None):
            continue
        for value in list(vars(module).values()):
            if (inspect.isclass(value) and value.__module__ == module_name
                    and issubclass(value, keras.layers.Layer) and not issubclass(value, keras.Model)
                    and value.__name__ not in DENIED):
                found.setdefault(value.__name__, []).append(value)
    return {name: classes[0] for name, classes in found.items() if len(classes) == 1}


def is_keras_own(cls: type) -> bool:
    return keras_own().get(cls.__name__) is cls


def class_name_of(cls: type) -> str | None:
    """The drawing class name of a Keras-own or registered class, or None."""
    if is_keras_own(cls):
        return cls.__name__
    return next((n for n, c in _registered.items() if c is cls), None)


def drawing_name(layer) -> str | None:
    """The drawing class name of a layer object: a trusted object's, else its class's."""
    return trusted_name(layer) or class_name_of(type(layer))


def name_of(module: Any, class_name: Any) -> str | None:
    """The drawing name of the registered class that `module`.`class_name` is, or None: two classes
    of one name from different modules (keras.io's TransformerEncoder and KerasHub's) are
    registered under different names, and a model config names a class by module and name."""
    for name, cls in _registered.items():
        if cls.__name__ == class_name and cls.__module__ == module:
            return name
    return None
