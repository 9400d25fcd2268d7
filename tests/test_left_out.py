"""Boxes wired to no Input are left out of the model with a note, as node editors leave out what
is not connected (issue 43): a Dense dropped on the canvas and not wired yet no longer makes
`g.model` None, so training, code and files go on while the user wires it."""

import keras
import numpy as np
from support import ok

import kerascanvas as kc


def wired():
    g = kc.Graph()
    x = g.add_input((4,))
    d = g.add_layer("Dense", units=2, name="head")
    g.connect(x, d)
    return g


def test_an_unwired_box_is_left_out_with_a_note(tmp_path):
    g = wired()
    g.add_layer("Dense", units=3, name="dropped")
    assert g.problems == [] and g.left_out == ["dropped"]
    assert [layer.name for layer in g.model.layers] == ["input_layer", "head"]
    assert g.state()["notes"] == ["Not wired to an Input, left out of the model: dropped."]
    assert g.state()["model"]["params"] == 10
    assert "dropped" not in g.to_code()  # the code is the model's
    g.save(tmp_path / "m.kc")  # the file keeps the box, still left out
    h = ok(kc.Graph.load(tmp_path / "m.kc"))
    assert "dropped" in h.layers and h.left_out == ["dropped"] and h.model is not None


def test_a_chain_of_unwired_boxes_is_left_out_whole():
    g = wired()
    a = g.add_layer("Dense", units=3, name="a")
    b = g.add_layer("Dense", units=3, name="b")
    g.connect(a, b)
    assert g.left_out == ["a", "b"] and g.problems == []


def test_a_box_wired_into_the_model_still_blocks_it():
    """A pending box in the Input's part of the drawing is a problem, as before: an Add given
    one input, or a box feeding it from nowhere."""
    g = wired()
    loose = g.add_layer("Dense", units=2, name="loose")
    add = g.add_layer("Add", name="add")
    g.connect("head", add, slot=0)
    g.connect(loose, add, slot=1)
    assert g.left_out == []
    assert g.model is None and {p.layer for p in g.problems} >= {"loose", "add"}


def test_wiring_it_brings_it_in_and_training_runs_meanwhile():
    g = wired()
    g.add_layer("Dense", units=1, name="later")
    g.model.compile(optimizer="sgd", loss="mse")
    g.model.fit(np.ones((4, 4)), np.ones((4, 2)), epochs=1, verbose=0)
    g.connect("head", "later")
    assert g.left_out == [] and g.state()["notes"] == []
    assert g.model.outputs[0].shape == (None, 1)
    assert isinstance(g.model, keras.Model)


def test_no_input_at_all_is_still_said():
    g = kc.Graph()
    g.add_layer("Dense", units=3)
    assert g.model is None and "no Input" in g.problems[0].message
    assert g.state()["notes"] == []
