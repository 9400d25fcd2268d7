"""LoRA: `layer.enable_lora(rank)` on a box or on a layer inside a nested model ("outer/inner").

Keras offers it on Dense, EinsumDense and Embedding (and their subclasses, a KerasHub
ReversibleEmbedding): two small trainable matrices next to a kernel that stops training; the
layer's config says `lora_rank` (and `lora_alpha`), and a layer made from that config has LoRA
on once built. So the box's config gets those keys (the nested model's config at the path), and
the box's live layer is replaced, in one undo step, by a copy made from its config with its
weights, LoRA enabled on the copy; the rebuild calls the copy where the live layer was. Keras has
no disable_lora: undo puts the old layer object back, untouched (the step's journal), and redo
the copy, each with its exact weights. A box still pending holds no weights: only its config
changes, and Keras enables LoRA when it builds the layer.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from ..drawing.drawing import Drawing
from ..errors import EditError
from ..kinds import kinds, ops
from ..kinds.nested import with_lora_at
from ..mirror.fields import PathError, resolve, split_path
from ..network.flags import inner_layer, lora_targets
from ..network.network import Network
from .history import History

MAX_RANK = 4096  # a rank from the browser is untrusted: LoRA's matrices grow with it


def enable_lora(g: Any, history: History, network: Network, name: str, rank: int) -> None:
    """See Graph.enable_lora."""
    history.check_unlocked()
    if isinstance(rank, bool) or not isinstance(rank, int) or not 1 <= rank <= MAX_RANK:
        raise EditError(f"A LoRA rank is a whole number from 1 to {MAX_RANK}, got {rank!r:.40}.")
    try:
        parts = split_path(name) if isinstance(name, str) else None
    except PathError as e:
        raise EditError(str(e)) from None
    if parts is None:
        raise EditError(f"enable_lora takes a layer name or path (a string), got {name!r:.80}.")
    top = parts[0]
    if top not in g.layers:
        raise EditError(f"There is no layer named {top!r:.80} in the drawing.")
    spec = history.editing.spec(top)
    if spec.is_input or isinstance(kinds.get(spec.class_name), ops.OpKind):
        raise EditError(f"{top} is {'an Input' if spec.is_input else 'a keras.ops operation'}: "
                        "it holds no weights to take LoRA.", layer=top)
    try:
        target, _ = resolve(g, name)
    except PathError as e:
        raise EditError(str(e), layer=top) from None
    _check_takes_lora(name, target)
    live = network.objects.get(top)
    if network.made_from.get(top) is not spec.config:  # pending, or changed earlier in a batch:
        live = None  # made from the new config when called
    copy = _copy_with_lora(spec, live, parts[1:], rank) if live is not None else None
    alpha = inner_layer(copy, parts[1:]).lora_alpha if copy is not None else rank

    def change(d: Drawing) -> None:
        spec_now = d.spec(top)
        if len(parts) > 1:
            config = with_lora_at(spec_now.config, parts[1:], rank, alpha)
        else:
            config = {**spec_now.config, "lora_rank": rank, "lora_alpha": alpha}
        if copy is not None:  # the rebuild calls the copy instead of making the layer again
            network.prepare(top, config, copy, built=True)
        d.replace_spec(replace(spec_now, config=config))

    history.edit(change)


def _check_takes_lora(path: str, layer: Any) -> None:
    """Refuses a layer Keras cannot enable LoRA on, or one that has it already."""
    if not callable(getattr(layer, "enable_lora", None)) or not hasattr(layer, "lora_enabled"):
        inside = lora_targets(layer)
        hint = (f" Inside it these can: {', '.join(path + '/' + p for p in inside[:6])}"
                f"{', ...' if len(inside) > 6 else ''}." if inside else "")
        raise EditError(f"{path} is a {type(layer).__name__}, which has no enable_lora: Keras "
                        f"offers LoRA on Dense, EinsumDense and Embedding layers.{hint}",
                        layer=path.split("/")[0])
    if layer.lora_enabled:
        raise EditError(f"{path} has LoRA already (rank {layer.lora_rank}); Keras enables it "
                        "once per layer: undo that step to choose another rank.",
                        layer=path.split("/")[0])
    if getattr(layer, "kernel_constraint", None) is not None:
        raise EditError(f"{path} has a kernel_constraint, which Keras's LoRA cannot keep: remove "
                        "the constraint first.", layer=path.split("/")[0])


def _copy_with_lora(spec: Any, live: Any, path: list[str], rank: int) -> Any:
    """A new layer made from the box's config, built as the live one is, holding its weights,
    with LoRA enabled at `path` inside it (the live layer stays as it is, for undo)."""
    try:
        copy = kinds.get(spec.class_name).create(dict(spec.config))
        if not copy.built:
            copy.build_from_config(live.get_build_config())
        copy.set_weights(live.get_weights())
        inner_layer(copy, path).enable_lora(rank)
    except EditError:
        raise
    except Exception as e:  # Keras's own reason (a quantized kernel, ...)
        where = "/".join([spec.name, *path])
        raise EditError(f"Keras refused to enable LoRA on {where}: {e}", layer=spec.name) from e
    return copy
