"""Quantization: `layer.quantize(mode)` on a box, or on every box that takes it (as
`model.quantize(mode)` does for a whole model).

Keras quantizes built Dense, EinsumDense and Embedding layers ("int8", "int4"; Dense and
EinsumDense "float8" too): the kernel is replaced by a quantized one and the layer's dtype policy
becomes a quantized one ("int8_from_float32"), which its config says, so files and an import keep
it. Keras cannot undo it, so, as LoRA does (graph/lora.py), the box's live layer is replaced in
one undo step by a layer made from its quantized config holding the weights of a quantized copy
(made from its config with its weights); undo puts the old layer object back untouched. A pending
box holds no weights to quantize: Keras refuses an unbuilt layer, and so does this.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from ..errors import EditError
from ..kinds import kinds
from ..network.flags import QUANTIZE_MODES, quantization_mode, quantize_modes
from ..network.network import Network
from .history import History


def quantize(g: Any, history: History, network: Network, name: str | None, mode: str) -> list[str]:
    """See Graph.quantize."""
    history.check_unlocked()
    if not isinstance(mode, str) or mode not in QUANTIZE_MODES:
        raise EditError(f"A quantization mode is one of {', '.join(QUANTIZE_MODES)}, got "
                        f"{mode!r:.40} (Keras's gptq and awq need calibration data).")
    if name is None:
        names = [n for n in g.layers if mode in quantize_modes(network.objects.get(n))
                 and network.made_from.get(n) is history.editing.spec(n).config]
        if not names:
            raise EditError(f"No box of the drawing can be quantized to {mode}: Keras quantizes "
                            "built Dense, EinsumDense and Embedding layers not quantized yet.")
    else:
        _check_takes(g, history, network, name, mode)
        names = [name]
    copies = {n: _quantized_copy(history.editing.spec(n), network.objects[n], mode)
              for n in names}

    def change(d) -> None:
        for n, copy in copies.items():
            spec_now = d.spec(n)
            config = {**spec_now.config, "dtype": copy.get_config()["dtype"]}
            network.prepare(n, config, copy, built=True)  # the rebuild calls the copy
            d.replace_spec(replace(spec_now, config=config))

    history.edit(change)
    return names


def _check_takes(g: Any, history: History, network: Network, name: Any, mode: str) -> None:
    """Refuses a name that is no box, or a box whose layer cannot be quantized to `mode` now."""
    if not isinstance(name, str) or name not in g.layers:
        raise EditError(f"There is no layer named {name!r:.80} in the drawing.")
    spec = history.editing.spec(name)
    live = network.objects.get(name)
    if live is None or network.made_from.get(name) is not spec.config or not live.built:
        raise EditError(f"{name} holds no weights yet (it is pending, or changed in this "
                        "batch): Keras quantizes built layers: connect it first.", layer=name)
    done = quantization_mode(live)
    if done is not None:
        raise EditError(f"{name} is quantized already ({live.dtype_policy.name}); Keras "
                        "quantizes a layer once: undo that step to choose another mode.",
                        layer=name)
    modes = quantize_modes(live)
    if mode not in modes:
        why = (f"Keras quantizes it to {' or '.join(modes)} only" if modes else
               "Keras quantizes Dense, EinsumDense and Embedding layers")
        raise EditError(f"{name} is a {type(live).__name__}, which cannot be quantized to "
                        f"{mode}: {why}.", layer=name)


def _quantized_copy(spec: Any, live: Any, mode: str) -> Any:
    """A new layer made from the box's config, built as the live one is, holding its weights,
    quantized to `mode` (the live layer stays as it is, for undo)."""
    try:
        copy = kinds.get(spec.class_name).create(dict(spec.config))
        if not copy.built:
            copy.build_from_config(live.get_build_config())
        copy.set_weights(live.get_weights())
        copy.quantize(mode)
    except Exception as e:  # Keras's own reason
        raise EditError(f"Keras refused to quantize {spec.name} to {mode}: {e}",
                        layer=spec.name) from e
    return copy
