"""How a training run ends (Trainer's methods, split from trainer.py by concern): a run
that never started, a stop that its data source hangs (abandoned), the run sealed
(values a JAX fit detached put back, the records finished) and released (the Graph
unlocked); a loss that blows up puts back the weights its epoch began with.
"""

from __future__ import annotations

import threading
import time
import traceback
import warnings
from typing import Any

import keras

from ..insights import insights as insight_store
from ..network.detached import fit_variables, reattach, usable
from . import run_gate
from .placement import weight_layouts

LOCK_MESSAGE = ("Training is running: the graph cannot be edited until it ends. "
                "Stop it (canvas.stop()) or wait for it to finish.")
RUN_START = "the weights the run remembered for undo"  # an epoch's start, when it is the run's


class Ending:
    """How a run ends: abandoned, sealed, released; the weights put back."""

    def _not_started(self, token) -> None:
        """fit was interrupted (or failed) before its thread began: undo what it had done. If
        the thread had begun, the run goes on until Stop ends it, and unlocks as it ends."""
        if not self._gate.cancel(token):
            self.stop()
            return
        with self._lock:
            self._status.update(state="stopped", eta_s=None,
                                message="Interrupted before training began: nothing was trained.")
            self._fitting = self._fitted_for = None
        if self.graph.lock_reason is LOCK_MESSAGE:  # (not a lock someone else holds)
            self.graph.unlock()
        self._done.set()

    def _check_hang(self, token, after: float) -> None:
        later = threading.Timer(after, self._abandon, (token,))
        later.daemon = True
        later.start()

    def _abandon(self, token) -> None:
        """After Stop, a read of the data source has waited run_gate.STOP_GRACE_S: it hangs. The
        run is left waiting on it (when the read returns, its thread stays parked there: see
        training_data._FiniteBatches) and the canvas is unlocked now. A run still computing (no
        read waiting) is checked again later."""
        if self._done.is_set() or self._gate.current is not token:
            return  # it ended
        waited = self._batches.waiting_s() if self._batches is not None else 0.0
        if waited < run_gate.STOP_GRACE_S:
            self._check_hang(token, run_gate.STOP_GRACE_S - waited)
            return
        if not self._gate.abandon(token):
            return  # it ended in time
        if self._batches is not None:
            self._batches.abandon()
        self._note = ""
        copy_failed = self._seal_run(self._fitting, self._fitted_for)
        message = (f"Stopped: the data source did not return within {run_gate.STOP_GRACE_S:g} "
                   "s of Stop, so the run was left waiting on it; the canvas is unlocked."
                   + (self._note or " The weights trained so far are kept."))
        self._release(state="stopped" if copy_failed is None else "failed", eta_s=None,
                      message=message if copy_failed is None else copy_failed[0])

    def _seal_run(self, fitting: keras.Model, model: keras.Model | None = None
                  ) -> tuple[str, str] | None:
        """A run's end, before its status says so: the values a JAX fit detached put back, the
        run's insights all in, the trained weights copied onto `model` when another model
        trained (a replica), and the run made one undo step. (message, traceback) when the
        copy failed."""
        if not reattach(fitting, self._detachable):
            self._fall_back_to_epoch_start(fitting)
        failed = None
        if model is not None and fitting is not model:
            try:
                model.set_weights(fitting.get_weights())
            except Exception as e:  # noqa: BLE001
                failed = (f"Could not copy the trained weights back: {e}", traceback.format_exc())
        try:  # (while the last insights record computes; sealing would read them after it)
            self._weights_before.read_weights_now()
        except Exception:  # noqa: BLE001, S110 - sealing reads them again, and says what failed
            pass
        late = self._records_done()
        try:  # where each box's weights lie now (a mesh's runs: placement.py)
            layouts = weight_layouts(model if model is not None else fitting)
        except Exception:  # noqa: BLE001 - a description must not keep the canvas locked
            layouts = {}
        with self._lock:
            self._status["layouts"] = layouts
        # (records still waiting for their program land in the run's undo step after it is
        # sealed, and the panel hears of them then: insights/late.py)
        store = insight_store.of(self.graph)
        with store.late.sealing(store.cell, late, self._records_landed):
            try:  # undo (Ctrl+Z) puts the weights from before the run back
                self.graph.weights_changed(self._weights_before)
            except Exception:  # noqa: BLE001 - an observer's failure must not keep the lock
                warnings.warn(f"Recording the training run for undo failed: "
                              f"{traceback.format_exc()}", RuntimeWarning, stacklevel=1)
        return failed

    def _records_landed(self) -> None:
        """A record of an ended run landed (the worker thread): the panel and strips hear it.
        While the run is still ending, its last update (forced, in _release) carries it; until
        then updates stay within UPDATES_PER_SECOND."""
        with self._lock:
            ended = self._status["state"] != "running"
        try:
            self._emit(force=ended)
        except Exception:  # noqa: BLE001, S110 - the next update says it
            pass

    def _fall_back_to_epoch_start(self, fitting: keras.Model) -> None:
        """A JAX step was running when its run was abandoned and took the values it was given:
        the weights go back to this epoch's start (a host copy), and the optimizer and metrics
        start afresh (zeros here; the next fit compiles new ones)."""
        self._compiled = None
        for variable in fit_variables(fitting):
            if not usable(variable):
                variable.assign(keras.ops.zeros(variable.shape, variable.dtype))
        if self._put_back_epoch_start(fitting):
            self._note += (" A step was still running, so the weights from the start of this "
                           "epoch are kept and the optimizer starts afresh.")

    def _release(self, **status: Any) -> None:
        """The run's last status, then the canvas unlocked, observers told and waiters woken
        (in that order, whatever an observer does)."""
        with self._lock:
            self._status.update(status, elapsed_s=time.monotonic() - self._started)
            self._fitting = self._fitted_for = None
        self.graph.unlock()
        try:
            self._emit(force=True)
        finally:
            self._done.set()

    def _records_done(self) -> list:
        """The run's insights are in the store before its undo step is sealed (records are
        finished in a worker thread: recording.Recorder), but for those still waiting for their
        program (returned: they land after, insights/late.py)."""
        recorder = self._recording
        if recorder is not None:
            try:
                return recorder.finish()
            except Exception:  # noqa: BLE001 - insights must never keep the canvas locked
                warnings.warn(f"Finishing the training insights failed: "
                              f"{traceback.format_exc()}", RuntimeWarning, stacklevel=1)
        return []

    def _restore_epoch(self, fitting: keras.Model) -> str:
        """After a non-finite loss: the weights from the start of that epoch, which were finite."""
        self._compiled = None  # the optimizer's state took the non-finite step: the next fit
        if not self._put_back_epoch_start(fitting):  # compiles a fresh one
            return ""
        return " The weights from the start of that epoch are restored."

    def _put_back_epoch_start(self, fitting: keras.Model) -> bool:
        """The weights as the current epoch began back on `fitting`; False if none were kept."""
        if self._epoch_weights is RUN_START:
            self._weights_before.rollback()  # (fitting is the graph's model: see _Progress)
        elif self._epoch_weights is not None:
            fitting.set_weights(self._epoch_weights)
        else:
            return False
        return True
