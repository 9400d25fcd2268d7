"""The structure a model takes its inputs in and gives its outputs in, as JSON.

Keras accepts any nest of lists, tuples and dicts of tensors as a model's inputs and outputs
(`keras.Model({"1": i1, "others": {"2": i2}}, {"a": (y1, y2), "d": y3})`), dict keys that are
not the Inputs' names, and the same tensor in several places. A drawing keeps such a structure as
JSON whose leaves are positions: in the Inputs (creation order) or in the output ports
(`output_order`). Lists stay lists, tuples are {"__tuple__": [...]}, dicts are
{"__dict__": [[key, item], ...]} (Keras's own, sorted, key order).

Plain structures (one tensor, a flat list, a flat dict keyed by the Inputs' names) need none of
this: the drawing's `dict_inputs` / `output_keys` say those.
"""

from __future__ import annotations

from typing import Any

from ..errors import EditError

MAX_DEPTH = 16


def encoded(struct: Any, position) -> Any:
    """JSON for a Keras structure; position(leaf) is a leaf's index."""
    if isinstance(struct, dict):
        return {"__dict__": [[str(k), encoded(v, position)] for k, v in sorted(struct.items())]}
    if isinstance(struct, tuple):
        return {"__tuple__": [encoded(v, position) for v in struct]}
    if isinstance(struct, list):
        return [encoded(v, position) for v in struct]
    return position(struct)


def packed(doc: Any, leaves: list) -> Any:
    """The structure `doc` describes, with leaves[i] at each position i."""
    if isinstance(doc, dict) and "__dict__" in doc:
        return {k: packed(v, leaves) for k, v in doc["__dict__"]}
    if isinstance(doc, dict) and "__tuple__" in doc:
        return tuple(packed(v, leaves) for v in doc["__tuple__"])
    if isinstance(doc, list):
        return [packed(v, leaves) for v in doc]
    return leaves[doc]


def positions(doc: Any) -> list[int]:
    """The leaf positions a structure holds, in order."""
    found, todo = [], [doc]
    while todo:
        item = todo.pop()
        if isinstance(item, dict):
            inner = item.get("__dict__")
            todo.extend(reversed([v for _, v in inner]) if inner is not None
                        else reversed(item.get("__tuple__", [])))
        elif isinstance(item, list):
            todo.extend(reversed(item))
        else:
            found.append(item)
    return found


def checked(doc: Any, count: int, what: str) -> Any:
    """`doc` if it is a well-formed structure over positions 0..count-1 (each at least once)."""
    def walk(item, depth):
        if depth > MAX_DEPTH:
            raise EditError(f"The {what} structure is nested more than {MAX_DEPTH} deep.")
        if isinstance(item, dict):
            if set(item) == {"__dict__"} and isinstance(item["__dict__"], list) and all(
                    isinstance(p, list) and len(p) == 2 and isinstance(p[0], str)
                    for p in item["__dict__"]):
                keys = [p[0] for p in item["__dict__"]]
                if len(set(keys)) == len(keys):
                    for _, v in item["__dict__"]:
                        walk(v, depth + 1)
                    return
            elif set(item) == {"__tuple__"} and isinstance(item["__tuple__"], list):
                for v in item["__tuple__"]:
                    walk(v, depth + 1)
                return
            raise EditError(f"The {what} structure holds a malformed entry {item!r:.80}.")
        if isinstance(item, list):
            for v in item:
                walk(v, depth + 1)
        elif not (isinstance(item, int) and not isinstance(item, bool) and 0 <= item < count):
            raise EditError(f"The {what} structure names position {item!r:.40}; there are "
                            f"{count}.")

    walk(doc, 0)
    if set(positions(doc)) != set(range(count)):
        raise EditError(f"The {what} structure must hold each of its {count} tensors.")
    return doc


def fits(doc: Any, count: int) -> bool:
    """Whether a structure holds exactly positions 0..count-1."""
    return set(positions(doc)) == set(range(count))


def plain_inputs(struct, names: list[str]) -> bool:
    """Whether inputs are one tensor, a flat list or a flat dict keyed by the Inputs' names."""
    if isinstance(struct, dict):
        return all(not isinstance(v, (dict, list, tuple)) for v in struct.values()) and \
            [k for k in sorted(struct)] == sorted(names) and all(
                _name(v) == k for k, v in struct.items())
    if isinstance(struct, (list, tuple)):
        return all(not isinstance(v, (dict, list, tuple)) for v in struct)
    return True


def plain_outputs(struct) -> bool:
    """Whether outputs are one tensor, a flat list or a flat {str: tensor} dict."""
    items = struct.values() if isinstance(struct, dict) else struct if isinstance(
        struct, (list, tuple)) else [struct]
    return not isinstance(struct, tuple) and all(not isinstance(v, (dict, list, tuple))
                                                 for v in items)


def _name(tensor) -> str:
    return tensor._keras_history.operation.name
