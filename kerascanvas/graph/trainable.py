"""Freezing and unfreezing: a layer's trainable flag, set on the live Keras layers.

`set_trainable` takes a box, a folded run (named by its first layer: every layer of the run) or a
layer inside a nested model by path ("outer/inner", any depth); `freeze_before` freezes every
layer upstream of a box. Each is one undo step (a FLAGS step, history.py): the flags are set on
the live layers as `layer.trainable = ...` sets them, through the step's journal, and the box's
config says the same (so files and code keep it). Nothing is made or called again and no weight
changes; refused while training runs.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from ..drawing.drawing import Drawing
from ..errors import EditError
from ..kinds import kinds, ops
from ..kinds.nested import with_trainable_at
from ..mirror.fields import PathError, resolve, split_path
from ..network.flags import Flags, sublayers
from ..network.network import Journal, Network
from .history import History


def set_trainable(g: Any, history: History, network: Network, name: str,
                  trainable: bool) -> None:
    """See Graph.set_trainable."""
    _check_flag(trainable)
    history.check_unlocked()
    try:
        parts = split_path(name) if isinstance(name, str) else None
    except PathError as e:
        raise EditError(str(e), layer=None) from None
    if parts is None:
        raise EditError(f"set_trainable takes a layer name or path (a string), got {name!r:.80}.")
    top = parts[0]
    if top not in g.layers:
        raise EditError(f"There is no layer named {top!r:.80} in the drawing.")
    if len(parts) > 1:
        try:
            resolve(g, name)
        except PathError as e:
            raise EditError(str(e), layer=top) from None
        names = [top]
    else:
        names = run_of(g, top)
    _set(g, history, network, {n: (parts[1:] if n == top else []) for n in names}, trainable)


def freeze_before(g: Any, history: History, network: Network, name: str) -> list[str]:
    """See Graph.freeze_before."""
    history.check_unlocked()
    if not isinstance(name, str) or name not in g.layers:
        raise EditError(f"There is no layer named {name!r:.80} in the drawing.")
    names = [n for n in ancestors(history.editing, name) if not history.editing.spec(n).is_input]
    if names:
        _set(g, history, network, {n: [] for n in names}, False)
    return names


def ancestors(d: Drawing, name: str) -> list[str]:
    """The layers upstream of every call of `name`, in drawing order (not `name` itself unless
    a cycle of calls goes through it)."""
    spec = d.spec(name)
    todo = [(name, k) for k in range(spec.calls)]
    seen_calls, found = set(todo), set()
    while todo:
        for key in d.predecessors(todo.pop()):
            if key not in seen_calls:
                seen_calls.add(key)
                found.add(key[0])
                todo.append(key)
    found.discard(name)
    return [n for n in d.layers if n in found]


def run_of(g: Any, name: str) -> list[str]:
    """The layers of the folded run `name` heads, or just `name`."""
    if name in g.folded:
        for run in g.repeats:
            if run.blocks[0][0] == name:
                return [n for block in run.blocks for n in block]
    return [name]


def _check_flag(trainable: Any) -> None:
    if not isinstance(trainable, bool):
        raise EditError(f"trainable must be True or False, got {trainable!r:.40}.")


def _set(g: Any, history: History, network: Network, targets: dict[str, list[str]],
         trainable: bool) -> None:
    """One step: each box in `targets` ({box: path inside it, [] for the box itself})."""
    d = history.editing
    for n in targets:
        spec = d.spec(n)
        if spec.is_input:
            raise EditError(f"{n} is an Input: it holds no weights to freeze.", layer=n)
        if isinstance(kinds.get(spec.class_name), ops.OpKind):
            raise EditError(f"{n} is a keras.ops operation: it holds no weights to freeze.",
                            layer=n)
    configs: dict[str, dict] = {}

    def change(dr: Drawing) -> None:
        for n, path in targets.items():
            spec = dr.spec(n)
            if spec.class_name in kinds.NESTED_MODEL_CLASSES:
                config = with_trainable_at(spec.config, path, trainable)
            else:
                config = {**spec.config, "trainable": trainable}
            configs[n] = config
            dr.restate(replace(spec, config=config))

    def live(journal: Journal) -> None:
        for n, path in targets.items():
            layer = network.objects.get(n)
            if layer is None:  # pending: made from its config when called
                continue
            chain = [layer]
            for part in path:
                inner = {getattr(x, "name", None): x for x in getattr(chain[-1], "layers", ())}
                chain.append(inner[part])
            flags = Flags(layer)
            where = {id(x): i for i, x in enumerate(flags.layers)}
            wanted = list(flags.values)
            for x in sublayers(chain[-1]):
                wanted[where[id(x)]] = trainable
            if trainable:  # the models around it train too (their other layers as they were)
                for x in chain[:-1]:
                    wanted[where[id(x)]] = True
            journal.setattr(flags, "values", tuple(wanted))
            journal.setitem(network.made_from, n, configs[n])

    history.edit(change, network=False, live=live)
