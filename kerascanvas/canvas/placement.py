"""Where the canvas puts boxes: shown boxes pinned, new boxes and pastes in free space."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING

from ..geometry import boxes
from ..geometry.layout import free_spot, gap_for

if TYPE_CHECKING:
    from ..drawing.drawing import Triple
    from ..graph.graph import Graph

Rect = tuple[float, float, float, float]


def size(g: Graph, name: str) -> tuple[float, float]:
    """A box's size as the kernel decides it (boxes.py); a box made in the batch under way is
    not laid out yet: it has one call."""
    return g.box_sizes.get(name, (boxes.WIDTH, boxes.HEADER + boxes.CALL_ROW + boxes.FOOT))


def box_rects(g: Graph, but: frozenset = frozenset()) -> list[Rect]:
    positions = g.positions
    return [(*positions[n], *size(g, n)) for n in g.layers if n not in but and n in positions]


def freeze(g: Graph) -> None:
    """Pin every box where it is shown (inside a batch, before a structural edit from the
    canvas): the edit then moves only what it must, never the boxes the user is looking at."""
    positions, pinned = g.positions, g.pinned  # (g.pinned is a new frozenset at each read)
    hidden = g.folded_layers  # not shown: drawn as their folded run's box, placed on unfolding
    unpinned = {name: positions[name] for name in g.layers
                if name not in pinned and name in positions and name not in hidden}
    if unpinned:
        g.move_many(unpinned)


def place(g: Graph, name: str, at: tuple[float, float], view: Rect | None) -> None:
    """A dropped box lands at `at`, or in the nearest free space (never on another box)."""
    g.move(name, *free_spot(box_rects(g, frozenset([name])), size(g, name), at, view))


def place_on_wire(g: Graph, name: str, src: Triple, at: tuple[float, float]) -> None:
    """A box dropped on a wire from `src` lands at `at`, just under the wire's source, not over
    it; the boxes below make room when the wire is too short. In a drawing that flows right:
    just right of the source, and the boxes right of it make room."""
    positions = g.positions
    a = 0 if g.direction == "right" else 1  # the axis the drawing flows along
    gap = gap_for(g.direction)[1] - 2
    point = list(at)
    row = size(g, name)[a] + gap  # a layout row (or column): a box and the gap after it
    if src[0] in positions:  # just after the wire's source, not over it
        point[a] = max(point[a], positions[src[0]][a] + size(g, src[0])[a] + gap)
    g.move(name, *point)
    after = [n for n in g.layers if n not in (name, src[0]) and n in positions
             and positions[n][a] >= point[a] - size(g, name)[a] / 2]
    first = min((positions[n][a] for n in after), default=point[a] + row)
    if first < point[a] + row:  # neighbours make room: everything after moves on, together
        shift = point[a] + row - first
        for n in after:
            x, y = positions[n]
            g.move(n, x + shift if a == 0 else x, y + shift if a == 1 else y)


def place_copies(g: Graph, names: Sequence[str], mapping: Mapping[str, str], view: Rect) -> None:
    """Copies of boxes (`mapping`: original -> copy) placed together in free space in the view,
    beside their originals where that fits, leaving every other box where it is."""
    positions = g.positions
    xs = [positions[n][0] for n in names if n in positions]
    ys = [positions[n][1] for n in names if n in positions]
    if xs:
        x0, y0 = min(xs), min(ys)
        w = max(positions[n][0] + size(g, n)[0] for n in names if n in positions) - x0
        h = max(positions[n][1] + size(g, n)[1] for n in names if n in positions) - y0
        near = (x0 + w + 40, y0)  # beside the originals, as editors paste
        if not (view[0] <= near[0] and near[0] + w <= view[0] + view[2]
                and view[1] <= near[1] and near[1] + h <= view[1] + view[3]):
            near = (view[0] + view[2] / 2 - w / 2, view[1] + view[3] / 2 - h / 2)
        at = free_spot(box_rects(g), (w, h), near, view)
        for old, new in mapping.items():
            if old in positions:
                g.move(new, positions[old][0] - x0 + at[0], positions[old][1] - y0 + at[1])
