"""Random sequences of valid and invalid edits; invariants 1-6 after every step.

Issue 20's shapes are among the steps: files whose fold lists repeat names thousands of times,
weights archives holding a compression bomb, and training interrupted at a random line of
Trainer.fit. `KERASCANVAS_LONG_FUZZ=1 pytest -m long_fuzz tests/test_graph_stateful.py` runs the
long sweep (benchmarks/RESULTS.md, issue 20)."""

import io
import json
import os
import tempfile
import zipfile
from collections import Counter

import hypothesis.strategies as st
import numpy as np
import pytest
from hypothesis import HealthCheck, settings
from hypothesis.stateful import RuleBasedStateMachine, initialize, invariant, rule
from support import DrawsFromGraph, fingerprint, interrupt_fit_at, ok

import kerascanvas as kc
from kerascanvas import limits

FITS_PER_SEQUENCE = int(os.environ.get("KERASCANVAS_FUZZ_FITS", "1"))
SEEN: Counter = Counter()  # what issue 20's steps met (benchmarks/bench_stateful.py prints it)

WIDTHS = (4, 6)
KINDS = [("Dense", {"units": 4}), ("Dense", {"units": 6}), ("Add", {}), ("Concatenate", {}),
         ("Identity", {}), ("Subtract", {}), ("Dropout", {"rate": 0.5})]
REFUSED = (kc.EditError, ValueError, TypeError)


class EditSequences(DrawsFromGraph, RuleBasedStateMachine):
    def __init__(self):
        super().__init__()
        self.g = kc.Graph()
        self.undo_prints = []  # fingerprint before each edit still on the undo stack
        self.fits = 0
        self.redo_prints = []

    @initialize(kinds=st.lists(st.sampled_from(KINDS[:2] + KINDS[4:5]), min_size=1, max_size=4))
    def start(self, kinds):
        """Two inputs and a few unconnected layers, so edges have somewhere to go."""
        self.g.add_input((4,))
        for class_name, config in kinds:
            self.g.add_layer(class_name, **config)

    def attempt(self, edit, *args, **kwargs):
        """Run an edit; a refused one must change nothing (invariant 6)."""
        before = fingerprint(self.g)
        try:
            edit(*args, **kwargs)
        except REFUSED:
            assert fingerprint(self.g) == before
            return
        self.undo_prints.append(before)
        self.redo_prints.clear()

    @rule(width=st.sampled_from(WIDTHS))
    def add_input(self, width):
        self.attempt(self.g.add_input, (width,))

    @rule(kind=st.sampled_from(KINDS))
    def add_layer(self, kind):
        self.attempt(self.g.add_layer, kind[0], **kind[1])

    @rule(data=st.data())
    def connect(self, data):
        names = self.names()
        if not names:
            return
        src = self.pick(data)
        dst = self.pick(data)
        n = data.draw(st.integers(0, 2))
        t = data.draw(st.integers(0, 1))
        call = data.draw(st.integers(0, 2))
        slot = data.draw(st.none() | st.integers(0, 2))
        self.attempt(self.g.connect, (src, n, t), dst, call=call, slot=slot)

    @rule(data=st.data())
    def connect_plausible(self, data):
        """Mostly valid edges, so that sequences reach real models."""
        names = self.names()
        layers = self.non_inputs()
        if not names or not layers:
            return
        src = self.pick(data)
        dst = data.draw(st.sampled_from(layers))
        n = data.draw(st.integers(0, self.g.calls(src) - 1))
        call = data.draw(st.integers(0, self.g.calls(dst)))
        self.attempt(self.g.connect, (src, n, 0), dst, call=call)

    @rule(data=st.data())
    def connect_plausible_again(self, data):
        self.connect_plausible(data)

    @rule(data=st.data())
    def disconnect(self, data):
        edge = self.pick_edge(data)
        if edge is None:
            return
        src, dst = edge
        self.attempt(self.g.disconnect, src, dst[0], call=dst[1], slot=dst[2])

    @rule(data=st.data())
    def remove(self, data):
        if self.names():
            self.attempt(self.g.remove, self.pick(data))

    @rule(data=st.data(), new=st.sampled_from(["renamed", "dense", "a/b", ""]))
    def rename(self, data, new):
        if self.names():
            self.attempt(self.g.rename, self.pick(data), new)

    @rule(data=st.data(), units=st.sampled_from([4, 6, -1]))
    def configure(self, data, units):
        dense = self.of_class("Dense")
        if dense:
            self.attempt(self.g.configure, data.draw(st.sampled_from(dense)), units=units)

    @rule(data=st.data())
    def add_call(self, data):
        if self.names():
            self.attempt(self.g.add_call, self.pick(data))

    @rule(data=st.data())
    def remove_call(self, data):
        if self.names():
            name = self.pick(data)
            self.attempt(self.g.remove_call, name, data.draw(st.integers(0, 2)))

    @rule()
    def prune(self):
        """Delete what keeps the drawing from being a model, so sequences reach models often."""
        for problem in self.g.problems:
            if problem.layer in self.g.layers and len(self.g.layers) > 2:
                self.attempt(self.g.remove, problem.layer)

    @rule()
    def undo(self):
        if self.undo_prints:  # the start-up edits stay
            current = fingerprint(self.g)
            self.g.undo()
            assert fingerprint(self.g) == self.undo_prints.pop()
            self.redo_prints.append(current)

    @rule()
    def redo(self):
        if self.g.can_redo:
            current = fingerprint(self.g)
            self.g.redo()
            assert fingerprint(self.g) == self.redo_prints.pop()
            self.undo_prints.append(current)

    @rule()
    def save_and_load(self):
        """A saved drawing loads back whole, the weights of boxes left pending included; editing
        goes on from the loaded one (whose history starts afresh)."""
        with tempfile.TemporaryDirectory() as folder:
            path = os.path.join(folder, "drawing.kcanvas")
            self.g.save(path)
            loaded = kc.Graph.load(path)
        assert {n: dict(v) for n, v in loaded.layers.items()} == \
            {n: dict(v) for n, v in self.g.layers.items()}
        assert loaded.edges == self.g.edges
        for name in self.g.layers:
            kept, saved = loaded.saved_weights(name), self.g.saved_weights(name)
            assert len(kept) == len(saved)
            assert all(np.array_equal(a, b) for a, b in zip(kept, saved))
        self.g = loaded
        self.undo_prints.clear()
        self.redo_prints.clear()

    # ----- issue 20: hostile files and interrupted training ------------------------------------

    def _saved(self, folder: str) -> tuple[str, dict, dict]:
        """Save the graph; (path, its document, its weights archive's entries)."""
        path = os.path.join(folder, "drawing.kcanvas")
        self.g.save(path)
        with zipfile.ZipFile(path) as z:
            doc, npz = json.loads(z.read("kerascanvas.json")), z.read("weights.npz")
        with zipfile.ZipFile(io.BytesIO(npz)) as w:
            return path, doc, {i.filename: w.read(i) for i in w.infolist()}

    @staticmethod
    def _write(path: str, doc: dict, entries: dict) -> None:
        inner = io.BytesIO()
        with zipfile.ZipFile(inner, "w", zipfile.ZIP_DEFLATED) as w:
            for name, data in entries.items():
                w.writestr(name, data)
        with zipfile.ZipFile(path, "w") as z:
            z.writestr("kerascanvas.json", json.dumps(doc))
            z.writestr("weights.npz", inner.getvalue())

    @rule(data=st.data(), repeats=st.integers(1, 20_000), stranger=st.booleans())
    def load_long_fold_list(self, data, repeats, stranger):
        """A fold list naming layers thousands of times loads as fast as naming them once (or
        is refused, naming the entry), and the graph it was saved from stays as it was."""
        if not self.names():
            return
        before = fingerprint(self.g)
        named = self.pick_some(data, 3)
        with tempfile.TemporaryDirectory() as folder:
            path, doc, entries = self._saved(folder)
            doc["folded"] = named * repeats + (["nobody"] if stranger else [])
            self._write(path, doc, entries)
            try:
                loaded = kc.Graph.load(path)
            except kc.EditError as e:
                assert "'nobody', which is not a layer" in str(e) if stranger else \
                    "is not part of a run" in str(e), e
                SEEN["fold list refused"] += 1
            else:
                SEEN["fold list loaded"] += 1
                assert not stranger and loaded.folded == {loaded.run_head(n) for n in named}
                ok(loaded)
        assert fingerprint(self.g) == before

    @rule(mb=st.integers(1, 4), used=st.booleans())
    def load_weights_bomb(self, mb, used):
        """A weights archive holding megabytes of zeros in a few KB (an entry no layer has, or
        one bigger than its weight) is refused before it is inflated."""
        before = fingerprint(self.g)
        bomb = io.BytesIO()
        np.lib.format.write_array(bomb, np.zeros((mb << 20) // 4, "float32"))
        with tempfile.TemporaryDirectory() as folder:
            path, doc, entries = self._saved(folder)
            target = next(iter(entries)) if used and entries else "junk.npy"
            entries[target] = bomb.getvalue()
            self._write(path, doc, entries)
            try:  # (pending boxes' weights share one pool: smaller than the bomb here)
                with limits.allow(pending_weight_bytes=512 << 10):
                    kc.Graph.load(path)
            except limits.LimitError as e:
                assert "refused unread" in str(e) or "the cap is" in str(e), e
                SEEN["bomb refused"] += 1
            else:
                raise AssertionError(f"a {mb} MB entry {target!r} loaded")
        assert fingerprint(self.g) == before

    @rule(line=st.integers(1, 3000))  # (fit runs about 1,000 lines of kerascanvas before its thread)
    def interrupted_fit(self, line):
        """KeyboardInterrupt at the line-th line Trainer.fit runs (in kerascanvas's code): the
        canvas is never left locked, and a run that began ends and is one undo step. On the
        drawing when it is a model, else on a small one of its own."""
        if self.fits >= FITS_PER_SEQUENCE:  # (each compiles: about a second)
            return
        self.fits += 1
        from kerascanvas.training.trainer import Trainer

        g = self.g
        if g.model is None:
            g = kc.Graph()
            g.add_input((4,), name="x")
            g.add_layer("Dense", units=2, name="d")
            g.connect("x", "d")
        model = g.model

        x = [np.zeros((4, *i.shape[1:]), "float32") for i in model.inputs]
        y = [np.zeros((4, *o.shape[1:]), "float32") for o in model.outputs]
        trainer = Trainer(g)
        trainer.set_data(x if len(x) > 1 else x[0], y if len(y) > 1 else y[0])
        before = fingerprint(g)
        interrupt_fit_at(trainer, line, epochs=1, batch_size=4, loss="mse")
        trainer.wait(timeout=120) if trainer.running else None
        assert not trainer.running and g.lock_reason is None
        status = trainer.status
        began = status["state"] not in ("idle",) and not status["message"].startswith(
            "Interrupted before training began")
        SEEN["fit interrupted, then ran" if began else "fit interrupted before it began"] += 1
        if not began:
            assert fingerprint(g) == before
        elif g is self.g:  # the run is one undo step (undo puts the weights back)
            self.undo_prints.append(before)
            self.redo_prints.clear()
        else:
            g.undo()
            assert fingerprint(g) == before

    @invariant()
    def network_matches_drawing(self):
        ok(self.g)


EditSequences.TestCase.settings = settings(
    max_examples=40, stateful_step_count=30, deadline=None,
    suppress_health_check=[HealthCheck.too_slow])
test_edit_sequences = EditSequences.TestCase


class LongEditSequences(EditSequences):
    """The same machine, many more and longer sequences (issue 20's long run)."""


LongEditSequences.TestCase.settings = settings(
    max_examples=int(os.environ.get("KERASCANVAS_LONG_FUZZ_EXAMPLES", "400")),
    stateful_step_count=60, deadline=None, suppress_health_check=list(HealthCheck))
test_long_edit_sequences = pytest.mark.long_fuzz(pytest.mark.skipif(
    not os.environ.get("KERASCANVAS_LONG_FUZZ"),
    reason="the long sweep: KERASCANVAS_LONG_FUZZ=1 pytest -m long_fuzz")(
        LongEditSequences.TestCase))
