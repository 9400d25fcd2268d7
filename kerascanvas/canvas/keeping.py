"""Where a canvas made without a file keeps its drawing, so that a kernel restart or a re-run of
its cell loses nothing: `.kerascanvas/kept/<notebook>-<cell>-<n>.kc` in the kernel's working
folder (the notebook's own, in Jupyter), one file per canvas a cell makes, written after every
change (storage.py's atomic save) and read back by the next `kc.Canvas()` of that cell.

A cell is known by the id JupyterLab and Notebook 7 send with each run (a cell keeps it when the
notebook is saved and reopened); the notebook by the path Jupyter gives its kernel
(JPY_SESSION_NAME). Outside a notebook (a script, a test, a console without cell ids) nothing is
kept. Off for one canvas with `kc.Canvas(keep=False)`, for all with KERASCANVAS_KEEP=0.
"""

from __future__ import annotations

import os
import re
import sys
from pathlib import Path

FOLDER = Path(".kerascanvas") / "kept"
_made: dict[tuple[str, int | None], int] = {}  # (cell id, run) -> canvases made in that run


def kept_path() -> Path | None:
    """The file the next canvas of the running cell keeps its drawing in, or None (not in a
    notebook cell, or keeping turned off)."""
    if os.environ.get("KERASCANVAS_KEEP", "1").strip().lower() in ("0", "false", "no", "off"):
        return None
    cell, run = _running_cell()
    if cell is None:
        return None
    n = _made.get((cell, run), 0)
    _made[(cell, run)] = n + 1
    notebook = Path(os.environ.get("JPY_SESSION_NAME", "") or "notebook").stem
    return FOLDER / f"{_safe(notebook)}-{_safe(cell)}-{n}.kc"


def new_kernel() -> None:
    """Count canvases from the start again, as a restarted kernel does (tests stand in)."""
    _made.clear()


def _running_cell() -> tuple[str | None, int | None]:
    """(the id of the cell running now, which run of the kernel it is) or (None, None)."""
    kernelbase = sys.modules.get("ipykernel.kernelbase")
    if kernelbase is None or not kernelbase.Kernel.initialized():
        return None, None
    kernel = kernelbase.Kernel.instance()
    try:
        parent = kernel.get_parent() if hasattr(kernel, "get_parent") else kernel._parent_header
        cell = (parent or {}).get("metadata", {}).get("cellId")
    except Exception:  # noqa: BLE001 - no request being answered: no cell to key by
        return None, None
    if not isinstance(cell, str) or not cell:
        return None, None
    shell = getattr(kernel, "shell", None)
    return cell, getattr(shell, "execution_count", None)


def _safe(text: str) -> str:
    """A piece of a file name: letters, digits, - and _ only, at most 60 characters."""
    return re.sub(r"[^A-Za-z0-9_-]", "_", text)[:60] or "_"
