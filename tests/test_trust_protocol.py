"""Who may name a class, through the widget protocol and files: the browser adds only catalog
layers, allow-listed keras.ops and classes the kernel registered; nothing else comes in through a
nested model's config or a file either (tests/test_widget_protocol.py style)."""

import json
import zipfile

import keras
import pytest
from support import fingerprint, ok, recorder, sent

import kerascanvas as kc
from kerascanvas.kinds import custom


@pytest.fixture
def canvas():
    c = kc.Canvas()
    recorder(c)
    c.graph.add_input((4,), name="x")
    return c


def intent(canvas, **message):
    canvas.receive(message)
    return sent(canvas)[-1]


class Secret(keras.layers.Layer):
    def call(self, x):
        return x


@pytest.mark.parametrize("class_name", [
    "Secret", "LayerScale", "CustomScaleLayer", "stop_gradient", "einsum", "keras.ops.add",
    "keras.src.ops.numpy.Add", "numpy.add", "GetItem", "Functional", "Sequential", "Lambda",
    "__import__", "os.system"])
def test_the_browser_cannot_add_what_the_kernel_does_not_offer(canvas, class_name):
    before = fingerprint(canvas.graph)
    reply = intent(canvas, kind="add_layer", id=1, class_name=class_name)
    assert "not a layer the canvas offers" in reply["error"]
    assert fingerprint(canvas.graph) == before


def test_the_browser_adds_allow_listed_ops_and_registered_classes(canvas):
    assert intent(canvas, kind="add_layer", id=1, class_name="expand_dims",
                  config={"axis": 1})["result"] == "expand_dims"
    assert intent(canvas, kind="connect", id=2, src=["x", 0, 0], dst=["expand_dims", 0, None])["ok"]
    assert tuple(ok(canvas.graph).model.output.shape) == (None, 1, 4)
    reply = intent(canvas, kind="configure", id=3, name="expand_dims",
                   config={"axis": {"class_name": "Lambda", "config": {}}})
    assert "error" in reply
    try:
        kc.register(Secret)
        assert intent(canvas, kind="add_layer", id=4, class_name="Secret")["result"] == "secret"
    finally:
        custom.unregister("Secret")


def nested_canvas():
    x = keras.Input((3,), name="x")
    inner = keras.Sequential([keras.Input((3,), name="i"), keras.layers.Dense(3, name="d")],
                             name="inner")
    c = kc.Canvas(kc.Graph.from_model(keras.Model(x, inner(x))))
    recorder(c)
    return c


@pytest.mark.parametrize("entry", [
    {"module": "corpus", "class_name": "Secret", "config": {"name": "s"}},
    {"module": "keras.src.ops.numpy", "class_name": "GetItem", "config": {"name": "g"}},
    {"module": "keras.src.ops.numpy", "class_name": "Einsum", "config": {"name": "e"}},
    {"module": "os", "class_name": "system", "config": {"name": "s"}},
    {"module": "keras.layers", "class_name": "Lambda", "config": {"name": "l", "function": "x"}},
    {"module": "keras.src.ops.numpy", "class_name": "Add",
     "config": {"name": "a", "x2": {"class_name": "Lambda", "config": {}}}},
])
def test_nothing_is_smuggled_through_a_nested_model_config(entry):
    c = nested_canvas()
    config = json.loads(json.dumps(dict(c.graph.layers["inner"]["config"])))
    config["layers"].append({**entry, "registered_name": entry["class_name"]})
    before = fingerprint(c.graph)
    reply = intent(c, kind="configure", id=1, name="inner", config={"layers": config["layers"]})
    assert "error" in reply
    assert fingerprint(c.graph) == before


def rewritten(tmp_path, g, change):
    path = tmp_path / "g.kc"
    g.save(path)
    with zipfile.ZipFile(path) as z:
        doc, weights = json.loads(z.read("kerascanvas.json")), z.read("weights.npz")
    change(doc)
    with zipfile.ZipFile(path, "w") as z:
        z.writestr("kerascanvas.json", json.dumps(doc))
        z.writestr("weights.npz", weights)
    return path


def test_a_file_naming_an_unregistered_class_is_refused_with_how_to_register(tmp_path):
    g = kc.Graph()
    g.add_input((4,), name="x")
    g.add_layer("relu")
    g.connect("x", "relu")

    def smuggle(doc):
        doc["layers"][1]["class_name"] = "Secret"

    with pytest.raises(ValueError, match=r"'Secret'.*kc.register\(TheClass\)"):
        kc.Graph.load(rewritten(tmp_path, g, smuggle))

    def off_list(doc):  # (a file may name any keras.ops operation an import can hold)
        doc["layers"][1]["class_name"] = "no_such_op"

    with pytest.raises(ValueError, match="'no_such_op'.*not a layer the canvas offers"):
        kc.Graph.load(rewritten(tmp_path, g, off_list))

    def path_as_name(doc):
        doc["layers"][1]["class_name"] = "keras.src.ops.numpy.GetItem"

    with pytest.raises(ValueError, match="not a layer the canvas offers"):
        kc.Graph.load(rewritten(tmp_path, g, path_as_name))
