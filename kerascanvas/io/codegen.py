"""Drawing -> Python source: idiomatic Keras functional code that rebuilds the same model.

Names and string values reach the code only as literals, and every identifier is generated, so no
drawing can make the code do anything but build the model. The output is laid out the way
`ruff format` lays it out (88 columns, exploded calls with trailing commas), so it passes
`ruff check` and `ruff format --check` as it is.

Why it is long: one writer: the naming, the ordering and the layout of the code it writes follow
ruff format's rules together.
"""

from __future__ import annotations

import builtins
import functools
import inspect
import json
import keyword
import math
import re
from types import SimpleNamespace
from typing import Any, NamedTuple

import keras
import numpy as np

from ..errors import EditError
from ..kinds import calls, kinds, nested, ops

WIDTH = 88
RESERVED = {"keras", "layers", "model", "inputs", "outputs", "np", "numpy", "math", "tf", "jax",
            "torch"} | set(dir(builtins))
"""Names the exported code uses or a reader's notebook likely holds, and every builtin (a box
named `float` beside an inf constant would shadow the `float("inf")` the code writes); the
names the code's own imports bind are added per export."""


def to_code(g, op_names: bool = False, reserved: frozenset[str] = frozenset()) -> str:
    """Python source that builds `g.model` again (same config, same parameter count).

    Operation boxes are written in the natural form (`x + 3.0`, `keras.ops.expand_dims(x,
    axis=1)`); Keras names those operations itself, counting up across the Python session, so
    importing the code's model gives them other box names. op_names=True keeps the box names:
    each operation is made under its box's name and then called, as layers are
    (`add_3 = keras.src.ops.numpy.Add(name="add_3")`, `x_1 = add_3(x, 3.0)`), at the cost of
    naming Keras's internal classes.

    Trainable flags and LoRA are set after the model is made, as a person writes them
    (`base.trainable = False`, `dense.enable_lora(4)`). `reserved`: names no identifier may
    take (code written after this code uses them: training_code.py)."""
    model = g.model
    if model is None:
        raise EditError("The drawing is not a model yet: " + "; ".join(map(str, g.problems)))
    specs = g.specs
    header = _header(specs.values(), g)
    names = _identifiers(g, _bound_by(header) | reserved)
    lines = []
    for name, spec in specs.items():  # models used as layers: built first, each a block
        if spec.class_name in nested.MODULES:
            lines += _model_block(g.keras_layer(name), names[name], names.fresh) + [""]
    for name in g.inputs:
        lines += _assign(names[(name, 0, 0)], "keras.Input", _input_args(specs[name].config))
    lines.append("")
    built = set()
    for name, k in _call_order(g):
        spec = specs[name]
        sources = [names[s] for s in g.call_inputs(name, k)]
        results = [names.tensor((name, k, t)) for t in range(len(g.call_record(name, k).outputs))]
        if isinstance(kinds.get(spec.class_name), ops.OpKind):  # `x + 3.0`, keras.ops.f(x, ...)
            made = name in built or not op_names
            built.add(name)
            lines += _op_call(kinds.get(spec.class_name), spec.config, sources, results,
                              names[name] if op_names else None, None if made else name)
            continue
        if name not in built and spec.class_name not in nested.MODULES:
            lines += _assign(names[name], _constructor(spec.class_name), _arguments(spec))
        built.add(name)  # each layer built once, called once per node
        filled = {slot: Raw(names[s]) for slot, s in g.call_slots(name, k).items()}
        lines += _call(names[name], calls.arrange(spec.slots, filled, calls.of(spec, k),
                                                  nested.input_keys(spec.class_name, spec.config)),
                       results, _unpacking(spec.class_name, spec.config, g.keras_layer(name)))
    lines.append("")
    ins = [Raw(names[(n, 0, 0)]) for n in g.inputs]
    if g.dict_inputs and g.input_structure is None:
        ins = [dict(zip(g.inputs, ins))]
    outs = [Raw(names[t]) for t in g.outputs]
    if g.output_keys and g.output_structure is None:
        outs = [dict(zip(g.output_keys, outs))]
    ins, outs = _structured(g, ins, outs)
    lines += _assign("model", "keras.Model", {"inputs": ins[0] if len(ins) == 1 else ins,
                                              "outputs": outs[0] if len(outs) == 1 else outs,
                                              "name": g.name})
    lines += _done_after(g, names)
    if not any(_USES_LAYERS.search(line) for line in lines):  # only operations: no import
        header.remove("from keras import layers")  # left unused (ruff's F401)
    return "\n".join(header + lines) + "\n"


_USES_LAYERS = re.compile(r"(^|[=(,\s])layers\.[A-Z]\w*\(")


def _header(specs, g) -> list[str]:
    """The imports: keras, its layers, and the classes of Keras's own or registered layers
    (by their import name), nested models' included."""
    from .importer import class_name, walk

    classes = {s.class_name for s in specs}
    for s in specs:
        if s.class_name in nested.MODULES:
            todo = [g.keras_layer(s.name)]
            while todo:
                w = walk(todo.pop())
                classes |= {class_name(op) for op in w.layers}
                todo += [op for op in w.layers if isinstance(op, keras.Model)]
    extra = sorted({line for c in classes for line in _imports_of(c)})
    numpy = ["import numpy as np"] if any(_holds_array(s.config) for s in specs) else []
    return [*numpy, "import keras", "from keras import layers", *extra, ""]


def _holds_array(value: Any) -> bool:
    """Whether a config holds an array constant (ops.py's {"__array__": ...}): written np.array."""
    if isinstance(value, dict):
        return "__array__" in value or any(_holds_array(v) for v in value.values())
    if isinstance(value, (list, tuple)):
        return any(_holds_array(v) for v in value)
    return False


def _imports_of(class_name: str) -> list[str]:
    from ..kinds import custom

    kind = custom.get(class_name)
    if kind is None or class_name in nested.MODULES:
        return []
    if isinstance(kind, custom.TrustedLambda):  # layers.Lambda over the functions it names
        return kind.code()[1]
    line = custom.import_line(kind.cls)[1]
    return [line] if line else []


def _lambda_arguments(kind, spec) -> dict:
    """A trusted Lambda's constructor arguments: its function (and output_shape, mask) by name,
    its arguments, and the box's own settings."""
    args = {k: Raw(v.__name__) if callable(v) else v for k, v in kind.code()[0].items()}
    return {**args, "name": spec.name}


def _constructor(class_name: str) -> str:
    """`layers.Dense` for a catalog layer; the class's own name for a Keras-own or registered
    class (imported at the top, or defined beside the code in a notebook)."""
    from ..kinds import catalog, custom

    try:
        catalog.get(class_name)
    except ValueError:
        if isinstance(kinds.get(class_name), custom.TrustedLambda):
            return "layers.Lambda"
        return custom.import_line(kinds.get(class_name).cls)[0]
    return f"layers.{class_name}"


def _op_call(kind, config, sources: list, results: list, op: str | None = None,
             make: str | None = None) -> list[str]:
    """A keras.ops call as people write it: `x_1 = x + 3.0`, `x_2 = keras.ops.mean(x_1, axis=1)`;
    given the identifier `op` of the Operation object, a call of it (`x_1 = add(x, 3.0)`), made
    first under the box's name `make` (`add = keras.src.ops.numpy.Add(name="add")`)."""
    target = ", ".join(results) + " = "
    if op is not None:
        lines = [] if make is None else _assign(
            op, f"{kind.cls.__module__}.{kind.cls.__name__}", {**kind.settings(config), "name": make})
        arguments = kind.call_arguments(config, [Raw(t) for t in sources])
        if kind.class_name == "get_item":  # its key as Python writes it
            from ..kinds.slicing import literal

            arguments = [arguments[0], Raw(literal(config["key"]))]
        return lines + _exploded(target, Call(op, tuple(("", v) for v in arguments)), 0, "")
    function, positional, keywords = kind.code(config, [Raw(t) for t in sources])
    if function == "-" and len(positional) == 1:
        return [f"{target}-{_literal(positional[0])}"]
    if function == "[]":  # slicing: x[:, 0]
        return [f"{target}{positional[0]}"]
    if len(function) <= 2 and len(positional) == 2:  # an operator
        return [f"{target}{_literal(positional[0])} {function} {_literal(positional[1])}"]
    call = Call(function, tuple(("", v) for v in positional) + tuple(keywords.items()))
    return _exploded(target, call, 0, "")


def _call_order(g) -> list[tuple[str, int]]:
    specs = g.specs
    by_depth = [key for depth in sorted(g.nodes_by_depth, reverse=True)
                for key in g.nodes_by_depth[depth] if not specs[key[0]].is_input]
    return _ordered(by_depth, _predecessors(g), {(n, 0) for n in g.inputs})


def _predecessors(g):
    """The calls a call waits for: its sources' calls and the same layer's previous call."""
    def before(key):
        return [s[:2] for s in (g.call_inputs(*key) or ())] + ([(key[0], key[1] - 1)] if key[1] else [])

    return before


def _ordered(by_depth: list, predecessors, done: set) -> list:
    """Calls in Keras's execution order (decreasing depth), except that call k of a layer always
    comes after call k-1: the order of the calls in the code is what numbers the nodes."""
    pending, done, order = list(by_depth), set(done), []
    while pending:
        ready = next(c for c in pending if all(p in done for p in predecessors(c)))
        pending.remove(ready)
        done.add(ready)
        order.append(ready)
    return order


class Raw(str):
    """Source text placed as it is (generated identifiers only)."""


class _Names(dict):
    """Generated identifiers: layer name -> identifier, (layer, call, tensor) -> identifier."""

    def __init__(self):
        super().__init__()
        self.taken = set(RESERVED)

    def fresh(self, base: str) -> str:
        if not _safe(base):  # "mobilenetv2_0.35_32" -> mobilenetv2_0_35_32, else "layer"
            plain = re.sub(r"[^a-z0-9_]", "_", base.lower())
            base = plain if _safe(plain) else "layer"
        candidate, i = base, 1
        while candidate in self.taken:
            candidate, i = f"{base}_{i}", i + 1
        self.taken.add(candidate)
        return candidate

    def tensor(self, key: tuple) -> str:
        if key not in self:
            self[key] = self.fresh("x")
        return self[key]


def _bound_by(header: list[str]) -> set[str]:
    """The names import lines bind: `import keras` -> keras, `from m import A as B` -> B."""
    bound = set()
    for line in header:
        words = line.replace(",", " ").split()
        if words[:1] == ["import"]:
            bound.add(words[1].split(".")[0])
        elif words[:1] == ["from"] and "import" in words:
            items, i = words[words.index("import") + 1:], 0
            while i < len(items):  # A, or A as B
                aliased = items[i + 1:i + 2] == ["as"]
                bound.add(items[i + 2] if aliased else items[i])
                i += 3 if aliased else 1
    return bound


def _identifiers(g, imported: set[str] = frozenset()) -> _Names:
    """A Python identifier for every layer, derived from its name when that is safe and takes
    no name the code uses (tensors get theirs, x, x_1, ..., in the order the code makes them)."""
    from ..kinds import custom

    found = _Names()
    found.taken |= imported
    for spec in g.specs.values():  # the functions trusted Lambdas name keep their own names
        kind = custom.get(spec.class_name)
        if isinstance(kind, custom.TrustedLambda):
            found.taken |= {v.__name__ for v in kind.code()[0].values() if callable(v)}
    for name, spec in g.specs.items():
        found[(name, 0, 0) if spec.is_input else name] = found.fresh(name)
    return found


def _safe(name: str) -> bool:
    return (re.fullmatch(r"[a-z_][a-z0-9_]{0,40}", name) is not None
            and not keyword.iskeyword(name) and not name.startswith("__"))


def _input_args(config) -> dict:
    """keras.Input's arguments for an InputLayer config."""
    batch_shape = config["batch_shape"]
    args = {"shape": tuple(batch_shape[1:])}
    if batch_shape[0] is not None:
        args["batch_size"] = batch_shape[0]
    args["name"] = config["name"]
    if config.get("dtype", "float32") != "float32":
        args["dtype"] = config["dtype"]
    args.update({k: True for k in ("sparse", "ragged", "optional") if config.get(k)})
    return args


# ----- models used as layers -------------------------------------------------------------------

def _model_block(model, target: str, fresh) -> list[str]:
    """Statements that build a nested Functional or Sequential model, assigned to `target`."""
    from .importer import class_name, walk

    w = walk(model)
    own = {}  # this model's layer and tensor names -> identifiers (shared pool, no clashes)
    lines = []
    for op in w.layers:
        own[op.name] = fresh(op.name)
        if isinstance(op, keras.Model):
            lines += _model_block(op, own[op.name], fresh) + [""]
    for layer in w.inputs:
        own[(layer.name, 0, 0)] = fresh(layer.name)
        lines += _assign(own[(layer.name, 0, 0)], "keras.Input", _input_args(layer.get_config()))
    tail = {"name": model.name}
    by_name = {op.name: op for op in w.layers}
    if class_name(model) == "Sequential":
        for op in w.layers:
            if class_name(op) not in nested.MODULES:
                lines += _assign(own[op.name], _constructor(class_name(op)), _layer_args(op))
        items = [Raw(own[(layer.name, 0, 0)]) for layer in w.inputs]
        items += [Raw(own[op.name]) for op in w.layers]
        return lines + _assign(target, "keras.Sequential", {"": items, **tail})
    built = set()
    order = _ordered(w.by_depth, lambda c: [s[:2] for s in w.calls[c[0]][c[1]]]
                     + ([(c[0], c[1] - 1)] if c[1] else []), {(n.name, 0) for n in w.inputs})
    for name, k in order:
        op = by_name[name]
        cls = class_name(op)
        sources = [own[s] for s in w.calls[name][k]]
        if isinstance(kinds.get(cls), ops.OpKind):
            results = [own.setdefault((name, k, t), fresh("x")) for t in range(w.widths[(name, k)])]
            lines += _op_call(kinds.get(cls), w.configs[name], sources, results, own[name],
                              None if name in built else name)
            built.add(name)
            continue
        if name not in built and cls not in nested.MODULES:
            lines += _assign(own[name], _constructor(cls), _layer_args(op))
        built.add(name)
        config = op.get_config() if cls == "Bidirectional" else {}
        results = [own.setdefault((name, k, t), fresh("x")) for t in range(w.widths[(name, k)])]
        # (each call's tensors are new keys: fresh() runs once for each)
        filled = {slot: Raw(own[s]) for slot, s in w.filled(name, k).items()}
        keys = nested.input_keys(cls, w.configs[name])
        lines += _call(own[name], calls.arrange(w.slots[name], filled, w.call_args[name][k], keys),
                       results, _unpacking(cls, config, op))
    structure = keras.tree.pack_sequence_as
    inputs = structure(w.model._inputs_struct, [Raw(own[(n.name, 0, 0)]) for n in w.inputs])
    outputs = structure(w.model._outputs_struct, [Raw(own[t]) for t in w.outputs])
    return lines + _assign(target, "keras.Model", {"inputs": inputs, "outputs": outputs, **tail})


def _layer_args(op) -> dict:
    from .importer import class_name

    return _arguments(SimpleNamespace(class_name=class_name(op), config=op.get_config(),
                                      name=op.name))


def _unpacking(class_name: str, config, layer) -> str:
    """How a call's results are unpacked: "" (as they come), "tuple" (a list or tuple of tensors,
    possibly of one) or "flatten" (a nested structure: keras.tree.flatten first)."""
    from ..kinds import custom

    if class_name == "Bidirectional" and config.get("merge_mode") is None:
        return "flatten"  # [forward, backward] + states
    kind = custom.get(class_name)
    if isinstance(kind, custom.CustomKind) and kind.n_outputs(config) > 1:
        return "flatten"  # a tuple, list or dict of tensors: one port each, in flatten's order
    if class_name in nested.MODULES:
        from .importer import walk

        struct = walk(layer).model._outputs_struct
        if isinstance(struct, (list, tuple)):
            flat = all(not isinstance(s, (list, tuple, dict)) for s in struct)
            return "tuple" if flat else "flatten"
        return "flatten" if isinstance(struct, dict) else ""
    return ""


def _call(layer: str, arguments: tuple, results: list, unpacking: str) -> list[str]:
    """`results = layer(args..., name=value...)` from calls.arrange's (args, kwargs)."""
    args, kwargs = arguments
    call = Call(layer, tuple(("", a) for a in args)
                 + tuple((k, calls.plain(v)) for k, v in kwargs.items()))
    if unpacking == "flatten":
        call = Call("keras.tree.flatten", (("", call),))
    target = ", ".join(results)
    if unpacking and len(results) == 1:
        target = f"({target},)"  # a list of one tensor
    return _exploded(target + " = ", call, 0, "")


# Set after construction (_done_after), except on a layer wrapped inside another's arguments
AFTER = ("trainable", "lora_rank", "lora_alpha")


def _arguments(spec, inside_another: bool = False) -> dict:
    """The layer's config minus what equals the class default (name always kept), and minus
    the flags written after construction unless the layer is `inside_another`'s argument."""
    from ..kinds import custom

    kind = custom.get(spec.class_name)
    if isinstance(kind, custom.TrustedLambda):
        return _lambda_arguments(kind, spec)
    if isinstance(kind, custom.TrustedObject):  # the arguments it was made with, if Keras
        # recorded them (Operation.__new__ keeps plain ones: numbers, strings, None)
        made_with = getattr(getattr(kind.source, "_auto_config", None), "config", None)
        if made_with is None:
            raise EditError(f"Layer {spec.name!r} is the {kind.cls.__name__} object "
                            f"{kind.source.name!r} kept as it is (its config cannot make it "
                            "again, and Keras did not record the arguments it was made with: "
                            "one of them is not a number, string or None), which code cannot "
                            "write: give its class a get_config() that returns its __init__'s "
                            "arguments.", layer=spec.name)
        return {**{k: _object(v) for k, v in made_with.items()}, "name": spec.name}
    if isinstance(kind, custom.CustomKind) and kind.made_from == "arguments":
        accepted = custom.init_arguments(kind.cls)  # as published: its own arguments only
        return {k: _object(v) for k, v in spec.config.items() if k in accepted}

    config = json.loads(json.dumps(dict(spec.config)))  # tuples as lists, as in the defaults
    skipped = ("name", "trainable", "dtype") + (() if inside_another else AFTER)
    required = _required(spec.class_name, config)
    defaults = _defaults(spec.class_name, json.dumps(required, sort_keys=True))
    args = {k: _inner(spec.config[k]) if k in WRAPPED else _object(spec.config[k])
            for k, v in config.items()  # written as Keras gave them
            if k not in skipped
            and (k in required or k not in defaults or defaults[k] != v)}
    # A default may follow another argument (MaxPooling2D's strides follow pool_size): keep
    # what the shortened call would not give back.
    for _ in range(3):
        try:
            again = _built_config(spec.class_name,
                                  json.dumps({k: config[k] for k in args}, sort_keys=True))
        except (TypeError, ValueError):  # a class that takes some values only as objects
            break  # (TextVectorization's standardize=fn): the arguments that differ from the
            # defaults, unchecked
        missed = [k for k, v in config.items()
                  if k not in skipped and k not in args and again.get(k) != v]
        if not missed:
            break
        args.update({k: _inner(spec.config[k]) if k in WRAPPED else _object(spec.config[k])
                     for k in missed})
    if inside_another and config.get("trainable") is False:
        args["trainable"] = False
    dtype = _unquantized(config.get("dtype"))  # quantized after construction (_done_after)
    if dtype not in (None, _unquantized(defaults.get("dtype"))):
        args["dtype"] = dtype
    args["name"] = spec.name
    first = [k for k in required if k in args]  # required arguments first, as people write them
    return {**{k: args[k] for k in first}, **args}


def _required(class_name: str, config: dict) -> dict:
    from ..kinds import kinds

    cls = kinds.get(class_name).cls
    params = list(inspect.signature(cls.__init__).parameters.values())[1:]
    return {p.name: config[p.name] for p in params
            if p.default is inspect.Parameter.empty and p.name in config}


@functools.lru_cache(maxsize=4096)
def _built_config(class_name: str, args_json: str) -> dict:
    """The config a layer built from these arguments has (JSON-normalized; cached, since most
    layers of a graph share their arguments but for the name)."""
    from ..kinds import kinds

    return json.loads(json.dumps(kinds.get(class_name).build(**json.loads(args_json)).get_config()))


@functools.lru_cache(maxsize=512)
def _defaults(class_name: str, required_json: str) -> dict:
    from ..kinds import kinds

    kind = kinds.get(class_name)
    return json.loads(json.dumps(kind.build(**json.loads(required_json)).get_config()))


WRAPPED = ("layer", "backward_layer")  # Bidirectional, TimeDistributed: a layer inside a layer


def _inner(value: Any) -> Any:
    """A wrapped layer's config as the constructor call Keras wants (`layer=layers.LSTM(...)`)."""
    if not (isinstance(value, dict) and isinstance(value.get("class_name"), str)
            and isinstance(value.get("config"), dict)):
        return value
    if value["class_name"] in ("Functional", "Sequential"):  # a wrapped model: from its config
        return Call("keras.saving.deserialize_keras_object", (("", value),))
    config = value["config"]
    inner = SimpleNamespace(class_name=value["class_name"], config=config,
                            name=config.get("name", value["class_name"].lower()))
    return Call(f"layers.{inner.class_name}",
                tuple(_arguments(inner, inside_another=True).items()))


def _object(value: Any) -> Any:
    """A serialized initializer, regularizer or constraint as a constructor call; one of the
    user's (kc.register) as people write it: `MyReg(strength=0.01)`, an activation `swishy`."""
    from ..kinds import custom

    if isinstance(value, dict) and value.get("module") == "keras.quantizers":  # an int8 config:
        return Call("keras.saving.deserialize_keras_object", (("", value),))  # (init takes objects)
    if isinstance(value, dict) and value.get("module") == "keras.layers":  # a layer given to
        return _inner(value)  # another's constructor (a mixture of experts' expert): made there
    if isinstance(value, list) and any(isinstance(v, dict) for v in value):  # (experts=[...])
        return [_object(v) for v in value]
    if isinstance(value, dict) and "class_name" in value:
        held = custom.held_named(value.get("module"), value.get("class_name"),
                                 value.get("registered_name"), value.get("config"))
        if held is not None:
            return _held_call(held, value["config"]) or value
    if not (isinstance(value, dict) and value.get("module") in _OBJECT_MODULES
            and isinstance(value.get("class_name"), str) and isinstance(value.get("config"), dict)):
        return value
    family, name = _OBJECT_MODULES[value["module"]], value["class_name"]
    if not (name.isidentifier() and not name.startswith("_")):
        return value
    cls = getattr(getattr(keras, family), name, None)
    if not isinstance(cls, type):
        return value
    try:
        default = json.loads(json.dumps(cls().get_config()))
    except TypeError:  # no default constructor: keep the serialized form
        return value
    args = {k: v for k, v in value["config"].items() if default.get(k, object()) != v}
    if not all(k.isidentifier() and not keyword.iskeyword(k) for k in args):
        return value  # not keyword arguments: the serialized form, which Keras takes too
    return Call(f"keras.{family}.{name}", tuple(args.items()))


def _held_call(held: Any, config: Any) -> Any:
    """A trusted function by its name; a trusted class called with the config's values that
    differ from its defaults. None where the serialized form must stay (Keras takes it too)."""
    if inspect.isfunction(held):
        return Raw(held.__name__)
    if not isinstance(config, dict):
        return None
    try:
        default = json.loads(json.dumps(held().get_config()))
    except (TypeError, ValueError):  # arguments it needs: no defaults known, all written
        default = {}
    args = {k: v for k, v in config.items() if default.get(k, object()) != v}
    if not all(isinstance(k, str) and k.isidentifier() and not keyword.iskeyword(k)
               for k in args):
        return None
    return Call(held.__name__, tuple(args.items()))


_OBJECT_MODULES = {"keras.initializers": "initializers", "keras.regularizers": "regularizers",
                   "keras.constraints": "constraints"}


# ----- what was done to built layers: trainable flags, LoRA and quantization -----------------

def _done_after(g, names) -> list[str]:
    """Statements that set what a person sets on made layers, after the model: trainable flags
    (a model's before its layers', since setting a model's flag sets its layers'), then LoRA
    (`enable_lora` wants a built layer; after the flags, which would set its kernel trainable
    again), then quantization (`dense.quantize("int8")`, on the built layer; the dtype its
    constructor gets is the policy's source, "float32")."""
    lines = []
    for name, spec in g.specs.items():
        if spec.is_input or isinstance(kinds.get(spec.class_name), ops.OpKind):
            continue
        layer = g.keras_layer(name)
        lines += _flag_lines(layer, names[name], True, {})
        for path, what, value in spec.inside:  # layers made in its build (LayerSpec.inside)
            target = f"sublayer({names[name]}, {_string(path)})"
            lines += [f"{target}.enable_lora({value})" if what == "lora" else
                      f"{target}.trainable = {value}"]
        for inner, path in _inside(layer, names[name]):
            lines += _lora_lines(inner, path, *_lora_of(inner, spec.config if inner is layer
                                                       else {}))
            mode = _quantized_mode(spec.config.get("dtype")) if inner is layer else \
                getattr(getattr(inner, "dtype_policy", None), "quantization_mode", None)
            if mode and not isinstance(inner, keras.Model):  # after LoRA, as it was done
                lines += [f"{path}.quantize({_string(mode)})"]
    if any(spec.inside for spec in g.specs.values()):
        lines = SUBLAYER + lines
    return [""] + lines if lines else []


# How code reaches a layer made in another's build (a TransformerDecoder's attention's query):
# no public Keras API walks into a layer; this is the walk KerasHub's Backbone.enable_lora uses.
SUBLAYER = [
    "",
    "def sublayer(layer, path):",
    '    """The layer at `path` ("self_attention/query") inside `layer`."""',
    '    for name in path.split("/"):',
    "        inside = layer._flatten_layers(include_self=False, recursive=False)",
    "        layer = next(x for x in inside if x.name == name)",
    "    return layer",
    "",
    "",
]


def _quantized_mode(dtype) -> str | None:
    """"int8", "float8", "int4" of a box's serialized quantized dtype policy (graph/quantize.py
    sets it); None for a plain dtype."""
    if not isinstance(dtype, dict) or not isinstance(dtype.get("config"), dict):
        return None
    mode = dtype["config"].get("mode")
    return mode.split("/")[0] if isinstance(mode, str) else None


def _unquantized(dtype):
    """The dtype a quantized layer is constructed with (its policy's source, "float32"): its
    `quantize` call comes after the model is made; other dtypes as they are."""
    if not _quantized_mode(dtype):
        return dtype
    return {"module": "keras", "class_name": "DTypePolicy",  # as Keras serializes a plain one
            "config": {"name": dtype["config"].get("source_name")}, "registered_name": None}


def _lora_of(layer, config: dict) -> tuple:
    """(rank, alpha) of a layer with LoRA: its box's config says them (lora_rank, lora_alpha);
    a layer inside a nested model, its live layer; (None, None) without LoRA."""
    if config.get("lora_rank"):
        return config["lora_rank"], config.get("lora_alpha")
    if getattr(layer, "lora_enabled", False):
        return layer.lora_rank, layer.lora_alpha
    return None, None


def _inside(layer, path: str):
    """`layer` and the layers of the models in it, each with the code that reaches it
    (`base.get_layer("block_1").get_layer("conv")`), a model before its layers."""
    todo = [(layer, path)]
    while todo:
        layer, path = todo.pop()
        yield layer, path
        if isinstance(layer, keras.Model):
            todo += reversed([(x, f"{path}.get_layer({_string(x.name)})") for x in layer.layers])


def _flag_lines(layer, path: str, set_from_above: bool, memo: dict) -> list[str]:
    """The fewest `.trainable = ...` statements that give `layer` and the layers inside its
    models their flags, the flag its model set on it being `set_from_above`. A model's own
    flag is the one its layers mostly need (`base.trainable = False`, then the few unfrozen):
    Keras trains the weights whose layers are trainable. Layers without weights are left."""
    key = (id(layer), set_from_above)
    if key in memo:
        return memo[key]
    if not isinstance(layer, keras.Model):
        wanted = bool(layer.trainable)
        found = [f"{path}.trainable = {wanted}"] if layer.weights and wanted != set_from_above \
            else []
    else:
        found = None
        for flag in (bool(layer.trainable), not layer.trainable):  # ties: its own flag
            lines = [f"{path}.trainable = {flag}"] if flag != set_from_above else []
            for x in layer.layers:
                lines += _flag_lines(x, f"{path}.get_layer({_string(x.name)})", flag, memo)
            if found is None or len(lines) < len(found):
                found = lines
    memo[key] = found
    return found


def _lora_lines(layer, path: str, rank, alpha) -> list[str]:
    """`path.enable_lora(rank)`; where the layer was frozen and unfrozen after LoRA, that too:
    Keras's setter then made every weight trainable again, the kernel LoRA froze included
    (setting the flag it already has does nothing)."""
    if not rank:
        return []
    args = (("", rank),) if alpha in (None, rank) else (("", rank), ("lora_alpha", alpha))
    lines = _exploded("", Call(f"{path}.enable_lora", args), 0, "")
    if layer.trainable and all(v.trainable for v in layer.weights):
        lines += [f"{path}.trainable = False  # and unfrozen: its kernel trains again",
                  f"{path}.trainable = True"]
    return lines


# ----- layout, the way ruff format writes it ----------------------------------------------------

def statement(prefix: str, value: Any) -> list[str]:
    """`prefix value` laid out as ruff format lays it out (Call and Raw for calls and names)."""
    return _exploded(prefix, value, 0, "")


def _assign(target: str, function: str, args: dict) -> list[str]:
    """`target = function(k=v, ...)`; the key "" marks a positional argument."""
    return _exploded(f"{target} = ", Call(function, tuple(args.items())), 0, "")


class Call(NamedTuple):
    """A call in the code: `function(key=value, ...)`, key "" for a positional argument."""

    function: str
    args: tuple


def _exploded(prefix: str, value: Any, level: int, end: str) -> list[str]:
    """`prefix value end` as ruff format lays it out: on one line if it fits; else the
    brackets' content on one indented line if that fits; else one item a line, each laid out
    the same way, with trailing commas."""
    pad = "    " * level
    one = f"{pad}{prefix}{_literal(value)}{end}"
    if len(one) <= WIDTH or not isinstance(value, (dict, list, tuple, Call)) or not (
            value.args if isinstance(value, Call) else value):
        return [one]
    if isinstance(value, Call):
        opening, closing = value.function + "(", ")"
        items = [(f"{k}=" if k else "", v) for k, v in value.args]
    elif isinstance(value, dict):
        opening, closing = "{", "}"
        items = [(f"{_literal(k)}: ", v) for k, v in value.items()]
    else:
        opening, closing = ("[", "]") if isinstance(value, list) else ("(", ")")
        items = [("", v) for v in value]
    inner = ", ".join(p + _literal(v) for p, v in items)
    if len(f"{pad}    {inner}") <= WIDTH and not (type(value) is tuple and len(value) == 1):
        return [f"{pad}{prefix}{opening}", f"{pad}    {inner}", f"{pad}{closing}{end}"]
    lines = [f"{pad}{prefix}{opening}"]
    for p, v in items:
        lines += _exploded(p, v, level + 1, ",")
    return lines + [f"{pad}{closing}{end}"]


def _structured(g, ins: list, outs: list) -> tuple[list, list]:
    """Inputs and outputs in the drawing's nested structures, where set (structures.py)."""
    from ..drawing import structures

    if g.input_structure is not None and structures.fits(g.input_structure, len(ins)):
        ins = [structures.packed(g.input_structure, ins)]
    if g.output_structure is not None and structures.fits(g.output_structure, len(outs)):
        outs = [structures.packed(g.output_structure, outs)]
    return ins, outs


def _literal(value: Any) -> str:
    if isinstance(value, Raw):
        return str(value)
    if isinstance(value, Call):
        args = ", ".join(f"{k}={_literal(v)}" if k else _literal(v) for k, v in value.args)
        return f"{value.function}({args})"
    if isinstance(value, str):
        return _string(value)
    if isinstance(value, float) and not math.isfinite(value):  # repr gives bare nan / inf
        return f'float("{value}")'
    if isinstance(value, bool) or value is None or isinstance(value, (int, float, slice)) \
            or value is Ellipsis:
        return repr(value)
    if isinstance(value, tuple):
        inner = ", ".join(_literal(v) for v in value)
        return f"({inner},)" if len(value) == 1 else f"({inner})"
    if isinstance(value, list):
        return "[" + ", ".join(_literal(v) for v in value) + "]"
    if isinstance(value, dict):
        return "{" + ", ".join(f"{_literal(k)}: {_literal(v)}" for k, v in value.items()) + "}"
    if isinstance(value, np.generic):  # a NumPy scalar: the Python number it holds
        return _literal(value.item())
    if isinstance(value, np.ndarray):  # an array constant (its header imports numpy)
        return f"np.array({_literal(value.tolist())}, dtype={_string(str(value.dtype))})"
    raise EditError(f"A config value of type {type(value).__name__} cannot be written as code.")


def _string(s: str) -> str:
    """A string literal with ruff's quotes: double, unless that needs more escapes."""
    if '"' in s and "'" not in s:
        return repr(s)  # Python picks single quotes here
    body = repr(s)[1:-1]
    if repr(s).startswith("'"):
        body = body.replace("\\'", "'").replace('"', '\\"')
    return f'"{body}"'
