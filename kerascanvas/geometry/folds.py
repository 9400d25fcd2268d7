"""Folded runs of repeated blocks: which layers a folded run hides, and what its one box says.

A run (kerascanvas/geometry/repeats.py: copies of one block one after another) is named by its first
layer, its head. Folding is a view choice (`Graph.fold`): the head's box stands for the whole
run, drawn as a stack of cards labelled "×N", and the other layers of the run are not drawn;
edges into or out of the run attach to that box. Pure: no keras, nothing drawn.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Mapping

from . import boxes
from .repeats import Repeat

STACK = 8.0  # the cards behind a folded box show this far below and to the right of it
FOLDED_WIDTH = boxes.WIDTH + 60.0
FOLDED_HEIGHT = boxes.HEADER + 2 * boxes.CALL_ROW + boxes.FOOT + STACK


def index(repeats: Iterable[Repeat]) -> tuple[dict[str, str], dict[str, Repeat]]:
    """({layer: head of its run}, {head: run}) for every detected run."""
    head_of: dict[str, str] = {}
    runs: dict[str, Repeat] = {}
    for run in repeats:
        head = run.blocks[0][0]
        runs[head] = run
        for block in run.blocks:
            for name in block:
                head_of[name] = head
    return head_of, runs


def hidden(runs: Mapping[str, Repeat], folded: Iterable[str]) -> dict[str, str]:
    """{layer: head} for the layers a folded run hides (all of the run but its head)."""
    out: dict[str, str] = {}
    for head in folded:
        run = runs.get(head)
        if run is None:
            continue
        for block in run.blocks:
            for name in block:
                if name != head:
                    out[name] = head
    return out


def summary(classes: Iterable[str]) -> str:
    """One block's classes, counted, in order of first use: "Conv2D ×3, BatchNormalization ×3,
    Activation ×3, Add"."""
    counts = Counter(classes)
    return ", ".join(c if n == 1 else f"{c} ×{n}" for c, n in counts.items())


def info(run: Repeat) -> dict:
    """What a folded run's box shows (the state's "fold" entry on its head)."""
    return {"copies": len(run.blocks), "layers": len(run.blocks[0]),
            "last": run.blocks[-1][-1], "classes": summary(run.classes),
            "members": sum(len(b) for b in run.blocks)}


def size() -> tuple[float, float]:
    """(width, height) of a folded run's box, its stacked cards included."""
    return (FOLDED_WIDTH, FOLDED_HEIGHT)
