"""Box positions from the depth map: rows by level, inputs at the top, few edge crossings.

Keras's depth 0 is the output side; people draw inputs first, so a layer's row is
`max_depth - depth`. Within a row the boxes are ordered by the barycenter heuristic (each box moves
towards the mean position of its neighbours in the rows above, then below, a few sweeps), keeping
the best order seen. Pure Python: no Keras import.
"""

from __future__ import annotations

from bisect import bisect_left
from collections import deque
from collections.abc import Mapping, Sequence

__all__ = ["DIRECTIONS", "Placer", "count_crossings", "gap_for", "layout", "place", "rows"]

SWEEPS = 8  # down, up, down, ...: enough for drawings people make; each costs O(boxes + edges)

# How the layout flows: "down" puts inputs at the top and each row under the one before it;
# "right" (as Netron and Model Explorer offer) puts inputs on the left and each row, turned into
# a column, right of the one before it. The rows are the same; only their placing turns.
DIRECTIONS = ("down", "right")
# (between boxes of one row, between rows): a column of the "right" layout leaves room beside
# its boxes for the slot and output names written outside them (js/src/scene/portlabels.ts)
GAPS = {"down": (60.0, 40.0), "right": (30.0, 110.0)}


def gap_for(direction: str) -> tuple[float, float]:
    return GAPS[direction]


def layout(
    layer_depth: Mapping[str, int],
    edges: Sequence[tuple[str, str]],
    order: Sequence[str],
    pinned: Mapping[str, tuple[float, float]] = {},
    size: tuple[float, float] = (160.0, 60.0),
    gap: tuple[float, float] = (60.0, 40.0),
    sizes: Mapping[str, tuple[float, float]] = {},
) -> dict[str, tuple[float, float]]:
    """Top-left corner (x, y) of every box named in `order`, `layer_depth` or `pinned`.

    layer_depth: Keras depths (0 = outputs); edges: (source layer, consuming layer), one per drawn
    edge; order: creation order, which breaks ties. Layers without a depth (parts of a partial
    drawing) go one row below their deepest placed source, after the boxes with a depth. Pinned boxes
    keep their position exactly; the others move right past any pinned box in their way.
    sizes: (width, height) of boxes bigger than `size` (an expanded nested model): their row is
    taller and their neighbours move aside.
    """
    found = rows(layer_depth, edges, [*order, *layer_depth, *pinned])
    return place(found, pinned, {n: sizes.get(n, size) for row in found for n in row}, gap)


def rows(layer_depth: Mapping[str, int], edges: Sequence[tuple[str, str]],
         order: Sequence[str]) -> list[list[str]]:
    """The boxes by row, each row in its crossing-reducing order. It depends on the structure
    only, so a Graph keeps it while boxes are moved (see `place`)."""
    names = list(dict.fromkeys([*order, *layer_depth]))
    rank = {name: i for i, name in enumerate(names)}
    neighbours = _neighbours(edges, rank)
    level = _levels(layer_depth, names, neighbours[0])
    found = _rows(names, level, layer_depth)
    _reduce_crossings(found, level, neighbours)
    return found


def place(rows: Sequence[Sequence[str]], pinned: Mapping[str, tuple[float, float]],
          sizes: Mapping[str, tuple[float, float]],
          gap: tuple[float, float] = (60.0, 40.0),
          direction: str = "down") -> dict[str, tuple[float, float]]:
    """Top-left corners for `rows` (from `rows`) with boxes of `sizes` (every box's (w, h)).
    To place the same rows again after a move, keep a `Placer`."""
    return Placer(rows, sizes, gap, direction).place(pinned)


def count_crossings(rows: Sequence[Sequence[str]], edges: Sequence[tuple[str, str]]) -> int:
    """Crossings among edges that join adjacent rows (the quantity the ordering minimises)."""
    row_of = {name: r for r, row in enumerate(rows) for name in row}
    index = {name: i for row in rows for i, name in enumerate(row)}
    between: dict[int, list[tuple[int, int]]] = {}
    for a, b in set(edges):
        if a in row_of and b in row_of and abs(row_of[a] - row_of[b]) == 1:
            upper, lower = (a, b) if row_of[a] < row_of[b] else (b, a)
            between.setdefault(row_of[upper], []).append((index[upper], index[lower]))
    return sum(_inversions(pairs) for pairs in between.values())


def _neighbours(edges, rank):
    """Distinct sources and consumers of each layer, in creation order (self-loops carry no order)."""
    sources: dict[str, list[str]] = {name: [] for name in rank}
    consumers: dict[str, list[str]] = {name: [] for name in rank}
    for a, b in dict.fromkeys((a, b) for a, b in edges if a != b and a in rank and b in rank):
        sources[b].append(a)
        consumers[a].append(b)
    return sources, consumers


def _levels(layer_depth, names, sources) -> dict[str, int]:
    """Row of each layer: inputs (deepest) at row 0; layers without a depth below their sources."""
    top = max(layer_depth.values(), default=0)
    level = {name: top - depth for name, depth in layer_depth.items()}
    missing = [name for name in names if name not in level]
    # Sources before consumers where the missing part is acyclic (Kahn), creation order otherwise.
    waiting = {name: sum(1 for s in sources[name] if s not in level) for name in missing}
    consumers_of: dict[str, list[str]] = {}
    for name in missing:
        for s in sources[name]:
            if s not in level:
                consumers_of.setdefault(s, []).append(name)
    ready = deque(name for name in missing if waiting[name] == 0)
    unplaced = iter(missing)  # the next one to force when only cycles are left
    for _ in missing:
        name = ready.popleft() if ready else next(n for n in unplaced if n not in level)
        placed = [level[s] for s in sources[name] if s in level]
        level[name] = max(placed) + 1 if placed else 0
        for c in consumers_of.get(name, ()):
            waiting[c] -= 1
            if waiting[c] == 0 and c not in level:
                ready.append(c)
    return level


def _rows(names, level, layer_depth) -> list[list[str]]:
    """Layers grouped by row, those with a depth first, each group in creation order."""
    rows: list[list[str]] = [[] for _ in range(max(level.values(), default=-1) + 1)]
    for with_depth in (True, False):
        for name in names:
            if (name in layer_depth) == with_depth:
                rows[level[name]].append(name)
    return rows


def _reduce_crossings(rows, level, neighbours) -> None:
    """Barycenter sweeps over the rows, in place; keeps the order with the fewest crossings seen."""
    sources, consumers = neighbours
    above = {n: _nearest([m for m in sources[n] + consumers[n] if level[m] < level[n]], level, n)
             for n in level}
    below = {n: _nearest([m for m in sources[n] + consumers[n] if level[m] > level[n]], level, n)
             for n in level}
    links = [(a, b) for a in level for b in consumers[a]]
    best, fewest = [row[:] for row in rows], count_crossings(rows, links)
    if fewest == 0:
        return
    centre = _centres(rows)
    for sweep in range(SWEEPS):
        down = sweep % 2 == 0
        for r in range(1, len(rows)) if down else range(len(rows) - 2, -1, -1):
            towards = above if down else below
            row = rows[r]
            key = {}
            for n in row:
                near = towards[n]
                key[n] = sum(centre[m] for m in near) / len(near) if near else centre[n]
            row.sort(key=key.__getitem__)  # stable: ties keep their current order
            offset = (len(row) - 1) / 2
            for i, n in enumerate(row):
                centre[n] = i - offset
        crossings = count_crossings(rows, links)
        if crossings < fewest:
            best, fewest = [row[:] for row in rows], crossings
            if fewest == 0:
                break
    rows[:] = best


def _nearest(near, level, n):
    """Neighbours in the adjacent row if there are any (the crossings counted), else all of them."""
    adjacent = [m for m in near if abs(level[m] - level[n]) == 1]
    return adjacent or near


def _centres(rows) -> dict[str, float]:
    """Position of each box in its row, centred on 0 so rows of different widths line up."""
    return {n: i - (len(row) - 1) / 2 for row in rows for i, n in enumerate(row)}


def _inversions(pairs: list[tuple[int, int]]) -> int:
    """Pairs of edges (i, j), (k, l) with i < k and j > l: a Fenwick tree over the lower ends."""
    pairs.sort()
    size = max(lower for _, lower in pairs) + 1
    tree = [0] * (size + 1)
    crossings = 0
    for seen, (_, lower) in enumerate(pairs):
        at_most, i = 0, lower + 1  # edges seen so far whose lower end is <= this one's
        while i > 0:
            at_most += tree[i]
            i -= i & -i
        crossings += seen - at_most
        i = lower + 1
        while i <= size:
            tree[i] += 1
            i += i & -i
    return crossings


class Placer:
    """`place` for the same rows and sizes again and again (each move of a box): a row is placed
    again only when the pinned boxes in it or in its way changed; the others keep their
    coordinates (the same tuples). Rows are centred on x = 0, each as tall as its tallest box;
    with direction "right" they are columns centred on y = 0, each as wide as its widest box
    (placed as rows of the boxes turned a quarter, then turned back)."""

    def __init__(self, rows, box, gap, direction: str = "down"):
        self.turned = direction == "right"
        if self.turned:
            box = {n: (wh[1], wh[0]) for n, wh in box.items()}
            self._back: dict[str, tuple] = {}  # name -> (turned corner, its corner turned back)
        self.rows, self.box, self.gap = rows, box, gap
        self.tops, y = [], 0.0
        for row in rows:
            self.tops.append(y)
            y += max((box[n][1] for n in row), default=0.0) + gap[1]
        self.bottoms = self.tops[1:] + [y]
        self.row_of = {n: r for r, row in enumerate(rows) for n in row}
        self.placed: dict[int, tuple] = {}  # row -> (its pinned names, spans in its way)
        self.positions: dict[str, tuple[float, float]] = {}

    def place(self, pinned) -> dict[str, tuple[float, float]]:
        if not self.turned:
            return self._place(pinned)
        placed = self._place({n: (y, x) for n, (x, y) in pinned.items()})
        back, out = self._back, {}
        for n, xy in placed.items():
            was = back.get(n)
            if was is None or was[0] is not xy:  # the same corner as last time: the same tuple
                was = back[n] = (xy, (xy[1], xy[0]))
            out[n] = was[1]
        return out

    def _place(self, pinned) -> dict[str, tuple[float, float]]:
        box, gap, tops, bottoms = self.box, self.gap, self.tops, self.bottoms
        # Pinned boxes each row would run into, as [left, right) spans that include the gaps.
        blocking: dict[int, list[tuple[float, float]]] = {}
        in_row: dict[int, list[str]] = {}
        for n, (px, py) in pinned.items():
            if n in self.row_of:
                in_row.setdefault(self.row_of[n], []).append(n)
            w, h = box.get(n, (0.0, 0.0))
            first = max(bisect_left(bottoms, py) - 1, 0)  # rows from just above the pinned box
            for r in range(first, len(self.rows)):
                if tops[r] >= py + h + gap[1]:
                    break
                if py < bottoms[r]:
                    blocking.setdefault(r, []).append((px - gap[0], px + w + gap[0]))
        positions = self.positions
        if not positions:
            for r in range(len(self.rows)):
                self._row(r, (), (), positions)
        for r in self.placed.keys() | blocking.keys() | in_row.keys():
            key = (tuple(sorted(in_row.get(r, ()))), tuple(sorted(blocking.get(r, ()))))
            if self.placed.get(r, ((), ())) != key:
                self._row(r, *key, positions)
        out = dict(positions)
        out.update((n, (float(px), float(py))) for n, (px, py) in pinned.items())
        return out

    def _row(self, r, pinned_here, spans, positions) -> None:
        box, gap = self.box, self.gap
        row = [n for n in self.rows[r] if n not in pinned_here]
        x = -(sum(box[n][0] + gap[0] for n in row) - gap[0]) / 2  # centred on x = 0
        i = 0
        for n in row:
            width = box[n][0]
            while i < len(spans) and spans[i][1] <= x:
                i += 1  # behind this box, and so behind every later one in the row
            j = i
            while j < len(spans) and spans[j][0] < x + width:
                x = max(x, spans[j][1])  # overlaps a pinned box: jump past it
                j += 1
            positions[n] = (x, self.tops[r])
            x += width + gap[0]
        for n in pinned_here:
            positions.pop(n, None)
        if pinned_here or spans:
            self.placed[r] = (pinned_here, spans)
        else:
            self.placed.pop(r, None)


def free_spot(rects: Sequence[tuple[float, float, float, float]], size: tuple[float, float],
              near: tuple[float, float], area: tuple[float, float, float, float] | None = None,
              gap: float = 20.0, step: float = 20.0) -> tuple[float, float]:
    """The top-left corner nearest `near` where a box of `size` overlaps none of `rects`
    (x, y, w, h, kept `gap` apart), inside `area` (x, y, w, h: the view) when it fits there.
    Searched on rings of growing distance; `near` itself when nothing is free."""
    w, h = size

    def free(x: float, y: float) -> bool:
        return all(x + w + gap <= rx or rx + rw + gap <= x or y + h + gap <= ry or ry + rh + gap <= y
                   for rx, ry, rw, rh in rects)

    def inside(x: float, y: float) -> bool:
        return area is None or (area[0] <= x and x + w <= area[0] + area[2]
                                and area[1] <= y and y + h <= area[1] + area[3])

    x0, y0 = near
    if area is not None:  # start inside the view
        x0 = min(max(x0, area[0]), max(area[0], area[0] + area[2] - w))
        y0 = min(max(y0, area[1]), max(area[1], area[1] + area[3] - h))
    fallback = None
    for ring in range(60):
        for i in range(-ring, ring + 1):
            for dx, dy in ((i, -ring), (i, ring), (-ring, i), (ring, i)) if ring else ((0, 0),):
                x, y = x0 + dx * step, y0 + dy * step
                if free(x, y):
                    if inside(x, y):
                        return (x, y)
                    fallback = fallback or (x, y)
    return fallback or (x0, y0)
