"""The canvas's comparison: what its drawing is compared with (`canvas.compare_with(other)`).

`Comparing` holds the other side and, after each edit, compares again (kc.compare, io/compare.py)
and describes the result for the browser (io/compare_marks.py `view`: one drawing with the
changes marked)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from ..errors import EditError
from ..graph.graph import Graph
from ..io.compare import Comparison, as_drawing, compare
from ..io.compare_marks import view
from ..io.snapshot import Snapshot

KEYWORDS = ("imported", "saved")  # compare_with("imported"), compare_with("saved")


class Comparing:
    """The canvas's drawing compared with `other` (a Graph or a Snapshot) under `label`."""

    def __init__(self, other, label: str, keyword: str | None = None):
        self.other = other
        self.label = label
        self.keyword = keyword  # "imported" or "saved": followed (a later save is compared with)
        self.result: Comparison | None = None

    def update(self, graph: Graph) -> dict:
        """Compare again (other -> graph) and return the browser's view of it."""
        if self.keyword is not None:
            self.other = resolve(graph, self.keyword)[0]
        self.result = compare(self.other, graph, Graph)
        return view(self.result, self.other, graph, self.label)


def resolve(graph: Graph, other: Any) -> tuple[Any, str]:
    """(the drawing to compare `graph` with, the words that name it) for what compare_with got:
    "imported", "saved", the name of a snapshot in graph.snapshots, a Snapshot, a Graph (or a
    kc.Canvas: its graph), a keras.Model, or the path of a .kc or .keras file. Anything else
    raises TypeError or EditError saying what it got; nothing changes then."""
    if isinstance(other, str) and other in KEYWORDS:
        kept = graph.as_imported if other == "imported" else graph.as_saved
        if kept is None:
            raise EditError("This drawing was not imported (Graph.from_model, load_keras or "
                            "load make the drawing as imported)." if other == "imported" else
                            "This drawing has not been saved or loaded yet (the drawing as "
                            "saved is kept by g.save and Graph.load).")
        return kept, f"the drawing as {other}"
    if isinstance(other, str) and other in graph.snapshots:
        return graph.snapshots[other], f"snapshot {other!r}"
    if isinstance(other, Snapshot):
        return other, f"snapshot {other.name!r}"
    inner = getattr(other, "graph", None)
    if not isinstance(other, Graph) and isinstance(inner, Graph) and hasattr(other, "compare_with"):
        other = inner  # another canvas: its drawing
    if isinstance(other, Graph):
        if other is graph:
            raise EditError("A drawing compared with itself has no differences: compare it "
                            "with a snapshot of it (g.snapshot('before')), or 'imported'.")
        return other, f"the drawing {other.name!r}"
    if isinstance(other, (str, Path)):
        path = Path(other)
        if not path.is_file():
            names = ", ".join(repr(n) for n in [*KEYWORDS, *graph.snapshots][:12])
            raise EditError(f"compare_with({str(other)!r:.80}): that is not a file, nor one of "
                            f"{names}.")
        return as_drawing(path, Graph, "other"), f"the file {path.name!r}"
    if other is None or isinstance(other, (int, float, bool, bytes, list, tuple, dict)):
        raise TypeError(f"compare_with takes 'imported', 'saved', a snapshot or its name, a "
                        f"kc.Graph, a kc.Canvas, a keras.Model or a file's path; got "
                        f"{type(other).__name__} {other!r:.80}.")
    return as_drawing(other, Graph, "other"), f"the model {getattr(other, 'name', '?')!r}"


def choices(graph: Graph) -> dict:
    """What the browser's "Compare with..." offers for `graph`."""
    return {"imported": graph.as_imported is not None, "saved": graph.as_saved is not None,
            "snapshots": list(graph.snapshots)[-50:]}
