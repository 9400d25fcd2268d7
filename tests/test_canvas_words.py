"""What the canvas shows speaks the canvas's words: refusals, the problems list (and the boxes'
problem badges) and the training status never tell someone drawing to type a Python call
("add_input()", "canvas.stop()", "connect to call=1"). Keras's own sentences, after
"Keras refused ...:", are Keras's and left alone. The Python API keeps its Python wording."""

import random
import re

import numpy as np
import pytest

import kerascanvas as kc
from kerascanvas.words import canvas_words

PYTHON = [
    re.compile(r"\b[A-Za-z_][\w.]*\(\)"),              # add_input(), canvas.stop()
    re.compile(r"\b[A-Za-z_][\w.]*\([a-z_]+="),         # kc.Canvas(path=, Input(shape=
    re.compile(r"\b(?:call|slot|node_index|tensor_index)=\w"),  # connect to call=1, slot=None
    re.compile(r"\b(?:canvas|g|kc|kerascanvas)\.[A-Za-z_][\w.]*\("),  # canvas.set_data(x, y)
]


def ours(message: str) -> str:
    """The part of a message kerascanvas wrote: Keras's explanation after its header is Keras's."""
    return re.sub(r"(Keras refused[^:]*):.*", r"\1", message, flags=re.DOTALL)


def python_in(message: str) -> list[str]:
    return [m.group() for p in PYTHON for m in p.finditer(ours(message))]


class Recorder:
    """A canvas driven as the browser drives it, keeping everything it showed."""

    def __init__(self, canvas):
        self.canvas, self.shown, self.replies = canvas, [], []
        canvas.send = lambda content, buffers=None: self.replies.append(content)

    def intent(self, **message):
        self.canvas.receive({"id": 1, **message})
        reply = self.replies[-1]
        if "error" in reply:
            self.shown.append((message["kind"], reply["error"]))
        if isinstance(reply.get("result"), dict) and reply["result"].get("error"):
            self.shown.append((message["kind"], reply["result"]["error"]))  # the code panel
        self.look()
        return reply

    def look(self):
        state = self.canvas.wire_state()
        self.shown += [("problem", p["message"]) for p in state["problems"]]
        self.shown += [("badge", m) for layer in state["layers"] for m in layer.get("problems", ())]
        status = self.canvas.training.get("status") or {}
        if status.get("message"):
            self.shown.append(("training", status["message"]))

    def offending(self):
        return sorted({(kind, m) for kind, m in self.shown if python_in(m)})


def test_the_known_python_phrases_are_said_in_canvas_words():
    rec = Recorder(kc.Canvas())
    rec.look()  # an empty drawing: "no Input"
    assert any("drag an Input from the palette" in m for _, m in rec.shown)
    rec.intent(kind="add_input", shape=[4], name="a")
    rec.intent(kind="add_input", shape=[4], name="b")
    rec.intent(kind="add_layer", class_name="Dense")
    rec.intent(kind="add_layer", class_name="Add")
    rec.intent(kind="connect", src=["a", 0, 0], dst=["dense", 0, 0])
    said = rec.intent(kind="connect", src=["b", 0, 0], dst=["dense", 0, 0])["error"]
    assert "Call again (shared weights)" in said
    rec.intent(kind="connect", src=["a", 0, 0], dst=["dense", 3, 0])   # a call that does not exist
    rec.intent(kind="connect", src=["a", 0, 0], dst=["add", 0, None])
    rec.intent(kind="connect", src=["b", 0, 0], dst=["add", 0, 0])     # a taken list slot
    said = rec.intent(kind="configure", name="dense", config={"name": "x"})["error"]
    assert "name field" in said and "configure()" not in said
    said = rec.intent(kind="configure", name="a", config={"shape": [0]})["error"]
    said = rec.intent(kind="save")["error"]
    assert said == "This canvas has no file yet: Save as… names one (in the notebook's folder)."
    said = rec.intent(kind="load")["error"]
    assert said == "This canvas has no file yet: Load… names one (in the notebook's folder)."
    said = rec.intent(kind="train")["error"]  # the drawing is not complete: problems joined
    assert ".;" not in said
    rec.intent(kind="disconnect", src=["b", 0, 0], dst=["dense", 0, 0])  # no such edge
    rec.intent(kind="code")
    rec.intent(kind="remove", names=["add", "b"])
    said = rec.intent(kind="train")["error"]  # complete now, but no data
    assert "notebook cell" in said and "set_data(" not in said
    assert rec.offending() == []


def test_training_says_stop_as_a_button():
    canvas = kc.Canvas()
    g = canvas.graph
    g.add_input((4,), name="x")
    g.add_layer("Dense", units=1, name="y")
    g.connect("x", "y")
    rec = Recorder(canvas)
    canvas.set_data(np.zeros((64, 4), "float32"), np.zeros((64, 1), "float32"))
    g.lock("Training is running: the graph cannot be edited until it ends. "
           "Stop it (canvas.stop()) or wait for it to finish.")
    try:
        said = rec.intent(kind="add_layer", class_name="Dense")["error"]
    finally:
        g.unlock()
    assert "Press Stop" in said
    rec.intent(kind="train", epochs=1)
    canvas.trainer.wait()
    rec.look()
    assert any(kind == "training" for kind, _ in rec.shown)
    assert rec.offending() == []
    # the Python API keeps its Python wording, where it is right
    fresh = kc.Graph()
    fresh.add_input((4,), name="x")
    fresh.add_layer("Dense", units=1, name="y")
    fresh.connect("x", "y")
    with pytest.raises(Exception, match=re.escape("call set_data(x, y) first")):
        kc.Canvas(fresh).fit()


CLASSES = ["Dense", "Conv2D", "Flatten", "Add", "Concatenate", "MultiHeadAttention", "LSTM",
           "Dropout", "Reshape", "Subtract"]
BAD_CONFIGS = [{"units": -1}, {"units": "many"}, {"filters": 0}, {"rate": 7}, {"name": "x"},
               {"target_shape": [3, 5]}, {"num_heads": 0}, {"activation": "nope"}]


def _fuzz(seed: int, steps: int = 60) -> Recorder:
    """Random gestures, as the browser sends them, on a drawing that is broken most of the time."""
    rnd = random.Random(seed)
    rec = Recorder(kc.Canvas())
    rec.look()
    for _ in range(steps):
        g = rec.canvas.graph
        names = list(g.layers)
        name = rnd.choice(names) if names else "nothing"
        other = rnd.choice(names) if names else "nothing"
        src = [name, rnd.choice([0, 0, 1]), rnd.choice([0, 0, 1])]
        dst = [other, rnd.choice([0, 0, 1, 2]), rnd.choice([0, 1, 2, None])]
        action = rnd.choice(["input", "layer", "layer", "connect", "connect", "connect",
                             "disconnect", "remove", "bridge", "configure", "rename", "call",
                             "uncall", "undo", "redo", "rewire", "insert", "code", "train",
                             "steps", "save", "expand"])
        if action == "input":
            rec.intent(kind="add_input", shape=rnd.choice([[4], [8, 8, 1], [6, 8], [0], [None]]))
        elif action == "layer":
            rec.intent(kind="add_layer", class_name=rnd.choice(CLASSES),
                       **({"src": src} if rnd.random() < 0.3 else {}))
        elif action == "connect":
            rec.intent(kind="connect", src=src, dst=dst)
        elif action == "disconnect":
            edges = g.edges
            if edges and rnd.random() < 0.7:
                s, d = rnd.choice(edges)
                rec.intent(kind="disconnect", src=list(s), dst=list(d))
            else:
                rec.intent(kind="disconnect", src=src, dst=[other, 0, 0])
        elif action in ("remove", "bridge"):
            rec.intent(kind="remove", names=[name], **({"bridge": True} if action == "bridge" else {}))
        elif action == "configure":
            rec.intent(kind="configure", name=name, config=rnd.choice(BAD_CONFIGS))
        elif action == "rename":
            rec.intent(kind="rename", name=name, new_name=rnd.choice([other, "a/b", "fresh", " "]))
        elif action == "call":
            rec.intent(kind="add_call", name=name)
        elif action == "uncall":
            rec.intent(kind="remove_call", name=name, call=rnd.choice([0, 1, 2]))
        elif action in ("undo", "redo"):
            rec.intent(kind=action)
        elif action == "rewire":
            edges = g.edges
            if edges:
                s, d = rnd.choice(edges)
                rec.intent(kind="rewire", src=list(s), old=list(d),
                           new=None if rnd.random() < 0.3 else dst)
        elif action == "insert":
            edges = g.edges
            if edges:
                s, d = rnd.choice(edges)
                rec.intent(kind="insert_layer", class_name=rnd.choice(CLASSES), src=list(s), dst=list(d))
        elif action == "code":
            rec.intent(kind="code")
        elif action == "train":
            rec.intent(kind="train", epochs=1)
        elif action == "steps":
            rec.intent(kind=rnd.choice(["depth_steps", "forward_steps"]))
        elif action == "save":
            rec.intent(kind=rnd.choice(["save", "load"]))
        elif action == "expand":
            rec.intent(kind="expand", name=name, open=True)
    return rec


@pytest.mark.parametrize("seed", range(6))
def test_no_python_call_reaches_the_canvas_from_random_broken_drawings(seed):
    rec = _fuzz(seed)
    assert len({m for _, m in rec.shown}) > 5  # it did see refusals and problems
    assert rec.offending() == []


def test_the_rules_leave_keras_and_plain_words_alone():
    keras_says = "Keras refused the config of d (Dense): Received: units=-1"
    assert canvas_words(keras_says) == keras_says
    assert python_in(keras_says) == []
    assert python_in("The drawing has no Input: add one with add_input().") == ["add_input()"]
    assert python_in("d call 0 already has its input; connect to call=1.") == ["call=1"]


def test_a_blank_name_is_refused():
    """Found by the fuzz above: a box renamed to " " showed no name and could not be found."""
    rec = Recorder(kc.Canvas())
    rec.intent(kind="add_input", shape=[4], name="a")
    assert "visible character" in rec.intent(kind="rename", name="a", new_name="  ")["error"]
    with pytest.raises(ValueError, match="visible character"):
        rec.canvas.graph.add_layer("Dense", name=" ")
    assert list(rec.canvas.graph.layers) == ["a"]


def test_a_refused_bridge_says_which_gesture_failed_and_what_works():
    rec = Recorder(kc.Canvas())
    g = rec.canvas.graph
    g.add_input((8,), name="vec")
    g.add_layer("Reshape", target_shape=(2, 4), name="steps")
    g.add_layer("LSTM", units=3, name="head")
    g.connect("vec", "steps")
    g.connect("steps", "head")
    said = rec.intent(kind="remove", names=["steps"], bridge=True)["error"]
    assert said.startswith("steps cannot be deleted keeping the chain joined (Delete alone")
    assert "expected ndim=3" in said  # Keras's reason follows
    assert "steps" in g.layers and len(g.edges) == 2
