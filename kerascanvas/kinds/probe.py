"""Whether a layer remade from its config behaves as the original: the same weights (their names
inside the layer and their shapes) and, holding the original's values, the same outputs on a
probe batch shaped like the original's first call. A config can look the same and still lose
something (an argument get_config leaves out that sets a weight's size or scales the output):
import then keeps the original object (kinds/custom.py, describable).
"""

from __future__ import annotations

from typing import Any

import numpy as np

PROBE_BATCH = 2  # rows; each unknown size of the call's inputs becomes this too


def behaves_the_same(layer: Any, again: Any) -> bool:
    """True when `again` (made from `layer`'s config, not built) has `layer`'s weights and
    outputs; True too when `layer` was never called (nothing to compare but its config) or a
    probe batch cannot be made for its call (its config alone decides)."""
    import keras

    nodes = getattr(layer, "_inbound_nodes", None)
    if not getattr(layer, "built", False) or not nodes:
        return True
    try:
        args, kwargs = keras.tree.map_structure(_probe, (nodes[0].arguments.args,
                                                         nodes[0].arguments.kwargs))
        want = layer(*args, **kwargs)
    except Exception:  # noqa: BLE001 - a call the probe cannot make: the config decides
        return True
    try:
        got = again(*args, **kwargs)  # builds it as the probe's shapes say
        if _weights(again) != _weights(layer):
            return False
        again.set_weights(layer.get_weights())
        got = again(*args, **kwargs)
        want, got = keras.tree.flatten(want), keras.tree.flatten(got)
        return len(want) == len(got) and all(
            np.allclose(keras.ops.convert_to_numpy(a), keras.ops.convert_to_numpy(b),
                        rtol=1e-5, atol=1e-6) for a, b in zip(want, got))
    except Exception:  # noqa: BLE001 - the remade layer cannot do what the original did
        return False


def _weights(layer: Any) -> list[tuple[str, tuple]]:
    """(name, shape) of each weight, in order (a path depends on where a sublayer was built,
    which differs between backends)."""
    return [(w.name, tuple(w.shape)) for w in layer.weights]


def _probe(value: Any) -> Any:
    """A symbolic tensor of the first call as a small array of its shape and dtype (ones for
    integers and booleans: token id 1 and a mask of ones stay valid); anything else as it was."""
    import keras

    if not isinstance(value, keras.KerasTensor):
        return value
    shape = tuple(PROBE_BATCH if d is None else d for d in value.shape)
    dtype = keras.backend.standardize_dtype(value.dtype)
    if "int" in dtype or dtype == "bool":
        return np.ones(shape, dtype)
    return np.random.default_rng(0).normal(size=shape).astype(dtype)
