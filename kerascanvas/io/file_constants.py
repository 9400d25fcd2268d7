"""Array constants of a drawing's configs (the mean of `x - mean`, ops.py's {"__array__": [dtype,
shape, values]}) in a saved file: written to the weights archive as arrays, the config naming
each by its entry ("c<i>_<k>"), and read back, checked, before the drawing is built from the
configs (storage.py). Also how the archive's arrays are read: header first, then values.
"""

from __future__ import annotations

import io
import math
import zipfile

import numpy as np

from .. import limits
from ..errors import EditError


def read_array(w: zipfile.ZipFile, info: zipfile.ZipInfo, where: str) -> np.ndarray:
    """One array of the weights archive, its header checked against the bytes stored for it
    before numpy allocates it."""
    with w.open(info) as f:
        version = np.lib.format.read_magic(f)
        read = (np.lib.format.read_array_header_1_0 if version == (1, 0)
                else np.lib.format.read_array_header_2_0)
        shape, _, dtype = read(f)
        limits.check_array(shape, dtype, info.file_size, f"{where}: {info.filename}")
    with w.open(info) as f:
        return np.lib.format.read_array(f, allow_pickle=False)


def constants_apart(config: dict, prefix: str, arrays: dict) -> dict:
    """A config whose array constants ({"__array__": [dtype, shape, values]}) are put in
    `arrays` as arrays, the config naming each by its entry: the values as numbers, not text."""
    def apart(value):
        if isinstance(value, dict):
            inner = value.get("__array__") if len(value) == 1 else None
            if isinstance(inner, list) and len(inner) == 3 and isinstance(inner[2], list):
                entry = f"{prefix}_{len([k for k in arrays if k.startswith(prefix + '_')])}"
                arrays[entry] = np.asarray(inner[2], dtype=inner[0]).reshape(inner[1])
                return {"__array__": [inner[0], inner[1], entry]}
            return {k: apart(v) for k, v in value.items()}
        if isinstance(value, list):
            return [apart(v) for v in value]
        return value
    return apart(config)


def _named_constants(document: dict):
    """(layer index, the [dtype, shape, entry] list) of each array constant a file's configs
    name by entry, wherever in a config it stands."""
    for i, layer in enumerate(document["layers"]):
        todo = [layer["config"]]
        while todo:
            value = todo.pop()
            if isinstance(value, dict):
                inner = value.get("__array__") if len(value) == 1 else None
                if isinstance(inner, list) and len(inner) == 3 and isinstance(inner[2], str):
                    yield i, inner
                else:
                    todo.extend(value.values())
            elif isinstance(value, list):
                todo.extend(value)


def _constant_budgets(document: dict) -> dict[str, int]:
    """{entry: bytes} of the array constants the configs name: each as its stated dtype and
    shape take (at most limits.CONSTANT_VALUES values), plus room for its header."""
    from ..kinds import ops

    budgets = {}
    for i, (dtype, shape, entry) in _named_constants(document):
        if not (entry.startswith(f"c{i}_") and dtype in ops.ARRAY_DTYPES
                and isinstance(shape, list) and all(type(n) is int and n >= 0 for n in shape)
                and math.prod(shape) <= limits.CONSTANT_VALUES):
            raise EditError(f"{document['layers'][i]['name']!r}'s config names an array "
                            f"constant {[dtype, shape, entry]!r:.120}: it must be [dtype, shape, "
                            f"'c{i}_<k>'] with a dtype among {', '.join(ops.ARRAY_DTYPES)} and "
                            f"at most {limits.CONSTANT_VALUES:,} values.")
        budgets[f"{entry}.npy"] = math.prod(shape) * limits.itemsize(dtype) + 1024
    return budgets


def constants_back(z: zipfile.ZipFile, document: dict, where: str) -> dict[str, int]:
    """Each array constant a config names by entry gets its values back from the weights
    archive (before the drawing is built from the configs), checked: the entry is there, and
    its dtype and shape are the ones the config states. Returns the entries' budgets."""
    budgets = _constant_budgets(document)
    if not budgets:
        return budgets
    buffer = io.BytesIO(z.read("weights.npz"))
    limits.check_entries(buffer, f"{where}'s weights", "weight_arrays")
    with zipfile.ZipFile(buffer) as w:
        found = {info.filename: info for info in w.infolist()}
        for i, inner in _named_constants(document):
            dtype, shape, entry = inner
            info = found.get(f"{entry}.npy")
            if info is None:
                raise EditError(f"{where}: array constant {entry!r} of "
                                f"{document['layers'][i]['name']!r} is not in its weights.")
            limits.check_inflated(where, info.filename, info.file_size, budgets[info.filename])
            value = read_array(w, info, where)
            if str(value.dtype) != dtype or list(value.shape) != shape:
                raise EditError(f"{where}: array constant {entry!r} of "
                                f"{document['layers'][i]['name']!r} is {value.dtype} "
                                f"{list(value.shape)}, but its config says {dtype} {shape}.")
            inner[2] = value.ravel().tolist()
    return budgets
