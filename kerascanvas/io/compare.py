"""Comparing two drawings: `kc.compare(a, b)` -> a Comparison of what changed from a to b.

Layers are paired first by name (same name and same class), then, among those left, by structure
(renamed: same class, same config but its name, same number of calls, wired at the same place:
the same paired neighbours in the same slots). Edges are compared after renaming a's names to b's.
Either side may be a Graph, a Snapshot (`g.snapshot()`, `g.as_imported`), a keras.Model or a
saved file (.kc, or .keras); a model or file is imported first, with the graph class given.
"""

from __future__ import annotations

import json
import math
from collections.abc import Mapping
from pathlib import Path
from typing import Any, NamedTuple

import numpy as np

from ..errors import EditError
from .snapshot import Snapshot, weights_now


class Rewired(NamedTuple):
    """Edges, as the drawing's ((src, node_index, tensor_index), (dst, call, slot)) pairs: those
    only in a (a's names) and those only in b (b's names), after renamed layers are paired."""

    only_in_a: tuple
    only_in_b: tuple


class Comparison:
    """What changed from drawing a to drawing b (see kc.compare). `str()` is the readable text."""

    def __init__(self, a_name: str, b_name: str, added: list, removed: list, renamed: list,
                 changed: dict, rewired: Rewired, weights: dict, weights_kept: bool):
        self.a_name, self.b_name = a_name, b_name
        self.added = added  # names in b with no layer in a
        self.removed = removed  # names in a with no layer in b
        self.renamed = renamed  # [(name in a, name in b)]
        self.changed = changed  # {name in b: {key: (value in a, value in b)}}
        self.rewired = rewired
        self.weights = weights  # {name in b: norm of the weights' difference}
        self.weights_kept = weights_kept  # False: a side kept no weights (as_imported, too big)

    @property
    def same(self) -> bool:
        """True when nothing differs: no layer, config, edge or weight."""
        return not (self.added or self.removed or self.renamed or self.changed
                    or any(self.rewired) or any(v > 0 for v in self.weights.values()))

    def to_text(self, width: int = 100) -> str:
        from .compare_text import to_text

        return to_text(self, width)

    def to_svg(self, path=None) -> str:
        """The text as an SVG picture, changes marked by colour (compare_picture.py); written
        to `path` too when one is given."""
        from .compare_picture import to_svg

        picture = to_svg(self)
        if path is not None:
            Path(path).write_text(picture, encoding="utf-8")
        return picture

    def __str__(self) -> str:
        return self.to_text()

    def __repr__(self) -> str:
        trained = sum(v > 0 for v in self.weights.values())
        return (f"<kerascanvas.Comparison {self.a_name!r} -> {self.b_name!r}: "
                f"{len(self.added)} added, {len(self.removed)} removed, {len(self.renamed)} "
                f"renamed, {len(self.changed)} changed, {len(self.rewired.only_in_a)} + "
                f"{len(self.rewired.only_in_b)} edges rewired, {trained} with other weights>")


def compare(a, b, graph_class, weights: bool = True) -> Comparison:
    """See kc.compare. graph_class imports a keras.Model or a file given as a or b; weights=False
    leaves the weights out (reading every live variable is most of the time of a comparison)."""
    a = as_drawing(a, graph_class, "first")
    b = as_drawing(b, graph_class, "second")
    specs_a, specs_b = a.specs, b.specs
    pairs = _pair_by_name(specs_a, specs_b)
    renamed = _pair_by_structure(a, b, pairs)
    pairs.update(renamed)
    paired_b = set(pairs.values())
    changed = {}
    for name_a, name_b in pairs.items():
        diff = spec_differences(specs_a[name_a], specs_b[name_b])
        if diff:
            changed[name_b] = diff
    edges_a = {(_renamed_triple(s, pairs), (pairs.get(d[0], d[0]), d[1], d[2])): (s, d)
               for s, d in a.edges}
    edges_b = set(b.edges)
    rewired = Rewired(tuple(edges_a[e] for e in edges_a if e not in edges_b),
                      tuple(e for e in b.edges if e not in edges_a))
    both_kept = getattr(a, "weights_kept", True) and getattr(b, "weights_kept", True)
    norms = _weight_norms(a, b, pairs) if both_kept and weights else {}
    order_b = {n: i for i, n in enumerate(specs_b)}
    return Comparison(a.name, b.name, [n for n in specs_b if n not in paired_b],
                      [n for n in specs_a if n not in pairs],
                      sorted(renamed.items(), key=lambda p: order_b[p[1]]),
                      changed, rewired, norms, both_kept and weights)


def as_drawing(value, graph_class, which: str):
    """A Graph or Snapshot for one side of a comparison; bad input raises naming what it was."""
    if isinstance(value, (graph_class, Snapshot)):
        return value
    if isinstance(value, (str, Path)):
        path = Path(value)
        try:
            if path.suffix == ".keras":
                return graph_class.load_keras(path)
            return graph_class.load(path)
        except EditError as e:
            raise EditError(f"kc.compare could not read its {which} model, the file "
                            f"{str(path)!r}: {e}") from None
    import keras

    if isinstance(value, keras.Model):
        try:
            return graph_class.from_model(value)
        except EditError as e:
            raise EditError(f"kc.compare could not import its {which} model "
                            f"({value.name!r}): {e}") from None
    raise TypeError(f"kc.compare compares drawings: a kc.Graph, a snapshot (g.snapshot(), "
                    f"g.as_imported), a keras.Model or the path of a saved .kc or .keras file; "
                    f"its {which} argument is {type(value).__name__} {value!r:.80}.")


# ----- pairing layers ---------------------------------------------------------------------------

def _pair_by_name(specs_a: Mapping, specs_b: Mapping) -> dict[str, str]:
    return {n: n for n, s in specs_a.items()
            if n in specs_b and specs_b[n].class_name == s.class_name}


def _signature(spec) -> str:
    """What a renamed layer keeps: class, config without its name, calls, what was done inside."""
    config = {k: v for k, v in spec.config.items() if k != "name"}
    return json.dumps([spec.class_name, config, spec.calls, list(spec.inside)], sort_keys=True,
                      default=_plain)


def _plain(value):
    return value.tolist() if isinstance(value, np.ndarray) else repr(value)


class _Wiring:
    """The edges into and out of each layer of one side, read once."""

    def __init__(self, edges):
        self.ins: dict[str, list] = {}
        self.outs: dict[str, list] = {}
        for (src, n, t), (dst, call, slot) in edges:
            self.ins.setdefault(dst, []).append((src, n, t, call, slot))
            self.outs.setdefault(src, []).append((n, t, dst, call, slot))

    def key(self, name: str, to: dict[str, str] | None, paired: set, mode: str) -> tuple:
        """Where a layer is wired, in b's names: its neighbours renamed by `to` (a -> b; None
        on b's side), a neighbour not yet paired said as "?"."""
        def said(other):
            if to is not None:
                return to.get(other, "?")
            return other if other in paired else "?"

        ins = tuple(sorted((said(s), n, t, c, k) for s, n, t, c, k in self.ins.get(name, ())))
        outs = tuple(sorted((n, t, said(d), c, k) for n, t, d, c, k in self.outs.get(name, ())))
        return {"both": (ins, outs), "ins": ins, "outs": outs}[mode]


def _pair_by_structure(a, b, pairs: dict[str, str]) -> dict[str, str]:
    """Renamed layers (a name -> b name) among those the names left unpaired. A layer pairs when
    its signature and wiring match exactly one on the other side; each new pair can make its
    neighbours' wiring known, so only those are looked at again."""
    left_a = [n for n in a.specs if n not in pairs]
    paired_b = set(pairs.values())
    left_b = [n for n in b.specs if n not in paired_b]
    if not left_a or not left_b:
        return {}
    sig_a = {n: _signature(a.specs[n]) for n in left_a}
    sig_b = {n: _signature(b.specs[n]) for n in left_b}
    common = set(sig_a.values()) & set(sig_b.values())
    todo_a = [n for n in left_a if sig_a[n] in common]
    todo_b = [n for n in left_b if sig_b[n] in common]
    wiring_a, wiring_b = _Wiring(a.edges), _Wiring(b.edges)
    found: dict[str, str] = {}
    while todo_a and todo_b:
        new = {}
        for mode in ("both", "ins", "outs"):
            by_key: dict[tuple, tuple[list, list]] = {}
            for n in todo_a:
                if n not in new:
                    key = (sig_a[n], wiring_a.key(n, pairs, set(), mode))
                    by_key.setdefault(key, ([], []))[0].append(n)
            for n in todo_b:
                if n not in new.values():
                    key = (sig_b[n], wiring_b.key(n, None, paired_b, mode))
                    by_key.setdefault(key, ([], []))[1].append(n)
            for (_, wired), (names_a, names_b) in by_key.items():
                alike = mode == "both" and len(names_a) == len(names_b)  # twins: in order
                if names_a and names_b and (len(names_a) == len(names_b) == 1 or alike) \
                        and (mode == "both" or any("?" not in str(w) for w in wired)):
                    new.update(zip(names_a, names_b))
            if new:
                break
        if not new:
            break
        found.update(new)
        pairs.update(new)
        paired_b.update(new.values())
        # only the neighbours of new pairs can pair next
        near_a = {x for n in new for x in _neighbours(wiring_a, n)} - set(pairs)
        near_b = {x for n in new.values() for x in _neighbours(wiring_b, n)} - paired_b
        todo_a = [n for n in left_a if n in near_a and n in sig_a and sig_a[n] in common]
        todo_b = [n for n in left_b if n in near_b and n in sig_b and sig_b[n] in common]
    for n in found:
        del pairs[n]  # (the caller adds them again, with the others)
    return found


def _neighbours(wiring: _Wiring, name: str) -> set[str]:
    return ({s for s, *_ in wiring.ins.get(name, ())}
            | {d for _, _, d, *_ in wiring.outs.get(name, ())})


def _renamed_triple(src, pairs):
    return (pairs.get(src[0], src[0]), src[1], src[2])


# ----- what changed in a paired layer -----------------------------------------------------------

def spec_differences(spec_a, spec_b) -> dict[str, tuple]:
    """{key: (value in a, value in b)} for a paired layer: its config keys (trainable, lora_rank
    and dtype among them; not its name), its number of calls, its call settings, and what was
    done to layers made inside it (LoRA, trainable flags) as "<inner path>: lora_rank" and
    "<inner path>: trainable"."""
    if spec_a is spec_b:
        return {}
    diff = {}
    ca, cb = spec_a.config, spec_b.config
    if ca is not cb and ca != cb:
        for key in list(ca) + [k for k in cb if k not in ca]:
            if key == "name":
                continue
            va, vb = ca.get(key), cb.get(key)
            if not same_value(va, vb):
                diff[key] = (va, vb)
    if spec_a.calls != spec_b.calls:
        diff["calls"] = (spec_a.calls, spec_b.calls)
    if not same_value(spec_a.call_args, spec_b.call_args):
        diff["call settings"] = (spec_a.call_args, spec_b.call_args)
    if not same_value(spec_a.inside, spec_b.inside):
        done_a, done_b = _done_inside(spec_a.inside), _done_inside(spec_b.inside)
        for key in list(done_a) + [k for k in done_b if k not in done_a]:
            if not same_value(done_a.get(key), done_b.get(key)):
                diff[key] = (done_a.get(key), done_b.get(key))
    return diff


def _done_inside(inside: tuple) -> dict[str, Any]:
    """{"<path>: lora_rank" or "<path>: trainable": value} for what was done to layers made in
    a box's build (LayerSpec.inside: (path, "lora" | "trainable", value), the last one counts)."""
    return {f"{path}: {'lora_rank' if kind == 'lora' else kind}": value
            for path, kind, value in inside}


def same_value(x: Any, y: Any) -> bool:
    """Equal as config values: a list and a tuple alike (a file gives lists where Keras gives
    tuples), arrays by their elements."""
    if isinstance(x, (list, tuple)) and isinstance(y, (list, tuple)):
        return len(x) == len(y) and all(same_value(p, q) for p, q in zip(x, y))
    if isinstance(x, Mapping) and isinstance(y, Mapping):
        return x.keys() == y.keys() and all(same_value(x[k], y[k]) for k in x)
    if isinstance(x, np.ndarray) or isinstance(y, np.ndarray):
        return np.shape(x) == np.shape(y) and bool(np.array_equal(x, y))
    try:
        return bool(x == y) or (isinstance(x, float) and isinstance(y, float)
                                and math.isnan(x) and math.isnan(y))  # (NaN equals itself here)
    except (TypeError, ValueError):
        return x is y


# ----- weights ----------------------------------------------------------------------------------

def _weight_norms(a, b, pairs: dict[str, str]) -> dict[str, float]:
    """{name in b: the norm of (weights in b - weights in a)} for paired layers holding weights
    of the same shapes on both sides (all of a layer's arrays as one vector)."""
    norms = {}
    for name_a, name_b in pairs.items():
        wa = _arrays(a, name_a)
        if not wa:
            continue
        wb = _arrays(b, name_b)
        if len(wa) != len(wb) or any(np.shape(x) != np.shape(y) for x, y in zip(wa, wb)):
            continue
        total = 0.0
        for x, y in zip(wa, wb):
            if x is not y:
                d = np.subtract(y, x, dtype=np.float64)
                total += float(np.vdot(d, d))
        norms[name_b] = float(np.sqrt(total))
    return norms


def _arrays(side, name: str) -> list:
    return side.saved_weights(name) if isinstance(side, Snapshot) else weights_now(side, name)
