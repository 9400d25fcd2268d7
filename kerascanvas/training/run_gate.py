"""Who may end a training run, when fit can be interrupted and a data source can hang.

`Trainer.fit` locks the canvas, then starts the training thread, whose end unlocks it. Three
things can come between, and each must leave the canvas unlocked exactly once:
- an interrupt (Ctrl-C, the kernel's stop button) before the thread has begun: fit cleans up
  itself (`cancel`), and a thread that starts late does nothing (`begin` says no);
- Stop while the data source hangs: after STOP_GRACE_S the run is abandoned (`abandon`): the
  trainer unlocks the canvas and says so, and the thread, if its data ever returns, touches
  nothing (`end` says no), a later run may own the canvas by then;
- the thread's normal end (`end`), which wins over a late `abandon`.
Each run has its own token, so nothing said about an old run reaches a newer one.
"""

from __future__ import annotations

import threading

STOP_GRACE_S = 10.0
"""Seconds Stop waits for the current batch before abandoning a run whose data source hangs."""


class RunGate:
    def __init__(self):
        self._lock = threading.Lock()
        self._token: object | None = None
        self._state = "ended"  # opened -> began | cancelled; began -> ended | abandoned

    def open(self) -> object:
        """A new run; returns its token."""
        with self._lock:
            self._token, self._state = object(), "opened"
            return self._token

    @property
    def current(self) -> object | None:
        return self._token

    def _move(self, token: object, allowed: tuple[str, ...], to: str) -> bool:
        with self._lock:
            if token is not self._token or self._state not in allowed:
                return False
            self._state = to
            return True

    def begin(self, token: object) -> bool:
        """The training thread starts: False if fit was interrupted first (it cleaned up)."""
        return self._move(token, ("opened",), "began")

    def cancel(self, token: object) -> bool:
        """fit was interrupted: True if the thread never began, so fit must clean up."""
        return self._move(token, ("opened",), "cancelled")

    def end(self, token: object) -> bool:
        """The training thread ends: False if the run was abandoned (clean nothing up)."""
        return self._move(token, ("began", "opened"), "ended")

    def abandon(self, token: object) -> bool:
        """Stop's grace is over and the run still runs: True if the caller now cleans up."""
        return self._move(token, ("began",), "abandoned")
