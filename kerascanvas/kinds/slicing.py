"""Slicing (`x[:, 0]`, keras.ops.get_item) as a box: its key kept as plain data.

Keras records `x[:, 0, 1:3]` as a GetItem call whose key is a tuple of slices, integers, None
(a new axis) and Ellipsis. A box's config holds constants as plain values only, so the key is
kept as a list of items, each an int, None, "..." or a slice written as Python writes it
("1:3", ":", "::2"); `decode` gives the key back and `source` the code (`x[:, 0, 1:3]`).
"""

from __future__ import annotations

import re
from typing import Any

from ..errors import EditError

_SLICE = re.compile(r"^(-?\d{1,12})?:(-?\d{1,12})?(?::(-?\d{1,12})?)?$")
MAX_ITEMS = 32


def encode(key: Any, where: str) -> Any:
    """A GetItem key as plain data (a list for a tuple key; a model made from its config holds
    the tuple as a list)."""
    if isinstance(key, (tuple, list)):
        if len(key) > MAX_ITEMS:
            raise EditError(f"{where}: a key of more than {MAX_ITEMS} items.")
        return [_encode_item(k, where) for k in key]
    return _encode_item(key, where)


def _encode_item(item: Any, where: str) -> Any:
    if item is None or (type(item) is int):
        return item
    if item is Ellipsis:
        return "..."
    if isinstance(item, slice) and all(v is None or type(v) is int
                                       for v in (item.start, item.stop, item.step)):
        text = f"{_num(item.start)}:{_num(item.stop)}"
        return text + (f":{item.step}" if item.step is not None else "")
    raise EditError(f"{where} slices with {type(item).__name__} {item!r:.60}, which a drawing "
                    "cannot hold (integers, slices of integers, None and ... can).")


def _num(value) -> str:
    return "" if value is None else str(value)


def decode(value: Any, where: str = "A slicing key") -> Any:
    """The key Keras takes back from its plain form (EditError for anything else)."""
    if isinstance(value, list):
        if len(value) > MAX_ITEMS:
            raise EditError(f"{where}: a key of more than {MAX_ITEMS} items.")
        return tuple(_decode_item(v, where) for v in value)
    return _decode_item(value, where)


def _decode_item(item: Any, where: str) -> Any:
    if item is None or type(item) is int:
        return item
    if item == "...":
        return Ellipsis
    match = _SLICE.match(item) if isinstance(item, str) else None
    if match is None:
        raise EditError(f"{where}: a key item is an int, None, '...' or a slice such as '1:3', "
                        f"got {item!r:.60}.")
    start, stop, step = (None if g is None else int(g) for g in match.groups())
    return slice(start, stop, step)


def source(tensor: str, value: Any) -> str:
    """`x[:, 0]` for a tensor's identifier and a key in its plain form."""
    decode(value)  # (checked)
    items = value if isinstance(value, list) else [value]
    text = ", ".join("None" if v is None else str(v) for v in items)
    if isinstance(value, list) and len(value) == 1:
        text += ","
    return f"{tensor}[{text}]"


def literal(value: Any) -> str:
    """The key as a Python expression (`(slice(None, None, None), 0)`)."""
    key = decode(value)
    items = key if isinstance(key, tuple) else (key,)
    text = ", ".join("..." if k is Ellipsis else repr(k) for k in items)
    return f"({text},)" if isinstance(key, tuple) and len(items) == 1 else (
        f"({text})" if isinstance(key, tuple) else text)
