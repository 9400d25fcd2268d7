"""Models used as layers (a Functional or Sequential called inside another model): their kind.

They come by import only, never from the palette. A nested model's config holds the configs of
all its layers; before Keras sees it, every layer in it (at any depth) is checked against the
catalog and its module pinned to Keras's, so a config can only describe catalog layers (no
Lambda, no custom class, no import path). A nested model is one box: its inputs are its slots
(one input: "single"; several: a list, `model([a, b])`, in the order of `model.inputs`) and its
flattened outputs are its output ports.

A wrapper of any layer (TimeDistributed) may wrap such a model: its kind here (WrapperKind) is
the catalog's, told about models (the catalog alone knows keras.layers classes only).
"""

from __future__ import annotations

import copy
import sys
from dataclasses import dataclass
from typing import Any

from ..errors import EditError
from . import catalog, custom, ops
from .catalog import LayerKind
from .layerkind import Slots

MODULES = {"Functional": "keras.src.models.functional", "Sequential": "keras"}
MAX_DEPTH = 20  # models inside models inside models...
# What a layer entry of a model config may hold; Keras acts on more (compile_config compiles).
ENTRY_KEYS = {"module", "class_name", "config", "registered_name", "name", "inbound_nodes",
              "build_config"}


@dataclass(frozen=True)
class ModelKind:
    """The layerkind.Kind protocol for Functional and Sequential models."""

    class_name: str
    group: str = "models"

    @property
    def slots(self) -> Slots:
        """The slots of a one-input model; `slots_for(config)` gives a given model's own."""
        return Slots("single", ("inputs",), 1, 1)

    @property
    def cls(self) -> type:
        import keras
        from keras.src.models.functional import Functional

        return keras.Sequential if self.class_name == "Sequential" else Functional

    def slots_for(self, config: dict):
        return self.slots_named(input_names(self.class_name, config))

    @staticmethod
    def slots_named(names: list[str]) -> Slots:
        """One input: a single slot; several: a list, in the order of `model.inputs`."""
        if len(names) == 1:
            return Slots("single", tuple(names), 1, 1)
        return Slots("list", tuple(names), len(names), len(names))  # model([a, b]): positional
        # tensors would reach call()'s `training` argument

    def n_outputs(self, config: dict) -> int:
        if self.class_name == "Sequential":  # what its last layer gives (LSTM(return_state=True): 3)
            entries = [e for e in (config.get("layers") or []) if isinstance(e, dict)
                       and e.get("class_name") != "InputLayer" and isinstance(e.get("config"), dict)]
            if not entries:
                return 1
            last = _kind_named(entries[-1].get("class_name"))
            return 1 if last is None else last.n_outputs(entries[-1]["config"])  # None: refused
            # by name when the model is made
        return len(_triples(config.get("output_layers") if isinstance(config, dict) else None))

    def schema(self) -> list[dict]:
        return [{"name": "trainable", "type": "bool", "default": True, "required": False}]

    def suggested_args(self) -> dict:
        return {}

    def checked(self, config: Any) -> dict:
        return checked_config(self.class_name, config)

    def create(self, config: dict):
        """The model from its config, once every layer in it is known to be a catalog layer."""
        import keras

        checked = checked_config(self.class_name, config)
        limit = sys.getrecursionlimit()  # Keras's map_graph recurses once per node (#15596)
        sys.setrecursionlimit(max(limit, 20 * _count_layers(checked) + 2000))
        try:  # registered classes by their drawing names (the entries' registered_name)
            with keras.saving.custom_object_scope(custom.registered_objects()):
                if self.class_name == "Sequential":
                    return keras.Sequential.from_config(checked)
                return keras.Model.from_config(checked)
        except EditError:
            raise
        except Exception as e:
            raise ValueError(f"Keras refused the config of nested model "
                             f"{config.get('name')!r:.80}: {e}") from e
        finally:
            sys.setrecursionlimit(limit)

    def build(self, **config: Any):
        return self.create(config)

    def make_config(self, **config: Any) -> dict:
        return self.create(config).get_config()


@dataclass(frozen=True)
class WrapperKind(LayerKind):
    """A catalog wrapper that wraps any layer (TimeDistributed), a model included: the catalog's
    kind, which knows keras.layers classes only, told about models here."""

    def inner_kind(self, class_name: str):
        if class_name in MODULES:
            return kind(class_name)
        return wrapper(super().inner_kind(class_name))  # TimeDistributed(TimeDistributed(model))

    def model_inside(self, class_name: str, config: Any) -> dict:
        return {"module": MODULES[class_name], "class_name": class_name, "registered_name": None,
                "config": checked_config(class_name, config)}


def wrapper(layer_kind):
    """A catalog kind as drawings use it: a wrapper of any layer as a WrapperKind (models
    inside it allowed), any other as it is."""
    if catalog.NESTED_LAYER.get(layer_kind.class_name, (None, None, ()))[2] is None:
        return WrapperKind(layer_kind.class_name, layer_kind.group, layer_kind.slots,
                           layer_kind.cls)
    return layer_kind


def _kind_named(class_name: Any):
    """The kind of a layer entry by class name, or None (refused by name when it is made)."""
    if class_name in MODULES:
        return kind(class_name)
    try:
        return wrapper(catalog.get(class_name))
    except ValueError:
        return ops.get(class_name) or custom.get(class_name) or custom.retired(class_name)


def kind(class_name: str) -> ModelKind:
    if class_name not in MODULES:
        raise EditError(f"{class_name!r:.80} is not a nested model class (Functional, Sequential).")
    return ModelKind(class_name)


def input_names(class_name: str, config: dict) -> list[str]:
    """The names of a model's inputs, in the order of `model.inputs`."""
    if not isinstance(config, dict):
        raise EditError(f"A {class_name} config is a dict, got {config!r:.120}.")
    if class_name == "Sequential":
        first = (config.get("layers") or [{}])[0]
        inner = first.get("config", {}) if isinstance(first, dict) else {}
        return [inner.get("name", "inputs")] if first.get("class_name") == "InputLayer" else ["inputs"]
    names = [t[0] for t in _triples(config.get("input_layers"))]
    if not names:
        raise EditError(f"Nested model {config.get('name')!r:.80} has no input_layers.")
    return names


def input_keys(class_name: str, config: Any) -> list[str] | None:
    """The keys of a nested Functional that takes a dict of inputs (a KerasHub backbone), in
    slot order (sorted, as keras.tree.flatten orders them); None for other models and layers."""
    if class_name != "Functional" or not isinstance(config, dict):
        return None
    struct = config.get("input_layers")
    return sorted(struct) if isinstance(struct, dict) else None


def _triples(struct: Any) -> list:
    """[layer, node, tensor] triples of input_layers/output_layers, flattened the way
    keras.tree.flatten orders them (dict keys sorted)."""
    if isinstance(struct, list) and len(struct) == 3 and isinstance(struct[0], str):
        return [struct]
    if isinstance(struct, dict):
        return [t for key in sorted(struct) for t in _triples(struct[key])]
    if isinstance(struct, (list, tuple)):
        return [t for item in struct for t in _triples(item)]
    return []


def checked_config(class_name: str, config: dict, depth: int = 0) -> dict:
    """A deep copy of a model config whose layers are all catalog layers (or checked models),
    their modules pinned to Keras's. Refuses, naming the layer and its class, anything else."""
    if depth > MAX_DEPTH:
        raise EditError(f"Models are nested more than {MAX_DEPTH} deep.")
    if not isinstance(config, dict) or not isinstance(config.get("layers"), list):
        raise EditError(f"A {class_name} config is a dict with a 'layers' list, got {config!r:.120}.")
    config = copy.deepcopy(config)  # from_config pops keys, at every depth
    model = config.get("name")
    for key, value in config.items():  # name, trainable, dtype, input/output_layers, ...
        if key != "layers":
            catalog.check_serialized(f"Nested model {model!r:.80}: {key}", value)
    for i, entry in enumerate(config["layers"]):
        if not isinstance(entry, dict) or not isinstance(entry.get("config"), dict):
            raise EditError(f"Layer {i} of nested model {model!r:.80} is malformed: {entry!r:.120}.")
        name, cls = entry["config"].get("name", entry.get("name")), entry.get("class_name")
        where = f"Layer {name!r:.80} of nested model {model!r:.80}"
        for key in set(entry) - ENTRY_KEYS:  # compile_config would deserialize an optimizer, ...
            del entry[key]
        _check_calls(where, entry.get("inbound_nodes", []))
        catalog.check_serialized(f"{where}: build_config", entry.get("build_config"))
        if cls in MODULES:
            entry["config"] = checked_config(cls, entry["config"], depth + 1)
            entry.update(module=MODULES[cls], registered_name=cls if cls == "Functional" else None)
            continue
        if cls == "InputLayer":
            catalog.check_serialized(where, entry["config"])
            entry.update(module="keras.layers", registered_name=None)
            continue
        if _other_kind(entry, where):  # a keras.ops operation, Keras's own or a registered class
            continue
        try:
            layer_kind = wrapper(catalog.get(cls))
        except ValueError as e:
            raise EditError(f"Layer {name!r:.80} of nested model {model!r:.80} is a {cls!r:.80}, "
                            f"which the canvas does not offer: {e}", layer=model) from None
        entry["config"] = layer_kind.checked(entry["config"])  # the catalog's value checks
        entry.update(module="keras.layers", class_name=layer_kind.class_name, registered_name=None)
    return config


def _other_kind(entry: dict, where: str) -> bool:
    """Check (and pin to its class) an entry naming a keras.ops operation (by module and class,
    as Keras serializes them), a Keras-own layer or a registered class; False for other names."""
    cls, module = entry.get("class_name"), entry.get("module")
    if isinstance(module, str) and module.startswith("keras.src.ops."):
        kind = next((k for k in map(ops.get, ops.every_name())
                     if k.cls.__name__ == cls and k.cls.__module__ == module), None)
        if kind is None:
            raise EditError(f"{where} is the operation {module}.{cls!r:.80}, which is not among "
                            "Keras's own keras.ops operations a drawing can hold.")
        entry["config"] = kind.checked(entry["config"])
        entry.update(module=kind.cls.__module__, class_name=kind.cls.__name__, registered_name=cls)
        return True
    try:
        catalog.get(cls)
        return False  # a catalog layer: checked by the caller
    except ValueError:
        pass
    drawing_name = custom.name_of(module, cls) or cls  # the class itself, where its name is taken
    kind = custom.get(drawing_name)
    if cls == "Lambda":  # even a trusted one: its entry here would carry the function as code
        raise EditError(f"{where} is a 'Lambda': inside a nested model it cannot come in, even "
                        "trusted (the model's config would carry its function as code); call it "
                        "in the outer model, or write its function as a Layer subclass and "
                        "kc.register that.")
    if kind is None:
        raise EditError(f"{where} is a {cls!r:.80}, which the canvas does not offer and no "
                        f"class of that name is registered: {custom.HOW_TO_REGISTER}")
    entry["config"] = kind.checked(entry["config"])
    entry.update(module=kind.cls.__module__, class_name=cls, registered_name=drawing_name)
    return True


def _check_calls(where: str, nodes: Any, depth: int = 0) -> None:
    """A layer's calls inside a model config hold tensors (and Keras's own mask=None /
    training=False), never a serialized object: Keras would deserialize it to call the layer."""
    if depth > 30:
        raise EditError(f"{where}: its calls are nested too deeply.")
    if isinstance(nodes, dict):
        if nodes.get("class_name") in ("__slice__", "__ellipsis__") and set(nodes) <= {
                "class_name", "config"} and isinstance(nodes.get("config"), dict) and all(
                v is None or type(v) is int for v in nodes["config"].values()):
            return  # a slicing key (x[:, 0]): Keras writes slices and ... so
        if "class_name" in nodes:
            history = nodes.get("config", {}).get("keras_history") if isinstance(nodes.get("config"), dict) else None
            if not (nodes["class_name"] == "__keras_tensor__" and set(nodes) <= {"class_name", "config"}
                    and isinstance(history, list) and len(history) == 3 and isinstance(history[0], str)):
                raise EditError(f"{where} is called with {nodes.get('class_name')!r:.60}, not a "
                                "tensor: a drawing holds only the tensors a call takes.")
            dtype = nodes["config"].get("dtype")
            if not isinstance(dtype, (str, type(None))):
                raise EditError(f"{where}: a tensor's dtype must be a name, got {dtype!r:.60}.")
            return
        for value in nodes.values():
            _check_calls(where, value, depth + 1)
    elif isinstance(nodes, (list, tuple)):
        for value in nodes:
            _check_calls(where, value, depth + 1)
    elif not isinstance(nodes, (str, int, float, bool, type(None))):
        raise EditError(f"{where}: unexpected {type(nodes).__name__} in its calls.")


def _count_layers(config: dict) -> int:
    """Layers in a model config, at every depth (to size the recursion Keras needs)."""
    return sum(1 + (_count_layers(e["config"]) if e.get("class_name") in MODULES else 0)
               for e in config.get("layers", []))


def with_trainable(config: dict, trainable: bool) -> dict:
    """A model config as `model.trainable = trainable` leaves it: every layer in it, at any
    depth, set the same way (a model's own flag alone does not freeze its layers)."""
    config = {**config, "trainable": trainable}
    config["layers"] = [
        {**e, "config": (with_trainable(e["config"], trainable) if e.get("class_name") in MODULES
                         else {**e["config"], "trainable": trainable})}
        if isinstance(e, dict) and isinstance(e.get("config"), dict) and e.get("class_name") != "InputLayer"
        else e
        for e in config.get("layers", [])]
    return config


def with_trainable_at(config: dict, path: list[str], trainable: bool) -> dict:
    """A model config with the layer at `path` (names inside it, outermost first) set as
    `layer.trainable = trainable` leaves it; unfreezing one also marks the models around it
    trainable (else Keras counts none of its weights), their other layers kept as they were.
    An empty path: the whole model (with_trainable)."""
    if not path:
        return with_trainable(config, trainable)
    config = {**config, "trainable": True} if trainable else dict(config)
    layers = []
    for e in config.get("layers", []):
        inner = e.get("config") if isinstance(e, dict) else None
        if isinstance(inner, dict) and inner.get("name") == path[0]:
            if e.get("class_name") in MODULES:
                inner = with_trainable_at(inner, path[1:], trainable)
            else:
                inner = {**inner, "trainable": trainable}
            e = {**e, "config": inner}
        layers.append(e)
    config["layers"] = layers
    return config


def with_lora_at(config: dict, path: list[str], rank: int, alpha: float) -> dict:
    """A model config with the layer at `path` inside it (names, one per depth) as Keras's
    get_config writes a layer after `enable_lora(rank)`: `lora_rank` and `lora_alpha` set."""
    layers = []
    for e in config.get("layers", []):
        inner = e.get("config") if isinstance(e, dict) else None
        if isinstance(inner, dict) and inner.get("name") == path[0]:
            if len(path) > 1:
                inner = with_lora_at(inner, path[1:], rank, alpha)
            else:
                inner = {**inner, "lora_rank": rank, "lora_alpha": alpha}
            e = {**e, "config": inner}
        layers.append(e)
    return {**config, "layers": layers}
