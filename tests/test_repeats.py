"""Repeated blocks are found from the structure alone: ResNet50's identity blocks per stage,
residual blocks drawn on the canvas, Dense-Dropout pairs; configs, wiring and shared layers tell
copies apart."""

import itertools

import pytest
from support import residual

import kerascanvas as kc
from kerascanvas.geometry.repeats import Repeat, repeated_blocks


def chain(g, names_and_layers):
    prev = g.add_input((8,), name="x")
    for name, (class_name, config) in names_and_layers:
        g.add_layer(class_name, name=name, **config)
        g.connect(prev, name)
        prev = name
    return g


def found(g, **kw):
    return repeated_blocks(g.layers, g.edges, **kw)


def test_plain_data_in_names_out():
    layers = {"x": {"class_name": "InputLayer", "config": {}},
              **{f"{k}{i}": {"class_name": c, "config": {"name": f"{k}{i}", "v": 1}}
                 for i in range(3) for k, c in (("d", "Dense"), ("r", "ReLU"))}}
    order = ["x"] + [f"{k}{i}" for i in range(3) for k in "dr"]
    edges = [((a, 0, 0), (b, 0, 0)) for a, b in itertools.pairwise(order)]
    assert repeated_blocks(layers, edges) == [
        Repeat((("d0", "r0"), ("d1", "r1"), ("d2", "r2")), ("Dense", "ReLU"))]


def test_dense_dropout_pairs_are_one_run():
    g = chain(kc.Graph(), [(f"{k}{i}", (c, cfg)) for i in range(4)
                           for k, c, cfg in (("dense", "Dense", {"units": 8}), ("drop", "Dropout", {"rate": 0.2}))])
    (run,) = found(g)
    assert run.blocks == tuple((f"dense{i}", f"drop{i}") for i in range(4))
    assert run.classes == ("Dense", "Dropout")


def test_a_different_config_ends_the_run():
    g = chain(kc.Graph(), [("a", ("Dense", {"units": 8})), ("b", ("Dropout", {"rate": 0.2})),
                           ("c", ("Dense", {"units": 8})), ("d", ("Dropout", {"rate": 0.2})),
                           ("e", ("Dense", {"units": 16})), ("f", ("Dropout", {"rate": 0.2}))])
    (run,) = found(g)
    assert run.blocks == (("a", "b"), ("c", "d"))


def test_identical_single_layers_are_not_pairs():
    g = chain(kc.Graph(), [(f"d{i}", ("Dense", {"units": 8})) for i in range(4)])
    assert found(g) == []  # four Dense are not two blocks of two Dense
    (run,) = found(g, min_layers=1)
    assert run.blocks == (("d0",), ("d1",), ("d2",), ("d3",))


def test_residual_blocks_drawn_on_the_canvas():
    g = kc.Graph()
    prev = g.add_input((8,), name="x")
    for i in range(3):
        prev = residual(g, prev, i)
    g.add_layer("Dense", units=2, name="head")
    g.connect(prev, "head")
    (run,) = found(g)
    assert run.blocks == tuple((f"b{i}_a", f"b{i}_b", f"b{i}_add", f"b{i}_out") for i in range(3))


def test_wiring_tells_copies_apart():
    # the same layers, but the second block's skip feeds the Add's other slot
    g = kc.Graph()
    prev = residual(g, g.add_input((8,), name="x"), 0)
    g.add_layer("Dense", units=8, activation="relu", name="b1_a")
    g.add_layer("Dense", units=8, name="b1_b")
    g.add_layer("Add", name="b1_add")
    g.add_layer("ReLU", name="b1_out")
    g.connect(prev, "b1_a")
    g.connect("b1_a", "b1_b")
    g.connect(prev, "b1_add")  # slot 0: the skip first
    g.connect("b1_b", "b1_add")
    g.connect("b1_add", "b1_out")
    assert found(g) == []


def test_a_shared_layer_is_never_a_copy():
    g = chain(kc.Graph(), [("d0", ("Dense", {"units": 8})), ("r0", ("ReLU", {})),
                           ("d1", ("Dense", {"units": 8})), ("r1", ("ReLU", {}))])
    g.add_layer("ReLU", name="r2")
    g.connect(("d1", 0, 0), "r2")
    g.connect("r2", "d1", call=1)  # d1 called again: its calls are in two places
    assert all("d1" not in block for run in found(g) for block in run.blocks)


def test_resnet50_stages():
    keras = pytest.importorskip("keras")
    g = kc.Graph.from_model(keras.applications.ResNet50(weights=None))
    runs = found(g)
    assert [len(r.blocks) for r in runs] == [2, 3, 5, 2]  # identity blocks per stage
    for stage, run in zip((2, 3, 4, 5), runs):
        for k, block in enumerate(run.blocks, start=2):
            assert block[0] == f"conv{stage}_block{k}_1_conv" and block[-1] == f"conv{stage}_block{k}_out"
            assert all(name.startswith(f"conv{stage}_block{k}_") for name in block)
        assert run.classes == ("Conv2D", "BatchNormalization", "Activation") * 2 + (
            "Conv2D", "BatchNormalization", "Add", "Activation")
