"""The inspector's fields of one layer: what the live Keras layer's get_config() holds, key by key.

The form the browser draws is made from these, never from a catalog's guess of a class: one field
per key of `get_config()`, with the value exactly as Keras gives it (JSON-safe: tuples as lists,
anything not JSON-able as text), a kind for the form (bool, int, float, text, choice, list, shape,
object), and whether the kernel can check an edit of it through `Graph.configure` (`editable`),
with the reason when it cannot. The palette's schema only refines a field's kind and choices; the
current value is always among the choices, even when the catalog does not know it
("keras_hub>gelu_approximate").

A layer is named by its box's name, or by a path "outer/inner/..." to a layer inside a nested
model (Keras names cannot contain "/"). The inside of a nested model is read-only here, and a
nested model's own `layers` are summed up, not sent.
"""

from __future__ import annotations

import json
import math
from typing import Any

from ..kinds import catalog, custom, kinds, nested, ops

MAX_PATH_DEPTH = 32  # nested models inside nested models
MAX_VALUE_CHARS = 20_000  # a value longer than this as JSON is summed up, not sent
MODEL_GRAPH_KEYS = ("layers",)  # a nested model's inside: summed up (its inputs and outputs are sent)
FIELD_KINDS = ("bool", "int", "float", "text", "choice", "list", "shape", "object")
INPUT_SETS = ("batch_shape", "dtype")  # what an Input box's form sets (as shape and dtype)


class PathError(ValueError):
    """A name or path that names no layer of the drawing (the message names it)."""


def split_path(path: str) -> list[str]:
    """The names along a path "outer/inner/...": each one non-empty."""
    parts = path.split("/")
    if not path or any(not p for p in parts) or len(parts) > MAX_PATH_DEPTH:
        raise PathError(f"{path!r:.120} is not a layer path (names joined by '/', like "
                        f"'outer/inner').")
    return parts


def resolve(g: Any, path: str) -> tuple[Any, list[str]]:
    """(the live Keras layer `path` names, the names along the path); PathError naming the
    part that is missing."""
    parts = split_path(path)
    if parts[0] not in g.layers:
        raise PathError(f"There is no layer named {parts[0]!r:.80} in the drawing.")
    layer = g.keras_layer(parts[0])
    for i, part in enumerate(parts[1:], start=1):
        outer = "/".join(parts[:i])
        inner = {getattr(x, "name", None): x for x in getattr(layer, "layers", None) or []}
        if not inner:
            raise PathError(f"{outer!r:.120} is a {type(layer).__name__}, not a nested model: "
                            f"it has no layer {part!r:.80} inside.")
        if part not in inner:
            raise PathError(f"Nested model {outer!r:.120} has no layer named {part!r:.80}.")
        layer = inner[part]
    return layer, parts


def inspect_layer(g: Any, path: str) -> dict:
    """{name, class_name, path, inside (the nested model's path, or None), fields} of the layer
    `path` names: one field per key of its get_config()."""
    layer, parts = resolve(g, path)
    top = len(parts) == 1
    class_name = g.layers[parts[0]]["class_name"] if top else type(layer).__name__
    is_input = top and parts[0] in g.inputs
    config, problem = _config(g, layer, parts)
    kind = None if is_input else _kind(class_name)
    schema = {f["name"]: f for f in (_schema(kind) if kind is not None else [])}
    is_model = bool(getattr(layer, "layers", None)) and _is_model(layer)
    settable = _settable(kind) if top and not is_input else set()
    fields = []
    for key, raw in config.items():
        field = _field(key, raw, schema.get(key))
        if is_input and key == "batch_shape" and field["kind"] == "list":
            field["kind"] = "shape"  # set as the shape without its batch size
        if is_model and key in MODEL_GRAPH_KEYS:
            _summed(field, raw, f"the inside of nested model {parts[-1]!r}: expand its box to "
                               "see its layers")
        if problem is not None:
            field.update(editable=False, reason=problem)
        _set_editable(field, key, top, is_input, parts, settable, class_name, kind)
        fields.append(field)
    if top and kind is not None and isinstance(kind, ops.OpKind):  # the call's constants
        box = g.layers[parts[0]]["config"]
        for key in box:
            if key not in config:
                field = _field(key, box[key], schema.get(key))
                _set_editable(field, key, top, is_input, parts, settable, class_name, kind)
                field["source"] = "box"  # a constant of the call, kept with the box
                fields.append(field)
    return {"name": parts[-1], "path": "/".join(parts), "class_name": class_name,
            "inside": "/".join(parts[:-1]) or None, "is_input": is_input, "fields": fields,
            "problem": problem}


def _config(g: Any, layer: Any, parts: list[str]) -> tuple[dict, str | None]:
    """(the live layer's get_config(), None); where that raises, (the box's config, or nothing
    for an inner layer; why)."""
    try:
        config = layer.get_config()
        if not isinstance(config, dict):
            raise TypeError(f"it returned a {type(config).__name__}, not a dict")
        return config, None
    except Exception as e:  # noqa: BLE001 - a user class: what its get_config raises is shown
        why = f"get_config() of the live layer failed ({type(e).__name__}: {e!s:.200})"
        if len(parts) == 1:
            return dict(g.layers[parts[0]]["config"]), why + ": shown from the drawing"
        return {}, why


# ----- one field --------------------------------------------------------------------------------

def _field(key: str, raw: Any, spec: dict | None) -> dict:
    value, exact = json_safe(raw)
    field: dict[str, Any] = {"name": key, "value": value, "text": value_text(value),
                             "kind": "text", "editable": False, "reason": None}
    if not exact:
        field["reason"] = (f"not a JSON value (a Python {type(raw).__name__}), shown as text: "
                           "set it from Python with g.configure")
        field["not_json"] = True
        return field
    if len(json.dumps(value)) > MAX_VALUE_CHARS:
        _summed(field, value, "too long to show here: read it from Python "
                              "(g.keras_layer(name).get_config())")
        return field
    field["kind"] = _form(value, spec)
    if field["kind"] == "choice":
        choices = list(spec["choices"]) if spec and spec.get("choices") else []
        if value not in choices:
            choices.append(value)  # the live value, even when the catalog does not know it
        field["choices"] = choices
    return field


def _form(value: Any, spec: dict | None) -> str:
    """The form field kind for a value, refined by its schema entry (type, choices)."""
    typed = spec.get("type") if spec else None
    if spec and spec.get("choices") and (value is None or isinstance(value, (str, bool, int, float))
                                         or _serialized_function(value)):
        return "choice"
    if isinstance(value, bool):
        return "bool"
    if isinstance(value, int):
        return "float" if typed == "float" else "int"
    if isinstance(value, float):
        return "float"
    if isinstance(value, str):
        return "text"
    if isinstance(value, list):
        flat = all(v is None or isinstance(v, (int, float, str)) for v in value)
        return "list" if flat else "object"
    if value is None:
        return {"bool": "bool", "int": "int", "float": "float", "str": "text", "ints": "list",
                "shape": "shape"}.get(typed or "", "object")
    return "object"


def _summed(field: dict, value: Any, why: str) -> None:
    """A value not sent, summed up in its place (a nested model's layers, a long vocabulary)."""
    count = f"{len(value)} entries" if isinstance(value, (list, dict)) else "a long value"
    field.update(value=None, text=f"{count} (not shown)", kind="object", editable=False,
                 reason=why, omitted=True)


def _set_editable(field: dict, key: str, top: bool, is_input: bool, parts: list[str],
                  settable: set[str], class_name: str, kind: Any) -> None:
    if field.get("reason"):  # not JSON, or summed up
        return
    field["editable"], field["reason"] = False, _read_only(field, key, top, is_input, parts,
                                                           settable, class_name, kind)
    if field["reason"] is None:
        field["editable"] = True


def _read_only(field: dict, key: str, top: bool, is_input: bool, parts: list[str],
               settable: set[str], class_name: str, kind: Any) -> str | None:
    """Why the kernel cannot check an edit of this field from the form, or None when it can."""
    value = field["value"]
    if key == "trainable" and isinstance(value, bool) and not is_input:
        return None  # any box, and any layer inside a nested model: g.set_trainable(path, ...)
    if not top:
        return (f"a layer inside nested model {'/'.join(parts[:-1])!r}: the inside of a nested "
                "model is read-only")
    if key == "name":
        return "name: use rename (the name field, or Rename in the box's menu)"
    if key in ("lora_rank", "lora_alpha"):  # configure would make the layer again, untrained
        return "LoRA: switch it on with LoRA… in the box's menu (g.enable_lora(name, rank))"
    if is_input:
        return None if key in INPUT_SETS else "an Input box sets only its shape and dtype"
    if key == "dtype" and isinstance(value, dict):
        return "a dtype policy: set it from Python with g.configure(name, dtype=...)"
    if key not in settable:
        if isinstance(kind, nested.ModelKind):
            return "a nested model: only trainable can be set here"
        if isinstance(kind, custom.TrustedKind):
            return f"{class_name} is a trusted object: only trainable can be set here"
        if key in _init_arguments(kind):
            return "not set from the form: set it from Python with g.configure"
        return (f"not an argument of {class_name}.__init__ (Keras keeps it in the config): set "
                "it from Python with g.configure")
    if field["kind"] == "choice":
        return None  # each choice is plain JSON (the live value too, sent back as it is)
    if _serialized(value):
        what = value.get("class_name") or "object"
        return (f"a serialized {what} (a Keras object): edit it from Python with g.configure")
    return None


# ----- values -----------------------------------------------------------------------------------

def json_safe(value: Any, depth: int = 0) -> tuple[Any, bool]:
    """(the value as JSON holds it: tuples as lists, NumPy scalars as numbers; whether it was
    JSON already); anything else becomes its text, and the flag False."""
    if depth > 64:
        return repr(value)[:200], False
    if value is None or isinstance(value, (bool, str)):
        return value, True
    if isinstance(value, int):
        return int(value), True
    if isinstance(value, float):
        return (value, True) if math.isfinite(value) else (repr(value), False)
    if isinstance(value, (list, tuple)):
        items = [json_safe(v, depth + 1) for v in value]
        return [v for v, _ in items], all(ok for _, ok in items)
    if isinstance(value, dict) and all(isinstance(k, str) for k in value):
        items = {k: json_safe(v, depth + 1) for k, v in value.items()}
        return {k: v for k, (v, _) in items.items()}, all(ok for _, ok in items.values())
    item = getattr(value, "item", None)  # a NumPy scalar
    if callable(item) and getattr(value, "shape", None) == ():
        try:
            return json_safe(item(), depth + 1)
        except (TypeError, ValueError):
            pass
    return repr(value)[:MAX_VALUE_CHARS], False


def value_text(value: Any) -> str:
    """A short text for a value: None, a number, a list "3, 3", a serialized function by its
    registered name, a serialized object by its class and config."""
    if value is None:
        return "None"
    if isinstance(value, bool):
        return "True" if value else "False"
    if isinstance(value, str):
        return value
    if _serialized_function(value):
        return str(value["config"])
    if isinstance(value, list) and all(v is None or isinstance(v, (int, float, str)) for v in value):
        return ", ".join("None" if v is None else str(v) for v in value)
    if _serialized(value):
        inner = value.get("config")
        if isinstance(inner, dict) and set(inner) == {"name"}:  # a dtype policy
            return f"{value['class_name']}({inner['name']})"
        return f"{value['class_name']} {json.dumps(inner)}" if inner else str(value["class_name"])
    return json.dumps(value)


def _serialized(value: Any) -> bool:
    return isinstance(value, dict) and isinstance(value.get("class_name"), str)


def _serialized_function(value: Any) -> bool:
    return (_serialized(value) and value.get("class_name") == "function"
            and isinstance(value.get("config"), str))


# ----- kinds ------------------------------------------------------------------------------------

def _kind(class_name: str) -> Any:
    try:
        return kinds.get(class_name)
    except (ValueError, TypeError):
        return None


def _schema(kind: Any) -> list[dict]:
    try:
        return list(kind.schema())
    except (ValueError, TypeError, AttributeError):
        return []


def _is_model(layer: Any) -> bool:
    import keras

    return isinstance(layer, keras.Model)


def _settable(kind: Any) -> set[str]:
    """The config keys `Graph.configure` can take for a box of this kind."""
    if kind is None:
        return set()
    if isinstance(kind, (nested.ModelKind, custom.TrustedKind)):
        return {"trainable"}
    if isinstance(kind, ops.OpKind):
        return {p.name for p in kind.init + kind.call_params}
    return (_init_arguments(kind) | {"trainable"}) - catalog.HIDDEN


def _init_arguments(kind: Any) -> set[str]:
    cls = getattr(kind, "cls", None)
    return set() if cls is None or isinstance(kind, ops.OpKind) else set(custom.init_arguments(cls))
