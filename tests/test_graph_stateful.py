"""Random sequences of valid and invalid edits; invariants 1-6 after every step."""

import os
import tempfile

import hypothesis.strategies as st
import numpy as np
from hypothesis import HealthCheck, settings
from hypothesis.stateful import RuleBasedStateMachine, initialize, invariant, rule
from support import DrawsFromGraph, fingerprint, ok

import kerascanvas as kc

WIDTHS = (4, 6)
KINDS = [("Dense", {"units": 4}), ("Dense", {"units": 6}), ("Add", {}), ("Concatenate", {}),
         ("Identity", {}), ("Subtract", {}), ("Dropout", {"rate": 0.5})]
REFUSED = (kc.EditError, ValueError, TypeError)


class EditSequences(DrawsFromGraph, RuleBasedStateMachine):
    def __init__(self):
        super().__init__()
        self.g = kc.Graph()
        self.undo_prints = []  # fingerprint before each edit still on the undo stack
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

    @invariant()
    def network_matches_drawing(self):
        ok(self.g)


EditSequences.TestCase.settings = settings(
    max_examples=40, stateful_step_count=30, deadline=None,
    suppress_health_check=[HealthCheck.too_slow])
test_edit_sequences = EditSequences.TestCase
