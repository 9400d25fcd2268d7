"""The sample the forward-pass view feeds a model, made to mean something for each input, and
what was fed, in words the player shows.

Random floats everywhere made a KerasHub backbone's token ids all 0 or 1 and its padding mask
all zeros (nothing attended to): the values shown meant nothing. Each input is given what its
kind of model expects: token ids within the vocabulary of the embedding that reads them, a
padding mask of ones over the whole length, segment ids of zeros, an image with a pattern in it.
"""

from __future__ import annotations

from typing import Any

import numpy as np

LENGTH = 8  # a sequence axis of unknown length gets this many positions
SIDE = 32  # an image axis of unknown size
VOCABULARY = 10  # token ids when no embedding says how many there are


def forward_sample(model, data: Any = None) -> tuple[Any, dict[str, str]]:
    """(sample, {input name: what it was fed}) for `model`: the first sample of the training
    data when there is some, else one made for each input."""
    names = [t._keras_history[0].name for t in model.inputs]
    x = data[0] if data else None
    if isinstance(x, np.ndarray):
        return x[:1], {names[0]: "the first sample of the training data"}
    if isinstance(x, (list, tuple)) and len(x) == len(names) and \
            all(isinstance(a, np.ndarray) for a in x):
        return [a[:1] for a in x], {n: "the first sample of the training data" for n in names}
    if isinstance(x, dict) and set(x) == set(names) and \
            all(isinstance(a, np.ndarray) for a in x.values()):
        first = [x[n][:1] for n in names]
        return (first if len(first) > 1 else first[0]), \
            {n: "the first sample of the training data" for n in names}
    rng = np.random.default_rng(0)
    sample, fed = [], {}
    for tensor, name in zip(model.inputs, names):
        value, fed[name] = _made_for(model, tensor, name, rng)
        sample.append(value)
    return (sample if len(sample) > 1 else sample[0]), fed


def _made_for(model, tensor, name: str, rng) -> tuple[np.ndarray, str]:
    dtype = np.dtype(tensor.dtype)
    integral = dtype.kind in "iub"
    long = [LENGTH if d is None else d for d in tensor.shape[1:]]
    lowered = name.lower()
    if integral and "mask" in lowered:
        return np.ones((1, *long), dtype), f"a mask of ones over all {_size(long)} positions"
    if integral and "segment" in lowered:
        return np.zeros((1, *long), dtype), "segment ids of zeros (one segment)"
    if integral:
        vocabulary = _vocabulary(model, tensor)
        high = vocabulary or VOCABULARY
        ids = rng.integers(1 if high > 1 else 0, high, (1, *long)).astype(dtype)
        where = f"the vocabulary of {vocabulary:,}" if vocabulary else "no embedding says how many"
        return ids, f"token ids 1..{high - 1} ({where}), {_size(long)} long"
    if len(tensor.shape) == 4:  # (batch, height, width, channels)
        h, w, c = (SIDE if d is None else d for d in tensor.shape[1:])
        return _pattern(h, w, c).astype(dtype), f"an image {h}x{w}x{c}: a bright disc on a ramp"
    return rng.random((1, *long)).astype(dtype), "random values in [0, 1)"


def _size(shape: list[int]) -> str:
    return "x".join(map(str, shape))


def _pattern(h: int, w: int, c: int) -> np.ndarray:
    """A fixed picture with structure to see in the feature maps: a ramp and a disc."""
    y, x = np.mgrid[0:h, 0:w].astype("float32")
    ramp = (x + y) / max(h + w - 2, 1)
    disc = ((y - h / 2) ** 2 + (x - w / 2) ** 2) <= (min(h, w) / 4) ** 2
    image = np.where(disc, 1.0, 0.5 * ramp)
    return np.repeat(image[None, :, :, None], c, axis=-1)


def _vocabulary(model, tensor) -> int | None:
    """The number of ids the first embedding reading `tensor` takes (inside nested models too)."""
    for op, node in _consumers(model, tensor):
        for attribute in ("input_dim", "vocabulary_size"):
            size = getattr(op, attribute, None)
            if isinstance(size, int) and size > 0:
                return size
        inner_inputs = getattr(op, "inputs", None)
        if isinstance(inner_inputs, list) and op is not model:  # a nested model: follow inside
            flat = node.input_tensors
            position = next(i for i, t in enumerate(flat) if t is tensor)
            if position < len(inner_inputs):
                found = _vocabulary(op, inner_inputs[position])
                if found:
                    return found
    return None


def _consumers(model, tensor):
    for op in model.operations:
        for node in op._inbound_nodes:
            if any(t is tensor for t in node.input_tensors):
                yield op, node
