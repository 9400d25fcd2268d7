"""Layer classes beyond the catalog: Keras's own non-public layers and classes the user registered.

Trust (DESIGN.md, "Who may name a class"): a class name from the browser or a file never becomes an
import. Keras's own layers (`keras.src.applications.convnext.LayerScale`, ...) are found among the
Keras modules already loaded, because they are Keras's code; a user's class is usable only once the
kernel user hands the class object to `kc.register(MyLayer)` (or imports a model with
`trust_custom=True`, which registers the classes it meets). Both become catalog-like kinds
(`catalog.LayerKind`): slots from the call signature, a form from `__init__`, config checks.

A Lambda runs whatever function it holds, so its class is never trusted: only one Lambda layer
object the user hands to `kc.register(layer)`. Its box's config holds no code (name, trainable,
dtype); the function comes from that object, so a file or the browser can name the box's kind
but never bring a function in. Layers whose call returns several tensors get one port per
tensor (`keras.tree.flatten` order): import counts them, `kc.register(cls, outputs=n)` says so.

Why it is long: registering, trusting under a free name, keeping objects and making their kinds
read and write the same records in one order; split, each part would reach into the others.
"""

from __future__ import annotations

import contextlib
import copy
import functools
import inspect
import re
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass
from typing import Any

from ..errors import EditError
from . import calls, catalog, ops, registry
from .catalog import LayerKind
from .layerkind import Slots, slots_of
from .probe import behaves_the_same

# What the records hold, read through registry.py (re-exported: kc users and modules ask here)
from .registry import (  # noqa: F401
    called_on_a_list,
    class_name_of,
    drawing_name,
    gives_outputs,
    held,
    held_named,
    is_keras_own,
    keras_own,
    name_of,
    observe,
    offered,
    registered,
    registered_objects,
    scope,
    trusted,
    trusted_name,
)

_retired: dict[str, Any] = {}  # unregistered name -> its kind, for the boxes still drawn


def register(cls: Any, name: str | None = None, list_input: bool = False,
             outputs: int | None = None) -> str:
    """Make a user layer class usable in graphs: import, the palette's "custom" group, files.
    Returns the class name drawings use for it (the class's `__name__` unless `name` is given).
    list_input=True: the layer is called on a list of tensors, `layer([a, b])` (import finds
    that out by itself from the model's calls). outputs=n: its call returns n tensors (a tuple,
    list or dict: one port each, in keras.tree.flatten order; import counts them itself).

    `register(model.get_layer("scale"))`, given a Lambda layer *object*, trusts that very
    object: a model holding it imports (its box is named "Lambda_scale" unless `name` says),
    while any other Lambda stays refused.

    A Regularizer, Initializer or Constraint subclass (or an instance: its class), or a plain
    function (an activation), is what layers may hold: `Dense(kernel_regularizer=MyReg())` then imports, loads and
    exports. It is recorded under the name Keras serializes it with (returned)."""
    import keras

    if outputs is not None and not (type(outputs) is int and 1 <= outputs <= 1000):
        raise TypeError(f"outputs is a number of tensors (1 to 1000), got {outputs!r:.40}.")
    if is_held_kind(cls):
        return _register_held(cls, name)
    if is_held_kind(type(cls)) and not inspect.isfunction(cls):  # an instance: MyReg(0.05)
        return _register_held(type(cls), name)  # (a config names its class, with its values)
    if isinstance(cls, keras.layers.Lambda):
        return _trust_lambda(cls, name, list_input, outputs)
    if isinstance(cls, keras.layers.Layer) and not isinstance(cls, keras.Model):
        return keep_object(cls, name, list_input, outputs)
    if not (inspect.isclass(cls) and issubclass(cls, keras.layers.Layer)):
        raise TypeError(f"kc.register takes a keras.layers.Layer subclass, a Regularizer, "
                        f"Initializer or Constraint subclass or a function, got {cls!r:.80}.")
    if issubclass(cls, keras.Model):
        raise TypeError(f"{cls.__name__} is a model: models come in by import "
                        "(Graph.from_model), as nested Functional or Sequential models.")
    if issubclass(cls, keras.layers.Lambda):
        raise TypeError("Lambda runs whatever function it is given and cannot be registered as "
                        "a class; register one Lambda layer object instead "
                        "(kc.register(model.get_layer(name))), or write the function as a Layer "
                        "subclass and register that.")
    name = cls.__name__ if name is None else name
    if not (isinstance(name, str) and name.isidentifier()):
        raise TypeError(f"A registered class name is an identifier, got {name!r:.80}.")
    taken = _taken_by(name)
    if taken is not None and taken is not cls:
        raise EditError(f"The name {name!r} is already used by {_where(taken)}: register "
                        f"{cls.__module__}.{cls.__qualname__} under another name "
                        f"(kc.register(cls, name=...)).")
    registry.add_class(name, cls)
    _retired.pop(name, None)
    registry.note(name, list_input, outputs)
    return name


def is_held_kind(obj: Any) -> bool:
    """A class or function layers hold as a setting: a Regularizer, Initializer or Constraint
    subclass, or a plain function (a custom activation)."""
    import keras

    if inspect.isfunction(obj):
        return True
    return inspect.isclass(obj) and issubclass(obj, (
        keras.regularizers.Regularizer, keras.initializers.Initializer,
        keras.constraints.Constraint))


def _register_held(obj: Any, name: str | None) -> str:
    import keras

    if inspect.isfunction(obj) and not (obj.__name__.isidentifier()
                                        and "<" not in obj.__qualname__):
        raise TypeError(f"{obj.__qualname__!r:.80} has no name a config or code can use: "
                        "define the function with def (at module level or in the notebook).")
    registered_name = keras.saving.get_registered_name(obj)
    if name is not None and name != registered_name:
        raise TypeError(f"{registered_name!r:.80} is named by Keras's serialization "
                        "(keras.saving.register_keras_serializable decides it), not by name=.")
    taken = registry.held().get(registered_name) or _taken_by(registered_name)
    if taken is not None and taken is not obj:
        raise EditError(f"The name {registered_name!r} is already used by {_where(taken)}: "
                        f"register {obj.__module__}.{obj.__qualname__} with Keras under "
                        "another package (keras.saving.register_keras_serializable(package=...)).")
    # Keras's from_config finds it through registry.scope(), where boxes are made
    registry.add_held(registered_name, obj)
    registry.changed()
    return registered_name


def trust(cls) -> str:
    """Register a class met in a model imported with trust_custom=True: under its own name, or
    where that is taken by another class (Gemma's RMSNormalization beside Keras's) under the
    first free `<name>_<n>`, with a warning saying which."""
    found = class_name_of(cls)
    if found is not None:
        return found
    return register(cls, name=_free_name(cls.__name__, cls, "class"))


_notes: ContextVar[list | None] = ContextVar("kerascanvas_trust_notes", default=None)


@contextmanager
def saying_to(notes: list):
    """Within it, a class trusted under another name is said in `notes` (an import's g.notes,
    shown muted) instead of warned (printed red): Gemma's RMSNormalization is no mistake."""
    token = _notes.set(notes)
    try:
        yield notes
    finally:
        _notes.reset(token)


def _free_name(base: str, thing: Any, what: str) -> str:
    name, n = base, 0
    while (trusted().get(name) or _taken_by(name)) not in (None, thing):
        n += 1
        name = f"{base}_{n}"
    if n:
        shown = getattr(thing, "name", None) if what == "Lambda" else _where(thing)
        message = (f"The {what} {shown!r} is trusted as {name!r}: {base!r} is already "
                   f"{_where(trusted().get(base) or _taken_by(base))}.")
        if (notes := _notes.get()) is not None:
            notes.append(message)
        else:
            import warnings

            warnings.warn(message, UserWarning, stacklevel=4)
    return name


def keep_object(layer, name: str | None = None, list_input: bool = False,
                outputs: int | None = None) -> str:
    """Trust one layer object whose config does not describe it (its get_config() fails, or
    its __init__ needs what the config lacks): its box is that object, kept with its weights
    (boxes of it are twins sharing them), under the kind name <Class>_<layer name>."""
    if name is None:
        name = _free_name(f"{type(layer).__name__}_{re.sub(r'[^0-9a-zA-Z_]', '_', layer.name)}",
                          layer, "layer object")
    _claim(name, layer, "")
    registry.add_object(name, layer)
    registry.note(name, list_input, outputs)
    return name


def _claim(name: Any, layer, what: str) -> None:
    """Refuse `name` for a trusted layer object unless it is an identifier no other kind uses."""
    if not (isinstance(name, str) and name.isidentifier()):
        raise TypeError(f"A registered name is an identifier, got {name!r:.80}.")
    taken = trusted().get(name) or _taken_by(name)
    if taken is not None and taken is not layer:
        raise EditError(f"The name {name!r} is already used by {_where(taken)}: trust {what}"
                        f"{layer.name!r} under another name (kc.register(layer, name=...)).")


def describable(layer) -> bool:
    """Whether a layer's config makes it again, checked by doing it: get_config() works, the
    class remakes a layer from it (for a class as published: from the arguments its __init__
    takes), and the remade layer has the same name and config, the same weights and outputs on
    a probe batch (probe.py). A config with keys __init__
    does not take (a computed num_patches), an __init__ that drops the name or renames the
    layer, fail it: the layer is then kept as the object itself."""
    try:
        config = layer.get_config()
    except Exception:  # noqa: BLE001 - any failure means the config cannot describe it
        return False
    cls = type(layer)
    if published(cls):
        params = init_arguments(cls)
        if not all(p.name in config for p in params.values()
                   if p.default is inspect.Parameter.empty):
            return False
        given = {k: v for k, v in config.items() if k in params}
    else:
        given = config
    try:
        with _quiet_remake(), registry.scope():
            if published(cls):  # made from its own arguments, named after (CustomKind.build)
                again = cls(**copy.deepcopy(given))
                unnamed = {k: v for k, v in config.items() if k != "name"}
                return _same_config({k: v for k, v in again.get_config().items()
                                     if k != "name"}, unnamed) and behaves_the_same(layer, again)
            again = cls.from_config(copy.deepcopy(given))
            return (again.name == layer.name and _same_config(again.get_config(), config)
                    and behaves_the_same(layer, again))
    except Exception:  # noqa: BLE001 - a config its class cannot take back does not describe it
        return False


def _same_config(a: Any, b: Any) -> bool:
    try:
        return bool(a == b)
    except Exception:  # noqa: BLE001 - values whose == raises (arrays): not the same
        return False


@contextlib.contextmanager
def _quiet_remake():
    """A trial remake says nothing (Keras warns about unbuilt state and the like)."""
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        yield


def _trust_lambda(layer, name: str | None, list_input: bool, outputs: int | None) -> str:
    if name is None:  # Lambda_<layer name>, or the first free Lambda_<layer name>_<n>
        name = _free_name(f"Lambda_{re.sub(r'[^0-9a-zA-Z_]', '_', layer.name)}", layer, "Lambda")
    _claim(name, layer, "Lambda ")
    registry.add_object(name, layer)
    _retired.pop(name, None)
    registry.note(name, list_input, outputs)
    return name


def unregister(name: str) -> None:
    """Forget a registered class or trusted Lambda: no new box of it comes from Python, the
    browser, a file or an import (files that use it stop loading), as in a new session.

    Boxes already drawn keep their kind (`retired`): their Keras objects live on in the
    model the user built, so the canvas keeps drawing, exporting and saving them; refusing
    the unregister instead would make it depend on every drawing and undo step in the kernel."""
    kind = get(name) if name in registered() or name in trusted() else None
    if kind is not None:
        _retired[name] = kind
    registry.forget(name)
    registry.changed()


def retired(name: Any):
    """The kind of an unregistered class, for the boxes drawn before it went; else None."""
    return _retired.get(name) if isinstance(name, str) else None


def _taken_by(name: str):
    if name in registered():
        return registered()[name]
    try:
        return catalog.get(name).cls
    except ValueError:
        pass
    if name in ops.names() or name in keras_own():
        return ops.get(name) if name in ops.names() else keras_own()[name]
    return None


def _where(thing: Any) -> str:
    if not inspect.isclass(thing) and hasattr(thing, "name"):  # a trusted Lambda object
        return f"the Lambda layer object {thing.name!r} trusted before"
    return f"{getattr(thing, '__module__', '?')}.{getattr(thing, '__qualname__', thing)}"


def get(class_name: Any):
    """The kind of a registered or Keras-own class, or None."""
    if not isinstance(class_name, str):
        return None
    return _kind(class_name, registry.version())


@functools.lru_cache(maxsize=1024)
def _kind(class_name: str, version: int):
    """(cached per version of the records: a registration makes kinds anew)"""
    cls, group = registered().get(class_name), "custom"
    if cls is None:
        cls, group = keras_own().get(class_name), "keras"
    source = trusted().get(class_name)
    if source is not None:
        cls, group = type(source), "custom"
    if cls is None:
        return None
    slots = (Slots("list", (), 1, None) if registry.is_list_called(class_name)
             else slots_of(class_name, cls))
    if group == "custom" and slots.kind in ("single", "args") and source is None:
        slots = calls.with_keywords(slots, calls.optional_tensors(cls, slots.names))
    if source is not None:
        import keras

        made = TrustedLambda if isinstance(source, keras.layers.Lambda) else TrustedObject
        return made(class_name, group, slots, cls, source)
    return CustomKind(class_name, group, slots, cls)


@dataclass(frozen=True)
class CustomKind(LayerKind):
    """A registered or Keras-own class: the catalog's kind, with its outputs per call.

    A class as people publish it often takes only its own arguments (`__init__(self, maxlen,
    vocab_size, embed_dim)`: no **kwargs, no get_config, no from_config), so Keras's own
    from_config (`cls(**config)`, name and trainable included) cannot remake it: such a class
    is made from the arguments its __init__ accepts that the config holds (Keras records them
    itself), and is given its name and trainable flag afterwards."""

    def n_outputs(self, config: dict) -> int:
        return registry.outputs_of(self.class_name)

    @property
    def made_from(self) -> str:
        """"config" (Keras's from_config) or "arguments" (its __init__'s own arguments)."""
        return "arguments" if published(self.cls) else "config"

    def _check_value(self, key: str, value: Any) -> None:
        """The catalog's checks, but a function Keras's registry names (a class's own
        activation, "keras_hub>gelu_approximate") may stand in a trusted class's config: it
        names code the kernel already registered, never code from the file."""
        if not _registered_function(value):
            super()._check_value(key, value)

    def create(self, config: dict):
        config = self.checked(config)
        if not published(self.cls):
            return self.cls.from_config(config)
        return self.build(**config)

    def build(self, **kwargs: Any):
        if not published(self.cls):
            return super().build(**kwargs)
        settings = {k: kwargs.pop(k) for k in ("name", "trainable", "dtype") if k in kwargs}
        accepted = init_arguments(self.cls)
        missing = [p.name for p in accepted.values()
                   if p.default is inspect.Parameter.empty and p.name not in kwargs]
        if missing:
            raise EditError(f"{self.class_name} cannot be made again: its __init__ needs "
                            f"{', '.join(missing)}, which its config does not hold (give the "
                            "class a get_config() that returns them).")
        layer = self.cls(**{k: v for k, v in kwargs.items() if k in accepted})
        if "name" in settings:
            layer.name = settings["name"]
        if "trainable" in settings:
            layer.trainable = settings["trainable"]
        return layer

    def make_config(self, **kwargs: Any) -> dict:
        return self.config_of(self.build(**{**self.suggested_args(), **kwargs}))

    def config_of(self, layer, given=None) -> dict:
        """Its get_config(), with the name and trainable flag Keras's leaves out of a
        class as published."""
        config = layer.get_config()
        if published(self.cls):
            config = {**config, "name": layer.name, "trainable": layer.trainable}
        return config


def _registered_function(value: Any) -> bool:
    """A serialized function that Keras's registry of registered objects resolves."""
    if not (isinstance(value, dict) and value.get("module") == "builtins"
            and value.get("class_name") == "function" and isinstance(value.get("config"), str)
            and set(value) <= {"module", "class_name", "config", "registered_name"}):
        return False
    import keras

    found = keras.saving.get_registered_object(value["config"])
    return inspect.isfunction(found)


def init_arguments(cls) -> dict[str, inspect.Parameter]:
    """The named parameters of a class's __init__ (after self)."""
    try:
        params = list(inspect.signature(cls.__init__).parameters.values())[1:]
    except (TypeError, ValueError):
        return {}
    return {p.name: p for p in params if p.kind not in (p.VAR_KEYWORD, p.VAR_POSITIONAL)}


@functools.cache
def published(cls) -> bool:
    """Whether Keras's from_config cannot remake the class: it keeps Keras's own from_config
    (cls(**config)) while its __init__ takes neither **kwargs nor a name."""
    import keras

    try:
        params = list(inspect.signature(cls.__init__).parameters.values())[1:]
    except (TypeError, ValueError):
        return False
    own_from_config = getattr(cls.from_config, "__func__", None) not in (
        getattr(keras.layers.Layer.from_config, "__func__", None),
        getattr(keras.Operation.from_config, "__func__", None))
    return (not own_from_config and not any(p.kind is p.VAR_KEYWORD for p in params)
            and "name" not in {p.name for p in params})


@dataclass(frozen=True)
class TrustedKind(CustomKind):
    """One layer object the user trusted (its kind name <Class>_<layer name>): a box of it is
    made from that object, so only its settings (SETTINGS: name, trainable, dtype) can be set."""

    source: Any = None

    def schema(self) -> list[dict]:
        return [{"name": "trainable", "type": "bool", "default": True, "required": False}]

    def suggested_args(self) -> dict:
        return {}

    def as_dict(self, config: Any) -> dict:
        if not isinstance(config, dict):
            raise EditError(f"A {self.class_name} config is a dict, got {config!r:.120}.")
        return dict(config)

    def build(self, **kwargs: Any):
        unknown = sorted(set(kwargs) - SETTINGS)
        if unknown:
            raise TypeError(f"{self.class_name} is {self.refusal()}, not "
                            f"{', '.join(map(repr, unknown))}.")
        return self.made(kwargs)

    def make_config(self, **kwargs: Any) -> dict:
        return self.config_of(self.build(**kwargs))

    def refusal(self) -> str:
        """What the object is and what may be set, for a refused argument."""
        raise NotImplementedError

    def made(self, settings: dict):
        """A new box's layer, from the object and the settings given."""
        raise NotImplementedError


SETTINGS = {"name", "trainable", "dtype"}


@dataclass(frozen=True)
class TrustedLambda(TrustedKind):
    """One Lambda object the user trusted: new boxes of it are Lambdas over the same
    function, output_shape, mask and arguments; only name, trainable and dtype are set."""

    def refusal(self) -> str:
        return (f"the Lambda {self.source.name!r} you trusted: its function and arguments come "
                f"from that object; only {', '.join(sorted(SETTINGS))} can be set")

    def made(self, settings: dict):
        import keras

        s = self.source
        return keras.layers.Lambda(s.function, output_shape=s._output_shape, mask=s.mask,
                                   arguments=dict(s.arguments), **settings)

    def checked(self, config: Any) -> dict:
        return self.as_dict(config)  # its settings only: the function is the object's

    def create(self, config: dict):
        return self.build(**self.checked(config))

    def config_of(self, layer, given=None) -> dict:
        import keras

        return keras.layers.Layer.get_config(layer)  # no function: that is the object's

    def code(self) -> tuple[dict, list[str]]:
        """(constructor arguments but the name, the import lines its functions need) for code export;
        EditError where the function cannot be named in code (a lambda expression)."""
        s = self.source
        args = {"": _named(s.function, s.name, "function")}
        if s._output_shape is not None:
            args["output_shape"] = _named(s._output_shape, s.name, "output_shape")
        if s.mask is not None:
            args["mask"] = _named(s.mask, s.name, "mask")
        if s.arguments:
            args["arguments"] = dict(s.arguments)
        functions = [v for v in args.values() if callable(v) and not isinstance(v, type)]
        return args, sorted({line for f in functions if (line := _function_import(f))})


@dataclass(frozen=True)
class TrustedObject(TrustedKind):
    """One layer object the user trusted that its config cannot make again: a box of it is a
    twin of that object (the same sublayers and weights, its own calls); only its name and
    trainable flag are set. Code export cannot write it."""

    @property
    def made_from(self) -> str:
        return "object"

    def refusal(self) -> str:
        return (f"the layer {self.source.name!r} you trusted as it is: only name and trainable "
                "can be set")

    def made(self, settings: dict):
        twin = object.__new__(type(self.source))
        twin.__dict__.update(self.source.__dict__)
        for attr in ("_inbound_nodes", "_outbound_nodes"):  # its own calls
            object.__setattr__(twin, attr, [])
        object.__setattr__(twin, "name", settings.get("name", self.source.name))
        if "trainable" in settings:
            twin.trainable = settings["trainable"]
        return twin

    def create(self, config: dict):
        return self.build(**{k: v for k, v in self.as_dict(config).items()
                             if k in ("name", "trainable")})

    def config_of(self, layer, given=None) -> dict:
        return {"name": layer.name, "trainable": layer.trainable}


def _named(value: Any, layer: str, what: str) -> Any:
    """A Lambda's function as code can name it: a def'd function (module level or in the
    notebook); a lambda expression or a nested function has no name code can use."""
    if not callable(value):
        return value
    qualname = getattr(value, "__qualname__", "")
    if not (inspect.isfunction(value) and value.__name__.isidentifier() and "<" not in qualname
            and "." not in qualname):
        shown = getattr(value, "__name__", type(value).__name__)[:60]
        raise EditError(f"Layer {layer!r} is a Lambda whose {what} is {shown}, "
                        "which code export cannot write (it has no name a module can import): "
                        "define it with def at module level or in the notebook, make a Lambda "
                        "over that and trust it (kc.register(layer)).", layer=layer)
    return value


def _function_import(function) -> str | None:
    if function.__module__ in ("__main__", None):
        return None  # defined in the notebook: the code runs beside it
    return f"from {function.__module__} import {function.__name__}"


def not_registered(class_name: Any, module: Any = None) -> str:
    """Why a class name is refused, and how to make it usable."""
    where = f" (from {module!r:.80})" if isinstance(module, str) and module else ""
    if isinstance(class_name, str) and class_name.startswith("Lambda_"):  # a trusted Lambda's
        return (f"{class_name!r:.80} is not a layer the canvas offers: if it is the box kind of "
                "a Lambda trusted in another session, trust that Lambda layer object again from "
                "Python (kc.register(model.get_layer(name))).")
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
