"""What a training run reports: its status (state, epoch, batch, logs) taken in from batch
ends, the history and curve of its epochs, and updates to subscribers at most
UPDATES_PER_SECOND times a second (Trainer's methods, split from trainer.py by concern).
"""

from __future__ import annotations

import math
import time
import warnings
from collections.abc import Callable, Mapping
from typing import Any

UPDATES_PER_SECOND = 10
MAX_CURVE_POINTS = 2000


def _finite(value: Any) -> Any:
    """JSON for the front end: Jupyter refuses NaN and infinity in messages."""
    if isinstance(value, float) and not math.isfinite(value):
        return None
    if isinstance(value, dict):
        return {k: _finite(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_finite(v) for v in value]
    return value


def logged_floats(logs: Mapping) -> dict[str, float]:
    """The logs that are numbers, as floats."""
    out = {}
    for k, v in logs.items():
        try:
            out[str(k)] = float(v)
        except (TypeError, ValueError):
            pass
    return out


class Reporting:
    """A run's status, history and curve, as the panel and Python read them."""

    @property
    def history(self) -> dict[str, list[float]]:
        """Per-epoch logs so far ("loss", "val_loss", metrics...), like `History.history`."""
        with self._lock:
            return {k: list(v) for k, v in self._epochs.items()}

    @property
    def curve(self) -> list[dict[str, float]]:
        """Training logs sampled while it runs (at most 10 a second, thinned to 2,000 points):
        each {"epoch": progress in epochs, e.g. 1.5, "loss": ..., metric: ...}."""
        with self._lock:
            return [dict(p) for p in self._curve]

    @property
    def status(self) -> dict[str, Any]:
        """state ("idle" | "running" | "stopped" | "finished" | "failed"), epoch (1-based),
        epochs, batch (batches done in this epoch), batches (per epoch, or None), eta_s,
        elapsed_s, device, loss, logs (latest running values), message, traceback."""
        with self._lock:
            self._fold_batch()
            return dict(self._status, logs=dict(self._status["logs"]))

    def snapshot(self) -> dict[str, Any]:
        """status and per-epoch history as JSON (NaN and infinity become null): what the
        training panel shows."""
        with self._lock:
            self._fold_batch()
            status = dict(self._status, logs=dict(self._status["logs"]))
            history = {k: list(v) for k, v in self._epochs.items()}
        return _finite({"status": status, "history": history})

    def on_update(self, callback: Callable[[dict], None]) -> Callable[[], None]:
        """Call `callback(snapshot)` as training progresses: at most 10 times a second, and once
        when it ends. It runs in the training thread: keep it quick. Returns an unsubscribe."""
        if not callable(callback):
            raise TypeError(f"on_update takes a callable, got {type(callback).__name__}.")
        self._subscribers.append(callback)

        def unsubscribe() -> None:
            if callback in self._subscribers:
                self._subscribers.remove(callback)

        return unsubscribe

    def _curve_point(self, at: float, logs: dict[str, float], epoch_end: bool = False) -> None:
        """A point of the curve at `at` epochs (under self._lock). Every epoch's end has one,
        its values the epoch's as History has them: the points sampled while it ran are at most
        10 a second, so a fit of short epochs would otherwise draw a curve that stops in its
        first epoch. Points stay in order of `at`."""
        if not logs:
            return
        if self._curve and self._curve[-1]["epoch"] >= at:
            if not epoch_end or self._curve[-1]["epoch"] > at:
                return  # (a batch's values sampled after the point of a later one)
            self._curve.pop()  # (a point sampled at the epoch's last batch: the epoch's own)
        self._curve.append({"epoch": at, **logs})
        if len(self._curve) > MAX_CURVE_POINTS:
            self._curve = self._curve[::2]

    def _emit(self, force: bool = False) -> None:
        now = time.monotonic()
        with self._lock:
            if not force and now - self._last_emit < 1.0 / UPDATES_PER_SECOND:
                return
            self._last_emit = now
            self._fold_batch()
            s = self._status
            if s["state"] == "running" and s["logs"] and s["batches"]:
                self._curve_point(s["epoch"] - 1 + s["batch"] / s["batches"], s["logs"])
        if not self._subscribers:
            return
        snapshot = self.snapshot()
        with self._emit_lock:
            for callback in list(self._subscribers):
                try:
                    callback(snapshot)
                except Exception as e:  # noqa: BLE001 - a display error must not end training
                    warnings.warn(f"A training update callback failed: {e!r}", RuntimeWarning,
                                  stacklevel=1)

    def _fold_batch(self) -> None:
        """The latest batch end into the status (under self._lock)."""
        pending = self._pending
        if pending is None or pending is self._folded:
            return
        self._folded = pending
        batch, logs = pending
        s = self._status
        s["batch"] = max(s["batch"], batch + 1)
        s["logs"] = logged_floats(logs)
        done = (s["epoch"] - 1) * (s["batches"] or 0) + s["batch"]
        elapsed = time.monotonic() - self._started
        s["elapsed_s"] = elapsed
        if s["batches"] and done:
            s["eta_s"] = elapsed / done * (s["epochs"] * s["batches"] - done)

    @staticmethod
    def _fresh_status(state: str, epochs: int) -> dict[str, Any]:
        return {"state": state, "epoch": 0, "epochs": epochs, "batch": 0, "batches": None,
                "eta_s": None, "elapsed_s": 0.0, "device": None, "mesh": None, "layouts": {},
                "loss": None, "logs": {}, "message": "", "traceback": None}
