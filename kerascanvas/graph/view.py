"""The view of a drawing: where boxes are (pins and the depth layout), which nested-model boxes
show their inside, and which runs of repeated blocks are folded into one box.

View edits go through the history like any edit (one undo step each, saved with the drawing), but
touch no Keras object: the model, depth map and every layer stay as they are.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Callable, Iterable, Mapping
from types import MappingProxyType
from typing import Any

from ..drawing.drawing import Drawing
from ..errors import EditError
from ..geometry import folds
from ..geometry.boxes import box_size
from ..geometry.layout import DIRECTIONS, Placer, gap_for
from ..geometry.layout import rows as layout_rows
from ..geometry.repeats import Repeat, config_text, repeated_blocks
from ..io.inner import inner_view
from ..kinds import kinds
from ..network.depth import DepthMap
from .history import History


class View:
    """Positions, pins, expanded boxes and folds of `drawing`, edited through `history`.

    depth(): the depth map of the drawing's complete calls; live_layer(name): its Keras layer.
    """

    def __init__(self, drawing: Drawing, history: History, depth: Callable[[], DepthMap],
                 live_layer: Callable[[str], Any]):
        self.drawing, self.history = drawing, history
        self._depth, self._live_layer = depth, live_layer
        self._size_of: dict[str, tuple] = {}  # name -> (spec, filled slots per call, box size)
        self._config_texts: dict = {}  # what repeats compare, per unchanged layer spec
        self.forget()

    def forget(self) -> None:
        """The structure changed: layout rows, sizes and runs are found again."""
        self._rows: list[list[str]] | None = None
        self._placer = None  # places those rows again after each move
        self._plain_sizes: dict[str, tuple[float, float]] | None = None
        self._sizes: dict[str, tuple[float, float]] | None = None  # with expanded boxes' insides
        self._sizes_key: tuple = ()  # the (expanded, folded, direction) these sizes are for
        self._repeats: tuple[Repeat, ...] | None = None
        self._run_index: tuple[dict, dict] = ({}, {})
        self.forget_positions()

    def forget_positions(self) -> None:
        """Only the view changed: positions are placed again from the same rows."""
        self._positions: dict[str, tuple[float, float]] | None = None

    # ----- edits ------------------------------------------------------------------------------

    def move(self, name: str, x: float, y: float) -> None:
        """Put a box at (x, y) and pin it there (the layout leaves pinned boxes alone)."""
        point = check_point(x, y)

        def change(d: Drawing) -> None:
            d.spec(name)
            d.pin(name, point)

        self.history.edit(change, network=False, view=True)

    def move_many(self, points: Mapping[str, tuple[float, float]]) -> None:
        """`move` for several boxes at once: one edit and one undo step."""
        checked = {name: check_point(*point) for name, point in points.items()}

        def change(d: Drawing) -> None:
            for name in checked:
                d.spec(name)
            d.pin_many(checked)

        self.history.edit(change, network=False, view=True)

    def arrange(self) -> None:
        """Unpin every box and lay the drawing out again from its depth map."""
        self.history.edit(lambda d: d.unpin_all(), network=False, view=True)

    def set_direction(self, direction: str) -> None:
        """Lay the drawing out flowing "down" (inputs at the top) or "right" (inputs on the left,
        ports on the boxes' left and right edges). Boxes placed by hand are laid out again: a
        place chosen for one flow means nothing in the other. A view change, like `arrange`:
        saved with the drawing, one undo step."""
        if direction not in DIRECTIONS:
            raise EditError(f"direction must be 'down' or 'right', got {direction!r:.80}.")
        if direction == self.drawing.direction:
            return  # nothing turns: the places chosen by hand stay, and no undo step is made

        def change(d: Drawing) -> None:
            d.unpin_all()
            d.direction = direction

        self.history.edit(change, network=False, view=True)

    @property
    def direction(self) -> str:
        """How the layout flows: "down" (inputs at the top) or "right" (`set_direction`)."""
        return self.drawing.direction

    def expand(self, name: str, open: bool = True) -> None:
        """Show a nested model's box with its own graph inside (open=False: as one box again).
        A view change, like `move`: it is saved with the drawing and undone by `undo`."""
        def change(d: Drawing) -> None:
            _check_nested(d, name)
            d.expanded = d.expanded | {name} if open else d.expanded - {name}

        self.history.edit(change, network=False, view=True)

    def fold(self, name: str, folded: bool = True) -> None:
        """Show a run of repeated blocks (one of `g.repeats`: ResNet's identity blocks in a
        stage, Dense-Dropout pairs) as one box labelled with its block's classes and "×N";
        folded=False shows its layers again. `name` is any layer of the run; `g.folded` names
        the run by its first layer. Edges into and out of the run attach to that box and the
        layout places it as one box. A view change, like `expand`: `g.model`, the depth map and
        every Keras object stay as they are, `undo` takes it back and files keep it. An edit that
        breaks the run (a copy changed or removed) drops its fold: its layers show again."""
        if not isinstance(folded, bool):
            raise TypeError(f"folded must be True or False, got {folded!r:.80}.")

        def change(d: Drawing) -> None:
            d.spec(name)
            head_of, runs = folds.index(self._repeats_for(d))
            head = head_of.get(name)
            if head is None:
                raise EditError(f"{name!r} is not part of a run of repeated blocks: only copies "
                                "of one block, one after another, fold into one box.", layer=name)
            if (head in d.folded) != folded and not self.history.in_batch:
                self._make_room(d, [n for block in runs[head].blocks for n in block], folded)
            d.folded = d.folded | {head} if folded else d.folded - {head}

        self.history.edit(change, network=False, view=True)

    def show(self, expanded: Iterable[str] = (), folded: Iterable[str] = ()) -> None:
        """Expand these nested-model boxes and fold the runs these layers belong to, as one view
        edit (what a file's lists do): the runs are found once however long the lists are."""
        expanded, folded = list(dict.fromkeys(expanded)), list(dict.fromkeys(folded))

        def change(d: Drawing) -> None:
            for name in expanded:
                _check_nested(d, name)
            head_of = folds.index(self._repeats_for(d))[0] if folded else {}
            for name in folded:
                d.spec(name)
                if name not in head_of:
                    raise EditError(f"{name!r} is not part of a run of repeated blocks: only "
                                    "copies of one block, one after another, fold into one box.",
                                    layer=name)
            d.expanded = d.expanded | set(expanded)
            d.folded = d.folded | {head_of[n] for n in folded}

        self.history.edit(change, network=False, view=True)

    def fold_all(self, folded: bool = True) -> None:
        """`fold` every run of repeated blocks (folded=False: unfold them all), as one undo step."""
        if not isinstance(folded, bool):
            raise TypeError(f"folded must be True or False, got {folded!r:.80}.")

        def change(d: Drawing) -> None:
            d.folded = frozenset(folds.index(self._repeats_for(d))[1]) if folded else frozenset()

        self.history.edit(change, network=False, view=True)

    def settle_folds(self, old_runs: Mapping) -> None:
        """After a structural edit (its change log still open): a fold whose run the edit broke
        goes, its layers shown again around its box; nothing else changes. old_runs: the runs
        before the edit (`runs`)."""
        d = self.drawing
        if not d.folded:
            return
        runs = folds.index(self.repeats)[1]
        dropped = d.folded - runs.keys()
        d.folded = d.folded & runs.keys()
        for head in dropped & old_runs.keys() & d.layers.keys():
            members = [n for block in old_runs[head].blocks for n in block if n in d.layers]
            self._make_room(d, members, folding=False)
            self.forget_positions()

    def _make_room(self, d: Drawing, members: list[str], folding: bool) -> None:
        """Where boxes are pinned (the canvas pins what it shows before an edit), the pinned
        boxes below a run (`members`, its first layer first) move up by what folding saves, or
        down by what unfolding needs; an unfolded run's layers are pinned around its box as the
        layout would place them. `d` is the drawing `self.positions` describes."""
        inside = set(members)
        others = [n for n in d.pinned if n not in inside]
        if not others:
            return  # nothing pinned: the layout places everything
        head, (hx, hy) = members[0], self.positions[members[0]]
        sizes = self.box_sizes
        plain = {**self._plain_sizes, **{n: sizes[n] for n in d.expanded if n in sizes}}
        a = 0 if d.direction == "right" else 1  # the axis the layout flows along
        folded_size = folds.size()[a]
        if folding:
            pos = self.positions
            edge = max(pos[m][a] + plain[m][a] for m in members)
            delta = (hx, hy)[a] + folded_size - edge  # < 0: back (up, or left)
        else:
            natural = Placer(self.layout_rows(), plain, gap_for(d.direction), d.direction).place({})
            nx, ny = natural[head]
            for m in members[1:]:
                d.pin(m, (hx + natural[m][0] - nx, hy + natural[m][1] - ny))
            edge = (hx, hy)[a] + folded_size
            delta = max(d.pinned.get(m, (hx, hy))[a] + plain[m][a] for m in members) - edge
        d.pin(head, (hx, hy))
        for n in others:
            x, y = d.pinned[n]
            if (x, y)[a] >= edge - 1:
                d.pin(n, (x + delta, y) if a == 0 else (x, y + delta))

    # ----- runs of repeated blocks ------------------------------------------------------------

    @property
    def repeats(self) -> tuple[Repeat, ...]:
        """The runs of repeated blocks the drawing holds (kerascanvas/geometry/repeats.py), in graph
        order: what `fold` can fold. Found again after each structural change."""
        if self._repeats is None:
            self._repeats = find_repeats(self.drawing, self._config_texts)
            self._run_index = folds.index(self._repeats)
        return self._repeats

    @property
    def repeats_found(self) -> bool:
        """Whether `repeats` is known for this structure (it is found once per structural edit:
        about 20 ms at 2,000 layers, which the canvas leaves until an edit's diff has gone)."""
        return self._repeats is not None

    @property
    def runs(self) -> Mapping:
        """{first layer: its run} as last found (empty until `repeats` is read)."""
        return self._run_index[1]

    def run_head(self, name: str) -> str | None:
        """The first layer of the run of repeated blocks that `name` belongs to, or None."""
        _ = self.repeats
        return self._run_index[0].get(name)

    def _repeats_for(self, d: Drawing) -> tuple[Repeat, ...]:
        """The runs of `d`: the cached ones outside a batch, where `d` is the drawing; found
        afresh inside one, whose drawing may differ."""
        return self.repeats if not self.history.in_batch else find_repeats(d)

    def hidden(self) -> dict[str, str]:
        """{layer: head of its folded run} for the layers folded runs hide."""
        if not self.drawing.folded:
            return {}
        _ = self.repeats
        return folds.hidden(self._run_index[1], self.drawing.folded)

    @property
    def folded_layers(self) -> Mapping[str, str]:
        """The layers folded runs hide, each with the first layer of its run (whose box they
        are drawn as); their positions are that box's."""
        return MappingProxyType(self.hidden())

    # ----- positions and sizes ----------------------------------------------------------------

    @property
    def positions(self) -> dict[str, tuple[float, float]]:
        """Box positions: pinned ones as the user put them, the rest from the depth layout."""
        if self._positions is None:
            d = self.drawing
            sizes = self.box_sizes
            hidden = self.hidden()  # layers of folded runs, but their heads: not placed
            if all(n in d.pinned or n in hidden for n in d.layers):  # as after any edit from
                # the canvas: no layout to make (its rows cost most of a structural edit)
                placed = {n: d.pinned[n] for n in d.layers if n not in hidden}
            else:
                if self._placer is None:
                    rows = self.layout_rows()
                    if hidden:  # a folded run is one box in one row: the rows it emptied go
                        rows = [kept for kept in ([n for n in row if n not in hidden]
                                                  for row in rows) if kept]
                    self._placer = Placer(rows, sizes, gap_for(d.direction), d.direction)
                placed = self._placer.place(
                    {n: p for n, p in d.pinned.items() if n not in hidden} if hidden else d.pinned)
            if hidden:
                placed.update((n, placed[head]) for n, head in hidden.items())  # where they are
            self._positions = placed
        return self._positions

    def layout_rows(self) -> list[list[str]]:
        """The depth layout's rows of box names (made once per structure)."""
        if self._rows is None:
            d = self.drawing
            links = [(e.src[0], e.dst[0]) for e in d.edges]
            self._rows = layout_rows(self._depth().layer_depth, links, list(d.layers))
        return self._rows

    @property
    def box_sizes(self) -> dict[str, tuple[float, float]]:
        """(width, height) of every box, as the layout places it and the canvas draws it."""
        d = self.drawing
        flow = d.direction
        if self._plain_sizes is None or self._sizes_key[2:] != (flow,):
            # depend on the structure (a box's spec and filled slots) and the flow
            into = Counter(e.dst[:2] for e in d.edges)
            made, old = {}, self._size_of
            for name, spec in d.layers.items():
                filled = [into[(name, k)] for k in range(spec.calls)]
                was = old.get(name)
                made[name] = was if was is not None and was[0] is spec and was[1] == filled \
                    and was[3] == flow else (spec, filled, box_size(spec, filled, direction=flow), flow)
            self._size_of = made  # kept across edits: an edit sizes only the boxes it changed
            self._plain_sizes = {name: entry[2] for name, entry in made.items()}
            self._sizes = None
        if self._sizes is None or self._sizes_key != (d.expanded, d.folded, flow):
            self._sizes = dict(self._plain_sizes)
            for name in d.expanded:  # a view choice: as big as its inside
                inside = self.inner(name)
                if inside is not None:
                    self._sizes[name] = box_size(d.layers[name], [], inside)
            for head in set(self.hidden().values()):  # a folded run: one box
                self._sizes[head] = folds.size()
            self._sizes_key, self._placer = (d.expanded, d.folded, flow), None
        return self._sizes

    def inner(self, name: str) -> dict | None:
        """The laid-out inside of an expanded nested-model box, else None."""
        layer = self._live_layer(name)
        if name not in self.drawing.expanded or layer is None:
            return None
        return inner_view(layer)


def find_repeats(d: Drawing, texts: dict | None = None) -> tuple[Repeat, ...]:
    """The runs of `d`. texts: {id(spec): (spec, config text)} kept between calls (specs are
    immutable and an edit keeps the unchanged ones), updated to `d`'s specs."""
    known = texts if texts is not None else {}
    fresh = {}
    for spec in d.layers.values():
        hit = known.get(id(spec))
        fresh[id(spec)] = hit if hit is not None and hit[0] is spec else (spec, config_text(spec.config))
    if texts is not None:
        texts.clear()
        texts.update(fresh)
    layers = {n: {"class_name": s.class_name, "config": s.config, "config_text": fresh[id(s)][1]}
              for n, s in d.layers.items()}
    return tuple(repeated_blocks(layers, [(e.src, e.dst) for e in d.edges]))


def check_point(x: Any, y: Any) -> tuple[float, float]:
    if not all(isinstance(v, (int, float)) and not isinstance(v, bool) and math.isfinite(v)
               and abs(v) < 1e7 for v in (x, y)):
        raise EditError(f"A position is two finite numbers, got ({x!r}, {y!r}).")
    return (float(x), float(y))


def _check_nested(d: Drawing, name: str) -> None:
    spec = d.spec(name)
    if spec.class_name not in kinds.NESTED_MODEL_CLASSES:
        raise EditError(f"{name!r} ({spec.class_name}) is not a nested model: only a model used "
                        "as a layer (Functional, Sequential) expands.", layer=name)
