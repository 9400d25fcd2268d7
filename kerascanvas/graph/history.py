"""Edits as transactions, and their undo history.

An edit changes the live Drawing in place while it records what it changed (drawing.py's change
log); network.py rebuilds what it touched through a Journal. If the graph or Keras refuses, both
are taken back and nothing changed. A successful edit becomes one undo Step holding only what it
changed, so one edit costs what it changes, however big the drawing. Undo and redo put back the
exact Keras objects (and so the exact weights) each side had.
"""

from __future__ import annotations

import contextlib
import sys
import warnings
from collections import deque
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass
from typing import Any

from .. import limits
from ..drawing.changelog import replaced
from ..drawing.drawing import Drawing, LayerSpec
from ..errors import EditError
from ..network.network import Journal, Network

STRUCTURE, VIEW, WEIGHTS = "structure", "view", "weights"  # what a step changed
FLAGS = "flags"  # trainable flags on the live layers (and the configs that say so): no rebuild
NamesChanged = Callable[[Journal, Mapping[str, str], set[str]], None]  # (journal, renamed, removed)


# (no __dict__: history keeps thousands; a canvas holds its own steps weakly, weakref_slot is
# Python 3.11's: before it, a step has a __dict__)
@dataclass(eq=False, **({"slots": True, "weakref_slot": True} if sys.version_info >= (3, 11) else {}))
class Step:
    changes: tuple  # the drawing's change log (Drawing.end)
    journal: Journal
    kind: str = STRUCTURE  # VIEW: positions, pins, expanded boxes or folds; WEIGHTS: weights
    # only; FLAGS: trainable flags
    held: int = 0  # bytes only this step keeps alive: weights, configs, points (limits.HISTORY_BYTES)


class History:
    """Runs edits on `drawing` and `network` as transactions and keeps their undo steps.

    changed(kind, settle): called after a change, before observers hear it; settle=True while the
    edit's change log is still open (what it changes then is part of the step).
    notify(): called once the step is kept (observers).
    names_changed(journal, {old: new}, removed): after a step that renamed or removed layers, what
    else is kept by layer name follows (a drawing's training insights), through `journal`: part
    of the same step.
    """

    def __init__(self, drawing: Drawing, network: Network,
                 changed: Callable[[str, bool], None], notify: Callable[[], None],
                 names_changed: NamesChanged | None = None):
        self.drawing, self.network = drawing, network
        self._changed, self._notify, self._names_changed = changed, notify, names_changed
        self.undo_steps: deque[Step] = deque()
        self.redo_steps: list[Step] = []
        self.dropped = 0  # undo steps dropped to keep history under limits.HISTORY_BYTES
        self._held = 0  # sum of the undo steps' `held`
        self.lock_reason: str | None = None  # a message: edits are refused while it is set
        self._batch: Drawing | None = None
        self._batch_whole = False  # batch(all_or_nothing=True): a refusal ends the batch
        self._batch_predecessors: dict = {}
        self._batch_renamed: dict[str, str] = {}  # {name before the batch: name now}
        self._batch_view = True  # no structural edit in the batch so far
        self._batch_live: list = []  # the batch's changes of live layers (edit's `live`)

    # ----- edits ------------------------------------------------------------------------------

    @property
    def editing(self) -> Drawing:
        """The drawing edits change now: a batch's own copy inside batch(), else the drawing."""
        return self._batch if self._batch is not None else self.drawing

    @property
    def in_batch(self) -> bool:
        return self._batch is not None

    def edit(self, change: Callable[[Drawing], Any], network: bool = True,
             predecessors: Mapping | None = None, view: bool = False,
             renamed: Mapping[str, str] | None = None,
             live: Callable[[Journal], None] | None = None) -> Any:
        """Run `change(drawing)` as one transaction. network: rebuild Keras objects; view: the
        edit changes only the view (positions, pins, expanded boxes, folds); renamed: the
        layers it renames, {old: new}; live(journal): a change of the live layers themselves
        (trainable flags) made through `journal`, with network=False: a FLAGS step."""
        if network or live is not None:  # moving boxes stays allowed while training
            self.check_unlocked()
        if self._batch is not None:  # inside batch(): collect, rebuild once at the end
            mark = self._batch.mark()
            try:
                result = change(self._batch)
            except BaseException:
                if not self._batch_whole:  # all_or_nothing: the refusal ends the batch anyway
                    self._batch.rollback(mark)
                raise
            self._batch_predecessors.update(predecessors or {})
            self._batch_renamed = _composed(self._batch_renamed, renamed or {})
            self._batch_view = self._batch_view and view and live is None
            if live is not None:
                self._batch_live.append(live)
            return result
        d = self.drawing
        d.begin()
        try:
            result = change(d)  # refuses by raising
        except BaseException:
            d.rollback()
            d.end()
            raise
        self._apply(network, predecessors, view, renamed, () if live is None else (live,))
        return result

    def _apply(self, network: bool, predecessors: Mapping | None, view: bool,
               renamed: Mapping[str, str] | None = None, live: tuple = ()) -> None:
        """The drawing's open edit goes to Keras, then becomes an undo step."""
        journal, d = Journal(), self.drawing
        kind = VIEW if view else FLAGS if live and not network else STRUCTURE
        told = False
        try:
            for change in live:
                change(journal)
            if network:
                self.network.rebuild(d, journal, predecessors)
            removed = {n for n in d.gone if n not in d.layers} - set(renamed or ())
            if (renamed or removed) and self._names_changed is not None:
                self._names_changed(journal, renamed or {}, removed)
            told = True
            self._changed(kind, True)
        except BaseException:
            journal.rollback()
            d.rollback()
            d.end()
            if told:  # the caches were made again from the refused drawing
                self._changed(kind, False)
            raise
        changes = d.end()
        self._push(Step(changes, journal, kind), journal.seal())
        self._notify()

    @contextlib.contextmanager
    def batch(self, all_or_nothing: bool = False) -> Iterator[None]:
        """Several edits as one (see Graph.batch): they change a copy of the drawing, whose
        change log the drawing takes over at the end, as one step."""
        if self._batch is not None:
            yield
            return
        self._batch, self._batch_predecessors = self.drawing.copy(), {}
        self._batch_live = []
        self._batch_renamed = {}
        self._batch_view, self._batch_whole = True, all_or_nothing
        self._batch.cycles_later = all_or_nothing  # one check at the end, not one per edge
        self._batch.begin()
        try:
            yield
            copy, predecessors, view = self._batch, self._batch_predecessors, self._batch_view
            renamed, live = self._batch_renamed, tuple(self._batch_live)
            if all_or_nothing:
                copy.check_acyclic()
        finally:
            self._batch, self._batch_whole, self._batch_live = None, False, []
        self.drawing.begin()
        self.drawing.adopt(copy)
        self._apply(not view, predecessors, view, renamed, live)

    # ----- undo and redo ----------------------------------------------------------------------

    @property
    def can_undo(self) -> bool:
        return bool(self.undo_steps)

    @property
    def can_redo(self) -> bool:
        return bool(self.redo_steps)

    def undo(self) -> None:
        self.check_unlocked()
        if not self.undo_steps:
            raise EditError("Nothing to undo.")
        step = self.undo_steps.pop()
        self._held -= step.held
        step.journal.undo()
        self.drawing.undo_changes(step.changes)
        self.redo_steps.append(step)
        self._changed(step.kind, False)
        self._notify()

    def redo(self) -> None:
        self.check_unlocked()
        if not self.redo_steps:
            raise EditError("Nothing to redo.")
        step = self.redo_steps.pop()
        step.journal.redo()
        self.drawing.redo_changes(step.changes)
        self.undo_steps.append(step)
        self._held += step.held
        self._changed(step.kind, False)
        self._notify()

    def weights_changed(self, journal: Journal) -> None:
        """The weight changes since `journal` was opened (Graph.remember_weights) as one step."""
        self._push(Step((), journal, WEIGHTS), journal.seal())
        self._changed(WEIGHTS, False)
        self._notify()

    def reset(self) -> None:
        """Forget undo and redo (a loaded drawing starts a fresh history)."""
        self.undo_steps.clear()
        self.redo_steps.clear()
        self._held = 0
        self._changed(VIEW, False)  # can_undo changed: observers hear it
        self._notify()

    def _push(self, step: Step, held: list) -> None:
        """A new undo step (held: what its sealed journal holds that is not plain data); the
        oldest ones go when history would keep more than limits.HISTORY_BYTES of old layers,
        weights, configs and points alive (with a warning)."""
        kept = [v for v in held if _may_hold_weights(v) and not self.network.is_live(v)]
        step.held = (limits.held_bytes(kept) if kept else 0) + changes_bytes(step.changes)
        self.undo_steps.append(step)
        self.redo_steps.clear()
        self._held += step.held
        dropped = 0
        while self._held > limits.HISTORY_BYTES and len(self.undo_steps) > 1:
            self._held -= self.undo_steps.popleft().held
            dropped += 1
        if dropped:
            self.dropped += dropped
            if self.dropped > dropped:  # said once per graph, not at every edit
                return
            warnings.warn(f"Undo history went over its cap of {limits.HISTORY_BYTES:,} bytes of "
                          f"old layers, weights and drawings (kerascanvas.limits.HISTORY_BYTES): "
                          f"the oldest {dropped} step(s) were dropped; it now keeps "
                          f"{self._held:,} bytes and {len(self.undo_steps)} step(s) to undo (older "
                          "steps will go the same way, without another warning).", RuntimeWarning,
                          stacklevel=6)

    # ----- the lock (training runs on these layers) ------------------------------------------

    def lock(self, reason: str) -> None:
        if self.lock_reason is not None:
            raise EditError(self.lock_reason)
        self.lock_reason = reason

    def unlock(self) -> None:
        self.lock_reason = None

    def check_unlocked(self) -> None:
        if self.lock_reason is not None:  # set while training runs on these layers
            raise EditError(self.lock_reason)


_WEIGHTLESS = {object, type(None), str, int, float, bool, tuple, dict}


def _may_hold_weights(value: Any) -> bool:
    """Whether a journal value may keep weights alive that nothing else does: a layer or a list
    of weight arrays; not a call record, a layer's node list, a status, a count or a config (a
    config only the step keeps is weighed with the drawing's changes)."""
    if type(value) in _WEIGHTLESS or isinstance(value, (tuple, dict, str, int, float)):
        return False  # a bare object(): the journal's "was not there" mark
    if isinstance(value, list):  # a layer's node list, or its weight arrays
        return bool(value) and hasattr(value[0], "nbytes")
    return True


_ITEM_BYTES = sys.getsizeof((None, None)) - sys.getsizeof((None,))  # a tuple's bytes per item
_TUPLE_BYTES = sys.getsizeof((None,)) - _ITEM_BYTES  # and its own (entries are never empty)


def changes_bytes(changes: tuple) -> int:
    """Bytes a step's change log keeps alive beyond the drawing: its entries, and the old values
    only it holds (a replaced or removed box's config, a moved point, a replaced container)."""
    # sys.getsizeof of each entry (a tuple), from its length: getsizeof is a slow call, and
    # every step weighs its entries
    total = limits.STEP_BYTES + _TUPLE_BYTES * len(changes) + _ITEM_BYTES * sum(map(len, changes))
    for field, old, new in replaced(changes):
        if isinstance(old, LayerSpec):  # the spec, its slots, and what its config alone holds
            shared = new.config if isinstance(new, LayerSpec) else None
            total += limits.config_bytes_beyond(old.config, shared) + 512
        elif isinstance(old, tuple) and field == "pinned":
            total += sys.getsizeof(old) + 2 * 24  # the point and its two floats
        elif isinstance(old, (dict, list)):  # a container replaced whole (rename, arrange, ...)
            total += sys.getsizeof(old)
            if field == "layers":  # the specs it alone holds (a renamed box's old one)
                total += sum(limits.config_bytes(s.config) + 512 for n, s in old.items()
                             if new.get(n) is not s)
    return total


def _composed(before: Mapping[str, str], then: Mapping[str, str]) -> dict[str, str]:
    """Renames `before` ({original: name now}) followed by `then` ({name: new name}), as one
    {original: final} (a name renamed back to itself drops out; a swap stays a swap)."""
    out = {old: then.get(now, now) for old, now in before.items()}
    # (a name that was renamed away and is not a name now again belongs to a box born in the
    # batch: nothing kept under it before the batch follows it)
    out.update({old: new for old, new in then.items()
                if old not in before.values() and old not in before})
    return {old: new for old, new in out.items() if old != new}
