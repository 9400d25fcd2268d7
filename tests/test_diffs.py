"""State as numbered diffs (issue 11): applied in order they reproduce the full state exactly; a
lost one is detected and a full state recovers; a move on a big drawing sends a few hundred bytes.

The sequence below is also written to js/test/fixtures/diffs.json (KC_WRITE_FIXTURES=1), which
vitest replays through js/src/mirror/diffs.ts: one description of the protocol, checked on both sides.
"""

import json
import os
import random
from pathlib import Path

import keras
import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

import kerascanvas as kc
from kerascanvas.drawing.drawing import EditError
from kerascanvas.mirror.diffs import Tracker, apply

FIXTURE = Path(__file__).resolve().parents[1] / "js" / "test" / "fixtures" / "diffs.json"


def random_edit(g: kc.Graph, rng: random.Random) -> None:
    """One edit of many kinds, chosen by `rng`; refusals are part of the game (nothing changes)."""
    names = list(g.layers)
    pick = rng.choice
    kind = pick(["input", "dense", "dense", "merge", "connect", "connect", "connect", "disconnect",
                 "remove", "rename", "configure", "call", "move", "move", "arrange", "outputs",
                 "undo", "undo", "redo"])
    try:
        if kind == "input" or not names:
            g.add_input((4,))
        elif kind == "dense":
            g.add_layer("Dense", units=4)
        elif kind == "merge":
            g.add_layer(pick(["Add", "Concatenate"]))
        elif kind == "connect":
            src, dst = pick(names), pick(names)
            g.connect((src, rng.randrange(g.calls(src)), 0), dst, call=rng.randrange(g.calls(dst)))
        elif kind == "disconnect" and g.edges:
            src, (dst, call, slot) = pick(g.edges)
            g.disconnect(src, dst, call=call, slot=slot)
        elif kind == "remove":
            g.remove(pick(names))
        elif kind == "rename":
            g.rename(pick(names), f"r{rng.randrange(1000)}")
        elif kind == "configure":
            dense = [n for n in names if g.layers[n]["class_name"] == "Dense"]
            if dense:
                g.configure(pick(dense), units=rng.choice([2, 4, 8]))
        elif kind == "call":
            g.add_call(pick(names))
        elif kind == "move":
            g.move(pick(names), rng.randrange(-500, 500), rng.randrange(-500, 500))
        elif kind == "arrange":
            g.arrange()
        elif kind == "outputs" and g.outputs:
            g.set_outputs([pick(g.outputs)])
        elif kind == "undo":
            g.undo()
        elif kind == "redo":
            g.redo()
    except EditError:
        pass


def replay(seed: int, steps: int):
    """The initial full state, every diff sent, and the tracker (holding the final state)."""
    rng = random.Random(seed)
    g = kc.Graph()
    tracker = Tracker(g)
    initial, diffs = tracker.full(), []
    def push(_g):  # as the canvas does: the diff before Keras builds the model, then its answer
        diffs.append(tracker.update(quick=True))
        diffs.append(tracker.update())

    g.observe(push)
    for _ in range(steps):
        random_edit(g, rng)
    return initial, [d for d in diffs if d is not None], tracker, g


@settings(max_examples=12, deadline=None, suppress_health_check=list(HealthCheck))
@given(st.integers(0, 2**32 - 1))
@example(1079)  # (a Dense cut off from the Input kept its weights: counted, not Keras's)
def test_diffs_applied_in_order_reproduce_the_full_state_exactly(seed):
    initial, diffs, tracker, g = replay(seed, 25)
    held = initial
    for d in diffs:
        held = apply(held, d)
        json.dumps(d)  # what travels is JSON
    assert held == tracker.full() == {**g.state(), "revision": tracker.revision}
    if g.model is not None:  # the boxes' sum is Keras's count
        assert held["model"]["params"] == g.model.count_params()


def test_a_lost_diff_is_detected_and_a_full_state_recovers():
    initial, diffs, tracker, _ = replay(7, 12)
    held = apply(initial, diffs[0])
    with pytest.raises(ValueError, match="ask for the full state"):
        apply(held, diffs[2])  # diffs[1] never arrived
    held = tracker.full()  # what the "state" intent answers
    assert held["revision"] == diffs[-1]["revision"]


def test_the_fixture_vitest_replays_is_what_the_kernel_sends():
    if os.environ.get("KC_WRITE_FIXTURES") == "1":
        initial, diffs, tracker, _ = replay(11, 40)
        lost = apply(apply(initial, diffs[0]), diffs[1])  # a browser that will miss diffs[2]
        FIXTURE.parent.mkdir(parents=True, exist_ok=True)
        FIXTURE.write_text(json.dumps({"initial": initial, "diffs": diffs, "final": tracker.full(),
                                       "lost_at": 2, "held_before_loss": lost}, indent=None))
    fixture = json.loads(FIXTURE.read_text())
    held = fixture["initial"]
    for d in fixture["diffs"]:
        held = apply(held, d)
    assert held == fixture["final"] and len(fixture["diffs"]) > 20


def chain(n: int) -> kc.Graph:
    g = kc.Graph()
    with g.batch():
        g.add_input((8,), name="x")
        prev = "x"
        for i in range(n):
            name = g.add_layer("Dense", units=8, name=f"d{i}")
            g.connect(prev, name)
            prev = name
    return g


def test_a_move_sends_its_box_only_and_a_structural_edit_at_the_end_sends_little():
    c = kc.Canvas(chain(300))
    sent = []
    c.send = lambda content, buffers=None: sent.append(content)
    c.graph.move("d150", -1000, 20)  # clear of the other boxes: none has to move aside
    move = json.dumps(sent[-1])
    assert set(sent[-1]["diff"]) == {"base", "revision", "view"}
    assert list(sent[-1]["diff"]["view"]) == ["d150"] and len(move) < 300
    c.graph.add_layer("Dense", units=2, name="head")
    c.graph.connect("d299", "head")
    assert all(len(json.dumps(m)) < 2000 for m in sent[1:])
    assert "top" in sent[-1]["diff"]  # every depth shifted by one: told by one number


def test_expanding_a_nested_model_sends_that_box_again():
    import keras

    x = keras.Input((3,), name="x")
    inner = keras.Sequential([keras.Input((3,), name="i"), keras.layers.Dense(2, name="d")], name="inner")
    c = kc.Canvas(kc.Graph.from_model(keras.Model(x, inner(x))))
    held, sent = c.snapshot, []
    c.send = lambda content, buffers=None: sent.append(content)
    c.graph.expand("inner")
    c.graph.move("x", 5, 5)
    c.graph.undo(), c.graph.undo(), c.graph.redo()
    for m in sent:
        held = apply(held, m["diff"])
    assert held == c.state and next(l for l in held["layers"] if l["name"] == "inner")["expanded"]
    assert held["model"]["params"] == c.graph.model.count_params() == 8
    assert [m["diff"]["layers"]["patch"][0]["name"] for m in sent if "layers" in m["diff"]] == \
        ["inner", "inner", "inner"]


class _Refused(keras.Model):
    """keras.Model refusing every model, to stand for a drawing Keras refuses that kerascanvas's
    own checks pass (rare: those checks are Keras's own rules for a functional model)."""

    def __new__(cls, *args, **kwargs):
        raise ValueError("Keras says no.")


def test_an_edit_s_diff_leaves_before_keras_builds_the_model_and_its_refusal_follows(monkeypatch):
    g = chain(3)
    g.add_layer("Dense", units=2, name="head")
    c = kc.Canvas(g)
    sent = []
    c.send = lambda content, buffers=None: sent.append((content, g.model_checked))
    c.graph.connect("d2", "head")  # a model Keras accepts: the second diff has nothing to say
    assert [checked for m, checked in sent if "diff" in m] == [False]
    # (head, wired to no Input before, was left out: no problem to clear, its note goes)
    assert sent[0][0]["diff"].get("problems", []) == [] and c.graph.model is not None
    monkeypatch.setattr(keras, "Model", _Refused)
    held = c.state
    sent.clear()
    with c.graph.batch():  # (one edit: a box wired to no Input is no problem, only left out)
        c.graph.add_layer("Dense", units=2, name="head2")
        c.graph.connect("head", "head2")
    diffs = [m["diff"] for m, _ in sent if "diff" in m]
    assert [checked for m, checked in sent if "diff" in m] == [False, True]
    assert diffs[-2].get("problems", []) == [] and diffs[-2]["model"] is not None  # a model
    assert "Keras says no" in diffs[-1]["problems"][0]["message"] and diffs[-1]["model"] is None
    monkeypatch.undo()
    for m, _ in sent:
        held = apply(held, m["diff"])
    assert held == c.state and held["problems"] == c.graph.state()["problems"]


def test_the_garbage_collector_waits_while_an_intent_is_answered():
    import gc

    c = kc.Canvas(chain(3))
    seen = []
    c.graph.observe(lambda _g: seen.append(gc.isenabled()))
    c.send = lambda content, buffers=None: None
    assert gc.isenabled()
    c.receive({"kind": "add_layer", "id": 1, "class_name": "Dense", "config": {"units": 2}})
    assert seen == [False] and gc.isenabled()
    gc.disable()
    try:  # a user's own choice is kept
        c.receive({"kind": "move", "id": 2, "name": "d0", "x": 1, "y": 2})
        assert not gc.isenabled()
    finally:
        gc.enable()


def test_outside_a_kernel_keras_s_check_and_the_collector_wait_for_nothing():
    """Any running asyncio loop is not a kernel's: Playwright's sync API keeps one "running" that
    only turns when it is used, and work left on it never ran (the collector stayed off)."""
    import asyncio
    import gc
    import threading

    c = kc.Canvas(chain(3))
    c.send = lambda content, buffers=None: None

    async def inside_a_loop():
        c.receive({"kind": "add_layer", "id": 1, "class_name": "Dense", "config": {"units": 2}})
        c.receive({"kind": "connect", "id": 2, "src": ["d2", 0, 0], "dst": ["dense", 0, None]})
        return c.graph.model_checked, gc.isenabled()

    seen = []  # in a thread of its own: this thread may hold Playwright's loop already
    worker = threading.Thread(target=lambda: seen.append(asyncio.run(inside_a_loop())))
    worker.start()
    worker.join()
    assert seen == [(True, True)]


def test_in_a_kernel_the_check_follows_the_diff_and_waits_no_longer_than_the_next_intent():
    jupyter_client = pytest.importorskip("jupyter_client")
    km, client = jupyter_client.manager.start_new_kernel(kernel_name="python3")
    try:
        def run(code):
            out = []
            reply = client.execute_interactive(code, timeout=120, output_hook=lambda m: out.append(
                m["content"].get("text", "")) if m["msg_type"] == "stream" else None)
            assert reply["content"]["status"] == "ok", reply["content"]
            return "".join(out).split()

        assert run("""
import gc, kerascanvas as kc
g = kc.Graph(); g.add_input((4,), name='x'); g.add_layer('Dense', units=2, name='d')
c = kc.Canvas(g)
c.receive({'kind': 'connect', 'id': 1, 'src': ['x', 0, 0], 'dst': ['d', 0, None]})
print(g.model_checked, gc.isenabled())
g2 = kc.Graph(); g2.add_input((4,), name='x'); g2.add_layer('Dense', units=2, name='d')
c2 = kc.Canvas(g2)
c2.receive({'kind': 'connect', 'id': 1, 'src': ['x', 0, 0], 'dst': ['d', 0, None]})
c.receive({'kind': 'move', 'id': 2, 'name': 'd', 'x': 5, 'y': 5})
print(g2.model_checked)
""") == ["False", "False", "True"]  # the diff went first; the next intent ran what waited
        import time
        time.sleep(0.5)
        assert run("print(g.model_checked, gc.isenabled())") == ["True", "True"]
        assert run("""
from kerascanvas.canvas import later
for i in range(5):
    g.add_layer('Dense', units=2)
print(later.waiting(), g.model_checked)
""") == ["1", "False"]  # five edits in a cell: one check waits for all of them
        time.sleep(0.5)
        assert run("print(g.model_checked)") == ["True"]
    finally:
        client.stop_channels()
        km.shutdown_kernel(now=True)
