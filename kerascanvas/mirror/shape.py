"""The shape of the state the browser mirrors, read from its one description (state.json), which
the front end's types are generated from too (js/src/mirror/statetypes.ts): the fields of a layer's
entry, a box's view row, an edge and the drawing-wide values. state.py and diffs.py build their
entries and rows from these lists; `check_state` / `check_diff` say where a state or a diff
departs from the description (the tests check the kernel's own output and the shared fixtures
with them; js/src/mirror/shape.ts checks the same fixtures)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

DESCRIPTION = Path(__file__).with_name("state.json")
_D = json.loads(DESCRIPTION.read_text(encoding="utf-8"))

VERSION: int = _D["version"]
TYPES: dict[str, dict] = _D["types"]
LAYER_FIELDS: tuple[str, ...] = tuple(_D["layer"]["fields"])
VIEW_ROW: tuple[str, ...] = tuple(_D["view"]["row"])  # a diff's view row, in this order
BOX_FIELDS: tuple[str, ...] = tuple(f for f in VIEW_ROW if f != "level")  # on a full state's layer
EDGE_FIELDS: tuple[str, ...] = tuple(_D["edge"]["fields"])
DRAWING_FIELDS: tuple[str, ...] = tuple(_D["drawing"]["fields"])
DRAWING_EMPTY: dict[str, Any] = _D["drawing"]["empty"]

_LAYER_KEYS = frozenset(LAYER_FIELDS)


class Departure(ValueError):
    """Where a state or a diff departs from the description."""

_EDGE_KEYS = frozenset(EDGE_FIELDS)


def layer_entry(entry: dict) -> dict:
    """`entry` itself, once it has exactly the described fields of a layer's entry."""
    if entry.keys() != _LAYER_KEYS:
        raise RuntimeError(f"a layer entry departs from state.json: {sorted(entry.keys() ^ _LAYER_KEYS)}")
    return entry


def edge_entry(entry: dict) -> dict:
    if entry.keys() != _EDGE_KEYS:
        raise RuntimeError(f"an edge entry departs from state.json: {sorted(entry.keys() ^ _EDGE_KEYS)}")
    return entry


def full_state(version: int, layers: list, edges: list, drawing: dict) -> dict:
    """A full state from its parts (`drawing`: at least the drawing-wide values)."""
    return {"version": version, **{f: drawing[f] for f in DRAWING_FIELDS}, "layers": layers,
            "edges": edges}


def too_big(state: dict, why: str) -> dict:
    """What is sent instead of `state` when it is too big to send: its drawing-wide values, no
    layers or edges, no model, one problem saying why."""
    stub = {**DRAWING_EMPTY, **{f: state[f] for f in DRAWING_FIELDS}, "version": state["version"],
            "layers": [], "edges": [], "model": None, "too_big": True,
            "problems": [{"message": why, "layer": None, "call": None, "slot": None}]}
    stub["name"] = stub["name"].encode("utf-8", "replace").decode()
    if "revision" in state:
        stub["revision"] = state["revision"]
    return stub


# ----- checks against the description (js/src/mirror/shape.ts makes the same ones) ----------------------

def check_state(state: Any) -> None:
    """Departure (a ValueError) naming the first place where `state` departs from the description."""
    _fields(state, {**_D["full"]["fields"], **_D["drawing"]["fields"]}, "state",
            {"layers": _check_layers, "edges": _check_edges})


def check_diff(diff: Any) -> None:
    """Departure (a ValueError) naming the first place where `diff` departs from the description."""
    own = {**_D["diff"]["fields"], **{f"{f}?": t for f, t in _D["drawing"]["fields"].items()},
           "layers?": "keyed layers", "edges?": "keyed edges", "view?": "view rows"}
    _fields(diff, own, "diff", {"layers": lambda v, w: _check_keyed(v, w, _D["layer"], "name"),
                                "edges": lambda v, w: _check_keyed(v, w, _D["edge"], "target"),
                                "view": _check_rows})


def _fields(value: Any, fields: dict[str, str], where: str, special: dict | None = None) -> None:
    if not isinstance(value, dict):
        raise Departure(f"{where} must be an object, got {value!r:.80}")
    optional = {f[:-1] for f in fields if f.endswith("?")}
    names = {f.rstrip("?"): t for f, t in fields.items()}
    for f in names:
        if f not in value and f not in optional:
            raise Departure(f"{where} lacks {f!r}")
    for f, v in value.items():
        if f not in names:
            raise Departure(f"{where} has {f!r}, which state.json does not describe")
        if special and f in special:
            special[f](v, f"{where}.{f}")
        else:
            check_value(v, names[f], f"{where}.{f}")


def check_value(value: Any, type_name: str, where: str) -> None:
    if type_name.endswith("?"):
        if value is None:
            return
        type_name = type_name[:-1]
    spec = TYPES[type_name]
    form = spec["is"]
    ok = {"text": lambda v: isinstance(v, str),
          "int": lambda v: isinstance(v, int) and not isinstance(v, bool),
          "number": lambda v: isinstance(v, (int, float)) and not isinstance(v, bool),
          "bool": lambda v: isinstance(v, bool),
          "object": lambda v: isinstance(v, dict),
          "record": lambda v: isinstance(v, dict),
          "map": lambda v: isinstance(v, dict),
          "list": lambda v: isinstance(v, list),
          "tuple": lambda v: isinstance(v, list) and len(v) == len(spec["of"])}[form](value)
    if not ok or ("one_of" in spec and value not in spec["one_of"]):
        raise Departure(f"{where} must be a {type_name} ({form}), got {value!r:.80}")
    if form == "list":
        for i, item in enumerate(value):
            check_value(item, spec["of"], f"{where}[{i}]")
    elif form == "tuple":
        for item, (name, t) in zip(value, spec["of"].items(), strict=True):
            check_value(item, t, f"{where}.{name}")
    elif form == "map":
        for k, item in value.items():
            check_value(item, spec["of"], f"{where}[{k!r}]")
    elif form == "record":
        _fields(value, spec["fields"], where)


def _check_layers(layers: Any, where: str) -> None:
    if not isinstance(layers, list):
        raise Departure(f"{where} must be a list")
    fields = {**_D["layer"]["fields"], **{f: t for f, t in _D["view"]["row"].items() if f != "level"},
              "depth": _D["view"]["depth"]}
    for i, layer in enumerate(layers):
        _fields(layer, fields, f"{where}[{i}]")


def _check_edges(edges: Any, where: str) -> None:
    if not isinstance(edges, list):
        raise Departure(f"{where} must be a list")
    for i, edge in enumerate(edges):
        _fields(edge, _D["edge"]["fields"], f"{where}[{i}]")


def _check_rows(rows: Any, where: str) -> None:
    if not isinstance(rows, dict):
        raise Departure(f"{where} must be an object")
    row = _D["view"]["row"]
    for name, values in rows.items():
        if not isinstance(values, list) or len(values) != len(row):
            raise Departure(f"{where}[{name!r}] must be a list of {len(row)}: {', '.join(row)}")
        for v, (f, t) in zip(values, row.items(), strict=True):
            check_value(v, t, f"{where}[{name!r}].{f}")


def _check_keyed(change: Any, where: str, part: dict, key_type: str) -> None:
    key = part["key"]
    _fields(change, {"removed?": "_", "set?": "_", "patch?": "_", "insert?": "_", "order?": "_"},
            where, {k: lambda v, w: None for k in ("removed", "set", "patch", "insert", "order")})
    for k in ("removed", "order"):
        for i, item in enumerate(change.get(k, [])):
            check_value(item, key_type, f"{where}.{k}[{i}]")
    for i, item in enumerate(change.get("insert", [])):
        if not (isinstance(item, list) and len(item) == 2):
            raise Departure(f"{where}.insert[{i}] must be [index, key]")
        check_value(item[0], "count", f"{where}.insert[{i}].index")
        check_value(item[1], key_type, f"{where}.insert[{i}].key")
    for i, entry in enumerate(change.get("set", [])):
        _fields(entry, part["fields"], f"{where}.set[{i}]")
    for i, entry in enumerate(change.get("patch", [])):
        fields = {f if f == key else f"{f}?": t for f, t in part["fields"].items()}
        _fields(entry, fields, f"{where}.patch[{i}]")
