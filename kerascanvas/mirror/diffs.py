"""State as numbered diffs: the kernel sends the browser only what changed since the last revision.

A diff's shape is described once, in state.json ("diff"): `{"base": r - 1, "revision": r, ...}`
with only the keys that changed: keyed changes of "layers" (by name) and "edges" (by slot),
"view" rows of the boxes whose row changed, "top" when the deepest depth changed (a box's depth
is `top - level`: appending a layer sends two numbers instead of every box), and each
drawing-wide value that changed.

The browser applies diffs in order (js/src/mirror/diffs.ts is this module's `apply`, line by line); a
diff whose base is not the revision it holds means one was lost, and it asks for the full state.
"""

from __future__ import annotations

from typing import Any

from .shape import BOX_FIELDS, DRAWING_FIELDS, VIEW_ROW
from .state import Parts, assemble, box_layer, parts

SCALARS = DRAWING_FIELDS  # the drawing-wide values, each sent whole when it changed


class Tracker:
    """The state a widget last described, its revision, and the diff to the Graph's current one."""

    def __init__(self, graph, after: int = 0):
        """`after`: the revision the last tracker of the same view reached (a new drawing
        continues its numbering, so a view never takes the new state for an older one)."""
        self.revision = after
        self.reset(graph)

    def reset(self, graph) -> None:
        """Describe a new graph (after load): a new revision that only a full state reaches."""
        self.graph = graph
        self.parts = parts(graph)
        self.revision += 1

    def full(self) -> dict:
        """The whole state at the current revision (what a diff-applying browser holds)."""
        return {**assemble(self.parts), "revision": self.revision}

    def update(self, quick: bool = False) -> dict | None:
        """The diff from the last revision to the graph as it is now, or None if nothing shows
        (`quick`: before Keras has built the model; see state.parts)."""
        new = parts(self.graph, self.parts, quick)
        change = diff(self.parts, new)
        self.parts = new
        if not change:
            return None
        self.revision += 1
        return {"base": self.revision - 1, "revision": self.revision, **change}


def diff(old: Parts, new: Parts) -> dict:
    out: dict[str, Any] = {}
    if old.layers is not new.layers:  # the same dict: a view edit left the structure alone
        layers = _keyed(old.layers, new.layers, lambda name: name, "name")
        if layers:
            out["layers"] = layers
        edges = _keyed(old.edges, new.edges, list, "dst")
        if edges:
            out["edges"] = edges
    view = {name: list(row) for name, row in new.view.items() if old.view.get(name) != row}
    if view:
        out["view"] = view
    if new.top != old.top:
        out["top"] = new.top
    for key in SCALARS:
        if key not in old.scalars or old.scalars[key] != new.scalars[key]:
            out[key] = new.scalars[key]
    return out


def _keyed(old: dict, new: dict, wire, key_field: str) -> dict:
    """Removed keys, new entries, changed fields of changed ones, and where the new ones go (or
    the whole order)."""
    out: dict[str, Any] = {}
    removed = [wire(k) for k in old if k not in new]
    added = [v for k, v in new.items() if k not in old]
    patches = []
    for k, v in new.items():
        before = old.get(k)
        if before is not None and before is not v and before != v:
            patches.append({key_field: v[key_field],
                            **{f: x for f, x in v.items() if f not in before or before[f] != x}})
    if removed:
        out["removed"] = removed
    if added:
        out["set"] = added
    if patches:
        out["patch"] = patches
    kept_before = [k for k in old if k in new]
    kept_after = [k for k in new if k in old]
    if kept_before != kept_after:
        out["order"] = [wire(k) for k in new]
    else:
        inserted = [[i, wire(k)] for i, k in enumerate(new) if k not in old]
        if inserted:
            out["insert"] = inserted
    return out


# ----- the reference reducer (js/src/mirror/diffs.ts applies diffs the same way) -----------------------

def apply(state: dict, change: dict) -> dict:
    """The full state after a diff; raises ValueError when the diff does not follow `state`."""
    if change.get("base") != state.get("revision"):
        raise ValueError(f"diff from revision {change.get('base')} does not follow "
                         f"revision {state.get('revision')}: ask for the full state")
    old_top = max((l["depth"] for l in state["layers"] if l["depth"] is not None), default=0)
    top = change.get("top", old_top)
    structure = {l["name"]: {k: v for k, v in l.items() if k not in BOX_FIELDS + ("depth",)}
                 for l in state["layers"]}
    rows = {l["name"]: [_level(l["depth"], old_top) if f == "level" else l[f] for f in VIEW_ROW]
            for l in state["layers"]}
    structure = _apply_keyed(structure, change.get("layers"), lambda e: e["name"], lambda k: k)
    rows.update(change.get("view", {}))
    layers = [box_layer(entry, rows[name], top) for name, entry in structure.items()]
    edges = {tuple(e["dst"]): e for e in state["edges"]}
    edges = _apply_keyed(edges, change.get("edges"), lambda e: tuple(e["dst"]), tuple)
    new = {**state, "layers": layers, "edges": list(edges.values()), "revision": change["revision"]}
    for key in SCALARS:
        if key in change:
            new[key] = change[key]
    return new


def _level(depth: int | None, top: int) -> int | None:
    return None if depth is None else top - depth


def _apply_keyed(entries: dict, change: dict | None, key_of, key) -> dict:
    if not change:
        return entries
    removed = {key(k) for k in change.get("removed", ())}
    order = [k for k in entries if k not in removed]
    if "order" in change:
        order = [key(k) for k in change["order"]]
    for i, k in change.get("insert", ()):
        order.insert(i, key(k))
    new_entries = {key_of(e): e for e in change.get("set", ())}
    for p in change.get("patch", ()):
        new_entries[key_of(p)] = {**entries[key_of(p)], **p}
    return {k: new_entries[k] if k in new_entries else entries[k] for k in order}
