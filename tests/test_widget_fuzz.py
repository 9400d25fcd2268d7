"""Random intents, valid and hostile, through the widget's message handler (issue 13).

Every intent kind the front end sends (paste and mixed precision included) goes through
the widget's comm, the way Jupyter delivers it, with that comm recorded (support.Wire). After every
step: each intent is answered with its id and never with an internal error, a refused intent
changed nothing, DESIGN.md's invariants hold, and the state the browser gets encodes as UTF-8
JSON; Save then Load (a real file) gives the drawing back whole. At the end, undo goes back to
an empty drawing, or to the one last loaded (a load starts a fresh history).

The default suite runs about 3,000 steps; KC_FUZZ_STEPS=50000 runs that many (or see
benchmarks/bench_fuzz.py, which records steps/s and memory growth).
"""

from __future__ import annotations

import json
import os
import tempfile

import hypothesis.strategies as st
import numpy as np
from hypothesis import HealthCheck, settings
from hypothesis.stateful import RuleBasedStateMachine, initialize, invariant, precondition, rule
from support import DrawsFromGraph, Wire, fingerprint

import kerascanvas as kc
from kerascanvas.mirror import diffs
from kerascanvas.network.invariants import violations

STEPS = int(os.environ.get("KC_FUZZ_STEPS", "3000"))
STEPS_PER_RUN = 50

LAYERS = [("Dense", {"units": 4}), ("Dense", {"units": 4, "dtype": "mixed_float16"}),
          ("Dense", {"units": 3, "activation": "relu"}), ("Add", {}), ("Concatenate", {}),
          ("Subtract", {}), ("Identity", {}), ("Dropout", {"rate": 0.5}),
          ("LSTM", {"units": 2, "return_state": True}), ("Reshape", {"target_shape": [2, 2]}),
          ("Flatten", {}), ("MultiHeadAttention", {"num_heads": 1, "key_dim": 2}),
          ("BatchNormalization", {}), ("Activation", {"activation": "tanh"})]
HOSTILE_NAMES = ["x\ud800", "\udfff", "a/b", "", "n" * 101, "tab\there", "nul\x00", 7, None,
                 ["dense"], "<script>alert(1)</script>", "é ü"]
HOSTILE_CONFIGS = [{"units": 10**9}, {"units": -1}, {"units": "many"}, {"units": float("nan")},
                   {"activation": "\ud800"}, {"__class__": 1}, {"units": [[[[[[[[1]]]]]]]]},
                   {"kernel_initializer": {"module": "keras.initializers",
                                           "class_name": "__lambda__", "config": {}}},
                   {"dtype": "string"}, {"name": "renamed"}, {"units": 2**31}]
GARBAGE = ["not a dict", ["list"], {"kind": "exec"}, {"kind": None}, {}, {"kind": "__class__"},
           {"kind": "add_layer", "class_name": "os.system"},
           {"kind": "add_layer", "class_name": "Lambda"},
           {"kind": "add_input", "shape": [2**31]}, {"kind": "add_input", "shape": "(3,)"},
           {"kind": "add_input", "shape": [3], "dtype": "object"},
           {"kind": "connect", "src": ["x", -1, 0], "dst": ["d", 0, None]},
           {"kind": "move", "name": "x", "x": float("inf"), "y": 0},
           {"kind": "remove", "names": ["x"] * 500}, {"kind": "duplicate", "names": []},
           {"kind": "train"}, {"kind": "expand", "name": "x", "open": "yes"}]
MUTATING = {"add_layer", "add_input", "connect", "disconnect", "remove", "rename", "configure",
            "configure_call", "add_call", "remove_call", "move", "arrange", "expand", "duplicate", "undo", "redo"}


class WidgetIntents(DrawsFromGraph, RuleBasedStateMachine):
    def __init__(self):
        super().__init__()
        self.folder = tempfile.TemporaryDirectory()
        self.canvas = kc.Canvas(path=os.path.join(self.folder.name, "drawing.kcanvas"))
        self.wire = Wire(self.canvas)  # what ipywidgets would put on the wire
        self.mirror = self.canvas.snapshot
        self.next_id = 0
        self.loaded = None  # (layers, edges) as last loaded: undo stops there

    # ----- sending ---------------------------------------------------------------------------

    @property
    def g(self) -> kc.Graph:
        return self.canvas.graph

    def send(self, message) -> dict:
        """One intent through the comm handler; returns its reply. A refused mutating intent
        must leave the drawing, its Keras objects and its weights as they were."""
        self.next_id += 1
        if isinstance(message, dict):
            message = {**message, "id": self.next_id}
        mutating = isinstance(message, dict) and message.get("kind") in MUTATING
        before = fingerprint(self.g) if mutating else None
        self.wire.clear()
        self.wire.deliver(message)
        sent = self.wire.custom()
        replies = [m for m in sent if "diff" not in m]
        assert len(replies) == 1, replies
        for m in sent:  # the browser's copy, kept by the diffs, is the kernel's state
            if "diff" in m:
                self.mirror = diffs.apply(self.mirror, m["diff"])
        if self.mirror.get("revision") != self.canvas.revision:  # a diff too big to send:
            self.mirror = self.canvas.handle({"kind": "state"})  # the browser asks for the state
        assert self.mirror.get("too_big") or self.mirror == self.canvas.state
        reply = replies[0]
        assert reply["id"] == (self.next_id if isinstance(message, dict) else None)
        if "error" in reply:
            assert not reply["error"].startswith("Internal error"), (message, reply)
            if mutating:
                assert fingerprint(self.g) == before, (message, reply)
        return reply

    # ----- valid intents ----------------------------------------------------------------------

    @initialize(kinds=st.lists(st.sampled_from(LAYERS), max_size=3))
    def start(self, kinds):
        """An Input feeding a Dense (a model from the first step), and a few loose layers."""
        for message in ({"kind": "add_input", "shape": [4], "name": "x"},
                        {"kind": "add_layer", "class_name": "Dense", "config": {"units": 4}},
                        {"kind": "connect", "src": ["x", 0, 0], "dst": ["dense", 0, None]}):
            assert self.send(message).get("ok")
        for class_name, config in kinds:
            self.send({"kind": "add_layer", "class_name": class_name, "config": dict(config)})

    @rule(width=st.sampled_from([4, 6]), dtype=st.sampled_from(["float32", "float32", "int32"]))
    def add_input(self, width, dtype):
        self.send({"kind": "add_input", "shape": [width], "dtype": dtype})

    @rule(kind=st.sampled_from(LAYERS), x=st.none() | st.integers(-500, 500))
    def add_layer(self, kind, x):
        message = {"kind": "add_layer", "class_name": kind[0], "config": dict(kind[1])}
        if x is not None:
            message.update(x=x, y=-x)
        self.send(message)

    @rule(data=st.data())
    def connect(self, data):
        layers = self.non_inputs()
        if not layers:
            return
        src = self.pick(data)
        dst = data.draw(st.sampled_from(layers))
        n = data.draw(st.integers(0, self.g.calls(src)))
        t = data.draw(st.sampled_from([0, 0, 0, 1, 2]))
        call = data.draw(st.integers(0, self.g.calls(dst)))
        slot = data.draw(st.none() | st.integers(0, 2))
        self.send({"kind": "connect", "src": [src, n, t], "dst": [dst, call, slot]})

    @rule(data=st.data())
    def connect_plausible(self, data):
        """Mostly valid edges (from built calls, into existing or next calls), so that runs
        reach real models."""
        layers = self.non_inputs()
        sources = [n for n in self.names() if self.g.is_built(n)]
        if not layers or not sources:
            return
        src = data.draw(st.sampled_from(sources))
        dst = data.draw(st.sampled_from(layers))
        call = data.draw(st.integers(0, self.g.calls(dst)))
        self.send({"kind": "connect", "src": [src, 0, 0], "dst": [dst, call, None]})

    @rule(data=st.data())
    def connect_plausible_again(self, data):
        self.connect_plausible(data)

    @rule(data=st.data())
    def disconnect(self, data):
        edge = self.pick_edge(data)
        if edge is not None:
            src, dst = edge
            self.send({"kind": "disconnect", "src": list(src), "dst": list(dst)})

    @rule(data=st.data())
    def remove(self, data):
        if self.names():
            chosen = self.pick_some(data, 3)
            self.send({"kind": "remove", "names": chosen})

    @rule(data=st.data(), new=st.sampled_from(["renamed", "dense", "twin_1", "é"]))
    def rename(self, data, new):
        if self.names():
            self.send({"kind": "rename", "name": self.pick(data),
                       "new_name": new})

    @rule(data=st.data(), units=st.sampled_from([2, 4, 6]))
    def configure(self, data, units):
        dense = self.of_class("Dense")
        if dense:
            self.send({"kind": "configure", "name": data.draw(st.sampled_from(dense)),
                       "config": {"units": units}})

    @rule(data=st.data(), dtype=st.sampled_from(["mixed_float16", "float32", "mixed_bfloat16"]))
    def mixed_precision(self, data, dtype):
        layers = self.of_class("Dense", "Identity")
        if layers:
            self.send({"kind": "configure", "name": data.draw(st.sampled_from(layers)),
                       "config": {"dtype": dtype}})

    @rule(data=st.data(), settings=st.sampled_from([{"training": True}, {"training": None},
                                                    {"use_causal_mask": True}, {"bogus": 1},
                                                    {"training": {"nested": 1}}]))
    def configure_call(self, data, settings):
        if self.names():
            self.send({"kind": "configure_call", "name": self.pick(data),
                       "call": data.draw(st.sampled_from([0, 1])), "settings": settings})

    @rule(data=st.data())
    def add_call(self, data):
        if self.names():
            self.send({"kind": "add_call", "name": self.pick(data)})

    @rule(data=st.data())
    def remove_call(self, data):
        if self.names():
            self.send({"kind": "remove_call", "name": self.pick(data),
                       "call": data.draw(st.integers(0, 2))})

    @rule(data=st.data())
    def duplicate(self, data):
        """Paste: a copy of a selection, with the edges among it."""
        if self.names():
            chosen = self.pick_some(data, 4)
            self.send({"kind": "duplicate", "names": chosen})

    @rule(data=st.data(), x=st.floats(-1e4, 1e4), y=st.floats(-1e4, 1e4))
    def move(self, data, x, y):
        if self.names():
            self.send({"kind": "move", "name": self.pick(data),
                       "x": x, "y": y})

    @rule(data=st.data())
    def arrange(self, data):
        if data.draw(st.integers(0, 4)) == 0:  # rarely: it unpins everything
            self.send({"kind": "arrange"})

    @rule()
    def undo(self):
        self.send({"kind": "undo"})

    @rule()
    def redo(self):
        self.send({"kind": "redo"})

    @rule()
    def prune(self):
        """Remove what keeps the drawing from being a model, so that runs reach models."""
        stuck = sorted({p.layer for p in self.g.problems if p.layer in self.g.layers})
        if stuck and len(self.g.layers) > 2:
            self.send({"kind": "remove", "names": stuck[:3]})

    @rule(data=st.data())
    def read_views(self, data):
        """The teaching views change nothing."""
        before = fingerprint(self.g)
        if self.names():
            self.send({"kind": "explain", "name": self.pick(data)})
        self.send({"kind": "depth_steps"})
        edge = self.pick_edge(data)
        if edge is not None:
            src, dst = edge
            self.send({"kind": "explain_edge", "src": list(src), "dst": list(dst)})
        if self.g.model is not None:
            assert self.send({"kind": "forward_steps"}).get("ok"), "forward_steps failed"
        assert fingerprint(self.g) == before

    # ----- hostile intents ----------------------------------------------------------------------

    @rule(data=st.data(), name=st.sampled_from(HOSTILE_NAMES))
    def hostile_name(self, data, name):
        target = self.pick(data) if self.names() else "x"
        kind = data.draw(st.sampled_from(["add_input", "add_layer", "rename", "remove",
                                          "duplicate", "add_call"]))
        message = {"add_input": {"kind": kind, "shape": [3], "name": name},
                   "add_layer": {"kind": kind, "class_name": "Dense", "name": name},
                   "rename": {"kind": kind, "name": target, "new_name": name},
                   "remove": {"kind": kind, "names": [name]},
                   "duplicate": {"kind": kind, "names": [name, target]},
                   "add_call": {"kind": kind, "name": name}}[kind]
        reply = self.send(message)
        if isinstance(name, str) and any(0xD800 <= ord(c) <= 0xDFFF or ord(c) < 32 for c in name):
            assert "error" in reply, (message, reply)

    @rule(data=st.data(), config=st.sampled_from(HOSTILE_CONFIGS))
    def hostile_config(self, data, config):
        dense = self.of_class("Dense")
        if dense and data.draw(st.booleans()):
            message = {"kind": "configure", "name": data.draw(st.sampled_from(dense)),
                       "config": config}
        else:
            message = {"kind": "add_layer", "class_name": "Dense", "config": config}
        self.send(message)

    @rule()
    def save_and_load(self):
        """The Save and Load buttons: the drawing comes back whole (weights of boxes left pending
        included) and the browser's copy follows the replaced graph."""
        before = self.g
        assert self.send({"kind": "save"}).get("ok")
        assert self.send({"kind": "load"}).get("ok")
        assert self.g is not before
        assert {n: dict(v) for n, v in self.g.layers.items()} == \
            {n: dict(v) for n, v in before.layers.items()}
        assert self.g.edges == before.edges and self.g.pinned == before.pinned
        for name in before.layers:
            kept, saved = self.g.saved_weights(name), before.saved_weights(name)
            assert len(kept) == len(saved)
            assert all(np.array_equal(a, b) for a, b in zip(kept, saved))
        assert not self.g.can_undo
        self.loaded = (dict(self.g.layers), self.g.edges)

    @rule(message=st.sampled_from(GARBAGE))
    def garbage(self, message):
        reply = self.send(message)
        assert "error" in reply

    # ----- after every step ---------------------------------------------------------------------

    @invariant()
    def network_matches_drawing(self):
        assert violations(self.g) == []
        assert self.g.pinned <= set(self.g.layers)  # pins go with their boxes

    @invariant()
    def state_reaches_the_browser(self):
        state = self.canvas.state
        assert not state.get("too_big")
        json.dumps(state, ensure_ascii=False, allow_nan=False).encode("utf-8")  # as Jupyter does
        assert [layer["name"] for layer in state["layers"]] == list(self.g.layers)

    @precondition(lambda self: False)
    @rule()
    def never(self):
        """(keeps hypothesis from ending a run early when every other rule is a no-op)"""

    def teardown(self):
        steps = 0
        while self.g.can_undo:
            self.send({"kind": "undo"})
            steps += 1
            assert steps < 10_000
        layers, edges = self.loaded or ({}, ())  # a load starts a fresh history
        assert dict(self.g.layers) == layers and self.g.edges == edges
        assert violations(self.g) == []
        assert [b["name"] for b in self.canvas.state["layers"]] == list(layers)
        assert len(self.canvas.state["edges"]) == len(edges)
        self.canvas.close()
        self.folder.cleanup()


WidgetIntents.TestCase.settings = settings(
    max_examples=max(1, STEPS // STEPS_PER_RUN), stateful_step_count=STEPS_PER_RUN,
    deadline=None, suppress_health_check=list(HealthCheck), derandomize=True)
test_widget_intents = WidgetIntents.TestCase
