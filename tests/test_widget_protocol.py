"""The widget protocol without a browser: intents as the front end sends them, hostile ones too."""

from unittest.mock import MagicMock

import pytest
from support import fingerprint, history, ok

import kerascanvas as kc


@pytest.fixture
def canvas():
    c = kc.Canvas()
    c._sent = []
    c.send = lambda content, buffers=None: c._sent.append(content)
    return c


def intent(canvas, **message):
    canvas._on_message(canvas, message, [])
    return canvas._sent[-1]


def test_intents_build_a_model_and_state_follows(canvas):
    assert intent(canvas, kind="add_input", id=1, shape=[28, 28, 1], name="image") == {
        "id": 1, "ok": True, "result": "image"}
    assert intent(canvas, kind="add_layer", id=2, class_name="Conv2D", x=10, y=120)["result"] == "conv2d"
    intent(canvas, kind="add_layer", id=3, class_name="Flatten")
    intent(canvas, kind="add_layer", id=4, class_name="Dense", config={"units": 10})
    for src, dst in [("image", "conv2d"), ("conv2d", "flatten"), ("flatten", "dense")]:
        assert intent(canvas, kind="connect", id=5, src=[src, 0, 0], dst=[dst, 0, None])["ok"]
    g = ok(canvas.graph)
    assert [layer.name for layer in g.model.layers] == ["image", "conv2d", "flatten", "dense"]
    assert history(g, "dense", 0, 0) == ("flatten", 0, 0)
    assert canvas.state["model"]["params"] == g.model.count_params()
    assert g.positions["conv2d"] == (10.0, 120.0) and "conv2d" in g.pinned


def test_python_edits_reach_the_state_trait_at_once(canvas):
    canvas.graph.add_input((4,), name="x")
    assert [layer["name"] for layer in canvas.state["layers"]] == ["x"]
    assert intent(canvas, kind="undo", id=9)["ok"] and canvas.state["layers"] == []


def test_refused_edit_answers_with_keras_message_and_changes_nothing(canvas):
    intent(canvas, kind="add_input", id=1, shape=[4], name="a")
    intent(canvas, kind="add_input", id=2, shape=[5], name="b")
    intent(canvas, kind="add_layer", id=3, class_name="Add")
    intent(canvas, kind="connect", id=4, src=["a", 0, 0], dst=["add", 0, None])
    before = fingerprint(canvas.graph)
    reply = intent(canvas, kind="connect", id=5, src=["b", 0, 0], dst=["add", 0, None])
    assert reply["id"] == 5 and "incompatible shapes" in reply["error"]
    assert fingerprint(canvas.graph) == before


HOSTILE = [
    "not a dict", ["list"], {"kind": "exec", "id": 1}, {"kind": "__class__", "id": 1},
    {"kind": "add_layer", "id": 1, "class_name": "os.system"},
    {"kind": "add_layer", "id": 1, "class_name": "Lambda"},
    {"kind": "add_layer", "id": 1, "class_name": "keras.src.layers.Dense"},
    {"kind": "add_layer", "id": 1, "class_name": "Dense", "config": {"__import__": 1}},
    {"kind": "add_layer", "id": 1, "class_name": "Dense", "config": {"units": float("nan")}},
    {"kind": "add_layer", "id": 1, "class_name": "Dense", "config": {"units": [[[[[[[[1]]]]]]]]}},
    {"kind": "add_layer", "id": 1, "class_name": "Dense", "name": "x" * 101},
    {"kind": "add_input", "id": 1, "shape": [-1]},
    {"kind": "add_input", "id": 1, "shape": [10**12]},
    {"kind": "add_input", "id": 1, "shape": "(3,)"},
    {"kind": "add_input", "id": 1, "shape": [3], "dtype": "object"},
    {"kind": "connect", "id": 1, "src": ["x", 0], "dst": ["d", 0, None]},
    {"kind": "connect", "id": 1, "src": ["x", -1, 0], "dst": ["d", 0, None]},
    {"kind": "connect", "id": 1, "src": ["x", 0, 0], "dst": "d"},
    {"kind": "move", "id": 1, "name": "x", "x": float("inf"), "y": 0},
    {"kind": "move", "id": 1, "name": "x", "x": True, "y": 0},
    {"kind": "remove", "id": 1, "names": ["x"] * 500},
    {"kind": "rename", "id": 1, "name": "x", "new_name": "a/b"},
    {"kind": "remove_call", "id": 1, "name": "x", "call": "0"},
]


@pytest.mark.parametrize("message", HOSTILE, ids=range(len(HOSTILE)))
def test_hostile_intents_get_errors_and_change_nothing(canvas, message):
    canvas.graph.add_input((3,), name="x")
    before = fingerprint(canvas.graph)
    canvas._on_message(canvas, message, [])
    assert "error" in canvas._sent[-1] and canvas._sent[-1]["error"]
    assert fingerprint(canvas.graph) == before


def test_names_are_data_not_markup(canvas):
    name = "<img src=x onerror=alert(1)>"
    assert intent(canvas, kind="add_input", id=1, shape=[3], name=name)["ok"]
    assert canvas.state["layers"][0]["name"] == name


def test_canvas_arguments_are_checked():
    with pytest.raises(TypeError):
        kc.Canvas(graph="not a graph")
    with pytest.raises(TypeError):
        kc.Canvas(colour="red")


def test_comm_messages_reach_the_handler():
    c = kc.Canvas()
    c._send = MagicMock()
    c._handle_custom_msg({"kind": "add_input", "id": 7, "shape": [2]}, [])
    assert c.graph.inputs == ["input_layer"]
