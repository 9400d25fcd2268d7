"""`kc.Canvas`: the anywidget that draws a Graph. Thin: it hands each browser intent to
intent_handlers.py (checked there, then applied through the same Graph methods Python code calls)
and answers it; the Graph's new state flows back as diffs.

Protocol: the browser sends `{"kind": ..., "id": ..., ...}` custom messages; each is answered
`{"id": ..., "ok": true, "result": ...}` or `{"id": ..., "error": "..."}`. Everything in a message
is untrusted: types, sizes and class names (catalog only) are checked before anything changes.

State: the full state goes once (`snapshot`); after that each change is a custom message
`{"diff": {"base", "revision", ...}}` (diffs.py). `revision` is synced too, so a front end that
(re)creates the model from a stale snapshot knows to ask for the full state (intent "state").

Why it is long: the widget is one anywidget class whose synced traits, each documented under it,
and whose public methods (training, insights, save and load) are the canvas's Python API; the
checks of what the browser may set sit beside the traits they guard.
"""

from __future__ import annotations

import json
import logging
import math
import time
import weakref
from collections.abc import Callable
from pathlib import Path
from typing import Any

import anywidget
import numpy as np
import traitlets

from .. import limits
from ..errors import EditError
from ..graph.graph import Graph
from ..graph.history import WEIGHTS
from ..insights import insights
from ..kinds import custom, kinds
from ..mirror import shape
from ..mirror.diffs import Tracker
from ..text import check_text
from ..words import canvas_words
from . import intent_handlers, keeping, later
from .intent_checks import IntentError
from .picture_output import PictureOutput, plain_text

_log = logging.getLogger(__name__)
KEEP_SHARE = 0.1  # at most this share of the kernel's time goes to keeping the drawing

CURVE_SENT = 500  # points of the training curve a panel update carries
RUNS_SHOWN = 8  # earlier runs (not undone) the training panel draws beside the current one
RUN_POINTS = 100  # points of an earlier run's curve sent: it no longer changes, a sketch will do


def curve_sent(curve: list) -> list:
    """The curve the training panel draws: the whole run, evenly thinned to CURVE_SENT points
    (the last CURVE_SENT points alone showed only the end of a long run of short epochs, each of
    which has a point)."""
    return insights.evenly(curve, CURVE_SENT)


class Canvas(anywidget.AnyWidget):
    """Draw, edit and inspect a kc.Graph in a notebook. `canvas.graph` is the live Graph."""

    _esm = Path(__file__).parents[1] / "static" / "widget.js"

    snapshot = traitlets.Dict().tag(sync=True, echo_update=False)
    """The full state at the last full sync (creation, load); the browser keeps its copy current
    by applying diffs. Read `state` for the current one."""

    revision = traitlets.Int(0).tag(sync=True)
    """The revision of the state the kernel last described (diffs count it up)."""

    palette = traitlets.List().tag(sync=True, echo_update=False)
    """The catalog for the palette and the inspector's forms (`kinds.palette()`), sent again
    when `kc.register` changes what is offered."""

    height = traitlets.Int(520).tag(sync=True)
    """Height of the drawing area in pixels."""

    path = traitlets.Unicode("").tag(sync=True)
    """The file the Save and Load buttons use ("" hides them); set from Python only."""

    training = traitlets.Dict().tag(sync=True, echo_update=False)
    """The training panel's view: status, per-epoch history and the live curve (throttled)."""

    train_choices = traitlets.Dict().tag(sync=True, echo_update=False)
    """Optimizers, losses and metrics the training panel offers."""

    edits = traitlets.Int(0).tag(sync=True, echo_update=False)
    """Set by the browser (to the revision it reached) after each of its edits (the kernel marks
    their diffs): a change of the drawing made on the canvas, told as a change of a synced trait
    from the front end, which is what re-runs the cells that read `canvas.graph` in marimo
    (`mo.ui.anywidget(kc.Canvas(g))`). The kernel never reads it."""

    insight_strips = traitlets.Dict().tag(sync=True, echo_update=False)
    """Per box a small live strip (weight norm, activation spread) and its problems, as the
    browser gets them (`insights.wire_summary`; `insight_summary` says the same in numbers):
    bounded, sent as records come."""

    insight_focus = traitlets.Unicode("").tag(sync=True)
    """The box whose histograms the browser asks for (set by the browser: untrusted)."""

    insight_detail = traitlets.Dict().tag(sync=True, echo_update=False)
    """The focused box's histograms over its records (`insights.detail`), bounded."""

    comparison = traitlets.Dict().tag(sync=True, echo_update=False)
    """What the drawing is compared with and its changes marked ({} when not comparing): set
    by `compare_with` (and the browser's "Compare with..."), redone after every edit
    (kerascanvas/canvas/comparing.py `view`)."""

    insight_epoch = traitlets.Float(-1.0).tag(sync=True)  # the forward pass's (browser: untrusted)
    insight_activations = traitlets.Dict().tag(sync=True, echo_update=False)  # insights.epoch_view

    def __init__(self, graph: Graph | None = None, *, height: int = 520, path: str | None = None,
                 keep: bool = True):
        """Canvas(path="model.kcanvas") loads that file if it exists and saves to it from its
        Save button. A canvas without a file in a notebook cell keeps its drawing, weights
        included, after every change (keeping.py: .kerascanvas/kept/ beside the notebook), and
        `kc.Canvas()` run again in that cell, after a kernel restart too, shows it again.
        keep=False: nothing kept (KERASCANVAS_KEEP=0 for every canvas)."""
        if graph is not None and not isinstance(graph, Graph):
            raise TypeError(f"Canvas(graph=...) takes a kerascanvas.Graph, got {type(graph).__name__}.")
        if graph is None and path is not None and Path(path).is_file():
            graph = Graph.load(path)
        kept = keeping.kept_path() if keep and path is None else None
        if graph is None and kept is not None and kept.is_file():
            try:
                graph = Graph.load(kept)
                graph.as_saved = None  # (kept by the canvas, not saved by the user)
                graph.notes = (*graph.notes, (f"Restored from {kept} (the drawing this cell's "
                               "canvas kept); kc.Canvas(keep=False) starts empty."))
            except EditError as e:  # left there untouched: this canvas keeps nothing
                graph = Graph()
                graph.notes = ((f"The drawing kept in {kept} could not be read ({e}); the file is "
                               "left as it is and this canvas keeps nothing."),)
                kept = None
        from ..training.choices import choices

        super().__init__(height=height, palette=kinds.palette(), path=str(path or ""),
                         train_choices=choices())
        self._trainer = None
        self._tracker: Tracker | None = None
        self._graph: Graph | None = None
        self._stop: Callable[[], None] = lambda: None
        self._whole_bytes: int | None = None  # at most what the whole state takes (see _push)
        self._check_waits = False
        self._oversize: str | None = None  # why the last state push was too big to send
        self._picture = PictureOutput(self._picture_bundle)  # its picture in a notebook
        self._kept = kept  # where this canvas keeps its drawing (keeping.py), or None
        self._keep_waits = False
        self._keep_next = 0.0  # time.monotonic() before which the next keep waits (_keep)
        self._answering = False  # an intent from the browser is being applied
        # Ctrl+Z stops once before undoing a cell's edit: the undo steps this canvas made (held
        # weakly: history drops old steps), and whether it said so since its last edit
        self._own_steps: weakref.WeakSet = weakref.WeakSet()
        self._undo_stopped = False
        # The training runs seen, by id ({"previous", "number", "curve", "history", ...}), and
        # the last run not undone as last seen: a new run follows it (fine-tuning's second stage
        # is drawn after the first). Undo and redo move that head (insights journals it).
        self._runs_seen: dict[int, dict] = {}
        self._run_head: int | None = None
        self._fit_asked: dict = {}  # canvas.fit's settings while it starts a run
        self._comparing = None  # comparing.Comparing while a comparison is shown
        self._compare_waits = False
        self.graph = graph if graph is not None else Graph()
        self.on_msg(lambda _widget, content, _buffers=None: self.receive(content))
        custom.observe(self._offer_changed)  # held weakly: a closed canvas is not kept

    def set_state(self, sync_data) -> None:
        """A trait update from the browser (untrusted). It may set only BROWSER_SETS, each
        checked; any other trait is the kernel's own (`path` above all: a browser that could
        set it would choose the file Save writes and Load reads), so its update is refused,
        logged, and the browser's copy is set back. A refused update changes nothing."""
        if not isinstance(sync_data, dict):
            _log.warning("kerascanvas: a state update that is not an object was refused")
            return
        taken, refused = {}, []
        for name, value in sync_data.items():
            check = BROWSER_SETS.get(name)
            if check is not None and check(value):
                taken[name] = value
            elif name in self.keys and (check is not None or getattr(self, name) != value):
                refused.append(name)  # (an echo of the kernel's own value is no change; a
                # name that is no trait is ignored, as ipywidgets does)
        if refused:
            _log.warning("kerascanvas: the browser's update of %s was refused: %s",
                         ", ".join(f"{n!r:.80}" for n in refused[:10]),
                         "only the kernel sets these traits, or the value was invalid")
            if self.comm is not None:
                self.send_state(refused)  # the browser's copy back to the kernel's value
        if taken:
            super().set_state(taken)

    def _offer_changed(self) -> None:
        """A class was registered (or forgotten) after this canvas was made: its palette too."""
        if self.comm is not None:  # (None once closed)
            self.palette = kinds.palette()

    @property
    def graph(self) -> Graph:
        """The Graph this canvas draws. Replacing it (or loading a file) is refused while
        training runs on it: the run would go on training layers no longer shown."""
        return self._graph

    @graph.setter
    def graph(self, graph: Graph) -> None:
        if not isinstance(graph, Graph):
            raise TypeError(f"Canvas.graph takes a kerascanvas.Graph, got {type(graph).__name__}.")
        self._check_not_training("the drawing cannot be replaced")
        # Interrupt-safe (Ctrl+C may land on any line): the new drawing's state is made aside
        # and watched before one statement swaps it in with the revision that makes every view
        # ask for it; an interrupt before that swap leaves the old drawing as it was, one after
        # it still shows the new one (finally).
        previous = self._tracker
        tracker = Tracker(graph, after=previous.revision if previous is not None else 0)
        snapshot, whole = _wire_state(tracker)
        stop_new = None
        try:
            stop_new = graph.observe(self._push)
            stop_old = self._stop
            self._graph, self._tracker, self._stop, self._whole_bytes, self.revision = \
                graph, tracker, stop_new, whole, tracker.revision
        except BaseException:
            if self._graph is not graph and stop_new is not None:
                stop_new()
            raise
        try:
            stop_old()
        finally:
            if self._comparing is not None:  # (a comparison of the drawing no longer shown)
                self._comparing, self.comparison = None, {}
            self._check_waits = False  # a _check_model is waiting (later.when_drawn)
            self._run_head = insights.of(graph).run  # its runs, not the last drawing's
            self.snapshot = snapshot
            self._picture.changed()
            self._show_insights()  # a loaded file's records

    def close(self) -> None:
        """Close the widget and let go of it. anywidget's watcher of the `_esm` file holds a
        strong reference to every instance (a lambda in AnyWidget.__init__), which would keep
        each closed canvas, its Graph and all their Keras objects alive for the kernel's life."""
        stop = self.__dict__.get("_stop")  # absent when __init__ refused its arguments
        if stop is not None:
            stop()
        super().close()
        signal = next((c.__dict__["_esm"].changed for c in type(self).__mro__
                       if hasattr(c.__dict__.get("_esm"), "changed")), None)
        for slot in list(getattr(signal, "_slots", ())):
            function = slot.dereference() if hasattr(slot, "dereference") else None
            if any(cell.cell_contents is self for cell in getattr(function, "__closure__", None)
                   or ()):
                signal.disconnect(function)

    def _check_not_training(self, what: str) -> None:
        graph = self._graph
        if graph is not None and (graph.lock_reason is not None or (
                self._trainer is not None and self._trainer.running)):
            raise IntentError(f"Training is running: {what} until it ends. Stop it "
                              "(canvas.stop()) or wait for it to finish.")

    # ----- training (training.py does the work) --------------------------------------------

    @property
    def trainer(self):
        """The Trainer of this canvas's graph (made on first use: it imports the training code)."""
        from ..training.trainer import Trainer

        if self._trainer is None or self._trainer.graph is not self.graph:
            self._trainer = Trainer(self.graph)
            self._trainer.on_update(self._training_update)
        return self._trainer

    def _training_update(self, snapshot: dict) -> None:
        status = snapshot.get("status")
        if isinstance(status, dict) and isinstance(status.get("message"), str):  # shown on the canvas
            snapshot = {**snapshot, "status": {**status, "message": canvas_words(status["message"])}}
        curve = curve_sent(self._trainer.curve)
        self._note_run(self._trainer.run, snapshot, curve)
        self.training = {**snapshot, "curve": curve, **self._run_shown(), **self._runs_view(),
                         "data": self._trainer.data_summary,
                         "data_inputs": list(self._trainer.data_inputs)}
        self._show_insights()

    def _note_run(self, run: int | None, snapshot: dict, curve: list) -> None:
        """Keep what the panel draws of run `run` once later runs follow it (training thread)."""
        if run is None:
            return
        seen = self._runs_seen.get(run)
        if seen is None:  # its first update (fit starts it): it follows the head
            previous = self._runs_seen.get(self._run_head)
            kept = {r: self._runs_seen[r] for r in self._chain(self._run_head)[-RUNS_SHOWN:]}
            seen = {"previous": self._run_head,
                    "number": previous["number"] + 1 if previous else 1,
                    "first_epoch": previous["first_epoch"] + _epochs_drawn(previous)
                    if previous else 0, **self._run_settings()}
            # runs undone before this one began cannot come back (redo is gone): forgotten
            self._runs_seen = {**kept, run: seen}
        status = snapshot.get("status") or {}
        seen.update(curve=curve, history=snapshot.get("history") or {})
        if status.get("state") != "running":
            self._run_head = insights.of(self.graph).run

    def _run_settings(self) -> dict:
        """The learning rate and optimizer of the run starting: as canvas.fit was asked, else
        the compiled optimizer's (a fit called on the trainer itself)."""
        asked = self._fit_asked
        optimizer = asked.get("optimizer")
        rate = asked.get("learning_rate")
        compiled = getattr(self.graph.model, "optimizer", None)
        if rate is None and compiled is not None:
            try:
                rate = float(f"{float(np.asarray(compiled.learning_rate)):.7g}")  # (float32)
            except (TypeError, ValueError, AttributeError):
                rate = None
        if not isinstance(optimizer, str):
            optimizer = type(compiled).__name__.lower() if compiled is not None else None
        rate = float(rate) if isinstance(rate, (int, float)) and math.isfinite(rate) else None
        return {"learning_rate": rate, "optimizer": optimizer}

    def _chain(self, run: int | None) -> list[int]:
        """Run `run` and the runs it followed that are still known, oldest first."""
        chain: list[int] = []
        while run in self._runs_seen and run not in chain:
            chain.append(run)
            run = self._runs_seen[run]["previous"]
        return chain[::-1]

    def _runs_view(self) -> dict:
        """The runs the panel draws: the one it shows ("this_run") and the earlier ones on this
        drawing not undone ("runs", oldest first, at most RUNS_SHOWN), each with its number, its
        first epoch (epochs count on across runs, as Keras's initial_epoch would), learning rate
        and optimizer; earlier runs carry their curve (thinned) and validation history."""
        run = self._trainer.run if self._trainer is not None else None
        if run not in self._runs_seen:
            return {"runs": [], "this_run": None}
        head = insights.of(self.graph).run
        earlier = self._chain(head)[:-1] if head == run else self._chain(head)

        def describe(r: int) -> dict:
            seen = self._runs_seen[r]
            return {"run": r, **{k: seen[k] for k in ("number", "first_epoch", "learning_rate",
                                                       "optimizer")}}

        return {"runs": [{**describe(r),
                          "curve": insights.evenly(self._runs_seen[r]["curve"], RUN_POINTS),
                          "history": {k: v for k, v in self._runs_seen[r]["history"].items()
                                      if k.startswith("val_")}}
                         for r in earlier[-RUNS_SHOWN:]],
                "this_run": describe(run)}

    # ----- training insights (insights.py keeps them; recording.py makes them) ---------------

    @property
    def insights(self) -> dict:
        """{layer: [record per epoch: {"epoch", "weights", "gradients", "activations"}, ...]}
        of the training runs on this drawing not undone, the latest record of each epoch (see
        kerascanvas/insights/insights.py); `insight_records` has those taken within long epochs too."""
        return insights.of(self.graph).records()

    @property
    def insight_epochs(self) -> list:
        """The epochs recorded (whole epochs, in order): records stay within a share of training
        time (kerascanvas/insights/recording.py: `record_epoch`), so short epochs are recorded
        every few epochs; a run's first and last always are."""
        return insights.of(self.graph).recorded_epochs()

    @property
    def insight_records(self) -> dict:
        """`insights` with the records taken every N batches within long epochs ("partial":
        True, a fractional "epoch"), in order."""
        return insights.of(self.graph).records(within_epochs=True)

    @property
    def insight_problems(self) -> list:
        """[(layer, kind, epoch, message)] that the latest records show; kind is one of
        "dead_units", "vanishing_gradients", "exploding_gradients", "non_finite"."""
        return insights.of(self.graph).problems()

    @property
    def insight_summary(self) -> dict:
        """Per box its live strip (the last records' epochs, weight norms and activation
        spreads) and its problems: {"layers": {name: {"epochs", "norms", "spreads",
        "problems"}}} (`insights.summary`; a copy)."""
        return json.loads(json.dumps(insights.summary(insights.of(self.graph))))

    def activations_at(self, epoch: float) -> dict:
        """{layer: its output's statistics recorded at `epoch`} (`Insights.activations_at`)."""
        return insights.of(self.graph).activations_at(epoch)

    def _run_shown(self) -> dict:
        """Whether the run the training panel shows was undone (Ctrl+Z): its weights and
        records are gone, so the panel says so and greys its curves."""
        trainer = self._trainer
        run = trainer.run if trainer is not None and trainer.graph is self.graph else None
        undone = run is not None and not trainer.running and insights.of(self.graph).run != run
        return {"run": run, "undone": undone}

    def _show_insights(self) -> None:
        strips = insights.wire_summary(insights.of(self.graph))
        if strips is not self.insight_strips and strips != self.insight_strips:
            self.insight_strips = strips
        self._focus_changed()
        self._epoch_changed()

    @traitlets.observe("insight_epoch")
    def _epoch_changed(self, _change=None) -> None:
        view = insights.epoch_view(insights.of(self.graph), self.insight_epoch)
        if view != self.insight_activations:
            self.insight_activations = view

    @traitlets.observe("insight_focus")
    def _focus_changed(self, _change=None) -> None:
        name = self.insight_focus
        if not isinstance(name, str) or len(name) > 1000 or \
                name not in insights.of(self.graph).cell["records"]:
            detail = {}  # an unknown name (the browser is untrusted) shows nothing
        else:
            detail = insights.detail(insights.of(self.graph), name)
        if detail != self.insight_detail:
            self.insight_detail = detail

    def _insights_after_edit(self) -> None:
        """After an edit (an undo or redo of a run among them): the panel and strips follow."""
        if self._trainer is None or self._trainer.running:
            return
        self._run_head = insights.of(self.graph).run
        shown = {**self._run_shown(), **self._runs_view()}
        if self.training and any(self.training.get(k) != v for k, v in shown.items()):
            self.training = {**self.training, **shown}
        self._show_insights()

    @property
    def training_data(self) -> tuple | None:
        """(x, y, validation_data) as given to set_data, or None (the forward-pass view's
        sample is the first of x)."""
        return self._trainer.data if self._trainer is not None else None

    def set_data(self, x, y=None, validation_data=None):
        """Data for the Train button and fit(): NumPy arrays, a tf.data.Dataset or a
        keras.utils.PyDataset; checked against the model now (and again at fit). Returns what
        it got in words ("1,797 samples · x (8, 8, 1) float32 · y int64, 10 classes"),
        which the Train panel shows too."""
        said = self.trainer.set_data(x, y, validation_data=validation_data)
        self.training = {**self.training, "data": str(said),
                         "data_inputs": list(self.trainer.data_inputs)}
        return said

    def fit(self, block: bool = True, **fit_kwargs):
        """What the Train button does; returns the History (block=False returns at once)."""
        self._fit_asked = fit_kwargs  # (the run's label: its learning rate as asked)
        try:
            return self.trainer.fit(block=block, **fit_kwargs)
        finally:
            self._fit_asked = {}

    def stop(self) -> None:
        """Stop training after the current batch; the weights trained so far stay."""
        self.trainer.stop()

    @property
    def history(self) -> dict:
        """Per-epoch logs of the last run ("loss", "val_loss", metrics...)."""
        return self.trainer.history

    @property
    def state(self) -> dict:
        """The Graph's state as the browser holds it (`Graph.state()` plus its `revision`):
        layers, edges, problems, model summary. Read-only."""
        return self._tracker.full()

    def _push(self, graph: Graph) -> None:
        """After an edit: its diff goes out before Keras builds the model (a new keras.Model is
        most of a structural edit's time on a big drawing), then a second diff if building it
        changed what shows (Keras refused a model kerascanvas's own checks pass)."""
        self._oversize = None
        self._send_diff(self._tracker.update(quick=True))
        self._insights_after_edit()
        if not (graph.model_checked and graph.repeats_found) and not self._check_waits:
            self._check_waits = True  # once however many edits come before it (a loop in a cell)
            later.when_drawn(self._check_model)
        if self._comparing is not None and not self._compare_waits:
            self._compare_waits = True  # compared again once the edit's diff is drawn
            later.when_drawn(self._compare_again)
        if self._kept is not None and not self._keep_waits:
            self._keep_waits = True  # once for a burst of edits, after their diffs are drawn
            # and, for a big drawing, no sooner than KEEP_SHARE of the time allows
            wait = self._keep_next - time.monotonic()
            if wait > 0:
                later.after(wait, self._keep)
            else:
                later.when_drawn(self._keep)

    # ----- comparing (comparing.py) ---------------------------------------------------------

    def compare_with(self, other) -> Any:
        """Show the drawing compared with `other`, its changes marked on the canvas (added,
        renamed, changed, other weights; removed layers as ghosts beside it; rewired edges) and
        kept up to date as it is edited: "imported" (g.as_imported), "saved" (g.as_saved), a
        snapshot or the name of one taken with g.snapshot(name), another kc.Graph or
        kc.Canvas, a keras.Model, or a .kc or .keras file's path. None ends the comparison.
        Returns the kc.compare result (other -> this drawing), or None; a bad argument is
        refused and changes nothing."""
        from . import comparing

        if other is None:
            self._comparing, self.comparison = None, {}
            return None
        drawing, label = comparing.resolve(self.graph, other)
        keyword = other if isinstance(other, str) and other in comparing.KEYWORDS else None
        shown = comparing.Comparing(drawing, label, keyword)
        wire = shown.update(self.graph)
        self._comparing = shown
        self._send_comparison(wire)
        return shown.result

    @property
    def compared(self) -> Any:
        """The comparison shown (kc.compare's result, other -> this drawing), or None."""
        return self._comparing.result if self._comparing is not None else None

    def compare_choices(self) -> dict:
        """What "Compare with..." offers: {"imported", "saved": bool, "snapshots": [name],
        "active": what is compared with now, or None}."""
        from . import comparing

        active = self._comparing.label if self._comparing is not None else None
        return {**comparing.choices(self.graph), "active": active}

    def _compare_again(self) -> None:
        self._compare_waits = False
        shown = self._comparing
        if shown is None:
            return
        try:
            self._send_comparison(shown.update(self.graph))
        except (EditError, ValueError, TypeError, RuntimeError) as e:  # said, not raised later
            self.comparison = {"against": shown.label, "summary": canvas_words(
                f"The comparison could not be made again: {e}"), "marks": {}, "ghosts": [],
                "rewired": [], "removed_edges": [], "weights_kept": False}

    def _send_comparison(self, wire: dict) -> None:
        why, _size = _wire_check(wire)
        if why is not None:  # too many marks to send: the summary alone
            wire = {**wire, "marks": {}, "ghosts": [], "rewired": [], "removed_edges": [],
                    "summary": f"{wire['summary']} (too many to mark: {why})"}
        self.comparison = wire

    def _keep(self) -> None:
        """Write the drawing to its kept file (atomic: a restart mid-write keeps the last one).
        A save that took d seconds allows the next one d / KEEP_SHARE later (a 100 MB base
        keeps after a burst of edits, not after each), so keeping takes at most that share of
        the kernel's time."""
        self._keep_waits = False
        if self._kept is None:
            return
        started = time.monotonic()
        try:
            self._kept.parent.mkdir(parents=True, exist_ok=True)
            from ..io.storage import save as write  # (not Graph.save: the drawing as
            write(self.graph, self._kept)  # last saved is the user's save, not this keep)
        except (EditError, OSError) as e:  # a full disk, a read-only folder: said once, then off
            _log.warning("kerascanvas: the drawing could not be kept in %s (%s); this canvas "
                         "keeps nothing more.", self._kept, e)
            self._kept = None
        ended = time.monotonic()
        self._keep_next = ended + (ended - started) / KEEP_SHARE

    @property
    def kept_in(self) -> Path | None:
        """The file this canvas keeps its drawing in (keeping.py), or None."""
        return self._kept

    def _check_model(self) -> None:
        """Keras's answer for the structure shown (the model built or refused) and the repeated
        blocks found again, and what they changed on the canvas: usually nothing."""
        self._check_waits = False
        if self.comm is None:  # closed meanwhile
            return
        self._send_diff(self._tracker.update())  # a full update builds and finds them

    def _send_diff(self, change: dict | None) -> None:
        if change is None:
            return
        why, size = _wire_check(change)
        if why is None and "layers" in change:  # the structure grew or changed: the whole
            why = self._check_whole(size)  # must still fit (a reload sends it)
        if why is None:  # the diff first: the revision tells late views to catch up
            # an edit made on the canvas is marked: the front end tells the host (`edits`)
            self.send({"diff": change, "edit": True} if self._answering else {"diff": change})
        self._picture.changed()
        self._oversize = self._oversize or why
        self.revision = change["revision"]  # a diff not sent: the browser asks for the state

    def _check_whole(self, diff_bytes: int) -> str | None:
        """Why the whole state no longer fits, or None, without encoding it after every edit (30
        ms at 2,000 layers): it takes at most its size when last measured plus every diff since,
        so it is measured again only when that bound passes the cap."""
        if self._whole_bytes is not None:
            self._whole_bytes += diff_bytes
            if self._whole_bytes <= limits.STATE_BYTES:
                return None
        why, self._whole_bytes = _wire_check(self._tracker.full())
        return why

    def wire_state(self) -> dict:
        """The whole state as the browser gets it (a new drawing, a lost diff), or a stub that
        says why when it is too big to send."""
        state, self._whole_bytes = _wire_state(self._tracker)
        return state

    def _repr_mimebundle_(self, **kwargs):
        """The live view and a static SVG of the drawing as it is now, in one bundle (hosts
        that ask for a bundle: marimo, `IPython.display.display(..., raw=False)` elsewhere)."""
        from ..io import picture

        data, metadata = super()._repr_mimebundle_(**kwargs)
        return {**data, "image/svg+xml": picture.svg(self.graph.state())}, metadata

    def _ipython_display_(self) -> None:
        """In IPython: the live view, then the picture as an output of its own that follows
        the drawing (kerascanvas/canvas/picture_output.py)."""
        from IPython.display import display

        data, metadata = super()._repr_mimebundle_()
        shown = plain_text({"name": self.graph.name, "layers": self.graph.layers})
        display({**data, "text/plain": shown + " (live view)"}, metadata=metadata, raw=True)
        self._picture.display()

    def _picture_bundle(self) -> dict:
        from ..io import picture

        state = self.graph.state()  # checked: Keras's answer and the runs found, as drawn
        return {"image/svg+xml": picture.svg(state), "text/plain": plain_text(state)}

    def example(self) -> list[str]:
        """What an empty canvas's "Start from an example" button draws: a small model shaped
        like the data set_data got (the digits' 8x8x1 and ten classes when none), one undo
        step. Returns its boxes' names; refused on a drawing that is not empty."""
        from .example import draw_example

        return draw_example(self.graph, self.training_data)

    def save(self, path: str | Path | None = None) -> str:
        """Save the drawing and its weights to `path` (what the Save button does); given a
        path (Save as...), the canvas saves there from then on. Returns the file."""
        if path is not None:
            self.graph.save(path)
            self.path = str(path)
            self._saved()
            return self.path
        if not self.path:
            raise IntentError("This canvas has no file yet: Save as... names one (in the "
                              "notebook's folder), or make it with kc.Canvas(path=...).")
        self.graph.save(self.path)
        self._saved()
        return self.path

    def _saved(self) -> None:
        """A comparison with the drawing as saved now compares with this save."""
        if self._comparing is not None and self._comparing.keyword == "saved":
            self._compare_again()

    def load(self, path: str | Path | None = None) -> str:
        """Replace the drawing by the one in `path` (the canvas's file when None), which the
        canvas then saves to; a bad file changes nothing. Returns the file."""
        if path is None and not self.path:
            raise IntentError("This canvas has no file: Load... names one, or make it with "
                              "kc.Canvas(path=...).")
        self._check_not_training("a file cannot be loaded")
        chosen = str(path) if path is not None else self.path
        self.graph = Graph.load(chosen)
        self.path = chosen
        return chosen

    # ----- messages ------------------------------------------------------------------------

    def receive(self, message: Any) -> None:
        """Answer one custom message from the browser, as the comm delivers it: the intent is
        applied (`handle`) and answered with `send`, {"id", "ok": true, "result"} or {"id",
        "error"}; a refused one changes nothing."""
        later.run_waiting()  # an earlier edit's leftovers first: its model is checked before this one
        later.hold_collector()
        try:
            self._answer(message)
        finally:
            later.when_drawn(later.release_collector)

    def _answer(self, content: Any) -> None:
        ident = content.get("id") if isinstance(content, dict) else None
        if not (isinstance(ident, int) and not isinstance(ident, bool)) and not (
                isinstance(ident, str) and len(ident) <= 64):
            ident = None
        self._oversize = None
        self._answering = True  # the diffs sent meanwhile are an edit made on the canvas
        kind = content.get("kind") if isinstance(content, dict) else None
        step = self.graph.undo_step
        try:
            result = self.handle(content)
            self._refuse_oversize(kind)
            self._note_own_step(kind, step)
        except (IntentError, EditError, ValueError, TypeError, RuntimeError) as e:
            self.send({"id": ident, "error": canvas_words(str(e))})
            return
        except Exception as e:  # noqa: BLE001 - a bug, not a refusal: answered, so the browser never waits
            _log.exception("kerascanvas: intent %.200r failed", content)
            self.send({"id": ident, "error": f"Internal error ({type(e).__name__}): {e}"})
            return
        finally:
            self._answering = False
        self.send({"id": ident, "ok": True, "result": result})

    def _refuse_oversize(self, kind: Any) -> None:
        """An intent whose new state is over limits.STATE_BYTES is taken back and refused."""
        if self._oversize is None:
            return
        why = self._oversize
        if kind == "undo":
            self.graph.redo()
        elif intent_handlers.edits(kind) and self.graph.can_undo:
            self.graph.undo()
        raise IntentError(why)

    def _note_own_step(self, kind: Any, before: Any) -> None:
        """An edit made here: its undo step is the canvas's own (undo never stops before it)."""
        if not intent_handlers.edits(kind) or kind in ("undo", "redo"):
            return
        step = self.graph.undo_step
        if step is not None and step is not before:
            self._own_steps.add(step)
        self._undo_stopped = False

    def undo(self) -> None:
        """Ctrl+Z on the canvas: undo its edits; before the first edit a cell made (or an
        import, a Load) it stops once and says so, and the next Ctrl+Z goes on. Training runs
        undo without stopping (the canvas shows them). Python's g.undo() never stops."""
        step = self.graph.undo_step
        if (step is not None and step not in self._own_steps and step.kind != WEIGHTS
                and not self._undo_stopped):
            self._undo_stopped = True
            raise IntentError("Undo stopped: this is the drawing as your notebook made it. "
                              "Press Ctrl+Z again to undo the cell's own edits too.")
        self.graph.undo()

    def handle(self, message: Any) -> Any:
        """Apply one intent (a dict from the browser) for this canvas; returns its result
        (intent_handlers.py holds what each kind does)."""
        return intent_handlers.dispatch(self, message)


def _epochs_drawn(seen: dict) -> int:
    """How far a run's curve reaches, in whole epochs: the next run is drawn from there."""
    curve = seen.get("curve") or []
    last = curve[-1].get("epoch") if curve else None
    return math.ceil(last) if isinstance(last, (int, float)) and math.isfinite(last) else 0


def _whole(value: Any, low: int, high: int) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and low <= value <= high


def _real(value: Any, low: float, high: float) -> bool:
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return False
    return (math.isfinite(value) if isinstance(value, float) else True) and low <= value <= high


def _focus(value: Any) -> bool:
    if not (isinstance(value, str) and len(value) <= 1000):
        return False
    try:
        check_text(value, "insight_focus")
    except EditError:
        return False
    return True


# The traits the browser may set, each with the check its value must pass (everything else
# synced is the kernel's: see set_state and docs/architecture.md, "What the browser may set").
BROWSER_SETS: dict[str, Callable[[Any], bool]] = {
    "edits": lambda v: _whole(v, 0, 2**53),  # the revision it reached (marimo's reactivity)
    "insight_focus": _focus,  # the box whose histograms it asks for (a name, checked again)
    "insight_epoch": lambda v: _real(v, -1.0, 1e9),  # the epoch the forward-pass view shows
}


def _wire_state(tracker: Tracker) -> tuple[dict, int]:
    """(the whole state `tracker` describes, or a stub saying why it is too big to send; its
    size in bytes)."""
    state = tracker.full()
    why, size = _wire_check(state)
    return (state if why is None else shape.too_big(state, why)), size


def _wire_check(payload: Any) -> tuple[str | None, int]:
    """Why `payload` cannot go to the browser (over limits.STATE_BYTES as Jupyter's UTF-8 JSON,
    or not valid Unicode: text is checked where it enters, this is a last guard) or None, and
    the payload's size in bytes as Jupyter sends it."""
    try:
        size = len(json.dumps(payload, ensure_ascii=False).encode("utf-8"))
        limits.check_state(size)
    except limits.LimitError as e:
        return e.message, size
    except UnicodeEncodeError as e:
        return f"The drawing's state holds text that is not valid Unicode: {e}.", 0
    return None, size
