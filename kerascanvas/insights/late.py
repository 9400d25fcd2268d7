"""Records that land after their run has ended.

A new model's first records wait in the recorder's worker for their program (XLA's compile under
JAX, a trace under TensorFlow: seconds, longer than a short fit). A run's end does not wait for
them: its undo step is sealed, the canvas unlocked, and they land when their program is ready,
marked with the epoch they were taken at (their values were copied then).

A record that lands late belongs to its run's undo step: it is added to the step's sealed
journal (redo brings it back, undo takes it away) and to the records shown while they are still
exactly what the run left (its run not undone, no edit since renamed or removed a layer:
otherwise it is dropped from what is shown, where its names may be gone or another box's). A new
run waits for them first (`settle`), so its epochs count on from them and its undo step starts
from them. Readers that promise the records (canvas.insights, problems, a saved file) settle
first; the live strips and the panel are told when they land (`sealing`'s `landed`).
"""

from __future__ import annotations

import concurrent.futures
import contextlib
import threading
import warnings
from collections.abc import Callable
from typing import Any

SETTLE_S = 600.0  # at most this long a reader waits for records still landing (a compile)
_DROP = (None, None, None)  # records of a run given up on land nowhere
_MOVED = object()  # (as the run: no run is) records of a run whose layers moved since


class Late:
    """The late records of one store's last run (see the module's docstring)."""

    def __init__(self):
        self.lock = threading.RLock()  # held while a record lands and while a run is sealed
        self._journal: Any = None  # the running run's journal (its undo step)
        self._sealed: tuple | None = None  # (run, journal, the records it left) once sealed
        self._pending: list[concurrent.futures.Future] = []

    def begin(self, journal) -> None:
        """A new run (after `settle`): its records land in the store as they come."""
        with self.lock:
            self._journal = journal
            self._sealed = _DROP if any(not f.done() for f in self._pending) else None
            self._pending = []

    @contextlib.contextmanager
    def sealing(self, cell: dict, pending: list, landed: Callable[[], None] | None):
        """The run's undo step is sealed inside; the records in `pending` (futures still
        computing) land after, into it; `landed()` is called as each one is in."""
        with self.lock:
            yield
            self._pending = [f for f in pending if not f.done()]
            if self._pending and self._journal is not None:
                self._sealed = (cell["run"], self._journal, cell["records"])
            late = list(self._pending)
        for future in late:
            if landed is not None:
                future.add_done_callback(lambda _: landed())

    def land(self, cell: dict, records: Any, plus: Callable[[Any, Any], Any]) -> None:
        """Add `records` (plus(base, records) -> the new records) where they belong: to the
        records shown while the run is running; once sealed, to the run's undo step and to the
        records shown while those are still what it left."""
        with self.lock:
            sealed = self._sealed
            if sealed is None:
                cell["records"] = plus(cell["records"], records)
                return
            run, journal, left = sealed
            if journal is None:  # (a run given up on by `begin`)
                return
            new = plus(left, records)
            journal.amend(cell, "records", left, new)
            if cell["run"] == run and cell["records"] is left:
                cell["records"] = new
            self._sealed = (run, journal, new)

    def moved(self) -> None:
        """An edit renamed or removed layers: records of an ended run that land after it are
        no longer shown (their names may be gone or another box's); its undo step keeps them."""
        with self.lock:
            if self._sealed is not None and self._sealed[1] is not None:
                self._sealed = (_MOVED, *self._sealed[1:])

    def settle(self, timeout: float = SETTLE_S) -> None:
        """Wait until the last run's late records are in (at most `timeout` s); one that
        failed is warned about."""
        pending = list(self._pending)
        if not pending:
            return
        done, _ = concurrent.futures.wait(pending, timeout)
        failed = [f.exception() for f in done if f.exception() is not None]
        with self.lock:
            self._pending = [f for f in self._pending if f not in done]
        if failed:
            e = failed[0]
            warnings.warn(f"Training insights stopped recording ({type(e).__name__}: {e}); "
                          "the records taken before are kept.", RuntimeWarning, stacklevel=3)
