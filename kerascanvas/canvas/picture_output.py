"""The picture a canvas leaves in a notebook, kept current: where the live view cannot render
(GitHub, nbviewer, `jupyter nbconvert --to html`, a notebook saved with its widget state and
opened offline) the saved notebook shows the drawing as it was last edited, not as it was when
the cell ran.

Displayed in IPython, a canvas is two outputs: the live view (the widget's own bundle) and,
right after it, the picture (`image/svg+xml`, with a display id). Edits update only the picture's
output (`update_display`), debounced: the live view is never re-rendered, so it keeps its pan,
zoom and selection. (One bundle holding both would not do: JupyterLab renders an updated widget
bundle again from scratch, "Loading widget..." and a new view.) While the live view shows, the
widget's CSS hides the picture after it (js/src/canvas/fallback.ts).

Edits from Python update the picture when their cell ends (IPython's post_run_cell, so that a
notebook executed by nbclient saves the last state too); edits from the canvas a moment after
the last one (DEBOUNCE).
"""

from __future__ import annotations

import sys
import uuid
import weakref
from collections.abc import Callable

DEBOUNCE = 0.5  # seconds after the last edit from the canvas
MARK = "kerascanvas-picture"  # in every picture: the live view's CSS finds its picture by it

_due: weakref.WeakSet = weakref.WeakSet()  # outputs with an edit not yet in their picture
_hooked: set[int] = set()  # the IPython shells whose post_run_cell flushes them


class PictureOutput:
    """The picture output of one canvas. `bundle` makes its current mime bundle."""

    def __init__(self, bundle: Callable[[], dict]):
        self._bundle = bundle
        self.display_id: str | None = None  # set once the picture is displayed
        self._timer = None

    def display(self) -> None:
        """Display the picture (after the live view); each display of a canvas shares one id,
        so every one of them follows the drawing."""
        from IPython.display import display

        if self.display_id is None:
            self.display_id = f"kerascanvas-{uuid.uuid4().hex}"
        display(self._bundle(), raw=True, display_id=self.display_id)
        _hook_cell_end()

    def changed(self) -> None:
        """The drawing changed: the picture follows at the cell's end, or a moment after the
        last edit when no cell runs (the canvas's own edits)."""
        if self.display_id is None:
            return
        _due.add(self)
        loop = kernel_loop()
        if loop is not None:
            loop.add_callback(self._restart_timer)  # the loop's own thread runs it

    def _restart_timer(self) -> None:
        loop = kernel_loop()
        if loop is None:
            return
        if self._timer is not None:
            loop.remove_timeout(self._timer)
        self._timer = loop.call_later(DEBOUNCE, self.flush)

    def flush(self) -> None:
        """Send the current picture now if an edit is not in it yet."""
        self._timer = None
        if self not in _due or self.display_id is None:
            return
        _due.discard(self)
        from IPython.display import update_display

        update_display(self._bundle(), raw=True, display_id=self.display_id)


def waiting() -> int:
    """How many pictures have an edit not yet in them."""
    return len(_due)


def flush_all(*_args) -> None:
    """Every picture with an edit not yet in it, now (at the end of each cell)."""
    for output in list(_due):
        output.flush()


def _hook_cell_end() -> None:
    try:
        from IPython import get_ipython
    except ImportError:
        return
    shell = get_ipython()
    if shell is None or id(shell) in _hooked:
        return
    _hooked.add(id(shell))
    shell.events.register("post_run_cell", flush_all)


def kernel_loop():
    """The running IPython kernel's event loop, or None (a script, a test, marimo)."""
    kernelbase = sys.modules.get("ipykernel.kernelbase")
    if kernelbase is None or not kernelbase.Kernel.initialized():
        return None
    return getattr(kernelbase.Kernel.instance(), "io_loop", None)


def plain_text(state: dict) -> str:
    """What a notebook shows where it shows neither the live view nor pictures."""
    n = len(state.get("layers", ()))
    return f"kerascanvas drawing of {state.get('name', 'model')!r}: {n} layer{'s' * (n != 1)}"
