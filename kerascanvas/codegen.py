"""Drawing -> Python source: idiomatic Keras functional code that rebuilds the same model.

Names and string values reach the code only as literals, and every identifier is generated, so no
drawing can make the code do anything but build the model. The output is laid out the way
`ruff format` lays it out (88 columns, exploded calls with trailing commas), so it passes
`ruff check` and `ruff format --check` as it is.
"""

from __future__ import annotations

import functools
import inspect
import json
import keyword
import re
from typing import Any

from .drawing import EditError

WIDTH = 88
RESERVED = {"keras", "layers", "model", "inputs", "outputs"}


def to_code(g) -> str:
    """Python source that builds `g.model` again (same config, same parameter count)."""
    model = g.model
    if model is None:
        raise EditError("The drawing is not a model yet: " + "; ".join(map(str, g.problems)))
    names = _identifiers(g)
    lines = ["import keras", "from keras import layers", ""]
    for name in g.inputs:
        spec = g._drawing.layers[name]
        args = {"shape": tuple(spec.config["batch_shape"][1:]), "name": name}
        if spec.config.get("dtype", "float32") != "float32":
            args["dtype"] = spec.config["dtype"]
        lines += _assign(names[(name, 0, 0)], "keras.Input", args)
    lines.append("")
    built = set()
    for name, k in _call_order(g):
        spec = g._drawing.layers[name]
        if name not in built:  # each layer built once, called once per node
            built.add(name)
            lines += _assign(names[name], f"layers.{spec.class_name}", _arguments(spec))
        lines += _call(g, spec, k, names)
    lines.append("")
    ins = [names[(n, 0, 0)] for n in g.inputs]
    outs = [names[t] for t in g.outputs]
    lines += _assign("model", "keras.Model", {
        "inputs": _Raw(ins[0] if len(ins) == 1 else "[" + ", ".join(ins) + "]"),
        "outputs": _Raw(outs[0] if len(outs) == 1 else "[" + ", ".join(outs) + "]"),
        "name": g.name})
    return "\n".join(lines) + "\n"


def _call_order(g) -> list[tuple[str, int]]:
    """Calls in Keras's execution order (decreasing depth), except that call k of a layer always
    comes after call k-1: the order of the calls in the code is what numbers the nodes."""
    d = g._drawing
    pending = [key for depth in sorted(g.nodes_by_depth, reverse=True)
               for key in g.nodes_by_depth[depth] if not d.layers[key[0]].is_input]
    done = {(n, 0) for n in g.inputs}
    order = []
    while pending:
        ready = next(c for c in pending if all(p in done for p in d.predecessors(c)))
        pending.remove(ready)
        done.add(ready)
        order.append(ready)
    return order


class _Raw(str):
    """Source text placed as it is (generated identifiers only)."""


def _identifiers(g) -> dict:
    """A Python identifier for every layer and every tensor, derived from names when safe."""
    taken = set(RESERVED)
    found: dict = {}

    def fresh(base: str) -> str:
        base = base if _safe(base) else "layer"
        candidate, i = base, 1
        while candidate in taken:
            candidate, i = f"{base}_{i}", i + 1
        taken.add(candidate)
        return candidate

    for name, spec in g._drawing.layers.items():
        if spec.is_input:
            found[(name, 0, 0)] = fresh(name)
        else:
            found[name] = fresh(name)
    for name, spec in g._drawing.layers.items():
        if spec.is_input:
            continue
        for k in range(spec.calls):
            record = g._net.records.get((name, k))
            for t in range(len(record.outputs) if record else 0):
                found[(name, k, t)] = fresh("x")
    return found


def _safe(name: str) -> bool:
    return (re.fullmatch(r"[a-z_][a-z0-9_]{0,40}", name) is not None
            and not keyword.iskeyword(name) and not name.startswith("__"))


def _call(g, spec, k: int, names: dict) -> list[str]:
    d = g._drawing
    sources = [names[s] for s in d.call_inputs(spec, d.filled((spec.name, k)))]
    argument = "[" + ", ".join(sources) + "]" if spec.slots.kind == "list" else ", ".join(sources)
    results = [names[(spec.name, k, t)] for t in range(len(g._net.records[(spec.name, k)].outputs))]
    call = f"{names[spec.name]}({argument})"
    nested = spec.class_name == "Bidirectional" and spec.config.get("merge_mode") is None
    if nested and len(results) > 1:  # [forward, backward] + states: flatten, then unpack
        call = f"keras.tree.flatten({call})"
    return _fit(", ".join(results) + " = ", call)


def _arguments(spec) -> dict:
    """The layer's config minus what equals the class default (name always kept)."""

    config = json.loads(json.dumps(dict(spec.config)))  # tuples as lists, as in the defaults
    required = _required(spec.class_name, config)
    defaults = _defaults(spec.class_name, json.dumps(required, sort_keys=True))
    args = {k: _inner(spec.config[k]) if k in WRAPPED else _object(spec.config[k])
            for k, v in config.items()  # written as Keras gave them
            if k not in ("name", "trainable", "dtype")
            and (k in required or k not in defaults or defaults[k] != v)}
    # A default may follow another argument (MaxPooling2D's strides follow pool_size): keep
    # what the shortened call would not give back.
    for _ in range(3):
        again = _built_config(spec.class_name, json.dumps({k: config[k] for k in args}, sort_keys=True))
        missed = [k for k, v in config.items() if k not in ("name", "trainable", "dtype")
                  and k not in args and again.get(k) != v]
        if not missed:
            break
        args.update({k: _inner(spec.config[k]) if k in WRAPPED else _object(spec.config[k])
                     for k in missed})
    if config.get("trainable") is False:
        args["trainable"] = False
    if config.get("dtype") not in (None, defaults.get("dtype")):
        args["dtype"] = config["dtype"]
    args["name"] = spec.name
    return args


def _required(class_name: str, config: dict) -> dict:
    from . import kinds

    cls = kinds.get(class_name).cls
    params = list(inspect.signature(cls.__init__).parameters.values())[1:]
    return {p.name: config[p.name] for p in params
            if p.default is inspect.Parameter.empty and p.name in config}


@functools.lru_cache(maxsize=4096)
def _built_config(class_name: str, args_json: str) -> dict:
    """The config a layer built from these arguments has (JSON-normalized; cached, since most
    layers of a graph share their arguments but for the name)."""
    from . import kinds

    return json.loads(json.dumps(kinds.get(class_name).build(**json.loads(args_json)).get_config()))


@functools.lru_cache(maxsize=512)
def _defaults(class_name: str, required_json: str) -> dict:
    from . import kinds

    kind = kinds.get(class_name)
    return json.loads(json.dumps(kind.build(**json.loads(required_json)).get_config()))


WRAPPED = ("layer", "backward_layer")  # Bidirectional, TimeDistributed: a layer inside a layer


def _inner(value: Any) -> Any:
    """A wrapped layer's config as the constructor call Keras wants (`layer=layers.LSTM(...)`)."""
    if not (isinstance(value, dict) and isinstance(value.get("class_name"), str)
            and isinstance(value.get("config"), dict)):
        return value
    from types import SimpleNamespace

    config = value["config"]
    inner = SimpleNamespace(class_name=value["class_name"], config=config,
                            name=config.get("name", value["class_name"].lower()))
    args = _arguments(inner)
    text = ", ".join(f"{k}={_literal(v)}" for k, v in args.items())
    return _Raw(f"layers.{inner.class_name}({text})")


def _object(value: Any) -> Any:
    """A serialized initializer, regularizer or constraint as a constructor call."""
    if not (isinstance(value, dict) and value.get("module") in _OBJECT_MODULES
            and isinstance(value.get("class_name"), str) and isinstance(value.get("config"), dict)):
        return value
    import keras

    family = _OBJECT_MODULES[value["module"]]
    cls = getattr(getattr(keras, family), value["class_name"], None)
    if not (isinstance(cls, type) and value["class_name"].isidentifier()):
        return value
    try:
        default = json.loads(json.dumps(cls().get_config()))
    except TypeError:  # no default constructor: keep the serialized form
        return value
    args = {k: v for k, v in value["config"].items() if default.get(k, object()) != v}
    inner = ", ".join(f"{k}={_literal(v)}" for k, v in args.items() if k.isidentifier())
    return _Raw(f"keras.{family}.{value['class_name']}({inner})")


_OBJECT_MODULES = {"keras.initializers": "initializers", "keras.regularizers": "regularizers",
                   "keras.constraints": "constraints"}


# ----- layout, the way ruff format writes it ----------------------------------------------------

def _assign(target: str, function: str, args: dict) -> list[str]:
    parts = [f"{k}={_literal(v)}" for k, v in args.items()]
    one = f"{target} = {function}({', '.join(parts)})"
    if len(one) <= WIDTH:
        return [one]
    inner = ", ".join(parts)
    if len("    " + inner) <= WIDTH and all(len(p) <= WIDTH for p in parts):
        return [f"{target} = {function}(", f"    {inner}", ")"]
    lines = [f"{target} = {function}("]
    for k, v in args.items():
        lines += _exploded(f"{k}=", v, 1, ",")
    return lines + [")"]


def _fit(prefix: str, call: str) -> list[str]:
    line = prefix + call
    if len(line) <= WIDTH:
        return [line]
    head, _, rest = call.partition("(")
    return [f"{prefix}{head}(", f"    {rest[:-1]}", ")"]


def _exploded(prefix: str, value: Any, level: int, end: str) -> list[str]:
    pad = "    " * level
    one = f"{pad}{prefix}{_literal(value)}{end}"
    if len(one) <= WIDTH or not isinstance(value, (dict, list, tuple)) or not value:
        return [one]
    opening, closing = ("{", "}") if isinstance(value, dict) else ("[", "]") if isinstance(
        value, list) else ("(", ")")
    lines = [f"{pad}{prefix}{opening}"]
    items = value.items() if isinstance(value, dict) else ((None, v) for v in value)
    for k, v in items:
        lines += _exploded("" if k is None else f"{_literal(k)}: ", v, level + 1, ",")
    return lines + [f"{pad}{closing}{end}"]


def _literal(value: Any) -> str:
    if isinstance(value, _Raw):
        return str(value)
    if isinstance(value, str):
        return _string(value)
    if isinstance(value, bool) or value is None or isinstance(value, (int, float)):
        return repr(value)
    if isinstance(value, tuple):
        inner = ", ".join(_literal(v) for v in value)
        return f"({inner},)" if len(value) == 1 else f"({inner})"
    if isinstance(value, list):
        return "[" + ", ".join(_literal(v) for v in value) + "]"
    if isinstance(value, dict):
        return "{" + ", ".join(f"{_literal(k)}: {_literal(v)}" for k, v in value.items()) + "}"
    raise EditError(f"A config value of type {type(value).__name__} cannot be written as code.")


def _string(s: str) -> str:
    """A string literal with ruff's quotes: double, unless that needs more escapes."""
    if '"' in s and "'" not in s:
        return repr(s)  # Python picks single quotes here
    body = repr(s)[1:-1]
    if repr(s).startswith("'"):
        body = body.replace("\\'", "'").replace('"', '\\"')
    return f'"{body}"'
